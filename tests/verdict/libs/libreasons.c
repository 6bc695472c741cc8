// SPDX-License-Identifier: GPL-2.0
/*
 * The libraries of no_sframe_reasons, built four times: libreasons-gc.so
 * (-ffunction-sections -Wl,--gc-sections: ld 2.40 and 2.44 drop .sframe),
 * libreasons-order.so (its .sframe kept; the program maps it itself and
 * registers an unsorted copy of it), libreasons-stale.so and
 * libreasons-new.so (the same bytes: the program registers the first and
 * maps the second over it). Frame pointers, so the fallback walks them
 * right:
 *
 *	reason_spin(n) -> reason_inner(n) (static: a direct call): spins n iterations
 */

/* The counter on the stack: gcc sets up a frame record only for a function using its stack. */
__attribute__((noipa)) static unsigned long reason_inner(unsigned long n)
{
	volatile unsigned long i;

	for (i = 0; i < n; i++)
		;
	return i;
}

__attribute__((noipa)) unsigned long reason_spin(unsigned long n)
{
	unsigned long r = reason_inner(n);

	__asm__ volatile("" ::: "memory");	/* not a tail call */
	return r + 1;
}
