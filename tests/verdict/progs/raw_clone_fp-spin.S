/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spin_nocfi: the raw clone's thread, with no CFI (so no .eh_frame FDE and
 * no SFrame FDE) and no frame record of its own: %rbp stays what the
 * thread inherited from its parent. It spins a million iterations at a
 * time while keep_spinning() (C) says so, then calls thread_exit().
 */
	.text
	.p2align 4
	.globl spin_nocfi
	.type spin_nocfi, @function
spin_nocfi:
	sub $8, %rsp			/* the C calls below want a 16-byte aligned stack */
1:	mov $1000000, %ecx
2:	dec %ecx
	jnz 2b
	call keep_spinning
	test %eax, %eax
	jnz 1b
	call thread_exit
	hlt
	.size spin_nocfi, . - spin_nocfi

	.section .note.GNU-stack, "", @progbits
