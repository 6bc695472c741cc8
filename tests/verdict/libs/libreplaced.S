/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two libraries of replaced_library: built twice, as libreplaced-a.so
 * (-DVARIANT_A) and libreplaced-b.so, with the same instructions and the
 * same CFI operations; only lib_loop's frame size differs (A: 8 bytes, B:
 * 0x48), so the two files have the same size and layout (B, loaded where A
 * was, lands at A's base) and different code and CFI in lib_loop.
 *
 *	lib_spin(n): sub $8,%rsp; call *lib_loop; add; ret
 *	lib_loop(n): sub $LOOP_FRAME,%rsp; fill its frame with copies of its
 *		     return address; spin n times; add; ret
 *
 * A's CFI read over B's lib_loop (an image kept from before the dlclose)
 * say CFA = SP + 16 where B's is SP + 0x50: they find the copies, so a walk
 * by them gives lib_spin five times before it reaches run_b.
 */
#ifdef VARIANT_A
#define LOOP_FRAME 0x08
#else
#define LOOP_FRAME 0x48
#endif
#define SPIN_FRAME 0x08

	.text
	.p2align 4
	.type lib_loop, @function
lib_loop:
	.cfi_startproc
	sub $LOOP_FRAME, %rsp
	.cfi_def_cfa_offset LOOP_FRAME + 8
	mov LOOP_FRAME(%rsp), %rax
	mov $LOOP_FRAME / 8, %ecx
1:	mov %rax, -8(%rsp,%rcx,8)
	dec %ecx
	jnz 1b
2:	dec %rdi
	jnz 2b
	add $LOOP_FRAME, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size lib_loop, . - lib_loop

	.p2align 4
	.globl lib_spin
	.type lib_spin, @function
lib_spin:
	.cfi_startproc
	sub $SPIN_FRAME, %rsp
	.cfi_def_cfa_offset SPIN_FRAME + 8
	lea lib_loop(%rip), %rax
	call *%rax
	add $SPIN_FRAME, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size lib_spin, . - lib_spin

	.section .note.GNU-stack, "", @progbits
