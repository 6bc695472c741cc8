// SPDX-License-Identifier: GPL-2.0
/*
 * Code without unwind data that uses %rbp as a general register: clobber_spin,
 * copied into an anonymous executable page that is NOT registered (no JIT
 * table, no SFrame), keeps two counters on its stack, 0x4d2 and 0x3e8, and
 * points %rbp at them while it counts down:
 *
 *	main -> spin_clobbered (C) -> clobber_spin (anonymous code,
 *					 %rbp -> { 0x4d2, 0x3e8 })
 *
 * Nothing describes the page, so our walk leaves frame 0 by the frame-pointer
 * fallback, outside its covered prefix (frame 0 alone): it reads RA 0x3e8 at
 * %rbp + 8, no code, and stops at the next FP, 0x4d2, below the stack.
 * libunwind guesses with the frame pointer too. Frame 0 is right, so no SFrame
 * or JIT data is wrong; the fallback went astray.
 *
 * (With %rbp = 0x3e8 itself, both walks would stop at frame 0, the FP below
 * the stack, and agree: a "match" of one frame. The stack address is the
 * case that goes astray.)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "verdict_prog.h"

#define PAGE 4096
#define CLOBBER_SPIN_SIZE 0x24

static const unsigned char clobber_spin_code[CLOBBER_SPIN_SIZE] = {
	0x55,						/* 0x00: push %rbp */
	0x48, 0x83, 0xec, 0x10,				/* 0x01: sub $16,%rsp */
	0x48, 0xc7, 0x04, 0x24, 0xd2, 0x04, 0x00, 0x00,	/* 0x05: movq $0x4d2,(%rsp) */
	0x48, 0xc7, 0x44, 0x24, 0x08, 0xe8, 0x03, 0x00, 0x00,
							/* 0x0d: movq $0x3e8,8(%rsp) */
	0x48, 0x89, 0xe5,				/* 0x16: mov %rsp,%rbp */
	0x48, 0xff, 0xcf,				/* 0x19: 1: dec %rdi */
	0x75, 0xfb,					/* 0x1c: jnz 1b */
	0x48, 0x83, 0xc4, 0x10,				/* 0x1e: add $16,%rsp */
	0x5d,						/* 0x22: pop %rbp */
	0xc3,						/* 0x23: ret */
};

DEFINE_RUNNER(spin_clobbered, void)

int main(void)
{
	uint8_t *page;

	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	memcpy(page, clobber_spin_code, sizeof(clobber_spin_code));
	if (mprotect(page, PAGE, PROT_READ | PROT_EXEC) ||
	    perf_map_name(page, CLOBBER_SPIN_SIZE, "clobber_spin"))
		return 1;
	spin_clobbered((void (*)(unsigned long))page, 0.4);
	printf("clobbered_rbp: done\n");
	return 0;
}
