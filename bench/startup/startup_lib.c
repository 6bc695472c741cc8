// SPDX-License-Identifier: GPL-2.0
/*
 * One of the 20 libraries bench/startup's program loads (built 20 times with
 * -DLIB=01..20): a few functions, so each has a .sframe of some FDEs.
 */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(name) CAT(name, LIB)

__attribute__((noinline)) static int step(int x, int k)
{
	return x * 31 + k;
}

__attribute__((noinline)) int FN(lib_mix_)(int x)
{
	for (int k = 0; k < 4; k++)
		x = step(x, k);
	return x;
}

int FN(lib_entry_)(int x)
{
	return FN(lib_mix_)(x) ^ x;
}
