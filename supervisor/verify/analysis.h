/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the verifier: one function's analysis (function.c), its comparison
 * with the SFrame rows (compare.c), and what the passes over an object share
 * (object.c): the jumps between functions and the functions that never return.
 */
#ifndef SUPERVISOR_VERIFY_ANALYSIS_H
#define SUPERVISOR_VERIFY_ANALYSIS_H

#include "insn.h"
#include "state.h"
#include "verify.h"

/* Jumps between functions kept per pass (each holds a state). */
#define VERIFY_MAX_EDGES (1u << 16)
/* Entries read from one jump table at most. */
#define VERIFY_MAX_TABLE 1024u

/** struct vroot - where an analysis starts, with what state */
struct vroot {
	uint64_t addr;
	struct vstate st;
};

/** struct vedge - a direct jump to @target outside the function, with the state there */
struct vedge {
	uint64_t target;
	struct vstate st;
};

/* One slot of the cache of call targets' returning or not. */
struct vnoret_slot {
	uint64_t target;
	int8_t noreturn;	/* -1: not cached */
};

#define VNORET_CACHE 1024

/**
 * struct vfn - one FDE's function: [@start, @end) analysed (the symbol's
 *	extent when it says more), [@start, @fde_end) described by the FDE
 * @sym_end: where the function symbol starting at @start ends (0: none)
 * @rep: a PCMASK FDE: every @rep bytes is an entry (a PLT)
 * @returns: the last analysis found a path that returns
 */
struct vfn {
	uint64_t start;
	uint64_t end;
	uint64_t fde_end;
	uint64_t sym_end;
	const char *name;
	uint32_t rep;
	bool returns;
};

/**
 * struct vctx - what analysing an object's functions shares (owned by verify_run())
 * @dec: the decoder; @buf, @bufcap: room for one function's code
 * @starts, @nstarts: every FDE's function start, sorted
 * @noret: per function of @starts, found never to return (updated as each
 *	is analysed, so that a callee analysed before its caller counts at once)
 * @anchor: where address values (VK_ADDR) are counted from: the text's start
 * @edges, @nedges: jumps out of functions seen in this pass (owned)
 * @edges_full: more than VERIFY_MAX_EDGES: the rest were not kept
 */
struct vctx {
	const struct verify_target *t;
	struct vdecoder *dec;
	uint8_t *buf;
	size_t bufcap;
	const uint64_t *starts;
	size_t nstarts;
	uint8_t *noret;
	uint64_t anchor;
	struct vedge *edges;
	size_t nedges;
	size_t capedges;
	bool edges_full;
	struct vnoret_slot cache[VNORET_CACHE];
};

/**
 * struct vfunc - one analysed code range and its states (arrays owned,
 *	reused from one function to the next)
 * @start, @end: the range analysed, [start, end)
 * @name: its symbol's name, or NULL
 * @insn, @in, @queued, @n: the instructions of a linear sweep, the state
 *	before each, and the work list's marks
 * @fail_why: nothing was analysed (VERIFY_WHY_TOO_LARGE, _UNREADABLE)
 * @unresolved_at: the first indirect jump not resolved (0: none)
 * @returns: some path returns, tail-calls or leaves the function
 * @rep: a PCMASK FDE's repetition size: every @rep bytes is an entry (a PLT)
 */
struct vfunc {
	uint64_t start;
	uint64_t end;
	const char *name;
	struct vinsn *insn;
	struct vstate *in;
	uint8_t *queued;
	uint32_t *work;
	uint32_t n;
	uint32_t cap;
	uint8_t fail_why;
	uint64_t unresolved_at;
	uint32_t rep;
	bool returns;
};

/**
 * vfunc_analyze() - decode [@f->start, @f->end) and interpret it from @roots
 * Direct jumps out of the range go to @cx->edges.
 * Return: 0, or -ENOMEM.
 */
int vfunc_analyze(struct vctx *cx, struct vfunc *f, const struct vroot *roots, size_t nroots);

/**
 * vtable_targets() - the targets (at most @max, into @out) of the indirect
 * jump at instruction @i of @f when it reads a jump table; 0 when not
 */
int vtable_targets(struct vctx *cx, const struct vfunc *f, uint32_t i, uint64_t *out,
		   unsigned int max);

/** vfunc_free() - release @f's arrays. */
void vfunc_free(struct vfunc *f);

/** vfunc_find() - the index of the instruction at @addr, or -1 (binary search). */
static inline long vfunc_find(const struct vfunc *f, uint64_t addr)
{
	uint32_t lo = 0, hi = f->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->insn[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->insn[lo].addr == addr ? (long)lo : -1;
}

/**
 * vcompare() - hold @f's states to the SFrame rows, appending findings
 * to @out and counting into @out->st
 */
void vcompare(const struct vctx *cx, const struct vfunc *f, struct verify_result *out);

/**
 * vcompare_unknown() - @f could not be analysed at all: one unknown finding
 * over [@f->start, @f->end) where rows exist
 */
void vcompare_unknown(const struct vctx *cx, const struct vfunc *f, struct verify_result *out);

/**
 * verify_add() - append a finding (or merge it into the last one when it
 * continues it); @fn_name copied
 */
void verify_add(struct verify_result *out, const struct verify_finding *f, const char *fn_name);

/**
 * vcoverage_check() - what the symbols say of the FDEs @fn (sorted): code of
 * a function symbol no FDE covers where .eh_frame has a row, FDEs reaching
 * past their symbol. @f: room for an analysis. Return: 0 or -ENOMEM.
 */
int vcoverage_check(struct vctx *cx, struct vfunc *f, const struct vfn *fn, size_t nfn,
		    struct verify_result *out);

/** vcode_of() - what the state @s implies, for a report. */
struct verify_code vcode_of(const struct vstate *s);

/** vnoreturn_name() - does a function of this name never return (abort, exit, longjmp, ...)? */
bool vnoreturn_name(const char *name);

/** vfunc_set_noreturn() - function @idx of @cx->starts never returns (or does); the cache follows. */
void vfunc_set_noreturn(struct vctx *cx, size_t idx, bool noreturn);

#endif /* SUPERVISOR_VERIFY_ANALYSIS_H */
