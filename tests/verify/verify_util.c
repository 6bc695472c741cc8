// SPDX-License-Identifier: GPL-2.0
/* Helpers of the verifier's tests: mini objects, real files, sections rewritten, known bugs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/sframe_internal.h"
#include "supervisor/verify/report.h"
#include "verify_util.h"

void mini_fn(struct mini *m, uint32_t off, uint32_t size, const struct sfw_fre *fres,
	     unsigned int n)
{
	cr_assert_lt(m->nfde, MINI_FNS);
	m->fde[m->nfde++] = (struct sfw_fde){ .func_start = MINI_TEXT + off, .func_size = size,
					      .fre_type = -1, .nfres = n, .fres = fres };
}

struct sfw_fre sp_row(uint32_t start, int32_t cfa, int32_t fp)
{
	return (struct sfw_fre){ .start = start, .sp_base = true, .count = fp ? 2 : 1,
				 .words = { cfa, fp } };
}

struct sfw_fre fp_row(uint32_t start, int32_t cfa, int32_t fp)
{
	return (struct sfw_fre){ .start = start, .sp_base = false, .count = fp ? 2 : 1,
				 .words = { cfa, fp } };
}

/* A fake .eh_frame: CFA = SP + 8 over [dwarf_lo, dwarf_hi). */
static int mini_dwarf(void *ctx, uint64_t addr, struct emu_unwind_rule *out)
{
	const struct mini *m = ctx;

	if (addr < m->dwarf_lo || addr >= m->dwarf_hi)
		return -ENOENT;
	*out = (struct emu_unwind_rule){ .cfa_base = EMU_CFA_SP, .cfa_off = 8,
					 .ra = { .kind = EMU_LOC_CFA_DEREF, .off = -8 },
					 .fp = { .kind = EMU_LOC_SAME, .reg = 6 } };
	return 0;
}

static struct emu_sframe_section *mini_section(struct mini *m)
{
	uint8_t version = m->version ? m->version : 2;
	struct sfw_section sec = sfw_amd64(version, version >= 2, MINI_SEC);
	struct emu_sframe_params p = { .sframe_addr = MINI_SEC, .text_start = MINI_TEXT,
				       .text_end = MINI_TEXT + MINI_CODE, .arch = EMU_ARCH_X86_64 };
	struct emu_sframe_section *s = NULL;
	static uint8_t buf[16384];
	struct sfw_layout lay;
	struct emu_verdict v;
	uint8_t *copy;
	size_t len;

	if (m->no_fixed_ra)
		sec.fixed_ra = 0;
	sec.fdes = m->fde;
	sec.nfdes = m->nfde;
	len = sfw_write(&sec, buf, sizeof(buf), &lay);
	cr_assert_gt(len, 0);
	copy = malloc(len);
	memcpy(copy, buf, len);
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load(copy, len, &p, &s, &v), 0, "%s", v.reason);
	return s;
}

void mini_run(struct mini *m, struct verify_result *out)
{
	struct emu_sframe_section *s = mini_section(m);
	struct verify_symbols syms = { .sym = m->syms, .nsym = m->nsym };
	struct emu_mem_image img = { 0 };
	struct emu_mappings text = { 0 };
	struct emu_accessor mem;
	struct verify_target t;

	emu_mem_image_add(&img, MINI_TEXT, m->code, MINI_CODE);
	mem = emu_mem_image_accessor(&img);
	emu_mappings_add(&text, MINI_TEXT, MINI_TEXT + MINI_CODE, EMU_PROT_EXEC);
	verify_symbols_sort(&syms);
	t = (struct verify_target){ .sframe = s, .mem = &mem, .text = &text, .syms = &syms,
				    .dwarf = m->dwarf_hi ? mini_dwarf : NULL, .dwarf_ctx = m };
	memset(out, 0, sizeof(*out));
	cr_assert_eq(verify_run(&t, out), 0);
	emu_sframe_put(s);
	emu_mappings_free(&text);
}

size_t count_kind(const struct verify_result *r, unsigned int k)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += r->f[i].kind == k;
	return n;
}

const struct verify_finding *finding_of(const struct verify_result *r, unsigned int k)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->f[i].kind == k)
			return &r->f[i];
	return NULL;
}

void vfile_open(struct vfile *f, const char *path)
{
	char err[512];

	memset(f, 0, sizeof(*f));
	cr_assert_eq(verify_elf_open(path, &f->e, err, sizeof(err)), 0, "%s: %s", path, err);
	cr_assert_eq(verify_elf_sframe(&f->e, &f->s, err, sizeof(err)), 0, "%s: %s", path, err);
}

void vfile_run(struct vfile *f, const struct emu_sframe_section *s)
{
	struct verify_target t = verify_elf_target(&f->e, s ? s : f->s);

	verify_result_free(&f->r);
	memset(&f->r, 0, sizeof(f->r));
	cr_assert_eq(verify_run(&t, &f->r), 0);
}

void vfile_close(struct vfile *f)
{
	verify_result_free(&f->r);
	emu_sframe_put(f->s);
	verify_elf_close(&f->e);
}

const struct verify_sym *vfile_symbol(const struct vfile *f, const char *name)
{
	for (size_t i = 0; i < f->e.syms.nsym; i++)
		if (f->e.syms.sym[i].name && !strcmp(f->e.syms.sym[i].name, name))
			return &f->e.syms.sym[i];
	cr_assert_fail("no symbol %s", name);
	return NULL;
}

static struct sfw_fre *copy_fres(const struct emu_sframe_section *s, const struct emu_sframe_fde *fde)
{
	struct sfw_fre *out = calloc(fde->num_fres + 1, sizeof(*out));
	size_t pos = fde->fres_pos;

	cr_assert(out);
	for (uint32_t j = 0; j < fde->num_fres; j++) {
		struct emu_sframe_fre fre;

		cr_assert_eq(emu_sf_decode_fre(s, fde, &pos, &fre), 0);
		out[j] = (struct sfw_fre){ .start = fre.start, .sp_base = fre.info & 1,
					   .mangled_ra = fre.info >> 7, .count = fre.count,
					   .word_size = fre.word_size };
		memcpy(out[j].words, fre.word, sizeof(out[j].words));
	}
	return out;
}

void sf_copy_of(const struct emu_sframe_section *s, uint64_t addr, struct sf_copy *c)
{
	const struct emu_sframe_hdr *h = emu_sframe_header(s);

	memset(c, 0, sizeof(*c));
	cr_assert_leq(h->num_fdes, SFW_MAX_FDES);
	c->sec = sfw_amd64(h->version, h->flags & EMU_SF_F_FDE_FUNC_START_PCREL, addr);
	c->sec.fixed_fp = h->fixed_fp;
	c->sec.fixed_ra = h->fixed_ra;
	for (uint32_t i = 0; i < h->num_fdes; i++) {
		struct emu_sframe_fde fde;

		cr_assert_eq(emu_sframe_fde_at(s, i, &fde), 0);
		c->fres[i] = copy_fres(s, &fde);
		c->fde[i] = (struct sfw_fde){ .func_start = fde.func_start, .func_size = fde.func_size,
					      .fre_type = EMU_SF_INFO_FRE_TYPE(fde.info),
					      .pcmask = fde.pcmask,
					      .rep_size = h->version == 1 ? 0 : fde.rep_size,
					      .fde_type = fde.type, .signal = fde.signal,
					      .nfres = fde.num_fres, .fres = c->fres[i] };
	}
	c->sec.fdes = c->fde;
	c->sec.nfdes = h->num_fdes;
}

void sf_copy_free(struct sf_copy *c)
{
	for (unsigned int i = 0; i < c->sec.nfdes; i++)
		free(c->fres[i]);
}

struct emu_sframe_section *sf_copy_load(const struct sf_copy *c, struct vfile *f)
{
	struct emu_sframe_params p = { .sframe_addr = c->sec.addr, .arch = EMU_ARCH_X86_64,
				       .text_start = f->e.text.vma[0].start,
				       .text_end = f->e.text.vma[0].end, .maps = &f->e.text };
	size_t cap = emu_sframe_size(f->s) * 2 + 4096, len;
	struct emu_sframe_section *s = NULL;
	uint8_t *buf = calloc(1, cap);
	struct sfw_layout lay;
	struct emu_verdict v;

	cr_assert(buf);
	len = sfw_write(&c->sec, buf, cap, &lay);
	cr_assert_gt(len, 0);
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load(buf, len, &p, &s, &v), 0, "%s", v.reason);
	return s;
}

unsigned int sf_copy_fde(const struct sf_copy *c, uint64_t start)
{
	for (unsigned int i = 0; i < c->sec.nfdes; i++)
		if (c->fde[i].func_start == start)
			return i;
	cr_assert_fail("no FDE at %#llx", (unsigned long long)start);
	return 0;
}

/* The code says SP + @code, the row SP + @row. */
static bool cfa_sp(const struct verify_finding *fd, int32_t code, int64_t row)
{
	return fd->kind == VERIFY_CFA_MISMATCH && fd->code.sp_known && fd->code.sp_cfa == code &&
	       fd->row.cfa_base == EMU_CFA_SP && !fd->row.cfa_deref && fd->row.cfa_off == row;
}

const char *known_bug(const struct verify_finding *fd)
{
	uint64_t off = fd->start - fd->func_start;

	if (!strcmp(fd->section, ".plt.got") && cfa_sp(fd, 8, 16))
		return "binutils ld 2.44+ (none in 2.40): the .plt.got FDE's one row says "
		       "CFA = SP + 16; its stubs are called (CFA = SP + 8), as .eh_frame says";
	if (!strcmp(fd->section, ".plt.sec") && cfa_sp(fd, 8, 16))
		return "PR ld/32296 (binutils ld before 2.44): with -z ibtplt the first .plt.sec "
		       "stub gets PLT0's rows";
	if (!strcmp(fd->section, ".plt") && cfa_sp(fd, 16, 8) && (off % 16) == 9)
		return "PR ld/32296 (binutils ld before 2.44): with -z ibtplt the .plt entries' "
		       "second row starts after the push of the non-IBT entry (+0xb), not +0x9";
	return NULL;
}

const char *unexplained(const struct verify_result *r)
{
	static char buf[8192];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->n && n < sizeof(buf) - 512; i++) {
		char line[512];

		if (!verify_is_mismatch(r->f[i].kind) || known_bug(&r->f[i]))
			continue;
		verify_finding_text(&r->f[i], 0, line, sizeof(line));
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\n  %s", line);
	}
	return buf;
}
