// SPDX-License-Identifier: GPL-2.0
/* Differential input: small, large (64 KiB) and over-aligned stack frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static int small_frame(int x)
{
	volatile char buf[200];

	memset((char *)buf, x, sizeof(buf));
	return buf[x % 200];
}

__attribute__((noinline)) static int huge_frame(int x)
{
	volatile char buf[65536];

	memset((char *)buf, x, sizeof(buf));
	return buf[(x * 7919) % 65536] + small_frame(x);
}

struct aligned {
	char c[100];
} __attribute__((aligned(64)));

__attribute__((noinline)) static int aligned_locals(int x)
{
	struct aligned a;
	volatile struct aligned *p = &a;

	memset(&a, x, sizeof(a));
	return p->c[3] + (int)((unsigned long)p & 63);
}

__attribute__((noinline)) static int many_args(int a, int b, int c, int d, int e, int f, int g,
					       int h, int i, int j)
{
	return a + b * c - d + e * f - g + h * i - j + huge_frame(a);
}

int main(int argc, char **argv)
{
	int x = argc > 1 ? atoi(argv[1]) : 5;

	printf("%d %d\n", aligned_locals(x), many_args(x, 1, 2, 3, 4, 5, 6, 7, 8, 9));
	return 0;
}
