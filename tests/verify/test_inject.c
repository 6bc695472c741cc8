// SPDX-License-Identifier: GPL-2.0
/*
 * Rows made wrong on purpose in real toolchain output: the .sframe of a
 * corpus program (this machine's gcc and binutils, with and without frame
 * pointers, -O2) decoded, changed in one place with the project's SFrame writer,
 * and loaded again by emu; the verifier must find exactly that one change,
 * with the exact kind and address, and nothing else that it did not find
 * in the unchanged section:
 *
 *	CFA off by 8		cfa-mismatch at the row's start
 *	RA offset wrong		ra-mismatch at the row's start (a section
 *				without fixed RA offset, every row saying it)
 *	a row one instruction late	cfa-mismatch at the instruction it
 *				should have started at, that instruction only
 *	an FDE one byte short	function-without-fde at the function's
 *				last byte (its symbol and .eh_frame cover it)
 */
#include <criterion/criterion.h>
#include <string.h>

#include "emu/emu.h"
#include "supervisor/verify/insn.h"
#include "verify_util.h"

#define FN "recurse"

static const char *const objects[] = {
	CORPUS_DIR "/recursion-O2-nofp",
	CORPUS_DIR "/recursion-O2-fp",
};

/**
 * struct case_ - one object: the file, its unchanged result, its section
 * described, and the function's FDE in it
 */
struct case_ {
	struct vfile f;
	struct verify_result base;
	struct sf_copy c;
	const struct verify_sym *sym;
	unsigned int fde;
};

static void open_case(struct case_ *k, const char *path)
{
	vfile_open(&k->f, path);
	vfile_run(&k->f, NULL);
	k->base = k->f.r;
	memset(&k->f.r, 0, sizeof(k->f.r));
	sf_copy_of(k->f.s, k->f.e.sframe_addr, &k->c);
	k->sym = vfile_symbol(&k->f, FN);
	k->fde = sf_copy_fde(&k->c, k->sym->start);
	cr_assert_eq(k->c.fde[k->fde].fde_type, 0, "%s: %s has a FLEX FDE", path, FN);
}

static void close_case(struct case_ *k)
{
	sf_copy_free(&k->c);
	verify_result_free(&k->base);
	vfile_close(&k->f);
}

static bool same_finding(const struct verify_finding *a, const struct verify_finding *b)
{
	return a->kind == b->kind && a->start == b->start && a->end == b->end;
}

/* The changed section verified: exactly one mismatch the unchanged one did not have. */
static const struct verify_finding *only_new(struct case_ *k, const char *path)
{
	struct emu_sframe_section *s = sf_copy_load(&k->c, &k->f);
	const struct verify_finding *found = NULL;
	size_t n = 0;

	vfile_run(&k->f, s);
	emu_sframe_put(s);
	for (size_t i = 0; i < k->f.r.n; i++) {
		const struct verify_finding *fd = &k->f.r.f[i];
		bool old = false;

		if (!verify_is_mismatch(fd->kind))
			continue;
		for (size_t j = 0; j < k->base.n && !old; j++)
			old = same_finding(fd, &k->base.f[j]);
		if (old)
			continue;
		found = fd;
		n++;
	}
	cr_assert_eq(n, 1, "%s: %zu new mismatches%s", path, n, unexplained(&k->f.r));
	cr_assert_eq(verify_mismatches(&k->f.r.st), verify_mismatches(&k->base.st) + 1,
		     "%s: an old finding went away", path);
	return found;
}

/* Does row @j change the CFA from row @j - 1? */
static bool changes_cfa(const struct sfw_fde *d, unsigned int j)
{
	return d->fres[j].count && (d->fres[j].words[0] != d->fres[j - 1].words[0] ||
				    d->fres[j].sp_base != d->fres[j - 1].sp_base);
}

/*
 * Is row @j - 1 surely wrong at row @j's first instruction? When SP moved
 * (the same base, another offset), or FP was restored (FP- to SP-based);
 * not when FP was just set from SP (SP- to FP-based: both rows hold there).
 */
static bool previous_wrong(const struct sfw_fde *d, unsigned int j)
{
	const struct sfw_fre *a = &d->fres[j - 1], *b = &d->fres[j];

	return changes_cfa(d, j) && a->count && (a->sp_base == b->sp_base || !a->sp_base);
}

/* The first row of the function after its first whose CFA differs from the row before. */
static unsigned int changing_row(const struct sfw_fde *d)
{
	for (unsigned int j = 1; j < d->nfres; j++)
		if (changes_cfa(d, j))
			return j;
	cr_assert_fail("no row changes the CFA");
	return 0;
}

static struct sfw_fre *fre(struct case_ *k, unsigned int j)
{
	return (struct sfw_fre *)&k->c.fde[k->fde].fres[j];
}

Test(inject, cfa_off_by_8)
{
	for (size_t o = 0; o < sizeof(objects) / sizeof(objects[0]); o++) {
		struct case_ k;
		unsigned int j;
		const struct verify_finding *fd;

		open_case(&k, objects[o]);
		j = changing_row(&k.c.fde[k.fde]);
		fre(&k, j)->words[0] += 8;
		fd = only_new(&k, objects[o]);
		cr_assert_eq(fd->kind, VERIFY_CFA_MISMATCH, "%s", objects[o]);
		cr_assert_eq(fd->start, k.sym->start + fre(&k, j)->start, "%s: at %#llx",
			     objects[o], (unsigned long long)fd->start);
		cr_assert_eq(fd->row.cfa_off, fre(&k, j)->words[0]);
		close_case(&k);
	}
}

/* Every row of every DEFAULT FDE gets an RA word (-8) after its CFA word; no fixed RA. */
static void add_ra_words(struct case_ *k)
{
	k->c.sec.fixed_ra = 0;
	for (unsigned int i = 0; i < k->c.sec.nfdes; i++) {
		if (k->c.fde[i].fde_type)
			continue;
		for (unsigned int j = 0; j < k->c.fde[i].nfres; j++) {
			struct sfw_fre *f = &k->c.fres[i][j];

			if (!f->count)
				continue;
			memmove(&f->words[2], &f->words[1], (f->count - 1) * sizeof(f->words[0]));
			f->words[1] = -8;
			f->count++;
		}
	}
}

Test(inject, ra_offset_wrong)
{
	for (size_t o = 0; o < sizeof(objects) / sizeof(objects[0]); o++) {
		struct case_ k;
		unsigned int j;
		const struct verify_finding *fd;

		open_case(&k, objects[o]);
		add_ra_words(&k);
		j = changing_row(&k.c.fde[k.fde]);
		fre(&k, j)->words[1] = -16;
		fd = only_new(&k, objects[o]);
		cr_assert_eq(fd->kind, VERIFY_RA_MISMATCH, "%s: %s", objects[o],
			     verify_kind_name(fd->kind));
		cr_assert_eq(fd->start, k.sym->start + fre(&k, j)->start, "%s", objects[o]);
		cr_assert_eq(fd->code.ra_slot, -8);
		cr_assert_eq(fd->row.ra.off, -16);
		close_case(&k);
	}
}

/* The length of the instruction at @addr of @k's file. */
static unsigned int insn_len(struct case_ *k, uint64_t addr)
{
	struct vdecoder *d = vdecoder_new();
	struct vinsn in;
	uint8_t code[15];
	unsigned int len;

	cr_assert(d);
	cr_assert_eq(emu_read(&k->f.e.mem, addr, code, sizeof(code)), 0);
	len = vdecode(d, code, sizeof(code), addr, &in);
	vdecoder_free(d);
	cr_assert_gt(len, 0);
	return len;
}

Test(inject, row_one_instruction_late)
{
	for (size_t o = 0; o < sizeof(objects) / sizeof(objects[0]); o++) {
		struct case_ k;
		const struct sfw_fde *d;
		const struct verify_finding *fd;
		uint64_t at = 0;
		unsigned int j, len = 0;

		open_case(&k, objects[o]);
		d = &k.c.fde[k.fde];
		/* a row its predecessor cannot stand for, lasting more than one instruction */
		for (j = 1; j < d->nfres; j++) {
			at = k.sym->start + d->fres[j].start;
			len = insn_len(&k, at);
			if (previous_wrong(d, j) && d->fres[j].start + len < d->func_size &&
			    (j + 1 == d->nfres || d->fres[j + 1].start > d->fres[j].start + len))
				break;
		}
		cr_assert_lt(j, d->nfres, "%s: no row to move", objects[o]);
		fre(&k, j)->start += len;
		fd = only_new(&k, objects[o]);
		cr_assert_eq(fd->kind, VERIFY_CFA_MISMATCH, "%s", objects[o]);
		cr_assert_eq(fd->start, at, "%s: at %#llx, not %#llx", objects[o],
			     (unsigned long long)fd->start, (unsigned long long)at);
		cr_assert_eq(fd->end, at + len, "%s: the one instruction", objects[o]);
		close_case(&k);
	}
}

Test(inject, fde_one_byte_short)
{
	for (size_t o = 0; o < sizeof(objects) / sizeof(objects[0]); o++) {
		struct case_ k;
		struct sfw_fde *d;
		const struct verify_finding *fd;
		uint64_t end;

		open_case(&k, objects[o]);
		d = &k.c.fde[k.fde];
		end = d->func_start + d->func_size;
		cr_assert_eq(end, k.sym->start + k.sym->size, "%s: FDE and symbol agree", objects[o]);
		d->func_size--;
		while (d->nfres && d->fres[d->nfres - 1].start >= d->func_size)
			d->nfres--;	/* a row at the last byte would be outside the function */
		fd = only_new(&k, objects[o]);
		cr_assert_eq(fd->kind, VERIFY_FUNCTION_WITHOUT_FDE, "%s: %s", objects[o],
			     verify_kind_name(fd->kind));
		cr_assert_eq(fd->start, end - 1, "%s", objects[o]);
		cr_assert_eq(fd->end, end);
		cr_assert_str_eq(fd->function, FN);
		close_case(&k);
	}
}
