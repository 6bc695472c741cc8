// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: variadic functions handing each other va_lists.
 *
 * Stack shape: main -> run -> va_outer -> va_middle -> va_relay ->
 * va_leaf_spin, spinning half of every round in the variadic va_relay and
 * half in va_leaf_spin.  Variadic prologues spill the six argument registers
 * and (when %al is non-zero) the eight vector registers into a register save
 * area, with a conditional branch in the middle of the prologue; the callers
 * pass more arguments than fit in registers, so some travel on the stack.
 * The CFA rules are plain SP/FP ones and SFrame should express them all.
 */
#include <stdarg.h>
#include <time.h>

#include "corpus.h"

/* Round lengths are off any tick multiple, so tick-driven samples do not phase-lock. */
#define RUN_NS		500000000LL	/* total run time */
#define SLICE_NS	9700000LL	/* one trip down the chain */

/* Never inlined, cloned or merged: the tests match these names. */

static long long slice_mid, slice_end;

/* Consumes @n longs then one double from @ap, then spins. */
static noipa unsigned long va_leaf_spin(int n, va_list ap)
{
	unsigned long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += (unsigned long)va_arg(ap, long);
	s += (unsigned long)va_arg(ap, double);
	SPIN_UNTIL(slice_end);
	return s;
}

/* Variadic again: @n longs and a double. */
static noipa unsigned long va_relay(int n, ...)
{
	volatile unsigned long guard;
	unsigned long r;
	va_list ap;

	va_start(ap, n);
	guard = (unsigned long)n;
	SPIN_UNTIL(slice_mid);
	r = va_leaf_spin(n, ap);
	va_end(ap);
	return r + guard;
}

/* Sums what @ap holds (@n longs, then two doubles) through a copy, then
 * calls another variadic function with the first eight longs and a double. */
static noipa unsigned long va_middle(int n, va_list ap)
{
	long a[8] = { 0 };
	unsigned long s = 0, r;
	double d1, d2;
	va_list cp;
	int i;

	va_copy(cp, ap);
	for (i = 0; i < n; i++) {
		long v = va_arg(cp, long);

		if (i < 8)
			a[i] = v;
		s += (unsigned long)v;
	}
	d1 = va_arg(cp, double);
	d2 = va_arg(cp, double);
	va_end(cp);
	r = va_relay(8, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], d1 + d2);
	return r + s;
}

/* @n longs, then two doubles. */
static noipa unsigned long va_outer(int n, ...)
{
	volatile unsigned long guard;
	unsigned long r;
	va_list ap;

	va_start(ap, n);
	guard = (unsigned long)n;
	r = va_middle(n, ap);
	va_end(ap);
	return r + guard;
}

static noipa void run(void)
{
	long long t;

	while ((t = now_ns()) < RUN_NS) {
		slice_end = t + SLICE_NS < RUN_NS ? t + SLICE_NS : RUN_NS;
		slice_mid = t + (slice_end - t) / 2;
		sink += va_outer(10, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L,
				 0.5, 1.5);
	}
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
