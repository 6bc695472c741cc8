// SPDX-License-Identifier: GPL-2.0
/* Differential input: alloca, variable-length arrays, dynamic stack adjustments. */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static int sum_vla(int n)
{
	int vla[n];
	int s = 0;

	for (int i = 0; i < n; i++)
		vla[i] = i * i;
	for (int i = 0; i < n; i++)
		s += vla[i];
	return s;
}

__attribute__((noinline)) static size_t with_alloca(const char *s)
{
	size_t len = strlen(s);
	char *copy = alloca(len + 1);

	memcpy(copy, s, len + 1);
	for (size_t i = 0; i < len; i++)
		copy[i] = (char)(copy[i] ^ 0x20);
	return strlen(copy) + (size_t)copy[0];
}

__attribute__((noinline)) static int nested_vla(int a, int b)
{
	int outer[a];

	for (int i = 0; i < a; i++) {
		int inner[b + i];

		for (int j = 0; j < b + i; j++)
			inner[j] = j;
		outer[i] = inner[b + i - 1];
	}
	return outer[a - 1];
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 16;

	printf("%d %zu %d\n", sum_vla(n), with_alloca(argv[0]), nested_vla(n, 3));
	return 0;
}
