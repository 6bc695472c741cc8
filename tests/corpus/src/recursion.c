// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: plain recursion 500 frames deep.
 *
 * Stack shape: main -> run -> recurse x500 -> leaf_spin, with about half of
 * each round spent in the deepest recurse() itself.  Every frame is a real
 * frame (a volatile local read after the call defeats tail recursion), so
 * SFrame describes all of them; the walk is long rather than hard, which
 * exercises frame limits and the cost of 500 FDE lookups per sample.
 */
#include <time.h>

#include "corpus.h"

/* Round lengths are off any tick multiple, so tick-driven samples do not phase-lock. */
#define RUN_NS		500000000LL	/* total run time */
#define SLICE_NS	19300000LL	/* one dive to the bottom and back */
#define DEPTH		500

/* Never inlined, cloned or merged: the tests match these names. */

static long long slice_mid, slice_end;

static noipa unsigned long leaf_spin(void)
{
	SPIN_UNTIL(slice_end);
	return sink;
}

static noipa unsigned long recurse(int depth)
{
	volatile int frame[4];
	unsigned long r;

	frame[0] = depth;
	if (depth < DEPTH) {
		r = recurse(depth + 1);
	} else {
		SPIN_UNTIL(slice_mid);
		r = leaf_spin();
	}
	return r + frame[0];
}

static noipa void run(void)
{
	long long t;

	while ((t = now_ns()) < RUN_NS) {
		slice_end = t + SLICE_NS < RUN_NS ? t + SLICE_NS : RUN_NS;
		slice_mid = t + (slice_end - t) / 2;
		sink += recurse(1);
	}
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
