// SPDX-License-Identifier: GPL-2.0
/*
 * The library self_mapped_lib maps itself (never dlopened): position
 * independent code that needs no relocation, no data, no other object,
 * so that its file mapped read/execute as a whole runs as it is.
 *
 *	spin_a(n) -> spin_b(n) (static: a direct call): spins n iterations
 */

__attribute__((noipa)) static unsigned long spin_b(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
	return i;
}

__attribute__((noipa)) unsigned long spin_a(unsigned long n)
{
	unsigned long r = spin_b(n);

	__asm__ volatile("" ::: "memory");	/* not a tail call */
	return r + 1;
}
