/* SPDX-License-Identifier: GPL-2.0 */
/*
 * die_now, a noreturn function that sets up a frame pointer and calls
 * abort, and right after it spin_at_entry, whose first instruction is its
 * whole loop: "loop spin_at_entry" runs until %rcx (its fourth argument)
 * reaches 0, so a signal always interrupts it at spin_at_entry+0x0.
 *
 * The byte before spin_at_entry is die_now's last, covered by die_now's FDE
 * with CFA = RBP + 16: a lookup of the interrupted IP as a return address
 * (IP - 1) applies that row and steps out by the frame pointer, skipping
 * spin_at_entry's caller; the exact lookup finds spin_at_entry's own row
 * (CFA = RSP + 8).
 */
	.text
	.globl	die_now
	.type	die_now, @function
	.p2align 4
die_now:				/* void die_now(void), noreturn */
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	call	abort@PLT
	.cfi_endproc
	.size	die_now, .-die_now

	.globl	spin_at_entry
	.type	spin_at_entry, @function
spin_at_entry:				/* void spin_at_entry(long, long, long, unsigned long count) */
	.cfi_startproc
	loop	spin_at_entry
	ret
	.cfi_endproc
	.size	spin_at_entry, .-spin_at_entry

	.section .note.GNU-stack, "", @progbits
