// SPDX-License-Identifier: GPL-2.0
/*
 * The FDEs against the symbol table: code inside a function symbol that no
 * FDE covers while .eh_frame does (function-without-fde: an unwinder using
 * SFrame finds no row there, one using DWARF would), and FDEs that describe
 * bytes past the end of their function's symbol (row-beyond-function).
 * Outermost frames (.eh_frame's RA undefined, as glibc's _start) need no
 * rows: a walk ends there either way. A function gas left without FDE
 * because it realigns the stack through a DRAP register (SFrame before v3
 * cannot describe it) is unknown, not wrong.
 */
#include <stdio.h>

#include "analysis.h"

static void beyond(const struct vfn *fn, struct verify_result *out)
{
	struct verify_finding fd = { .kind = VERIFY_ROW_BEYOND_FUNCTION, .start = fn->sym_end,
				     .end = fn->fde_end, .func_start = fn->start };
	char detail[160];

	if (!fn->sym_end || fn->sym_end >= fn->fde_end)
		return;
	snprintf(detail, sizeof(detail), "the FDE covers %llu bytes past the end of its "
		 "function's symbol (size %llu)", (unsigned long long)(fn->fde_end - fn->sym_end),
		 (unsigned long long)(fn->sym_end - fn->start));
	fd.detail = detail;
	verify_add(out, &fd, fn->name);
}

/* Does the function of @sym realign its stack without a frame pointer? */
static int realigns(struct vctx *cx, struct vfunc *f, const struct verify_sym *sym,
		    struct verify_finding *fd)
{
	struct vroot root = { .addr = sym->start };
	int err;

	vstate_entry(&root.st);
	*f = (struct vfunc){ .start = sym->start, .end = sym->start + sym->size, .name = sym->name,
			     .rep = 0,
			     .insn = f->insn, .in = f->in, .queued = f->queued, .work = f->work,
			     .cap = f->cap };
	err = vfunc_analyze(cx, f, &root, 1);
	for (uint32_t i = 0; !err && i < f->n; i++) {
		const struct vstate *s = &f->in[i];

		if (s->reached && (s->why == VERIFY_WHY_DRAP || s->why == VERIFY_WHY_REALIGN)) {
			fd->why = s->why;
			fd->why_at = s->why_at;
			return 1;
		}
	}
	return err;
}

static int gap(struct vctx *cx, struct vfunc *f, const struct verify_sym *sym, uint64_t x,
	       uint64_t y, bool whole, struct verify_result *out)
{
	struct verify_finding fd = { .kind = VERIFY_FUNCTION_WITHOUT_FDE, .start = x, .end = y,
				     .func_start = sym->start };
	struct emu_unwind_rule d;
	const struct verify_section *sec;
	int err = 0;

	if (!cx->t->dwarf || cx->t->dwarf(cx->t->dwarf_ctx, x, &d) || d.outermost ||
	    !emu_mappings_covers(cx->t->text, x, y, EMU_PROT_EXEC))
		return 0;
	sec = verify_section_of(cx->t->syms, x);
	snprintf(fd.section, sizeof(fd.section), "%s", sec ? sec->name : "");
	fd.sec_start = sec ? sec->start : 0;
	if (whole)
		err = realigns(cx, f, sym, &fd);
	if (err < 0)
		return err;
	if (err) {
		fd.kind = VERIFY_UNKNOWN;
		fd.detail = "no SFrame FDE: before SFrame v3 the CFA of a DRAP function cannot "
			    "be described (gas leaves it out)";
	} else {
		fd.detail = whole ? "no SFrame FDE; .eh_frame has rows" :
			    "part of the function no SFrame FDE covers; .eh_frame has rows";
	}
	verify_add(out, &fd, sym->name);
	return 0;
}

/* The first FDE function ending above @a. */
static size_t first_fn(const struct vfn *fn, size_t nfn, uint64_t a)
{
	size_t lo = 0, hi = nfn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fn[mid].fde_end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int symbol_gaps(struct vctx *cx, struct vfunc *f, const struct vfn *fn, size_t nfn,
		       const struct verify_sym *sym, struct verify_result *out)
{
	uint64_t a = sym->start, b = sym->start + sym->size, x = a;
	size_t i = first_fn(fn, nfn, a);
	int err = 0;

	for (; !err && i < nfn && fn[i].start < b; i++) {
		if (fn[i].start > x)
			err = gap(cx, f, sym, x, fn[i].start, false, out);
		if (fn[i].fde_end > x)
			x = fn[i].fde_end;
	}
	if (!err && x < b)
		err = gap(cx, f, sym, x, b, x == a, out);
	return err;
}

int vcoverage_check(struct vctx *cx, struct vfunc *f, const struct vfn *fn, size_t nfn,
		    struct verify_result *out)
{
	const struct verify_symbols *s = cx->t->syms;
	int err = 0;

	for (size_t i = 0; i < nfn; i++)
		beyond(&fn[i], out);
	for (size_t i = 0; s && !err && i < s->nsym; i++)
		if (s->sym[i].size && s->sym[i].size <= VERIFY_MAX_FUNC)
			err = symbol_gaps(cx, f, fn, nfn, &s->sym[i], out);
	return err;
}
