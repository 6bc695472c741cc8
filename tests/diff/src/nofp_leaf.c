// SPDX-License-Identifier: GPL-2.0
/* Differential input: leaf functions, push/pop of callee-saved registers, loops. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long crc_like(const unsigned char *p, size_t n)
{
	unsigned long c = ~0ul;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320ul : c >> 1;
	}
	return ~c;
}

__attribute__((noinline)) static long pressure(long a, long b, long c, long d)
{
	long r1 = a * b, r2 = b * c, r3 = c * d, r4 = d * a, r5 = a + b + c + d;
	long r6 = r1 ^ r2, r7 = r3 ^ r4, r8 = r5 ^ r6;

	for (int i = 0; i < (int)(a & 15); i++) {
		r1 += r2 * r3;
		r2 += r4 ^ r5;
		r3 += r6 - r7;
		r4 += r8 + r1;
	}
	return r1 + r2 + r3 + r4 + r5 + r6 + r7 + r8;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 9;

	printf("%lu %ld\n", crc_like((const unsigned char *)argv[0], 8), pressure(n, 2, 3, 4));
	return 0;
}
