// SPDX-License-Identifier: GPL-2.0
/*
 * The analysed states held to the SFrame rows, instruction by instruction:
 * the row in effect is the one emu's lookup finds (what the kernel's
 * unwinder would use), and each column (CFA, RA, FP) either matches the
 * code, contradicts it (a finding), or cannot be decided from what the
 * analysis knows there (an unknown finding, with why). A wrong CFA makes the
 * RA and FP columns moot: only the CFA is reported then.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

enum vres { R_MATCH, R_MISMATCH, R_UNDECIDED };

static uint8_t why_of(const struct vstate *s, uint8_t fallback)
{
	return s->why ? s->why : fallback;
}

static struct vval cfa_base(const struct vstate *s, const struct emu_unwind_rule *r, bool *form)
{
	if (r->cfa_base == EMU_CFA_SP)
		return s->reg[VREG_SP];
	if (r->cfa_base == EMU_CFA_FP)
		return s->reg[VREG_FP];
	if (r->cfa_reg < VREG_COUNT)
		return s->reg[r->cfa_reg];
	*form = true;
	return (struct vval){ .kind = VK_UNKNOWN };
}

static enum vres check_cfa(const struct vstate *s, const struct emu_unwind_rule *r, uint8_t *why)
{
	bool form = r->cfa_deref;
	struct vval v = cfa_base(s, r, &form);

	if (form) {
		*why = why_of(s, VERIFY_WHY_ROW_FORM);
		return R_UNDECIDED;
	}
	switch (v.kind) {
	case VK_CFA:
		return -(int64_t)v.off == r->cfa_off ? R_MATCH : R_MISMATCH;
	case VK_UNKNOWN:
		*why = why_of(s, VERIFY_WHY_MERGE);
		return R_UNDECIDED;
	case VK_STACK:
		/* SP moved by an amount the code does not fix: no SP offset is right */
		if (r->cfa_base == EMU_CFA_SP)
			return R_MISMATCH;
		*why = why_of(s, VERIFY_WHY_UNMODELLED);
		return R_UNDECIDED;
	default:
		return R_MISMATCH;
	}
}

/* Where @l says a saved value is, read from @s; *@form: not a place the analysis names. */
static struct vval loc_value(const struct vstate *s, const struct emu_loc_rule *l, bool *form)
{
	struct vval r;

	switch (l->kind) {
	case EMU_LOC_SAME:
		if (l->reg < VREG_COUNT)
			return s->reg[l->reg];
		break;
	case EMU_LOC_CFA_DEREF:
		if (l->off >= INT32_MIN && l->off <= INT32_MAX)
			return vstate_slot(s, (int32_t)l->off);
		break;
	case EMU_LOC_REG:
		if (l->reg < VREG_COUNT && !l->off)
			return s->reg[l->reg];
		break;
	case EMU_LOC_REG_DEREF:
		r = l->reg < VREG_COUNT ? s->reg[l->reg] : (struct vval){ .kind = VK_OTHER };
		if (r.kind == VK_CFA && l->off >= INT32_MIN && l->off <= INT32_MAX)
			return vstate_slot(s, (int32_t)((int64_t)r.off + l->off));
		if (r.kind == VK_UNKNOWN || r.kind == VK_STACK)
			return (struct vval){ .kind = VK_UNKNOWN };
		break;
	}
	*form = true;
	return (struct vval){ .kind = VK_UNKNOWN };
}

static enum vres check_loc(const struct vstate *s, const struct emu_loc_rule *l, uint8_t want,
			   uint8_t *why)
{
	bool form = false;
	struct vval v = loc_value(s, l, &form);

	if (form) {
		*why = why_of(s, VERIFY_WHY_ROW_FORM);
		return R_UNDECIDED;
	}
	if (v.kind == want)
		return R_MATCH;
	if (v.kind == VK_UNKNOWN) {
		*why = why_of(s, VERIFY_WHY_MERGE);
		return R_UNDECIDED;
	}
	return R_MISMATCH;
}

struct verify_code vcode_of(const struct vstate *s)
{
	struct verify_code c = { .ra_slot = 0 };
	struct vval sp = s->reg[VREG_SP], fp = s->reg[VREG_FP];

	c.sp_known = sp.kind == VK_CFA;
	c.sp_cfa = c.sp_known ? -sp.off : 0;
	c.fp_known = fp.kind == VK_CFA;
	c.fp_cfa = c.fp_known ? -fp.off : 0;
	c.fp_same = fp.kind == VK_CALLER_FP;
	for (unsigned int i = 0; i < s->nslots; i++) {
		if (s->slot[i].val.kind == VK_CALLER_FP && !c.fp_saved) {
			c.fp_saved = true;
			c.fp_slot = s->slot[i].off;
		}
		if (s->slot[i].val.kind == VK_RA && !c.ra_slot)
			c.ra_slot = s->slot[i].off;
	}
	return c;
}

/* The kind a mismatch of the three columns is reported as (the CFA first); -1: none. */
static int check_all(const struct vstate *s, const struct emu_unwind_rule *r, uint8_t *why,
		     bool *undecided)
{
	enum vres c = check_cfa(s, r, why), ra, fp;

	if (c == R_MISMATCH)
		return VERIFY_CFA_MISMATCH;
	if (c == R_UNDECIDED) {
		*undecided = true;
		return -1;
	}
	ra = check_loc(s, &r->ra, VK_RA, why);
	if (ra == R_MISMATCH)
		return VERIFY_RA_MISMATCH;
	fp = check_loc(s, &r->fp, VK_CALLER_FP, why);
	if (fp == R_MISMATCH)
		return VERIFY_FP_MISMATCH;
	*undecided = ra == R_UNDECIDED || fp == R_UNDECIDED;
	return -1;
}

static bool loc_eq(const struct emu_loc_rule *a, const struct emu_loc_rule *b)
{
	return a->kind == b->kind && a->reg == b->reg && a->off == b->off;
}

/* Does @d (.eh_frame) say what @r says in the column of @kind? */
static bool column_eq(const struct emu_unwind_rule *d, const struct emu_unwind_rule *r, int kind)
{
	if (kind == VERIFY_RA_MISMATCH)
		return loc_eq(&d->ra, &r->ra);
	if (kind == VERIFY_FP_MISMATCH)
		return loc_eq(&d->fp, &r->fp);
	return d->cfa_base == r->cfa_base && d->cfa_off == r->cfa_off &&
	       d->cfa_deref == r->cfa_deref && (d->cfa_base != EMU_CFA_REG || d->cfa_reg == r->cfa_reg);
}

static uint8_t dwarf_opinion(const struct vctx *cx, const struct vstate *s, uint64_t addr,
			     const struct emu_unwind_rule *r, int kind)
{
	struct emu_unwind_rule d;
	bool undecided = false;
	uint8_t why = 0;
	int dk;

	if (!cx->t->dwarf || cx->t->dwarf(cx->t->dwarf_ctx, addr, &d) || d.outermost)
		return VERIFY_DWARF_NONE;
	if ((d.cfa_base == EMU_CFA_REG && d.cfa_reg == 0xff) ||
	    (kind == VERIFY_RA_MISMATCH && d.ra.kind == EMU_LOC_REG && d.ra.reg == 0xff) ||
	    (kind == VERIFY_FP_MISMATCH && d.fp.kind == EMU_LOC_REG && d.fp.reg == 0xff))
		return VERIFY_DWARF_EXPR;
	dk = check_all(s, &d, &why, &undecided);
	if (dk < 0 && !undecided)
		return VERIFY_DWARF_CODE;
	return column_eq(&d, r, kind) ? VERIFY_DWARF_ROW : VERIFY_DWARF_NEITHER;
}

static bool in_text(const struct vctx *cx, uint64_t addr)
{
	return emu_mappings_find(cx->t->text, addr) != NULL;
}

/* The row in effect at @addr: the target's own lookup, else its SFrame section's. */
static int lookup(const struct vctx *cx, uint64_t addr, struct verify_lookup *out)
{
	struct emu_sframe_fde fde;
	struct emu_sframe_fre fre;
	uint32_t idx;

	if (cx->t->lookup)
		return cx->t->lookup(cx->t->lookup_ctx, addr, out);
	if (emu_sframe_find(cx->t->sframe, addr, &idx, &fde, &fre))
		return -ENOENT;
	*out = (struct verify_lookup){ .fde = idx, .num_rows = fde.num_fres,
				       .func_start = fde.func_start, .func_size = fde.func_size,
				       .row_start = fre.start, .signal = fde.signal };
	out->have_rule = !emu_sframe_rule(cx->t->sframe, &fde, &fre, &out->rule);
	return 0;
}

/* @fd's section (and its start) at @addr, and the index of the FDE at @fd->func_start. */
static void section_of(const struct vctx *cx, uint64_t addr, struct verify_finding *fd)
{
	const struct verify_section *sec = cx->t->syms ? verify_section_of(cx->t->syms, addr) :
						       NULL;
	struct verify_lookup lk;

	snprintf(fd->section, sizeof(fd->section), "%s", sec ? sec->name : "");
	fd->sec_start = sec ? sec->start : 0;
	fd->have_fde = !lookup(cx, fd->func_start, &lk) && !lk.jit &&
		       lk.func_start == fd->func_start;
	fd->fde = fd->have_fde ? lk.fde : 0;
}

/*
 * A function's undecided instructions, gathered into its one unknown
 * finding: @fd is the first's, its ranges growing (@cap of them allocated)
 */
struct vunknown {
	struct verify_finding fd;
	size_t cap;
	char cause[160];
};

/* Undecided instruction @fd (before it, state @s; NULL: no path reaches it) joins @u. */
static void unknown_add(struct vunknown *u, const struct verify_finding *fd,
			const struct vstate *s)
{
	struct verify_range *r = u->fd.nranges ? &u->fd.range[u->fd.nranges - 1] : NULL;

	if (!u->fd.nranges) {
		u->fd = *fd;
		u->fd.range = NULL;
		u->cap = 0;
		if (s && (s->why == VERIFY_WHY_MERGE || s->why == VERIFY_WHY_CALL) &&
		    (s->conflict.here.kind || s->conflict.there.kind)) {
			vconflict_text(&s->conflict, u->cause, sizeof(u->cause));
			u->fd.cause = u->cause;
		}
	}
	u->fd.insns++;
	if (r && r->end == fd->start && r->why == fd->why && r->why_at == fd->why_at) {
		r->end = fd->end;
		return;
	}
	if (u->fd.nranges == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 8;

		r = realloc(u->fd.range, cap * sizeof(*r));
		if (!r)
			return;	/* the range is not listed; the instruction is counted */
		u->fd.range = r;
		u->cap = cap;
	}
	u->fd.range[u->fd.nranges++] = (struct verify_range){ .start = fd->start, .end = fd->end,
							       .why = fd->why,
							       .why_at = fd->why_at };
}

/* @u's finding, over its first range's start to its last one's end, into @out. */
static void unknown_flush(struct vunknown *u, const char *fn_name, struct verify_result *out)
{
	if (!u->fd.insns)
		return;
	if (u->fd.nranges)
		u->fd.end = u->fd.range[u->fd.nranges - 1].end;
	verify_add(out, &u->fd, fn_name);
	free(u->fd.range);
}

/*
 * An instruction no path reaches: padding, dead code, or code behind an
 * unresolved jump. Its verdict (VERIFY_ROW_UNREACHED or VERIFY_UNKNOWN).
 */
static int unreached(const struct vfunc *f, const struct vinsn *in, struct verify_finding *fd,
		     struct verify_result *out, struct vunknown *u)
{
	if (in->nop || !f->unresolved_at) {
		out->st.unreachable++;
		return VERIFY_ROW_UNREACHED;
	}
	out->st.undecided++;
	fd->kind = VERIFY_UNKNOWN;
	fd->why = VERIFY_WHY_INDIRECT_JUMP;
	fd->why_at = f->unresolved_at;
	unknown_add(u, fd, NULL);
	return VERIFY_UNKNOWN;
}

/* Where to record the next row of a dump; NULL when no memory (counted). */
static struct verify_row *new_row(struct verify_result *out)
{
	struct verify_row *n;
	size_t cap;

	if (out->nrows == out->caprows) {
		cap = out->caprows ? out->caprows * 2 : 64;
		n = out->nrows < VERIFY_MAX_FINDINGS ? realloc(out->rows, cap * sizeof(*n)) : NULL;
		if (!n) {
			out->rows_dropped++;
			return NULL;
		}
		out->rows = n;
		out->caprows = cap;
	}
	return &out->rows[out->nrows++];
}

static uint8_t col_of(enum vres r)
{
	return r == R_MATCH ? VERIFY_COL_MATCH :
	       r == R_MISMATCH ? VERIFY_COL_DIFFERS : VERIFY_COL_UNDECIDED;
}

/* Each column of @w's row held to the state @s, as check_all() holds them. */
static void row_columns(const struct vstate *s, struct verify_row *w)
{
	uint8_t why = 0;

	w->have_code = true;
	w->code = vcode_of(s);
	w->cfa = col_of(check_cfa(s, &w->row, &why));
	w->ra = col_of(check_loc(s, &w->row.ra, VK_RA, &why));
	w->fp = col_of(check_loc(s, &w->row.fp, VK_CALLER_FP, &why));
}

/*
 * --dump: instruction @i of @f, whose verdict is @verdict (@why when
 * unknown), starts a row (the row in effect changed) or continues the last.
 */
static void dump_insn(const struct vctx *cx, const struct vfunc *f, uint32_t i, int verdict,
		      uint8_t why, struct verify_result *out)
{
	const struct vinsn *in = &f->insn[i];
	struct verify_row *w = out->nrows ? &out->rows[out->nrows - 1] : NULL;
	struct verify_lookup lk;

	if (lookup(cx, in->addr, &lk))
		return;
	if (w && w->fde == lk.fde && w->func_start == lk.func_start &&
	    w->fre_start == lk.row_start && w->end == in->addr) {
		w->end = in->addr + in->len;
		w->later += verify_is_mismatch((unsigned int)verdict);
		return;
	}
	w = new_row(out);
	if (!w)
		return;
	*w = (struct verify_row){ .fde = lk.fde, .num_fres = lk.num_rows,
				  .func_start = lk.func_start, .func_size = lk.func_size,
				  .name = lk.func_start == f->start ? f->name : NULL,
				  .start = in->addr, .end = in->addr + in->len,
				  .fre_start = lk.row_start, .verdict = (uint8_t)verdict,
				  .why = verdict == VERIFY_UNKNOWN ? why : 0,
				  .have_row = lk.have_rule, .row = lk.rule };
	if (w->have_row && verdict != VERIFY_ROW_NOT_CHECKED && verdict != VERIFY_ROW_UNREACHED &&
	    f->in[i].reached)
		row_columns(&f->in[i], w);
}

/*
 * Hold instruction @i of @f to its row. Its verdict: the finding's kind,
 * VERIFY_ROW_MATCH, _UNREACHED, _NOT_CHECKED, or -1 (no row); @why its
 * reason when unknown.
 */
static int compare_insn(const struct vctx *cx, const struct vfunc *f, uint32_t i,
			struct verify_result *out, struct vunknown *u, uint8_t *why_out)
{
	const struct vinsn *in = &f->insn[i];
	const struct vstate *s = &f->in[i];
	struct verify_finding fd = { .start = in->addr, .end = in->addr + in->len };
	struct verify_lookup lk;
	bool undecided = false;
	uint8_t why = 0;
	int kind;

	if (!in_text(cx, in->addr) || lookup(cx, in->addr, &lk))
		return -1;	/* no row: function-without-fde's business (object.c) */
	if (lk.signal || !lk.have_rule || lk.rule.outermost) {
		out->st.not_checked++;
		return VERIFY_ROW_NOT_CHECKED;
	}
	fd.row = lk.rule;
	fd.have_row = true;
	fd.jit = lk.jit;
	fd.fre_start = lk.row_start;
	fd.func_start = lk.func_start;
	if (lk.jit) {	/* an entry of the function analysed: offsets from its start */
		fd.func_start = f->start;
		fd.fre_start = (uint32_t)(lk.func_start - f->start);
	}
	section_of(cx, in->addr, &fd);
	if (!s->reached) {
		kind = unreached(f, in, &fd, out, u);
		*why_out = fd.why;
		return kind;
	}
	kind = check_all(s, &fd.row, &why, &undecided);
	if (kind < 0 && !undecided) {
		out->st.decided++;
		return VERIFY_ROW_MATCH;
	}
	fd.code = vcode_of(s);
	*why_out = why;
	if (kind < 0) {
		out->st.undecided++;
		fd.kind = VERIFY_UNKNOWN;
		fd.why = why;
		fd.why_at = s->why ? s->why_at : in->addr;
		unknown_add(u, &fd, s);
		return VERIFY_UNKNOWN;
	}
	out->st.decided++;
	fd.kind = (uint8_t)kind;
	fd.dwarf = dwarf_opinion(cx, s, in->addr, &fd.row, kind);
	verify_add(out, &fd, f->name);
	return fd.kind;
}

void vcompare(const struct vctx *cx, const struct vfunc *f, struct verify_result *out)
{
	struct vunknown u = { .fd.insns = 0 };

	if (f->fail_why) {
		vcompare_unknown(cx, f, out);
		return;
	}
	out->st.instructions += f->n;
	for (uint32_t i = 0; i < f->n; i++) {
		uint8_t why = 0;
		int verdict = compare_insn(cx, f, i, out, &u, &why);

		if (cx->t->dump && verdict >= 0)
			dump_insn(cx, f, i, verdict, why, out);
	}
	unknown_flush(&u, f->name, out);
}

void vcompare_unknown(const struct vctx *cx, const struct vfunc *f, struct verify_result *out)
{
	struct verify_finding fd = { .kind = VERIFY_UNKNOWN, .why = f->fail_why, .start = f->start,
				     .end = f->end, .func_start = f->start, .why_at = f->start };

	out->st.instructions += f->n;
	out->st.undecided += f->n;
	section_of(cx, f->start, &fd);
	verify_add(out, &fd, f->name);
}

static bool rule_eq(const struct emu_unwind_rule *a, const struct emu_unwind_rule *b)
{
	return a->cfa_base == b->cfa_base && a->cfa_reg == b->cfa_reg &&
	       a->cfa_deref == b->cfa_deref && a->cfa_off == b->cfa_off && loc_eq(&a->ra, &b->ra) &&
	       loc_eq(&a->fp, &b->fp);
}

/*
 * Does @f continue @last: the same kind and reason (unknown), or the same
 * kind and row (a mismatch: one finding per wrong row's range; the code is
 * said as at its first instruction), right after it?
 */
static bool continues(const struct verify_finding *last, const struct verify_finding *f)
{
	if (last->kind != f->kind || last->end != f->start || last->func_start != f->func_start ||
	    last->why != f->why || last->detail || f->detail || last->nranges || f->nranges)
		return false;
	if (f->kind == VERIFY_UNKNOWN)
		return last->why_at == f->why_at;
	return last->have_row == f->have_row && rule_eq(&last->row, &f->row) &&
	       last->fre_start == f->fre_start;
}

void verify_add(struct verify_result *out, const struct verify_finding *f, const char *fn_name)
{
	struct verify_finding *n;

	if (out->n && continues(&out->f[out->n - 1], f)) {
		out->f[out->n - 1].end = f->end;
		return;
	}
	out->st.by_kind[f->kind]++;
	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 16;

		n = out->n < VERIFY_MAX_FINDINGS ? realloc(out->f, cap * sizeof(*n)) : NULL;
		if (!n) {
			out->dropped++;
			return;
		}
		out->f = n;
		out->cap = cap;
	}
	n = &out->f[out->n];
	*n = *f;
	n->function = strdup(fn_name ? fn_name : "");
	n->detail = f->detail ? strdup(f->detail) : NULL;
	n->cause = f->cause ? strdup(f->cause) : NULL;
	n->range = f->nranges ? malloc(f->nranges * sizeof(*n->range)) : NULL;
	if (!n->function || (f->detail && !n->detail) || (f->cause && !n->cause) ||
	    (f->nranges && !n->range)) {
		free(n->function);
		free(n->detail);
		free(n->cause);
		free(n->range);
		out->dropped++;
		return;
	}
	if (f->nranges)
		memcpy(n->range, f->range, f->nranges * sizeof(*n->range));
	out->n++;
}
