/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every corpus program shares: the clock it measures its ~0.5 s run
 * with, and a spin that stays in its calling function's frame (so samples
 * land there, not in the vDSO).
 */
#ifndef CORPUS_H
#define CORPUS_H

#include <time.h>

/* Keeps a function out of line, unrenamed and uncloned at -O2. */
#define noipa __attribute__((__noipa__))

static volatile unsigned long sink;
static struct timespec t0;	/* set by corpus_start() */

/* Nanoseconds since corpus_start(). */
static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)(t.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t.tv_nsec - t0.tv_nsec);
}

static inline void corpus_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &t0);
}

/* Spin in the calling function until now_ns() >= @end. */
#define SPIN_UNTIL(end)							\
	do {								\
		unsigned long spin_i_;					\
									\
		for (spin_i_ = 1;; spin_i_++) {				\
			sink += spin_i_;				\
			if (!(spin_i_ & 4095) && now_ns() >= (end))	\
				break;					\
		}							\
	} while (0)

#endif /* CORPUS_H */
