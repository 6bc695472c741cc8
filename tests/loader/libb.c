// SPDX-License-Identifier: GPL-2.0
/*
 * Loader test library b: built with .sframe and two executable segments
 * (lb_far lives in its own section, linked far from .text: a second PF_X PT_LOAD).
 */
__attribute__((noinline)) int lb_near(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline, section(".fartext"))) int lb_far(int x)
{
	return lb_near(x) + 7;
}

int lb_work(int x)
{
	return lb_far(x) - lb_near(x);
}
