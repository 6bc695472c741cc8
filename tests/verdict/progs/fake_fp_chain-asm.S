/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spin_fake_chain(n): a frame-pointer function, described truly by its CFI
 * (so gas writes a true SFrame FDE: CFA = %rbp + 16 after the prologue),
 * that builds a fake frame chain below its frame and points %rbp at it
 * while it counts @n down:
 *
 *	%rbp -> A: { saved FP: &B,  RA: 0x1234 }
 *	        B: { saved FP: 0,   RA: 0x5678 }
 *
 * The CFI is not changed for the count-down, which is where it lies: the
 * CFA is %rbp + 48 there. Offsets (test_fake_fp_chain.c knows them): the
 * count-down from +0x2f, %rbp restored at +0x39 (leave).
 */
	.text
	.globl	spin_fake_chain
	.type	spin_fake_chain, @function
spin_fake_chain:
	.cfi_startproc
	push	%rbp					/* 0x00 */
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp				/* 0x01 */
	.cfi_def_cfa_register %rbp
	sub	$32, %rsp				/* 0x04 */
	lea	16(%rsp), %rax				/* 0x08: &B */
	mov	%rax, (%rsp)				/* 0x0d: A */
	movq	$0x1234, 8(%rsp)			/* 0x11 */
	movq	$0, 16(%rsp)				/* 0x1a: B */
	movq	$0x5678, 24(%rsp)			/* 0x23 */
	mov	%rsp, %rbp				/* 0x2c: %rbp -> A */
1:	dec	%rdi					/* 0x2f */
	jnz	1b					/* 0x32 */
	lea	32(%rsp), %rbp				/* 0x34: the frame record again */
	leave						/* 0x39 */
	.cfi_def_cfa %rsp, 8
	ret						/* 0x3a */
	.cfi_endproc
	.size	spin_fake_chain, .-spin_fake_chain

	.section .note.GNU-stack, "", @progbits
