// SPDX-License-Identifier: GPL-2.0
/* Loader test library: dlopened and dlclosed again and again. */
int ld_work(int x)
{
	return x + 100;
}
