// SPDX-License-Identifier: GPL-2.0
/* Differential input: direct and mutual recursion, deep call chains. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static unsigned long ackermann(unsigned long m, unsigned long n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

static int is_odd(unsigned int n);

__attribute__((noinline)) static int is_even(unsigned int n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}

__attribute__((noinline)) static int is_odd(unsigned int n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;

	printf("%ld %lu %d\n", fib(n), ackermann(2, (unsigned long)n), is_even((unsigned int)n));
	return 0;
}
