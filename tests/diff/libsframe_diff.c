// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test against libsframe: programs compiled here with
 * -Wa,--gsframe at -O0 and -O2, with and without frame pointers, by this
 * machine's toolchain (SFrame v1 from binutils 2.40, v2 from 2.41-2.44, v3
 * from 2.46+). For every byte address of every function, our FRE lookup (CFA
 * base, CFA/RA/FP offsets) must equal sframe_find_fre()'s. Zero differences
 * allowed, with one known exception: libsframe before binutils 2.45 does not
 * find PCMASK (PLT) FREs by the ABI's modulo rule (2.40 matches v1's on the
 * low 8 address bits, its FIXME; 2.41-2.44 find v2's at a few offsets only);
 * there the modulo rule (the repetition size; 16 in v1) over libsframe's own
 * FRE list is the reference, and the addresses where libsframe's lookup
 * disagrees with it are listed. v3 FLEX FDEs (DRAP realignment)
 * describe rows libsframe's offset getters cannot express: they are checked
 * by the shipped v3 vectors against objdump's dump instead, and counted here.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_sframe.h"
#include "emu/emu.h"
#include "libsframe_compat.h"

struct totals {
	unsigned int files;
	unsigned long fdes;
	unsigned long addrs;
	unsigned long pcmask_addrs;
	unsigned long known_diffs;
	unsigned long flex_fdes;
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

/* What libsframe says of @fre, an FRE of an FDE of @type (v3; 0 before). */
static struct row libsframe_row(sframe_decoder_ctx *d, sframe_frame_row_entry *fre, uint32_t type)
{
	struct row r = { .found = 1, .start = fre->fre_start_addr };
	int err = 0;

	r.base_sp = sframe_fre_get_base_reg_id(fre, &err);
	r.cfa = lsf_cfa_offset(d, fre, type, &err);
	cr_assert_eq(err, 0, "libsframe CFA offset");
	/* a fixed RA offset is an error here: the caller takes the header's */
	r.ra = lsf_ra_offset(d, fre, type, &err);
	if (err)
		r.ra = sframe_decoder_get_fixed_ra_offset(d);
	err = 0;
	r.fp = lsf_fp_offset(d, fre, type, &err);
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

/*
 * The ABI's PCMASK rule, from libsframe's own FRE list: the offset modulo the
 * repetition size (our decoder's: v1 has none, 16 on AMD64).
 */
static struct row pcmask_expected(sframe_decoder_ctx *d, unsigned int i, const struct lsf_fde *f,
				  uint32_t rep, uint32_t off)
{
	sframe_frame_row_entry fre, best;
	struct row r = { 0 };

	for (uint32_t j = 0; j < f->num_fres; j++) {
		cr_assert_eq(sframe_decoder_get_fre(d, i, j, &fre), 0);
		if (fre.fre_start_addr > off % rep)
			break;
		best = fre;
		r.found = 1;
	}
	return r.found ? libsframe_row(d, &best, f->type) : r;
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

/* What libsframe's own PCMASK lookup is held to. */
enum pcmask_rule {
	PCMASK_MODULO,		/* 2.45+: the ABI's rule */
	PCMASK_LOW8,		/* 2.40, v1: its documented low-8-bit rule */
	PCMASK_UNMODELLED,	/* 2.41-2.44, v2: finds FREs at a few offsets only */
};

struct pcmask_diff {
	enum pcmask_rule rule;
	unsigned long addrs;
	unsigned long diffs;
};

/*
 * PCMASK: ours must follow the modulo rule, and so must libsframe 2.45+;
 * older ones' answers that differ are counted as known differences (2.40's
 * checked against the rule it documents).
 */
static void check_pcmask_pc(sframe_decoder_ctx *d, unsigned int i, const struct lsf_fde *f,
			    const struct emu_sframe_fde *fde, uint32_t off,
			    const struct row *ours, const struct row *theirs, const char *path,
			    struct pcmask_diff *pd)
{
	struct row want = pcmask_expected(d, i, f, fde->rep_size, off), model = want;
	sframe_frame_row_entry fre;
	int j;

	cr_assert(rows_equal(ours, &want), "%s: PCMASK FDE %u +0x%x: not the modulo FRE", path, i,
		  off);
	if (pd->rule == PCMASK_LOW8) {
		j = pcmask_low8_model(d, i, f->num_fres, f->size, (int32_t)f->start,
				      (int32_t)(f->start + off));
		model = (struct row){ 0 };
		if (j >= 0) {
			cr_assert_eq(sframe_decoder_get_fre(d, i, (unsigned int)j, &fre), 0);
			model = libsframe_row(d, &fre, f->type);
		}
	}
	if (pd->rule != PCMASK_UNMODELLED)
		cr_assert(rows_equal(theirs, &model), "%s: PCMASK FDE %u +0x%x: libsframe left its "
			  "%s rule", path, i, off, pd->rule == PCMASK_LOW8 ? "low-8-bit" : "modulo");
	pd->addrs++;
	pd->diffs += !rows_equal(theirs, &want);
}

static void check_fde(const struct emu_sframe_section *s, sframe_decoder_ctx *d,
		      const struct elf_sframe *es, unsigned int i, const char *path,
		      struct totals *t)
{
	struct emu_sframe_fde fde;
	struct pcmask_diff pd = {
		.rule = LIBSFRAME_API >= 245 ? PCMASK_MODULO :
			emu_sframe_header(s)->version == 1 ? PCMASK_LOW8 : PCMASK_UNMODELLED,
	};
	struct lsf_fde f;

	cr_assert_eq(emu_sframe_fde_at(s, i, &fde), 0);
	cr_assert_eq(lsf_fde_at(d, i, &f), 0);
	cr_assert_eq(fde.func_start, lsf_fde_addr(d, es->addr, i, &f), "%s FDE %u start", path, i);
	cr_assert_eq(fde.func_size, f.size);
	cr_assert_eq(fde.num_fres, f.num_fres);
	cr_assert_eq(fde.info, f.info);
	t->fdes++;
	if (f.type == LSF_FDE_TYPE_FLEX) {
		t->flex_fdes++;
		return;
	}
	for (uint32_t off = 0; off < fde.func_size; off++) {
		uint64_t pc = fde.func_start + off;
		sframe_frame_row_entry lfre;
		struct row ours = our_row(s, pc), theirs = { 0 };

		if (!lsf_find_fre(d, (int64_t)(pc - es->addr), &lfre))
			theirs = libsframe_row(d, &lfre, f.type);
		t->addrs++;
		if (fde.pcmask) {
			check_pcmask_pc(d, i, &f, &fde, off, &ours, &theirs, path, &pd);
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
		printf("  known libsframe PCMASK difference: %s FDE %u (0x%llx..0x%llx): "
		       "%lu of %lu addresses\n", strrchr(path, '/') + 1, i,
		       (unsigned long long)fde.func_start,
		       (unsigned long long)(fde.func_start + fde.func_size), pd.diffs, pd.addrs);
	t->pcmask_addrs += pd.addrs;
	t->known_diffs += pd.diffs;
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
	printf("libsframe differential: %u objects, %lu FDEs (%lu FLEX), %lu addresses "
	       "(%lu PCMASK), 0 differences, %lu known libsframe PCMASK differences\n", t.files,
	       t.fdes, t.flex_fdes, t.addrs, t.pcmask_addrs, t.known_diffs);
	cr_assert_geq(t.files, 20, "5+ sources x -O0/-O2 x fp/nofp");
}
