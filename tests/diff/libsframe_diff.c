// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test against libsframe (binutils 2.40): programs compiled here
 * with -Wa,--gsframe at -O0 and -O2, with and without frame pointers. For every
 * byte address of every function, our FRE lookup (CFA base, CFA/RA/FP offsets)
 * must equal sframe_find_fre()'s. Zero differences allowed, with one known
 * exception: libsframe 2.40 matches v1 PCMASK (PLT) FREs on the low 8 address
 * bits only (its FIXME); there the ABI's modulo-16 rule is the reference, and
 * the addresses where libsframe disagrees with it are listed.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <sframe.h>
#include <sframe-api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_sframe.h"
#include "emu/emu.h"

struct totals {
	unsigned int files;
	unsigned long fdes;
	unsigned long addrs;
	unsigned long pcmask_addrs;
	unsigned long known_diffs;
};

/* What one FRE says, in libsframe's terms. */
struct row {
	int found;
	uint32_t start;
	unsigned int base_sp;
	int32_t cfa, ra;
	int fp_tracked;
	int32_t fp;
};

static struct row libsframe_row(sframe_decoder_ctx *d, sframe_frame_row_entry *fre)
{
	struct row r = { .found = 1, .start = fre->fre_start_addr };
	int err = 0;

	r.base_sp = sframe_fre_get_base_reg_id(fre, &err);
	r.cfa = sframe_fre_get_cfa_offset(d, fre, &err);
	cr_assert_eq(err, 0, "libsframe CFA offset");
	/* a fixed RA offset is an error here: the caller takes the header's */
	r.ra = sframe_fre_get_ra_offset(d, fre, &err);
	if (err)
		r.ra = sframe_decoder_get_fixed_ra_offset(d);
	err = 0;
	r.fp = sframe_fre_get_fp_offset(d, fre, &err);
	r.fp_tracked = !err;
	if (!r.fp_tracked)
		r.fp = 0;
	return r;
}

static struct row our_row(const struct emu_sframe_section *s, uint64_t pc)
{
	struct emu_sframe_fde fde;
	struct emu_sframe_fre fre;
	struct emu_unwind_rule rule;
	struct row r = { 0 };

	if (emu_sframe_find(s, pc, NULL, &fde, &fre))
		return r;
	cr_assert_eq(emu_sframe_rule(s, &fde, &fre, &rule), 0);
	r.found = 1;
	r.start = fre.start;
	r.base_sp = rule.cfa_base == EMU_CFA_SP;
	r.cfa = (int32_t)rule.cfa_off;
	r.ra = rule.ra.kind == EMU_LOC_CFA_DEREF ? (int32_t)rule.ra.off : 0;
	r.fp_tracked = rule.fp.kind == EMU_LOC_CFA_DEREF;
	r.fp = r.fp_tracked ? (int32_t)rule.fp.off : 0;
	return r;
}

static int rows_equal(const struct row *a, const struct row *b)
{
	if (a->found != b->found)
		return 0;
	return !a->found || (a->start == b->start && a->base_sp == b->base_sp && a->cfa == b->cfa &&
			     a->ra == b->ra && a->fp_tracked == b->fp_tracked && a->fp == b->fp);
}

/* The ABI's PCMASK rule, from libsframe's own FRE list: offset modulo 16. */
static struct row pcmask_expected(sframe_decoder_ctx *d, unsigned int i, uint32_t nfres,
				  uint32_t off)
{
	sframe_frame_row_entry fre, best;
	struct row r = { 0 };

	for (uint32_t j = 0; j < nfres; j++) {
		cr_assert_eq(sframe_decoder_get_fre(d, i, j, &fre), 0);
		if (fre.fre_start_addr > off % 16)
			break;
		best = fre;
		r.found = 1;
	}
	return r.found ? libsframe_row(d, &best) : r;
}

/*
 * What libsframe 2.40 documents for PCMASK (its FIXME): an FRE matches when the
 * low 8 bits of (function start + FRE start) are <= those of the PC, and the
 * low 8 bits of the next FRE's start (or the function end) are above them.
 * Returns the FRE index, or -1 for "not found".
 */
static int pcmask_low8_model(sframe_decoder_ctx *d, unsigned int i, uint32_t nfres,
			     uint32_t fsize, int32_t fstart, int32_t pc)
{
	sframe_frame_row_entry fre, next;

	for (uint32_t j = 0; j < nfres; j++) {
		uint32_t end = fsize;

		cr_assert_eq(sframe_decoder_get_fre(d, i, j, &fre), 0);
		if (((fstart + (int32_t)fre.fre_start_addr) & 0xff) > (pc & 0xff))
			return -1;
		if (j + 1 < nfres) {
			cr_assert_eq(sframe_decoder_get_fre(d, i, j + 1, &next), 0);
			end = next.fre_start_addr;
		}
		if (((fstart + (int32_t)end) & 0xff) > (pc & 0xff))
			return (int)j;
	}
	return -1;
}

struct pcmask_diff {
	unsigned long addrs;
	unsigned long diffs;
};

/* PCMASK: ours must follow the modulo-16 rule, libsframe its low-8-bit rule. */
static void check_pcmask_pc(sframe_decoder_ctx *d, unsigned int i, uint32_t nfres, uint32_t fsize,
			    int32_t fstart, uint32_t off, const struct row *ours,
			    const struct row *theirs, const char *path, struct pcmask_diff *pd)
{
	struct row want = pcmask_expected(d, i, nfres, off), model = { 0 };
	sframe_frame_row_entry fre;
	int j = pcmask_low8_model(d, i, nfres, fsize, fstart, fstart + (int32_t)off);

	cr_assert(rows_equal(ours, &want), "%s: PCMASK FDE %u +0x%x: not the modulo-16 FRE", path,
		  i, off);
	if (j >= 0) {
		cr_assert_eq(sframe_decoder_get_fre(d, i, (unsigned int)j, &fre), 0);
		model = libsframe_row(d, &fre);
	}
	cr_assert(rows_equal(theirs, &model), "%s: PCMASK FDE %u +0x%x: libsframe left its own rule",
		  path, i, off);
	pd->addrs++;
	pd->diffs += !rows_equal(theirs, &want);
}

static void check_fde(const struct emu_sframe_section *s, sframe_decoder_ctx *d,
		      const struct elf_sframe *es, unsigned int i, const char *path,
		      struct totals *t)
{
	struct emu_sframe_fde fde;
	struct pcmask_diff pd = { 0 };
	uint32_t nfres, fsize;
	int32_t fstart;
	unsigned char finfo;

	cr_assert_eq(emu_sframe_fde_at(s, i, &fde), 0);
	cr_assert_eq(sframe_decoder_get_funcdesc(d, i, &nfres, &fsize, &fstart, &finfo), 0);
	cr_assert_eq(fde.func_start, es->addr + (int64_t)fstart, "%s FDE %u start", path, i);
	cr_assert_eq(fde.func_size, fsize);
	cr_assert_eq(fde.num_fres, nfres);
	cr_assert_eq(fde.info, finfo);
	for (uint32_t off = 0; off < fde.func_size; off++) {
		uint64_t pc = fde.func_start + off;
		sframe_frame_row_entry lfre;
		struct row ours = our_row(s, pc), theirs = { 0 };

		if (!sframe_find_fre(d, (int32_t)(pc - es->addr), &lfre))
			theirs = libsframe_row(d, &lfre);
		t->addrs++;
		if (fde.pcmask) {
			check_pcmask_pc(d, i, nfres, fsize, fstart, off, &ours, &theirs, path, &pd);
			continue;
		}
		cr_assert(rows_equal(&ours, &theirs),
			  "%s: pc 0x%llx (FDE %u +0x%x): ours start %u cfa %s%+d fp %d/%+d, "
			  "libsframe found %d start %u cfa %s%+d fp %d/%+d", path,
			  (unsigned long long)pc, i, off, ours.start, ours.base_sp ? "sp" : "fp",
			  ours.cfa, ours.fp_tracked, ours.fp, theirs.found, theirs.start,
			  theirs.base_sp ? "sp" : "fp", theirs.cfa, theirs.fp_tracked, theirs.fp);
	}
	if (pd.diffs)
		printf("  known libsframe 2.40 PCMASK difference: %s FDE %u (0x%llx..0x%llx): "
		       "%lu of %lu addresses\n", strrchr(path, '/') + 1, i,
		       (unsigned long long)fde.func_start,
		       (unsigned long long)(fde.func_start + fde.func_size), pd.diffs, pd.addrs);
	t->pcmask_addrs += pd.addrs;
	t->known_diffs += pd.diffs;
	t->fdes++;
}

static void check_file(const char *path, struct totals *t)
{
	struct elf_sframe es;
	struct emu_sframe_params p = { .arch = EMU_ARCH_X86_64 };
	struct emu_sframe_section *s = NULL;
	struct emu_verdict v;
	sframe_decoder_ctx *d;
	uint8_t *copy;
	int err = 0;

	cr_assert_eq(elf_sframe_read(path, &es), 0, "%s: no .sframe", path);
	d = sframe_decode((const char *)es.data, es.len, &err);
	cr_assert_not_null(d, "%s: libsframe: %s", path, sframe_errmsg(err));
	p.sframe_addr = es.addr;
	p.text_start = es.text_start;
	p.text_end = es.text_end;
	copy = malloc(es.len);
	memcpy(copy, es.data, es.len);
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load(copy, es.len, &p, &s, &v), 0, "%s: %s", path, v.reason);
	cr_assert_eq(emu_sframe_header(s)->num_fdes, sframe_decoder_get_num_fidx(d));
	cr_assert_gt(emu_sframe_header(s)->num_fdes, 3, "%s: too few FDEs", path);
	for (unsigned int i = 0; i < emu_sframe_header(s)->num_fdes; i++)
		check_fde(s, d, &es, i, path, t);
	emu_sframe_put(s);
	sframe_decoder_free(&d);
	elf_sframe_free(&es);
	t->files++;
}

Test(libsframe_diff, every_address_of_every_function)
{
	struct totals t = { 0 };
	struct dirent *e;
	char path[512];
	DIR *dir = opendir(DIFF_OBJ_DIR);

	cr_assert_not_null(dir, "%s", DIFF_OBJ_DIR);
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", DIFF_OBJ_DIR, e->d_name);
		check_file(path, &t);
	}
	closedir(dir);
	printf("libsframe differential: %u objects, %lu FDEs, %lu addresses (%lu PCMASK), "
	       "0 differences, %lu known libsframe PCMASK differences\n", t.files, t.fdes, t.addrs,
	       t.pcmask_addrs, t.known_diffs);
	cr_assert_geq(t.files, 20, "5+ sources x -O0/-O2 x fp/nofp");
}
