/* SPDX-License-Identifier: GPL-2.0 */
/*
 * block_in_pause(): a noreturn function whose last instruction is the
 * syscall (pause(2)): a thread blocked in it has its IP just past the
 * syscall, at the first byte of after_pause. Its frame is 16 bytes (a 0
 * pushed: CFA = %rsp + 16); after_pause's row says CFA = %rsp + 8, so a walk
 * by after_pause's rule reads the pushed 0 as the RA.
 */
	.text
	.globl	block_in_pause
	.type	block_in_pause, @function
block_in_pause:
	.cfi_startproc
	push	$0
	.cfi_def_cfa_offset 16
	mov	$34, %eax			/* __NR_pause */
	syscall
	.cfi_endproc
	.size	block_in_pause, .-block_in_pause

	.globl	after_pause
	.type	after_pause, @function
after_pause:
	.cfi_startproc
	ud2
	.cfi_endproc
	.size	after_pause, .-after_pause

	.section .note.GNU-stack, "", @progbits
