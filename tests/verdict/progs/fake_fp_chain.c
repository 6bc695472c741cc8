// SPDX-License-Identifier: GPL-2.0
/*
 * A fake frame-pointer chain under an FP-based CFA: spin_fake_chain
 * (fake_fp_chain-asm.S) has CFI that says "CFA = %rbp + 16" after its
 * prologue, as every frame-pointer function's does, and gas writes the same
 * rule into its SFrame FDE; then it points %rbp at a fake chain on its stack,
 * A { &B, 0x1234 } -> B { 0, 0x5678 }, and counts down:
 *
 *	main -> spin_fake_chain (%rbp -> A)
 *
 * Our SFrame step out of it reads RA 0x1234 at %rbp + 8, inside the covered
 * prefix: no code. libunwind follows the same CFI (.eh_frame) to the same
 * word. The SFrame data gives a wrong frame, so --check fails.
 */
#include <stdio.h>
#include <time.h>

#include "verdict_prog.h"

void spin_fake_chain(unsigned long n);

int main(void)
{
	double end = cpu_seconds() + 0.4;

	do
		spin_fake_chain(1000000);
	while (cpu_seconds() < end);
	printf("fake_fp_chain: done\n");
	return 0;
}
