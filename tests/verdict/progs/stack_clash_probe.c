// SPDX-License-Identifier: GPL-2.0
/*
 * A function with a 1 MiB stack frame built with -fstack-clash-protection
 * at -O2: gcc probes the frame a page at a time in a loop whose CFI say
 * "CFA = %r11 + 1044488" (.cfi_def_cfa 11, ...), %r11 being where the loop
 * ends. What the assembler makes of that row decides the verdict:
 *  - gas 2.40 (Debian 12) writes it as CFA = SP + 1044488, true only in
 *    the loop's last iteration: a walk by it reads the return address up to
 *    1 MiB above the frame;
 *  - gas 2.44 (Debian 13) skips the function's SFrame FDE (non-SP/FP
 *    register in .cfi_def_cfa);
 *  - gas 2.47 (sid) writes a FLEX FDE with CFA = r11 + 1044488: right.
 *
 *	thread_probe -> probe_big (probe loop, spinning)
 *
 * thread_probe runs in a thread of its own (the raw clone system call, as
 * in raw_clone.c) on a stack whose mapping ends right below a 2 MiB
 * PROT_NONE guard: the return address a wrong row points at, a page or
 * more above the frame, is always in the guard, so a walk by it always
 * faults (never reads a word that happens to be there). (Not makecontext:
 * its __start_context is a return address no call precedes.)
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "verdict_prog.h"

#define STACK_SIZE (4UL << 20)
#define GUARD_SIZE (2UL << 20)
#define STACK_GAP 512		/* zeroes above the thread's first return address */
#define FRAME_SIZE (1UL << 20)
#define SPIN_NS 400000000LL

static volatile int sink;
static volatile int spun;

/* 1 MiB of frame: gcc probes it page by page, in the loop the samples land in. */
__attribute__((noipa)) static int probe_big(unsigned long n)
{
	volatile char buf[FRAME_SIZE];

	buf[n & (FRAME_SIZE - 1)] = 1;
	return buf[(n * 7) & (FRAME_SIZE - 1)];
}

/* The thread: no libc call but clock_gettime (it shares the parent's TLS). */
__attribute__((noipa, noreturn)) static void thread_probe(void *arg)
{
	long long start = now_ns();
	unsigned long n = (unsigned long)arg;

	do {
		for (int i = 0; i < 64; i++)
			sink += probe_big(n++);
	} while (now_ns() - start < SPIN_NS);
	spun = 1;
	raw_clone_exit();
}

int main(void)
{
	char *region = mmap(NULL, STACK_SIZE + GUARD_SIZE, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	long ret;

	if (region == MAP_FAILED || mprotect(region, STACK_SIZE, PROT_READ | PROT_WRITE)) {
		perror("stack_clash_probe: stack");
		return 1;
	}
	ret = raw_clone(region + STACK_SIZE - STACK_GAP, thread_probe, (void *)1);
	if (ret < 0) {
		fprintf(stderr, "stack_clash_probe: clone: %s\n", strerror(-ret));
		return 1;
	}
	raw_clone_wait();
	printf("stack_clash_probe: %s\n", spun ? "done" : "thread did not spin");
	return 0;
}
