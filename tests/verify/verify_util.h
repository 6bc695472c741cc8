/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the verifier's tests: hand-assembled functions with rows from
 * the test writer ("mini" objects), real files checked as sframe-verify
 * checks them, their sections rewritten with the test writer (for rows made
 * wrong on purpose), and the known toolchain bugs a finding may be.
 */
#ifndef TESTS_VERIFY_UTIL_H
#define TESTS_VERIFY_UTIL_H

#include "sframe_writer.h"
#include "supervisor/verify/elf_file.h"
#include "supervisor/verify/verify.h"

#define MINI_TEXT 0x401000ull
#define MINI_SEC 0x500000ull
#define MINI_CODE 4096
#define MINI_FNS 8

/**
 * struct mini - code at MINI_TEXT and an SFrame section describing it
 * @code, @len: the bytes (jump tables may follow the code)
 * @fde: the FDEs (func_start absolute), @nfde; @version (2 when 0)
 * @fixed_ra: the header's (-8 when 0 and @no_fixed_ra is false)
 * @syms, @nsym: symbols (names static)
 * @dwarf_lo, @dwarf_hi: a fake .eh_frame covering [lo, hi) with CFA = SP+8
 */
struct mini {
	uint8_t code[MINI_CODE];
	size_t len;
	struct sfw_fde fde[MINI_FNS];
	unsigned int nfde;
	uint8_t version;
	bool no_fixed_ra;
	struct verify_sym syms[MINI_FNS];
	unsigned int nsym;
	uint64_t dwarf_lo, dwarf_hi;
};

/** mini_fn() - add an FDE over [@off, @off + @size) of @m's code with @n rows @fres. */
void mini_fn(struct mini *m, uint32_t off, uint32_t size, const struct sfw_fre *fres,
	     unsigned int n);

/** mini_run() - check @m; the section must load. @out zeroed first. */
void mini_run(struct mini *m, struct verify_result *out);

/** sp_row(), fp_row() - a DEFAULT row at @start: CFA = SP/FP + @cfa, FP saved at CFA + @fp (0: not). */
struct sfw_fre sp_row(uint32_t start, int32_t cfa, int32_t fp);
struct sfw_fre fp_row(uint32_t start, int32_t cfa, int32_t fp);

/** count_kind() - findings of @k in @r. */
size_t count_kind(const struct verify_result *r, unsigned int k);

/** finding_of() - the first finding of kind @k, or NULL. */
const struct verify_finding *finding_of(const struct verify_result *r, unsigned int k);

/**
 * struct vfile - a file opened as sframe-verify opens it, and its result
 * @s: its section (owned); @r: verify_run()'s result
 */
struct vfile {
	struct verify_elf e;
	struct emu_sframe_section *s;
	struct verify_result r;
};

/** vfile_open() - open @path (asserts it has a section emu accepts). */
void vfile_open(struct vfile *f, const char *path);

/** vfile_run() - verify @f's file with @s (NULL: its own section) into @f->r (freed first). */
void vfile_run(struct vfile *f, const struct emu_sframe_section *s);

void vfile_close(struct vfile *f);

/** vfile_symbol() - the address of function @name in @f (asserts there is one). */
const struct verify_sym *vfile_symbol(const struct vfile *f, const char *name);

/**
 * struct sf_copy - a section as the test writer's description, to change and
 * write again (what tests/e2e/sframe_v1_copy.c does, every FDE type kept)
 */
struct sf_copy {
	struct sfw_section sec;
	struct sfw_fde fde[SFW_MAX_FDES];
	struct sfw_fre *fres[SFW_MAX_FDES];
};

/** sf_copy_of() - @s described; release with sf_copy_free(). */
void sf_copy_of(const struct emu_sframe_section *s, uint64_t addr, struct sf_copy *c);
void sf_copy_free(struct sf_copy *c);

/** sf_copy_load() - @c written and loaded by emu for @f's text (asserts it loads). */
struct emu_sframe_section *sf_copy_load(const struct sf_copy *c, struct vfile *f);

/** sf_copy_fde() - the index in @c of the FDE starting at @start (asserts there is one). */
unsigned int sf_copy_fde(const struct sf_copy *c, uint64_t start);

/**
 * known_bug() - is @fd one of the toolchain bugs the tests know? Its
 * explanation (with the binutils PR), or NULL
 */
const char *known_bug(const struct verify_finding *fd);

/** unexplained() - every mismatch of @r not a known bug, one a line (static buffer; "": none). */
const char *unexplained(const struct verify_result *r);

#endif /* TESTS_VERIFY_UTIL_H */
