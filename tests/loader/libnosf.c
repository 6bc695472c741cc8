// SPDX-License-Identifier: GPL-2.0
/* Loader test library: built without .sframe (identity-only registration). */
int ln_work(int x)
{
	return x ^ 0x55;
}
