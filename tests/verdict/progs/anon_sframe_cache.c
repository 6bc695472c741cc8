// SPDX-License-Identifier: GPL-2.0
/*
 * A code cache that registers SFrame, not JIT tables: three functions
 * copied into an anonymous executable page, described by an SFrame v2
 * section (FDE_FUNC_START_PCREL) the program writes itself (the project's
 * test writer) into another anonymous page and registers with
 * CODE_REGISTER_SFRAME. /tmp/perf-PID.map names them, as code caches do.
 *
 *	main -> run_cache (C, frame pointer) -> cache_fp_spin (cache: push
 *						%rbp; mov %rsp,%rbp; spin)
 *	main -> run_cache -> cache_outer (cache: frame pointer; direct call)
 *			  -> cache_leaf (cache: no frame pointer, sub $0x18,%rsp; spin)
 *
 * run_cache calls the cache through a pointer. Nothing but the SFrame
 * section describes the page: libunwind and elfutils find no unwind
 * information there and guess from the frame chain. In cache_fp_spin's
 * body the guess is right; in cache_leaf %rbp is still cache_outer's frame,
 * so the guess skips cache_outer and gives run_cache, which our SFrame step
 * reaches one frame later. Our walk is right everywhere.
 */
#include <codectl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sframe_writer.h"
#include "verdict_prog.h"

#define PAGE 4096
#define FP_SPIN_OFF 0x00
#define FP_SPIN_SIZE 0x0b
#define OUTER_OFF 0x10
#define OUTER_SIZE 0x0b
#define LEAF_OFF 0x20
#define LEAF_SIZE 0x0e
#define CODE_SIZE 0x2e

static const unsigned char cache_code[CODE_SIZE] = {
	/* cache_fp_spin */
	0x55,				/* 0x00: push %rbp */
	0x48, 0x89, 0xe5,		/* 0x01: mov %rsp,%rbp */
	0x48, 0xff, 0xcf,		/* 0x04: 1: dec %rdi */
	0x75, 0xfb,			/* 0x07: jnz 1b */
	0x5d,				/* 0x09: pop %rbp */
	0xc3,				/* 0x0a: ret */
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc,	/* 0x0b: int3 padding */
	/* cache_outer */
	0x55,				/* 0x10: push %rbp */
	0x48, 0x89, 0xe5,		/* 0x11: mov %rsp,%rbp */
	0xe8, 0x07, 0x00, 0x00, 0x00,	/* 0x14: call cache_leaf */
	0x5d,				/* 0x19: pop %rbp */
	0xc3,				/* 0x1a: ret */
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc,	/* 0x1b: int3 padding */
	/* cache_leaf */
	0x48, 0x83, 0xec, 0x18,		/* 0x20: sub $0x18,%rsp */
	0x48, 0xff, 0xcf,		/* 0x24: 1: dec %rdi */
	0x75, 0xfb,			/* 0x27: jnz 1b */
	0x48, 0x83, 0xc4, 0x18,		/* 0x29: add $0x18,%rsp */
	0xc3,				/* 0x2d: ret */
};

/* A frame-pointer function: CFA = SP + 8; SP + 16, FP saved; FP + 16; SP + 8 at the ret. */
static const struct sfw_fre fp_fres[] = {
	{ .start = 0x0, .sp_base = true, .count = 1, .words = { 8 } },
	{ .start = 0x1, .sp_base = true, .count = 2, .words = { 16, -16 } },
	{ .start = 0x4, .sp_base = false, .count = 2, .words = { 16, -16 } },
	{ .start = 0xa, .sp_base = true, .count = 1, .words = { 8 } },
};

/* cache_leaf: CFA = SP + 8; SP + 32 after the sub; SP + 8 at the ret. */
static const struct sfw_fre leaf_fres[] = {
	{ .start = 0x0, .sp_base = true, .count = 1, .words = { 8 } },
	{ .start = 0x4, .sp_base = true, .count = 1, .words = { 32 } },
	{ .start = 0xd, .sp_base = true, .count = 1, .words = { 8 } },
};

/* The cache's SFrame section at @sframe (one page), for code at @code. */
static size_t write_sframe(uint8_t *sframe, const uint8_t *code)
{
	uint64_t base = (uint64_t)(uintptr_t)code;
	struct sfw_fde fdes[] = {
		{ .func_start = base + FP_SPIN_OFF, .func_size = FP_SPIN_SIZE, .fre_type = -1,
		  .nfres = 4, .fres = fp_fres },
		{ .func_start = base + OUTER_OFF, .func_size = OUTER_SIZE, .fre_type = -1,
		  .nfres = 4, .fres = fp_fres },
		{ .func_start = base + LEAF_OFF, .func_size = LEAF_SIZE, .fre_type = -1,
		  .nfres = 3, .fres = leaf_fres },
	};
	struct sfw_section s = sfw_amd64(2, true, (uint64_t)(uintptr_t)sframe);
	struct sfw_layout lay;

	s.nfdes = 3;
	s.fdes = fdes;
	return sfw_write(&s, sframe, PAGE, &lay);
}

/* Name the cache's functions in /tmp/perf-PID.map (the test removes the file). */
static int name(const uint8_t *code)
{
	unsigned long base = (unsigned long)(uintptr_t)code;
	FILE *f = perf_map_open();

	if (!f)
		return -1;
	fprintf(f, "%lx %x cache_fp_spin\n", base + FP_SPIN_OFF, FP_SPIN_SIZE);
	fprintf(f, "%lx %x cache_outer\n", base + OUTER_OFF, OUTER_SIZE);
	fprintf(f, "%lx %x cache_leaf\n", base + LEAF_OFF, LEAF_SIZE);
	return fclose(f);
}

/* With a frame pointer (verdict.mk): the frame-chain guess from the cache's entry is the same every time. */
DEFINE_RUNNER(run_cache, void)

int main(void)
{
	uint8_t *code, *sframe;
	struct code_sframe_info info;
	size_t len;

	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sframe = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED || sframe == MAP_FAILED)
		return 1;
	memset(code, 0xcc, PAGE);
	memcpy(code, cache_code, sizeof(cache_code));
	len = write_sframe(sframe, code);
	if (!len || mprotect(code, PAGE, PROT_READ | PROT_EXEC) || name(code))
		return 1;
	info = (struct code_sframe_info){
		.text_start = (uintptr_t)code, .text_end = (uintptr_t)code + CODE_SIZE,
		.sframe_start = (uintptr_t)sframe, .sframe_end = (uintptr_t)sframe + len,
	};
	if (codectl(CODE_REGISTER_SFRAME, &info, sizeof(info), 0)) {
		perror("anon_sframe_cache: CODE_REGISTER_SFRAME");
		return 1;
	}
	run_cache((void (*)(unsigned long))(code + FP_SPIN_OFF), 0.4);
	run_cache((void (*)(unsigned long))(code + OUTER_OFF), 0.4);
	if (codectl(CODE_UNREGISTER, code, 0, 0)) {
		perror("anon_sframe_cache: CODE_UNREGISTER");
		return 1;
	}
	printf("anon_sframe_cache: done\n");
	return 0;
}
