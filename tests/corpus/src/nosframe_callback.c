// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: a callback from a library that has no SFrame.
 *
 * Stack shape: main -> run -> enter_library -> nosf_iterate ->
 * nosf_call_one -> callback -> callback_spin, with nosf_iterate and
 * nosf_call_one in libcorpus_nosf-{fp,nofp}.so (built without --gsframe);
 * callback and callback_spin each spin about half the time.
 *
 * What SFrame cannot express: the two library frames, which have no SFrame
 * FDE.  Unwinding from callback gives a return address in nosf_call_one;
 * from there the walk can only go on by frame pointer.  With the -fp
 * library (and an -fp program) the RBP chain leads through the library back
 * to enter_library; with the -nofp library RBP is not a frame pointer there
 * (nosf_iterate keeps the callback argument in it, a pointer into run's
 * frame, so an FP step reads struct cb_state as a frame record) and the walk
 * is expected to stop (or be told apart as unreliable) in the library,
 * while libunwind, which reads .eh_frame, gets through.
 */
#include <time.h>

#include "corpus.h"

/* Round lengths are off any tick multiple, so tick-driven samples do not phase-lock. */
#define RUN_NS		500000000LL	/* total run time */
#define CALL_NS		970000LL	/* one callback */
#define CALLS_PER_ENTRY	10		/* callbacks per nosf_iterate */

/* Never inlined, cloned or merged: the tests match these names. */

typedef int (*nosf_cb_t)(void *arg, unsigned long i);

/* libcorpus_nosf.c */
unsigned long nosf_iterate(nosf_cb_t cb, void *arg);

struct cb_state {
	long long mid, end;
	unsigned long seen;
};

static noipa void callback_spin(struct cb_state *st)
{
	SPIN_UNTIL(st->end);
	st->seen++;
}

/* Called from the library: spins, calls deeper, tells it when to stop. */
static noipa int callback(void *arg, unsigned long i)
{
	struct cb_state *st = arg;
	long long t = now_ns();

	st->end = t + CALL_NS < RUN_NS ? t + CALL_NS : RUN_NS;
	st->mid = t + (st->end - t) / 2;
	SPIN_UNTIL(st->mid);
	callback_spin(st);
	return i + 1 >= CALLS_PER_ENTRY || st->end >= RUN_NS;
}

static noipa unsigned long enter_library(struct cb_state *st)
{
	volatile unsigned long frame[2];
	unsigned long r;

	frame[0] = st->seen;
	r = nosf_iterate(callback, st);
	return r + frame[0];
}

static noipa void run(void)
{
	struct cb_state st = { 0 };

	while (now_ns() < RUN_NS)
		sink += enter_library(&st);
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
