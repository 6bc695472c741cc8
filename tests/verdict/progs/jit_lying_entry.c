// SPDX-License-Identifier: GPL-2.0
/*
 * JIT code whose unwind table lies: jit_spin, generated into an anonymous
 * executable page and registered with CODE_REGISTER_JIT, builds a frame
 * record (push %rbp; mov %rsp,%rbp), then a JIT frame of its own below it
 * (push $0x3e8, its slot count; push %rbp, a link to the record) and points
 * %rbp at that JIT frame while it counts down. Its table's entry for the
 * countdown still says "CFA = FP + 16, RA at CFA - 8, caller FP at CFA - 16",
 * true before %rbp moved, false after: the word at FP + 8 is 0x3e8.
 *
 *	main -> spin_jit (C) -> jit_spin (JIT, %rbp -> { link, 0x3e8 })
 *
 * Our walk takes the JIT step and reads RA 0x3e8; libunwind has no unwind
 * information for the page, and its frame-pointer guess (RA at %rbp + 8)
 * reads the same word. The two walks agree, and both are wrong: 0x3e8 is
 * no code.
 */
#include <codectl.h>
#include <codectl_jit.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "verdict_prog.h"

#define PAGE 4096
#define JIT_SPIN_SIZE 0x15

static const unsigned char jit_spin_code[JIT_SPIN_SIZE] = {
	0x55,				/* 0x00: push %rbp */
	0x48, 0x89, 0xe5,		/* 0x01: mov %rsp,%rbp */
	0x68, 0xe8, 0x03, 0x00, 0x00,	/* 0x04: push $0x3e8 */
	0x55,				/* 0x09: push %rbp */
	0x48, 0x89, 0xe5,		/* 0x0a: mov %rsp,%rbp */
	0x48, 0xff, 0xcf,		/* 0x0d: 1: dec %rdi */
	0x75, 0xfb,			/* 0x10: jnz 1b */
	0x5d,				/* 0x12: pop %rbp */
	0xc9,				/* 0x13: leave */
	0xc3,				/* 0x14: ret */
};

/*
 * jit_spin's entries: honest, except [0x0d, 0x13), where %rbp points at the
 * JIT frame and the CFA is really FP + 32.
 */
static int describe(struct codectl_jit_tables *t)
{
	const struct code_jit_unwind_fre fre[] = {
		codectl_jit_fre(0, 0x00, 0x01, 0, 8, 0),	/* push %rbp */
		codectl_jit_fre(0, 0x01, 0x04, 0, 16, 1),	/* mov %rsp,%rbp */
		codectl_jit_fre(0, 0x04, 0x0d, 1, 16, 1),	/* the JIT frame pushed */
		codectl_jit_fre(0, 0x0d, 0x13, 1, 16, 1),	/* the lie */
		codectl_jit_fre(0, 0x13, 0x14, 1, 16, 1),	/* leave */
		codectl_jit_fre(0, 0x14, 0x15, 0, 8, 0),	/* ret */
	};

	return codectl_jit_add(t, fre, sizeof(fre) / sizeof(fre[0]));
}

DEFINE_RUNNER(spin_jit, void)

/* "no-perf-map": jit_spin is left unnamed (its frames are "[jit+0xOFF]" then). */
int main(int argc, char **argv)
{
	bool named = argc < 2 || strcmp(argv[1], "no-perf-map");
	struct codectl_jit_tables t;
	uint8_t *page;
	int err;

	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	memcpy(page, jit_spin_code, sizeof(jit_spin_code));
	if (mprotect(page, PAGE, PROT_READ | PROT_EXEC) || codectl_jit_init(&t, page, PAGE, 8, 1))
		return 1;
	err = codectl_jit_register(&t);
	if (!err)
		err = describe(&t);
	if (err || (named && perf_map_name(page, JIT_SPIN_SIZE, "jit_spin"))) {
		fprintf(stderr, "jit_lying_entry: registration failed: %s\n", strerror(-err));
		return 1;
	}
	spin_jit((void (*)(unsigned long))page, 0.4);
	codectl_jit_destroy(&t);
	printf("jit_lying_entry: done\n");
	return 0;
}
