/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prev_fn, an ordinary C-callable function with CFI (so gas gives it an
 * SFrame FDE), and right after its last byte, with no padding and no unwind
 * data of its own, custom_restore: the signal return trampoline the
 * program hands the kernel as its SA_RESTORER. The kernel pushes the
 * trampoline's first byte as the handler's return address, so a caller
 * lookup at RA - 1 lands in prev_fn's FDE, whose code ends exactly at the
 * return address.
 */
	.text
	.globl	prev_fn
	.type	prev_fn, @function
	.p2align 4
prev_fn:				/* unsigned long prev_fn(unsigned long x) */
	.cfi_startproc
	leaq	1(%rdi), %rax
	ret
	.cfi_endproc
	.size	prev_fn, .-prev_fn

	.globl	custom_restore
	.type	custom_restore, @function
custom_restore:				/* no .p2align: right after prev_fn's ret */
	movl	$15, %eax		/* __NR_rt_sigreturn */
	syscall
	hlt
	.size	custom_restore, .-custom_restore

	.section .note.GNU-stack, "", @progbits
