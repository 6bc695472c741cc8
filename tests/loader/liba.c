// SPDX-License-Identifier: GPL-2.0
/* Loader test library a: built with .sframe. */
__attribute__((noinline)) int la_square(int x)
{
	return x * x;
}

int la_work(int (*cb)(int), int x)
{
	return cb(la_square(x)) + 1;
}
