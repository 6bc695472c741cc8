/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spin_early_return(n, late): pushes %rbx, returns early in the middle when
 * @late is 0, else counts @n down and returns at the end. The early return's
 * epilogue says ".cfi_def_cfa_offset 8" without the .cfi_remember_state
 * before it and the .cfi_restore_state after it, so every row after it,
 * the count-down's included, says CFA = %rsp + 8 where %rbx's push makes it
 * %rsp + 16: the RA the rows point at is the saved %rbx.
 *
 * call_early_return(n) is its caller, with true CFI: it puts 0xb2d05e00 in
 * %rbx first, so that is what spin_early_return pushes.
 *
 * Offsets (test_missing_remember_state.c knows them): the count-down from
 * spin_early_return+0x8, %rbx popped at +0xd.
 */
	.text
	.globl	spin_early_return
	.type	spin_early_return, @function
spin_early_return:
	.cfi_startproc
	push	%rbx					/* 0x00 */
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	test	%rsi, %rsi				/* 0x01 */
	jnz	2f					/* 0x04 */
	pop	%rbx					/* 0x06 */
	.cfi_def_cfa_offset 8
	ret						/* 0x07 */
	/* here .cfi_restore_state is missing: CFA = %rsp + 8 goes on */
2:	dec	%rdi					/* 0x08 */
	jnz	2b					/* 0x0b */
	pop	%rbx					/* 0x0d */
	ret						/* 0x0e */
	.cfi_endproc
	.size	spin_early_return, .-spin_early_return

	.globl	call_early_return
	.type	call_early_return, @function
call_early_return:
	.cfi_startproc
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	mov	$0xb2d05e00, %ebx
	mov	$1, %esi
	call	spin_early_return
	pop	%rbx
	.cfi_def_cfa_offset 8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	call_early_return, .-call_early_return

	.section .note.GNU-stack, "", @progbits
