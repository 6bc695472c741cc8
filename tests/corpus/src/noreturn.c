// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: calls to a noreturn function.
 *
 * Stack shape: main -> run -> nr_outer -> {nr_last, nr_middle, nr_expect} ->
 * nr_fatal, the middle function rotating each round (a third of the time
 * each).  nr_fatal is __attribute__((noreturn)): it spins, then longjmp()s
 * back to run, and on the last round calls exit(0) from the bottom of the
 * chain.
 *
 * The return address of a call to a noreturn function is never returned
 * to, so the compiler puts nothing in particular after the call:
 *  - nr_last ends with the call, so its return address is the first byte
 *    past the function: padding or the next function, whose FDE/FRE says
 *    nothing about nr_last's frame.  An unwinder must look up RA - 1.
 *  - nr_middle calls nr_fatal on a branch and has code after it in the
 *    source; at -O0 the return address lands on that code (same function,
 *    same CFA); at -O2 the branch may be laid out at the end of the
 *    function, the return address then being in the alignment padding
 *    after the ret (outside the function's FDE, as for nr_last).
 *  - nr_expect makes the call the likely path (__builtin_expect), which at
 *    -O2 too puts code after the call: the return address is inside the
 *    function, with the CFA of the call site.
 * nr_fatal itself has no epilogue at -O2.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <time.h>

#include "corpus.h"

/* Round lengths are off any tick multiple, so tick-driven samples do not phase-lock. */
#define RUN_NS		500000000LL	/* total run time */
#define SLICE_NS	9700000LL	/* one trip down the chain */

/* Never inlined, cloned or merged: the tests match these names. */

static volatile int fatal_code = 1;
static jmp_buf env;

static noipa __attribute__((noreturn)) void nr_fatal(int code, long long end)
{
	SPIN_UNTIL(end);
	if (end >= RUN_NS)
		exit(0);
	longjmp(env, code);
}

/* The noreturn call is the last instruction of the function. */
static noipa void nr_last(long long end)
{
	volatile int frame[2];

	frame[0] = fatal_code;
	sink += frame[0];
	nr_fatal(frame[0], end);
}

/* The noreturn call is on a branch, with code after it. */
static noipa void nr_middle(long long end)
{
	volatile int frame[2];

	frame[0] = fatal_code;
	if (frame[0])
		nr_fatal(frame[0] + 1, end);
	sink += frame[0];
	frame[1] = (int)sink;
	sink += frame[1];
}

/* The noreturn call is the likely path, with code after it. */
static noipa void nr_expect(long long end)
{
	volatile int frame[2];

	frame[0] = fatal_code;
	if (__builtin_expect(frame[0] != 0, 1))
		nr_fatal(frame[0] + 2, end);
	sink += frame[0];
	frame[1] = (int)sink;
	sink += frame[1];
}

static noipa void nr_outer(unsigned int round, long long end)
{
	volatile int frame[2];

	frame[0] = (int)round;
	switch (round % 3) {
	case 0:
		nr_last(end);
		break;
	case 1:
		nr_middle(end);
		break;
	default:
		nr_expect(end);
		break;
	}
	sink += frame[0];
}

static noipa void run(void)
{
	static unsigned int round;
	long long t, end;

	for (;;) {
		setjmp(env);
		t = now_ns();
		end = t + SLICE_NS < RUN_NS ? t + SLICE_NS : RUN_NS;
		nr_outer(round++, end);
	}
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
