// SPDX-License-Identifier: GPL-2.0
/*
 * An early return without .cfi_remember_state/.cfi_restore_state:
 * spin_early_return (missing_remember_state-asm.S) pushes %rbx (0xb2d05e00,
 * put there by its caller), has an early return in the middle whose CFI
 * says "CFA = %rsp + 8", and no .cfi_restore_state after it, so the rows of
 * the code after it, where %rbx is still pushed and where it counts down,
 * say CFA = %rsp + 8 too (truly %rsp + 16). gas writes those rows into its
 * SFrame FDE:
 *
 *	main -> call_early_return -> spin_early_return ([%rsp]: 0xb2d05e00)
 *
 * Our SFrame step out of spin_early_return reads RA 0xb2d05e00, the saved
 * %rbx, inside the covered prefix: no code. libunwind reads the same rows
 * from .eh_frame. The SFrame data gives a wrong frame, so --check fails.
 */
#include <stdio.h>
#include <time.h>

#include "verdict_prog.h"

void call_early_return(unsigned long n);

int main(void)
{
	double end = cpu_seconds() + 0.4;

	do
		call_early_return(1000000);
	while (cpu_seconds() < end);
	printf("missing_remember_state: done\n");
	return 0;
}
