// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: stack realignment for over-aligned locals.
 *
 * Stack shape: main -> run -> realigned_drap -> realigned -> realign_callee,
 * each of the last three spinning about a third of every round.
 *
 * Both realigned functions have a 64-byte-aligned local array, so gcc
 * realigns the stack (and $-64, %rsp) and keeps a frame pointer even at
 * -fomit-frame-pointer:
 *  - realigned: "and" after "push %rbp; mov %rsp, %rbp", CFA = RBP + 16
 *    throughout the body.  SFrame expresses it.
 *  - realigned_drap also has a VLA, which makes gcc use a DRAP register:
 *    "lea 8(%rsp), %r10; and $-64, %rsp; push -8(%r10); push %rbp;
 *    mov %rsp, %rbp; push %r10", with CFA = R10 first, then a
 *    DW_CFA_def_cfa_expression (CFA = *(RBP - 8)).  SFrame v1 can say
 *    neither, and gas 2.40 then silently emits no SFrame FDE for the
 *    function: the walk needs a fallback there.  A frame-pointer step gets
 *    the return address (copied to RBP + 8) and the caller's RBP right, but
 *    not the caller's SP: the CFA is the saved R10, 8 to 64 bytes above
 *    RBP + 16 (the realignment plus the copied return address).  So from
 *    realigned_drap into run, an FP-based rule for run
 *    (-fno-omit-frame-pointer) recovers and an SP-based one
 *    (-fomit-frame-pointer) does not; libunwind, which evaluates the CFA
 *    expression, gets it right.
 * A plain aligned(64) local alone does not make gcc 12 use DRAP at -O0 or
 * -O2; the VLA does.
 */
#include <time.h>

#include "corpus.h"

/* Round lengths are off any tick multiple, so tick-driven samples do not phase-lock. */
#define RUN_NS		500000000LL	/* total run time */
#define SLICE_NS	14300000LL	/* one trip down the chain */

/* Never inlined, cloned or merged: the tests match these names. */

/* Thirds of the current round. */
static long long t1, t2, t3;

static noipa unsigned long realign_callee(volatile int *buf)
{
	buf[1] = buf[0] + 1;
	SPIN_UNTIL(t3);
	return (unsigned long)buf[1];
}

static noipa unsigned long realigned(int n)
{
	volatile int buf[16] __attribute__((aligned(64)));
	unsigned long r;

	buf[0] = n;
	sink += (unsigned long)&buf[0] & 63;	/* 0 */
	SPIN_UNTIL(t2);
	r = realign_callee(buf);
	return r + buf[1];
}

static noipa unsigned long realigned_drap(int n)
{
	volatile int buf[16] __attribute__((aligned(64)));
	volatile int vla[n];
	unsigned long r;

	buf[0] = n;
	vla[0] = n;
	vla[n - 1] = n;
	sink += (unsigned long)&buf[0] & 63;	/* 0 */
	SPIN_UNTIL(t1);
	r = realigned(vla[n - 1] + 1);
	return r + buf[0] + vla[0];
}

static noipa void run(void)
{
	static const int sizes[] = { 3, 40, 17, 300 };
	unsigned int round = 0;
	long long t, end;

	while ((t = now_ns()) < RUN_NS) {
		end = t + SLICE_NS < RUN_NS ? t + SLICE_NS : RUN_NS;
		t1 = t + (end - t) / 3;
		t2 = t + 2 * (end - t) / 3;
		t3 = end;
		sink += realigned_drap(sizes[round++ % 4]);
	}
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
