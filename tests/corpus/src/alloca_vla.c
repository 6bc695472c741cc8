// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: alloca() and variable-length arrays of varying sizes.
 *
 * Stack shape: main -> run -> vla_outer -> alloca_middle -> vla_inner ->
 * leaf_spin, each of the last four spinning about a quarter of every round.
 * The size cycles through a fixed table, so the stack pointer moves by a
 * different amount each round while the function names stay the same.
 * Dynamic allocation forces a frame pointer even at -fomit-frame-pointer:
 * SFrame expresses these frames as CFA = RBP + 16, and any SP-based rule in
 * them would be wrong by the allocation size.
 */
#include <alloca.h>
#include <string.h>
#include <time.h>

#include "corpus.h"

/* Round lengths are off any tick multiple, so tick-driven samples do not phase-lock. */
#define RUN_NS		500000000LL	/* total run time */
#define SLICE_NS	9700000LL	/* one round with one size */

/* Never inlined, cloned or merged: the tests match these names. */

/* Quarter points of the current round. */
static long long q1, q2, q3, q4;

static noipa unsigned long leaf_spin(void)
{
	SPIN_UNTIL(q4);
	return sink;
}

static noipa unsigned long vla_inner(int n)
{
	unsigned long r;
	int k;

	/* a VLA in a nested scope: SP moves down and back up in the loop */
	for (k = 1; k <= 3; k++) {
		volatile char scratch[n * k];

		scratch[0] = (char)k;
		scratch[n * k - 1] = (char)n;
		sink += scratch[0] + scratch[n * k - 1];
	}
	{
		volatile char buf[n + 24];

		buf[0] = 1;
		buf[n + 23] = 2;
		SPIN_UNTIL(q3);
		r = leaf_spin();
		r += buf[0] + buf[n + 23];
	}
	return r;
}

static noipa unsigned long alloca_middle(int n)
{
	volatile char *p[3];
	unsigned long r;
	int k;

	/* several allocas, each one moving SP further */
	for (k = 0; k < 3; k++) {
		p[k] = alloca((size_t)n + 32 * (size_t)k);
		p[k][0] = (char)k;
	}
	SPIN_UNTIL(q2);
	r = vla_inner(n);
	return r + p[0][0] + p[1][0] + p[2][0];
}

static noipa unsigned long vla_outer(int n)
{
	char buf[n];
	unsigned long r;

	memset(buf, n & 0x7f, (size_t)n);
	sink += buf[n / 2];
	SPIN_UNTIL(q1);
	r = alloca_middle(n);
	return r + (unsigned char)buf[n - 1];
}

static noipa void run(void)
{
	static const int sizes[] = { 16, 1000, 64, 4096, 300, 8, 20000, 128 };
	unsigned int round = 0;
	long long t, end;

	while ((t = now_ns()) < RUN_NS) {
		end = t + SLICE_NS < RUN_NS ? t + SLICE_NS : RUN_NS;
		q1 = t + (end - t) / 4;
		q2 = t + (end - t) / 2;
		q3 = t + 3 * (end - t) / 4;
		q4 = end;
		sink += vla_outer(sizes[round++ % (sizeof(sizes) / sizeof(sizes[0]))]);
	}
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
