// SPDX-License-Identifier: GPL-2.0
/*
 * verify_run(): every FDE's function analysed and compared, in passes.
 *
 * A function is entered as the ABI says (SP = CFA - 8, the RA there),
 * except where other functions jump into it with another state: a cold
 * part (foo.cold) continues its hot part's frame, PLT0 is entered by the
 * PLT entries' jump after they pushed a word. Those states are only known
 * once the jumping functions are analysed, and calls to functions that
 * never return (found by analysis, or known by name) end a path: so the
 * first pass only collects the jumps out of every function and which
 * functions return, and each following pass analyses with them and
 * compares, until a pass ends with the jumps and non-returning functions
 * it started with (two passes, but for chains of cold parts).
 *
 * Then the symbols: code a function symbol covers that no FDE does, where
 * .eh_frame has a row (function-without-fde; or unknown when it realigns
 * the stack through a DRAP register, which SFrame before v3 cannot say),
 * and FDEs that reach past their function's symbol (row-beyond-function).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define MAX_PASSES 6

/**
 * struct vrun - one verify_run(): the functions, the last pass's edges, room for roots
 * @noret_changed: a function's returning or not changed in this pass
 */
struct vrun {
	struct vctx cx;
	bool noret_changed;
	const struct verify_target *t;
	struct vfn *fn;
	size_t nfn;
	uint64_t *starts;
	struct vedge *edges;	/* the last pass's, sorted by target */
	size_t nedges;
	struct vroot *roots;
	size_t caproots;
	struct vfunc f;
};

static int add_fn(struct vrun *r, const struct emu_sframe_fde *fde, size_t *cap)
{
	const struct verify_sym *sym = r->t->syms ? verify_symbol_at(r->t->syms, fde->func_start) : NULL;
	struct vfn *fn;

	if (r->nfn == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		fn = realloc(r->fn, *cap * sizeof(*fn));
		if (!fn)
			return -ENOMEM;
		r->fn = fn;
	}
	fn = &r->fn[r->nfn++];
	*fn = (struct vfn){ .start = fde->func_start, .end = fde->func_start + fde->func_size,
			    .rep = fde->pcmask ? fde->rep_size : 0 };
	fn->fde_end = fn->end;
	if (sym && sym->start == fn->start) {
		fn->name = sym->name;
		fn->sym_end = sym->start + sym->size;
		if (fn->sym_end > fn->end)
			fn->end = fn->sym_end;	/* decode what the symbol says is code too */
	}
	return 0;
}

/* The FDEs in the checked text, in address order (emu validated them sorted). */
static int collect(struct vrun *r, struct verify_stats *st)
{
	const struct emu_sframe_hdr *h = emu_sframe_header(r->t->sframe);
	struct emu_sframe_fde fde;
	size_t cap = 0;

	for (uint32_t i = 0; i < h->num_fdes; i++) {
		if (emu_sframe_fde_at(r->t->sframe, i, &fde) || !fde.func_size ||
		    !emu_mappings_covers(r->t->text, fde.func_start,
					 fde.func_start + fde.func_size, EMU_PROT_EXEC))
			continue;
		if (add_fn(r, &fde, &cap))
			return -ENOMEM;
		st->fdes++;
		st->rows += fde.num_fres;
	}
	r->starts = calloc(r->nfn ? r->nfn : 1, sizeof(*r->starts));
	if (!r->starts)
		return -ENOMEM;
	for (size_t i = 0; i < r->nfn; i++) {
		/* a symbol may say more than the next FDE leaves room for */
		if (i + 1 < r->nfn && r->fn[i].end > r->fn[i + 1].start)
			r->fn[i].end = r->fn[i].fde_end > r->fn[i + 1].start ? r->fn[i].fde_end :
					r->fn[i + 1].start;
		r->starts[i] = r->fn[i].start;
	}
	return 0;
}

static int add_root(struct vrun *r, size_t *n, uint64_t addr, const struct vstate *st)
{
	struct vroot *v;

	if (*n == r->caproots) {
		size_t cap = r->caproots ? r->caproots * 2 : 16;

		v = realloc(r->roots, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->roots = v;
		r->caproots = cap;
	}
	r->roots[*n] = (struct vroot){ .addr = addr };
	if (st)
		r->roots[*n].st = *st;
	else
		vstate_entry(&r->roots[*n].st);
	(*n)++;
	return 0;
}

/* The first of the last pass's edges into [@lo, ...). */
static size_t first_edge(const struct vrun *r, uint64_t lo)
{
	size_t a = 0, b = r->nedges;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (r->edges[mid].target < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/*
 * PLT0, "push GOT+8(%rip); [bnd] jmp *GOT+16(%rip)": the PLT entries jump
 * there after pushing the relocation index (x86-64 psABI), so it starts
 * with SP = CFA - 16 even where no entry's jump is seen (no lazy entries, or
 * a process whose GOT is bound already).
 */
static bool plt0_shaped(const struct vrun *r, uint64_t start)
{
	uint8_t b[13];

	if (emu_read(r->t->mem, start, b, sizeof(b)) || b[0] != 0xff || b[1] != 0x35)
		return false;
	return (b[6] == 0xff && b[7] == 0x25) || (b[6] == 0xf2 && b[7] == 0xff && b[8] == 0x25);
}

static int add_start_root(struct vrun *r, const struct vfn *fn, size_t *n)
{
	struct vstate st;

	if (!fn->rep && plt0_shaped(r, fn->start)) {
		vstate_entry(&st);
		st.reg[VREG_SP] = vval_cfa(-16);
		return add_root(r, n, fn->start, &st);
	}
	return add_root(r, n, fn->start, NULL);
}

/* The entries of @fn: the ABI's, and the jumps from other functions, joined per target. */
static int roots_of(struct vrun *r, const struct vfn *fn, size_t *n)
{
	size_t e = first_edge(r, fn->start);
	bool at_start = e < r->nedges && r->edges[e].target == fn->start;
	uint64_t a;

	*n = 0;
	if (!at_start && add_start_root(r, fn, n))
		return -ENOMEM;
	for (a = fn->start + fn->rep; fn->rep && a < fn->fde_end; a += fn->rep)
		if (add_root(r, n, a, NULL))
			return -ENOMEM;
	while (e < r->nedges && r->edges[e].target < fn->end) {
		struct vroot *root;
		uint64_t t = r->edges[e].target;
		bool joined = false;

		if (add_root(r, n, t, &r->edges[e].st))
			return -ENOMEM;
		root = &r->roots[*n - 1];
		for (e++; e < r->nedges && r->edges[e].target == t; e++) {
			vstate_join(&root->st, &r->edges[e].st, t, false);
			joined = true;
		}
		if (joined && root->st.why == VERIFY_WHY_MERGE && root->st.why_at == t)
			root->st.why = VERIFY_WHY_ENTRY;
	}
	return 0;
}

static int analyze_fn(struct vrun *r, struct vfn *fn)
{
	size_t n;
	int err = roots_of(r, fn, &n);

	if (err)
		return err;
	r->f.start = fn->start;
	r->f.end = fn->end;
	r->f.name = fn->name;
	r->f.rep = fn->rep;
	err = vfunc_analyze(&r->cx, &r->f, r->roots, n);
	fn->returns = r->f.returns;
	if (!err && fn->returns == (bool)r->cx.noret[fn - r->fn]) {
		vfunc_set_noreturn(&r->cx, (size_t)(fn - r->fn), !fn->returns);
		r->noret_changed = true;
	}
	return err;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct vedge *x = a, *y = b;

	return x->target < y->target ? -1 : x->target > y->target;
}

static uint64_t hash_edges(const struct vedge *e, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h = (h ^ e[i].target) * 1099511628211ull;
		for (int g = 0; g < VREG_COUNT; g++)
			h = (h ^ ((uint64_t)e[i].st.reg[g].kind << 32 | (uint32_t)e[i].st.reg[g].off)) *
			    1099511628211ull;
		for (unsigned int s = 0; s < e[i].st.nslots; s++)
			h = (h ^ ((uint64_t)(uint32_t)e[i].st.slot[s].off << 8 |
				  e[i].st.slot[s].val.kind)) * 1099511628211ull;
	}
	return h;
}

/* This pass's edges become the next pass's entries; true when they changed. */
static bool take_edges(struct vrun *r)
{
	uint64_t before = hash_edges(r->edges, r->nedges), after;

	if (r->cx.nedges)
		qsort(r->cx.edges, r->cx.nedges, sizeof(*r->cx.edges), cmp_edge);
	after = hash_edges(r->cx.edges, r->cx.nedges);
	free(r->edges);
	r->edges = r->cx.edges;
	r->nedges = r->cx.nedges;
	r->cx.edges = NULL;
	r->cx.nedges = r->cx.capedges = 0;
	return before != after;
}

static void reset_cache(struct vctx *cx)
{
	for (unsigned int i = 0; i < VNORET_CACHE; i++)
		cx->cache[i].noreturn = -1;
}

/* One pass over every function; @out: compare too (NULL: collect only). */
static int one_pass(struct vrun *r, struct verify_result *out, bool *stable)
{
	bool edges_changed;
	int err = 0;

	r->noret_changed = false;
	for (size_t i = 0; i < r->nfn && !err; i++) {
		err = analyze_fn(r, &r->fn[i]);
		if (!err && out)
			vcompare(&r->cx, &r->f, out);
	}
	if (err)
		return err;
	edges_changed = take_edges(r);
	*stable = !r->noret_changed && !edges_changed;
	return 0;
}

static int passes(struct vrun *r, struct verify_result *out)
{
	struct verify_result tmp;
	bool stable = false;
	int err = one_pass(r, NULL, &stable);

	for (int pass = 2; !err && pass <= MAX_PASSES; pass++) {
		tmp = (struct verify_result){ .st = out->st };
		err = one_pass(r, &tmp, &stable);
		if (!err && (stable || pass == MAX_PASSES)) {
			*out = tmp;
			return 0;
		}
		verify_result_free(&tmp);
	}
	return err;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct verify_finding *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static void run_free(struct vrun *r)
{
	vfunc_free(&r->f);
	vdecoder_free(r->cx.dec);
	free(r->cx.buf);
	free(r->cx.edges);
	free(r->fn);
	free(r->starts);
	free(r->edges);
	free(r->cx.noret);
	free(r->roots);
}

/* The shared part of a run, once its functions are known: passes, then findings sorted. */
static int run_functions(struct vrun *r, struct verify_result *out, bool coverage)
{
	const struct verify_target *t = r->t;
	int err = 0;

	r->cx.starts = r->starts;
	r->cx.nstarts = r->nfn;
	r->cx.noret = calloc(r->nfn ? r->nfn : 1, 1);
	r->cx.anchor = t->text->n ? t->text->vma[0].start : 0;
	reset_cache(&r->cx);
	if (!r->cx.noret)
		err = -ENOMEM;
	if (!err)
		err = passes(r, out);
	if (!err && coverage)
		err = vcoverage_check(&r->cx, &r->f, r->fn, r->nfn, out);
	if (out->n)
		qsort(out->f, out->n, sizeof(*out->f), cmp_finding);
	run_free(r);
	return err;
}

int verify_function(const struct verify_target *t, uint64_t start, uint64_t end,
		    const char *name, struct verify_result *out)
{
	struct vrun r = { .t = t, .cx = { .t = t }, .nfn = 1 };

	r.cx.dec = vdecoder_new();
	if (!r.cx.dec)
		return -errno;
	r.fn = calloc(1, sizeof(*r.fn));
	r.starts = calloc(1, sizeof(*r.starts));
	if (!r.fn || !r.starts) {
		run_free(&r);
		return -ENOMEM;
	}
	r.fn[0] = (struct vfn){ .start = start, .end = end, .fde_end = end, .name = name };
	r.starts[0] = start;
	return run_functions(&r, out, false);
}

int verify_run(const struct verify_target *t, struct verify_result *out)
{
	struct vrun r = { .t = t, .cx = { .t = t } };
	int err;

	r.cx.dec = vdecoder_new();
	err = r.cx.dec ? collect(&r, &out->st) : -errno;
	if (err) {
		run_free(&r);
		return err;
	}
	return run_functions(&r, out, true);
}
