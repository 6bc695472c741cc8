/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The callers of realigned_drap, with frames of known size and alignment so
 * that a frame-pointer step out of realigned_drap always goes wrong the same
 * way (whatever the stack's randomised alignment):
 *
 * aligned_caller(n): keeps a frame pointer and aligns the stack to 64 bytes
 *	(CFA = RBP + 16), then calls mid_caller with RSP = A, A % 64 == 0;
 * mid_caller(n): a 32-byte frame without frame pointer (CFA = RSP + 32 at
 *	its call), calls realigned_drap: realigned_drap's RA is at
 *	S = A - 40, so S % 64 == 24.
 *
 * realigned_drap realigns to S & -64 = A - 64 and copies its return address
 * there: the frame-pointer step out of it gives mid_caller's SP as A - 64,
 * 24 bytes below the real A - 40, and mid_caller's row (CFA = RSP + 32)
 * then reads its return address from A - 40: realigned_drap's own return
 * address, into mid_caller again.
 */
	.text
	.globl	aligned_caller
	.type	aligned_caller, @function
	.p2align 4
aligned_caller:				/* unsigned long aligned_caller(int n) */
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-64, %rsp
	call	mid_caller
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	aligned_caller, .-aligned_caller

	.globl	mid_caller
	.type	mid_caller, @function
	.p2align 4
mid_caller:				/* unsigned long mid_caller(int n) */
	.cfi_startproc
	subq	$24, %rsp
	.cfi_def_cfa_offset 32
	call	realigned_drap
	addq	$24, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	mid_caller, .-mid_caller

	.section .note.GNU-stack, "", @progbits
