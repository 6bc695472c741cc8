/* SPDX-License-Identifier: GPL-2.0 */
/*
 * _start of a program without libc: the kernel leaves argc at (%rsp), which
 * is 16-byte aligned, so static_main is called at once. Its CFI says the
 * stack ends here (.cfi_undefined rip): .eh_frame has DW_CFA_undefined for
 * the RA. gas 2.40 (Debian 12) and 2.44 (Debian 13) drop that from the
 * SFrame FDE, whose one row then says "CFA = %rsp + 8, RA at CFA - 8": argc;
 * gas 2.47 (sid) writes the row as outermost (RA undefined).
 */
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip
	xor	%ebp, %ebp
	call	static_main
	hlt
	.cfi_endproc
	.size	_start, .-_start

	.section .note.GNU-stack, "", @progbits
