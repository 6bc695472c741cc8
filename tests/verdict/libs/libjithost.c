// SPDX-License-Identifier: GPL-2.0
/*
 * A JIT's host code without unwind data of the kernel's kind: built without
 * -Wa,--gsframe (DWARF CFI only, which libunwind reads) and without a frame
 * pointer, so %rbp in c_work is still whatever its callers left there.
 */
__attribute__((noipa)) void c_work(unsigned long n)
{
	for (volatile unsigned long i = n; i; i--)
		;
}
