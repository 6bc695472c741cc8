/* SPDX-License-Identifier: GPL-2.0 */
/*
 * call_loop: @n calls of libc's abs through its PLT stub (with
 * -z ibtplt, "endbr64; jmp *GOT(%rip)" in .plt.sec), in a loop that keeps a
 * zero right above each call's return address, so a walk that takes the
 * return address from one word too high (CFA = RSP + 16 in the stub: PLT0's
 * row) reads 0.
 */
	.text
	.globl	call_loop
	.type	call_loop, @function
	.p2align 4
call_loop:				/* unsigned long call_loop(unsigned long n) */
	.cfi_startproc
	endbr64
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	pushq	%r12
	.cfi_def_cfa_offset 24
	.cfi_offset %r12, -24
	pushq	$0			/* the word above each return address */
	.cfi_def_cfa_offset 32
	movq	%rdi, %rbx
	xorl	%r12d, %r12d
1:	movl	%ebx, %edi
	call	abs@PLT
	addq	%rax, %r12
	subq	$1, %rbx
	jnz	1b
	movq	%r12, %rax
	addq	$8, %rsp
	.cfi_def_cfa_offset 24
	popq	%r12
	.cfi_def_cfa_offset 16
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	call_loop, .-call_loop

	.section .note.GNU-stack, "", @progbits
