// SPDX-License-Identifier: GPL-2.0
/* Differential input: switch jump tables, noreturn calls, tail calls, callbacks into libc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noreturn, noinline)) static void die(const char *why)
{
	fprintf(stderr, "fatal: %s\n", why);
	exit(2);
}

__attribute__((noinline)) static int dispatch(int op, int a, int b)
{
	switch (op) {
	case 0: return a + b;
	case 1: return a - b;
	case 2: return a * b;
	case 3: return b ? a / b : 0;
	case 4: return a << (b & 7);
	case 5: return a >> (b & 7);
	case 6: return a & b;
	case 7: return a | b;
	case 8: return a ^ b;
	case 9: return -a;
	default: die("bad op");
	}
}

__attribute__((noinline)) static int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) static int tail(int x)
{
	if (x > 100)
		return leaf(x - 100);	/* a tail call at -O2 */
	return leaf(x) + 1;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static int sorted_median(int *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_int);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	int v[9] = { 5, 3, 9, 1, 7, 2, 8, 6, 4 };
	int op = argc > 1 ? atoi(argv[1]) : 2;

	if (op < 0)
		die("negative op");
	printf("%d %d %d\n", dispatch(op, 7, 3), tail(op * 60), sorted_median(v, 9));
	return 0;
}
