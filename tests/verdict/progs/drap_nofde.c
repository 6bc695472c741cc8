// SPDX-License-Identifier: GPL-2.0
/*
 * DRAP stack realignment without an SFrame FDE (gas 2.40-2.45).
 *
 * Stack shape: leaf_spin -> realigned_drap -> mid_caller -> aligned_caller
 * -> main. realigned_drap (C, -O2, no frame pointer) has a 64-byte-aligned
 * local and a VLA, so gcc realigns the stack through a DRAP register:
 * "lea 8(%rsp),%r10; and $-64,%rsp; push -8(%r10); push %rbp; mov
 * %rsp,%rbp; push %r10", CFA = R10, later *(RBP - 8). SFrame before v3
 * cannot say that: gas 2.40-2.45 emit no FDE for the function (2.44 warns
 * "skipping SFrame FDE"); gas 2.46+ emit a FLEX FDE (SFrame v3).
 *
 * Without the FDE a walk leaves realigned_drap by the frame-pointer
 * fallback, which gets the return address (the copy at RBP + 8) and the
 * caller's RBP right but not the caller's SP: RBP + 16 is the realigned
 * stack, below the real CFA. mid_caller's SFrame row (CFA = RSP + 32) then
 * reads its return address from the wrong place. Where that is depends on
 * the stack's alignment mod 64, which ASLR varies from run to run when the
 * callers are plain C (0, main again, or a stack address); the callers are
 * therefore in drap_nofde-callers.S, with frames that put realigned_drap's
 * return address at 24 mod 64: the wrong read is always realigned_drap's own
 * return address, mid_caller a second time. leaf_spin spins 0.4 s of CPU
 * time in all.
 */
#include <stdio.h>
#include <time.h>

#define SLICE_NS	2000000LL
#define TOTAL_NS	400000000LL

static volatile unsigned long sink;

static long long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((noipa)) static unsigned long leaf_spin(volatile int *buf)
{
	long long end = cpu_ns() + SLICE_NS;

	do {
		for (int i = 0; i < 4096; i++)
			sink += (unsigned long)buf[0];
	} while (cpu_ns() < end);
	return (unsigned long)buf[1];
}

unsigned long aligned_caller(int n);
unsigned long realigned_drap(int n);

__attribute__((noipa)) unsigned long realigned_drap(int n)
{
	volatile int buf[16] __attribute__((aligned(64)));
	volatile int vla[n];
	unsigned long r;

	buf[0] = n;
	buf[1] = (int)((unsigned long)&buf[0] & 63);	/* 0 */
	vla[0] = n;
	vla[n - 1] = n;
	r = leaf_spin(buf);
	return r + buf[0] + vla[0] + vla[n - 1];
}

int main(void)
{
	long long end = cpu_ns() + TOTAL_NS;
	unsigned long misaligned = 0;
	int n = 3;

	do {
		misaligned += aligned_caller(n) - 3 * (unsigned long)n;
		n = n % 300 + 17;
	} while (cpu_ns() < end);
	printf("drap_nofde: %s\n", misaligned ? "misaligned" : "done");
	return 0;
}
