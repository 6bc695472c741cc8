// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: four threads, each spinning in its own call chain.
 *
 * Stack shapes, for the whole run (0.5 s wall clock), below glibc's
 * clone3 -> start_thread:
 *	thread_alpha -> alpha_1 -> alpha_2 -> alpha_3 -> alpha_4 -> alpha_spin
 *	thread_beta  -> beta_recurse x20 -> beta_spin
 *	thread_gamma -> gamma_outer -> gamma_vla -> gamma_spin
 *	thread_delta -> delta_step x6 (called through a function pointer) ->
 *			delta_spin
 * and the main thread: main -> run -> pthread_join (blocked in a futex).
 *
 * Each sample must be unwound on the stack of the thread it interrupted.
 * The thread stacks' outermost frames are glibc's (start_thread, clone3)
 * and have no SFrame: the walk ends there (clone3 marks the end with an
 * undefined RIP in its CFI; without SFrame, the FP fallback ends at the
 * zero RBP clone3 sets up).  The four threads together use up to 4x the
 * CPU time of one.
 */
#include <pthread.h>
#include <time.h>

#include "corpus.h"

#define RUN_NS		500000000LL	/* total run time */
#define BETA_DEPTH	20
#define DELTA_DEPTH	6

/* Never inlined, cloned or merged: the tests match these names. */

static pthread_barrier_t start_line;

/* alpha: a straight chain of distinct functions */

static noipa unsigned long alpha_spin(void)
{
	SPIN_UNTIL(RUN_NS);
	return sink;
}

static noipa unsigned long alpha_4(unsigned long x)
{
	unsigned long r = alpha_spin();

	return r + x * 4;
}

static noipa unsigned long alpha_3(unsigned long x)
{
	unsigned long r = alpha_4(x + 3);

	return r + x * 3;
}

static noipa unsigned long alpha_2(unsigned long x)
{
	unsigned long r = alpha_3(x + 2);

	return r + x * 2;
}

static noipa unsigned long alpha_1(unsigned long x)
{
	unsigned long r = alpha_2(x + 1);

	return r + x;
}

static noipa void *thread_alpha(void *arg)
{
	pthread_barrier_wait(&start_line);
	sink += alpha_1((unsigned long)arg);
	return NULL;
}

/* beta: recursion */

static noipa unsigned long beta_spin(void)
{
	SPIN_UNTIL(RUN_NS);
	return sink;
}

static noipa unsigned long beta_recurse(int n)
{
	volatile int frame[2];
	unsigned long r;

	frame[0] = n;
	r = n > 1 ? beta_recurse(n - 1) : beta_spin();
	return r + frame[0];
}

static noipa void *thread_beta(void *arg)
{
	pthread_barrier_wait(&start_line);
	sink += beta_recurse(BETA_DEPTH) + (unsigned long)arg;
	return NULL;
}

/* gamma: a VLA frame (frame pointer based) in the middle */

static noipa unsigned long gamma_spin(volatile char *buf)
{
	SPIN_UNTIL(RUN_NS);
	return sink + buf[0];
}

static noipa unsigned long gamma_vla(int n)
{
	volatile char buf[n];
	unsigned long r;

	buf[0] = (char)n;
	buf[n - 1] = (char)n;
	r = gamma_spin(buf);
	return r + buf[n - 1];
}

static noipa unsigned long gamma_outer(int n)
{
	volatile int frame[2];
	unsigned long r;

	frame[0] = n;
	r = gamma_vla(n * 8);
	return r + frame[0];
}

static noipa void *thread_gamma(void *arg)
{
	pthread_barrier_wait(&start_line);
	sink += gamma_outer(100) + (unsigned long)arg;
	return NULL;
}

/* delta: indirect calls */

typedef unsigned long (*delta_fn_t)(int n);

static unsigned long delta_step(int n);
static unsigned long delta_spin(int n);

static delta_fn_t volatile delta_next[2] = { delta_spin, delta_step };

static noipa unsigned long delta_spin(int n)
{
	SPIN_UNTIL(RUN_NS);
	return sink + (unsigned long)n;
}

static noipa unsigned long delta_step(int n)
{
	volatile int frame[2];
	unsigned long r;

	frame[0] = n;
	r = delta_next[n > 1](n - 1);
	return r + frame[0];
}

static noipa void *thread_delta(void *arg)
{
	pthread_barrier_wait(&start_line);
	sink += delta_next[1](DELTA_DEPTH) + (unsigned long)arg;
	return NULL;
}

static noipa void run(void)
{
	void *(*const fns[4])(void *) = {
		thread_alpha, thread_beta, thread_gamma, thread_delta,
	};
	pthread_t tids[4];
	int i;

	pthread_barrier_init(&start_line, NULL, 5);
	for (i = 0; i < 4; i++)
		pthread_create(&tids[i], NULL, fns[i], NULL);
	pthread_barrier_wait(&start_line);
	for (i = 0; i < 4; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&start_line);
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
