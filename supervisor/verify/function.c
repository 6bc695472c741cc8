// SPDX-License-Identifier: GPL-2.0
/*
 * One function's analysis: a linear sweep decodes its range, then a work
 * list interprets it from its entries until the state before every
 * instruction is stable (each state can only lose information at a join,
 * so this ends; the number of steps is bounded anyway). Calls continue at
 * the next instruction unless the callee is known never to return; direct
 * jumps out of the range are kept for the pass over the whole object
 * (cold parts, PLT0); jump tables are read where their form is known.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* Steps per instruction before the analysis gives up (far above any real need). */
#define STEPS_PER_INSN 256u

static int grow(struct vfunc *f, uint32_t need)
{
	uint32_t cap = f->cap ? f->cap : 1024;
	void *a, *b, *c, *d;

	if (need <= f->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	a = realloc(f->insn, cap * sizeof(*f->insn));
	if (a)
		f->insn = a;
	b = realloc(f->in, cap * sizeof(*f->in));
	if (b)
		f->in = b;
	c = realloc(f->queued, cap);
	if (c)
		f->queued = c;
	d = realloc(f->work, cap * sizeof(*f->work));
	if (d)
		f->work = d;
	if (!a || !b || !c || !d)
		return -ENOMEM;
	f->cap = cap;
	return 0;
}

void vfunc_free(struct vfunc *f)
{
	free(f->insn);
	free(f->in);
	free(f->queued);
	free(f->work);
	memset(f, 0, sizeof(*f));
}

/* The function's bytes into @cx->buf; VERIFY_WHY_* when they cannot be had. */
static int read_code(struct vctx *cx, struct vfunc *f, size_t len)
{
	uint8_t *b;

	if (len > VERIFY_MAX_FUNC)
		return VERIFY_WHY_TOO_LARGE;
	if (len > cx->bufcap) {
		b = realloc(cx->buf, len);
		if (!b)
			return -ENOMEM;
		cx->buf = b;
		cx->bufcap = len;
	}
	return emu_read(cx->t->mem, f->start, cx->buf, len) ? VERIFY_WHY_UNREADABLE : 0;
}

static int sweep(struct vctx *cx, struct vfunc *f)
{
	size_t len = f->end - f->start, off = 0;
	int err = read_code(cx, f, len);

	f->n = 0;
	if (err)
		return err;
	while (off < len) {
		size_t avail = len - off < 15 ? len - off : 15;

		if (f->n == f->cap && grow(f, f->n + 1))
			return -ENOMEM;
		vdecode(cx->dec, cx->buf + off, avail, f->start + off, &f->insn[f->n]);
		off += f->insn[f->n++].len;
	}
	return 0;
}

/* The index of @x in the sorted @v, or -1. */
static long find_sorted(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x ? (long)lo : -1;
}

static const char *const noreturn_names[] = {
	"abort", "exit", "_exit", "_Exit", "quick_exit", "__stack_chk_fail", "__chk_fail",
	"__fortify_fail", "__assert_fail", "__assert_perror_fail", "__assert", "longjmp",
	"_longjmp", "siglongjmp", "__longjmp_chk", "pthread_exit", "thrd_exit", "__libc_fatal",
	"err", "errx", "verr", "verrx", "__cxa_throw", "__cxa_rethrow", "__cxa_bad_cast",
	"__cxa_bad_typeid", "__cxa_throw_bad_array_new_length", "__cxa_call_terminate",
	"_Unwind_Resume", "_ZSt9terminatev",
};

bool vnoreturn_name(const char *name)
{
	char base[128];
	const char *at;

	if (!name)
		return false;
	/* "abort@GLIBC_2.2.5", "exit@plt": the name before the version */
	at = strchr(name, '@');
	snprintf(base, sizeof(base), "%.*s", at ? (int)(at - name) : (int)strlen(name), name);
	for (size_t i = 0; i < sizeof(noreturn_names) / sizeof(noreturn_names[0]); i++)
		if (!strcmp(base, noreturn_names[i]))
			return true;
	/* libstdc++'s std::__throw_* helpers */
	return !strncmp(base, "_ZSt", 4) && strstr(base, "__throw_");
}

/* The function a PLT stub at @t jumps to: "[endbr64;] [bnd] jmp *slot(%rip)". */
static const char *plt_import(struct vctx *cx, uint64_t t)
{
	uint8_t code[16];
	struct vinsn in;
	size_t off = 0;

	if (!cx->t->syms || !cx->t->syms->nimp || emu_read(cx->t->mem, t, code, sizeof(code)))
		return NULL;
	for (int i = 0; i < 2; i++) {
		if (!vdecode(cx->dec, code + off, sizeof(code) - off, t + off, &in))
			return NULL;
		if (in.flow == VF_JMP && in.indirect && in.mem.rip && in.mem.scale)
			return verify_import_at(cx->t->syms, (uint64_t)in.mem.disp);
		if (in.flow != VF_NEXT || in.writes)
			return NULL;	/* not endbr64 */
		off += in.len;
	}
	return NULL;
}

static bool noreturn_uncached(struct vctx *cx, uint64_t t)
{
	const struct verify_sym *sym;

	long i = find_sorted(cx->starts, cx->nstarts, t);

	if (i >= 0 && cx->noret && cx->noret[i])
		return true;
	sym = cx->t->syms ? verify_symbol_at(cx->t->syms, t) : NULL;
	if (sym && sym->start == t)
		return vnoreturn_name(sym->name);
	return vnoreturn_name(plt_import(cx, t));
}

static struct vnoret_slot *cache_slot(struct vctx *cx, uint64_t t)
{
	return &cx->cache[(t ^ t >> 12) % VNORET_CACHE];
}

void vfunc_set_noreturn(struct vctx *cx, size_t idx, bool noreturn)
{
	struct vnoret_slot *c = cache_slot(cx, cx->starts[idx]);

	cx->noret[idx] = noreturn;
	if (c->target == cx->starts[idx])
		c->noreturn = -1;
}

/* Does the direct call to @t never return (a known name, or found so by an analysis)? */
static bool noreturn(struct vctx *cx, uint64_t t)
{
	struct vnoret_slot *c = cache_slot(cx, t);

	if (c->noreturn < 0 || c->target != t) {
		c->target = t;
		c->noreturn = noreturn_uncached(cx, t);
	}
	return c->noreturn;
}

static void record_edge(struct vctx *cx, uint64_t target, const struct vstate *s)
{
	struct vedge *e;

	/* a tail call: the callee starts as any function does */
	if (vstate_tail_shaped(s) && find_sorted(cx->starts, cx->nstarts, target) >= 0)
		return;
	if (cx->nedges == cx->capedges) {
		size_t cap = cx->capedges ? cx->capedges * 2 : 256;

		e = cap <= VERIFY_MAX_EDGES ? realloc(cx->edges, cap * sizeof(*e)) : NULL;
		if (!e) {
			cx->edges_full = true;
			return;
		}
		cx->edges = e;
		cx->capedges = cap;
	}
	cx->edges[cx->nedges++] = (struct vedge){ .target = target, .st = *s };
}

/* @s flows into instruction @j: a merge right after a call may mean the call does not return. */
static void propagate(struct vfunc *f, uint32_t j, const struct vstate *s, uint32_t *nwork)
{
	bool after_call = j && f->insn[j - 1].flow == VF_CALL;

	if (vstate_join(&f->in[j], s, f->insn[j].addr, after_call) && !f->queued[j]) {
		f->queued[j] = 1;
		f->work[(*nwork)++] = j;
	}
}

/*
 * Into the next instruction. Off the function's end is no return: compilers
 * end a function with a call only when the callee never returns (the code
 * after it is another function's, or padding).
 */
static void fall_through(struct vfunc *f, uint32_t i, const struct vstate *s, uint32_t *nwork)
{
	if (i + 1 < f->n)
		propagate(f, i + 1, s, nwork);
}

static void jump_to(struct vfunc *f, uint64_t target, const struct vstate *s,
		    uint32_t *nwork)
{
	long j;

	if (target < f->start || target >= f->end) {
		f->returns = true;	/* a tail call, or a part of this function elsewhere */
		return;		/* kept once the states are final: record_exits() */
	}
	j = vfunc_find(f, target);
	if (j >= 0)
		propagate(f, (uint32_t)j, s, nwork);
}

/* je/jne right after "cmp %rX, %rsp": on the equal edge SP is what rX holds (probe loops). */
static void refine_equal(const struct vfunc *f, uint32_t i, struct vstate *s)
{
	const struct vinsn *c = i ? &f->insn[i - 1] : NULL;
	int other;

	if (!c || !c->cmp || c->src == VREG_NONE || c->flow != VF_NEXT)
		return;
	if (c->dst != VREG_SP && c->src != VREG_SP)
		return;
	other = c->dst == VREG_SP ? c->src : c->dst;
	if (s->reg[other].kind == VK_CFA)
		s->reg[VREG_SP] = s->reg[other];
}

static void conditional(struct vfunc *f, uint32_t i, const struct vstate *s, uint32_t *nwork)
{
	const struct vinsn *in = &f->insn[i];
	struct vstate eq = *s;

	refine_equal(f, i, &eq);
	if (in->indirect)
		f->unresolved_at = f->unresolved_at ? f->unresolved_at : in->addr;
	else
		jump_to(f, in->target, in->cond_eq ? &eq : s, nwork);
	fall_through(f, i, in->cond_ne ? &eq : s, nwork);
}

/*
 * A lazy PLT entry, "jmp *GOT(%rip); push $n; jmp PLT0": the GOT slot
 * holds the address of the push until the first call binds it (x86-64
 * psABI, "Procedure Linkage Table"), so in a PLT the jump may go on there.
 */
static bool lazy_plt_jump(const struct vfunc *f, uint32_t i)
{
	const struct vinsn *in = &f->insn[i];

	return f->rep && in->mem.rip && in->mem.scale && i + 1 < f->n &&
	       (in->addr - f->start) / f->rep == (f->insn[i + 1].addr - f->start) / f->rep;
}

static void indirect_jump(struct vctx *cx, struct vfunc *f, uint32_t i, const struct vstate *s,
			  uint32_t *nwork)
{
	uint64_t t[VERIFY_MAX_TABLE];
	int n = vtable_targets(cx, f, i, t, VERIFY_MAX_TABLE);

	for (int k = 0; k < n; k++)
		jump_to(f, t[k], s, nwork);
	if (n > 0)
		return;
	f->returns = true;
	if (lazy_plt_jump(f, i))
		propagate(f, i + 1, s, nwork);
	if (!vstate_tail_shaped(s) && !f->unresolved_at)
		f->unresolved_at = f->insn[i].addr;
}

static void successors(struct vctx *cx, struct vfunc *f, uint32_t i, const struct vstate *s,
		       uint32_t *nwork)
{
	const struct vinsn *in = &f->insn[i];

	switch (in->flow) {
	case VF_NEXT:
		fall_through(f, i, s, nwork);
		break;
	case VF_CALL:
		if (in->indirect || !noreturn(cx, in->target))
			fall_through(f, i, s, nwork);
		break;
	case VF_JCC:
		conditional(f, i, s, nwork);
		break;
	case VF_JMP:
		if (in->indirect)
			indirect_jump(cx, f, i, s, nwork);
		else
			jump_to(f, in->target, s, nwork);
		break;
	case VF_RET:
		f->returns = true;
		break;
	}
}

static void start_roots(struct vfunc *f, const struct vroot *roots, size_t nroots, uint32_t *nwork)
{
	for (uint32_t i = 0; i < f->n; i++)
		f->in[i].reached = false;
	memset(f->queued, 0, f->n);
	for (size_t r = 0; r < nroots; r++) {
		long j = vfunc_find(f, roots[r].addr);

		if (j >= 0)
			propagate(f, (uint32_t)j, &roots[r].st, nwork);
	}
}

/* The direct jumps out of the function, with their final states. */
static void record_exits(struct vctx *cx, const struct vfunc *f)
{
	for (uint32_t i = 0; i < f->n; i++) {
		const struct vinsn *in = &f->insn[i];
		struct vstate s;

		if ((in->flow != VF_JMP && in->flow != VF_JCC) || in->indirect ||
		    !f->in[i].reached || (in->target >= f->start && in->target < f->end))
			continue;
		s = f->in[i];
		if (in->flow == VF_JCC && in->cond_eq)
			refine_equal(f, i, &s);
		record_edge(cx, in->target, &s);
	}
}

int vfunc_analyze(struct vctx *cx, struct vfunc *f, const struct vroot *roots, size_t nroots)
{
	uint64_t steps = 0, budget;
	uint32_t nwork = 0;
	struct vstate s;
	int err;

	f->fail_why = 0;
	f->unresolved_at = 0;
	f->returns = false;
	err = sweep(cx, f);
	if (err < 0)
		return err;
	if (err) {
		f->fail_why = (uint8_t)err;
		f->returns = true;
		return 0;
	}
	if (grow(f, f->n))
		return -ENOMEM;
	start_roots(f, roots, nroots, &nwork);
	budget = (uint64_t)f->n * STEPS_PER_INSN + 1024;
	while (nwork && steps++ < budget) {
		uint32_t i = f->work[--nwork];

		f->queued[i] = 0;
		s = f->in[i];
		vstate_step(&s, &f->insn[i], cx->anchor);
		successors(cx, f, i, &s, &nwork);
	}
	if (nwork) {
		f->fail_why = VERIFY_WHY_TOO_LARGE;
		f->returns = true;
		return 0;
	}
	record_exits(cx, f);
	return 0;
}
