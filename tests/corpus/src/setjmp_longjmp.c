// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: deep call chains abandoned by longjmp().
 *
 * Stack shape, about 80% of the time: main -> run -> dive x(depth + 1) ->
 * dive_bottom, with depth cycling through 10, 40, 25, 60; dive_bottom spins
 * then longjmp()s back to run, which spins in between_spin (main -> run ->
 * between_spin) for the rest of the round before diving again.
 *
 * Every frame has ordinary SP/FP rules that SFrame expresses.  What the
 * unwinder must not trip over is the stack discarded by longjmp: stale
 * frames below SP that look like valid ones, and samples landing inside
 * glibc's longjmp (no SFrame) while SP and FP are switched.
 */
#include <setjmp.h>
#include <time.h>

#include "corpus.h"

/* Round lengths are off any tick multiple, so tick-driven samples do not phase-lock. */
#define RUN_NS		500000000LL	/* total run time */
#define DIVE_NS		7700000LL	/* time at the bottom of each dive */
#define BETWEEN_NS	1900000LL	/* time between dives */

/* Never inlined, cloned or merged: the tests match these names. */

static jmp_buf env;

static long long until(long long delta)
{
	long long end = now_ns() + delta;

	return end < RUN_NS ? end : RUN_NS;
}

static noipa void dive_bottom(long long end)
{
	SPIN_UNTIL(end);
	longjmp(env, 1);
}

static noipa void dive(int n, long long end)
{
	volatile int frame[2];

	frame[0] = n;
	if (n > 0)
		dive(n - 1, end);
	else
		dive_bottom(end);
	sink += frame[0];
}

static noipa void between_spin(long long end)
{
	SPIN_UNTIL(end);
}

static noipa void run(void)
{
	static const int depths[] = { 10, 40, 25, 60 };
	static unsigned int round;

	while (now_ns() < RUN_NS) {
		if (!setjmp(env))
			dive(depths[round % 4], until(DIVE_NS));
		between_spin(until(BETWEEN_NS));
		round++;
	}
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
