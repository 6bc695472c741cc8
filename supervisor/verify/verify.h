/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframe-verify: does each SFrame row match the code it describes?
 *
 * For every function an FDE covers, the code is decoded (capstone, as the
 * frame-plausibility oracle does) and interpreted abstractly over its
 * control-flow graph: at each instruction the state says where the CFA is
 * (from SP or FP, and at which offset), where the return address is and
 * where the caller's frame pointer is, with a join at every merge (states
 * that disagree there make the address undecided, never a guess). That
 * state is then held to the row in effect at the address, found by emu's
 * own lookup (PCINC, PCMASK, v3 FLEX: emu_sframe_find()), as the kernel's
 * unwinder would find it. objtool does the same for the kernel's ORC data.
 *
 * Everything is read through an emu accessor at run-time addresses, so the
 * same core checks a file (elf_file.h) and a traced process's registration
 * (session.h). Nothing here keeps state per byte beyond the function being
 * analysed; functions above VERIFY_MAX_FUNC bytes are not analysed (unknown).
 */
#ifndef SUPERVISOR_VERIFY_VERIFY_H
#define SUPERVISOR_VERIFY_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/accessor.h"
#include "emu/mappings.h"
#include "emu/sframe_section.h"
#include "emu/unwind_rule.h"

/* Largest function analysed, in bytes of code (bounded time and memory). */
#define VERIFY_MAX_FUNC (1u << 20)
/* Findings kept per run; the rest are only counted (hostile input). */
#define VERIFY_MAX_FINDINGS 100000u

/* X(ID, name): enum verify_kind (VERIFY_<ID>) and verify_kind_name() from one table. */
#define VERIFY_KINDS(X) \
	X(CFA_MISMATCH, "cfa-mismatch") \
	X(RA_MISMATCH, "ra-mismatch") \
	X(FP_MISMATCH, "fp-mismatch") \
	X(ROW_BEYOND_FUNCTION, "row-beyond-function") \
	X(FUNCTION_WITHOUT_FDE, "function-without-fde") \
	X(UNKNOWN, "unknown")

enum verify_kind {
#define VERIFY_KIND_ID(id, name) VERIFY_##id,
	VERIFY_KINDS(VERIFY_KIND_ID)
#undef VERIFY_KIND_ID
	VERIFY_KIND_COUNT
};

/* Why an address is undecided: X(ID, name, meaning). */
#define VERIFY_WHYS(X) \
	X(NONE, "", "") \
	X(MERGE, "merge", "states that disagree meet at a control-flow merge") \
	X(CALL, "unresolved-call", "states disagree after a call that may not return") \
	X(INDIRECT_JUMP, "indirect-jump", "reached only through an indirect jump not resolved") \
	X(DRAP, "drap", "the stack is realigned through a DRAP register: the CFA is kept " \
		"in another register, then in memory") \
	X(REALIGN, "realign", "the stack is realigned and no register holds the CFA") \
	X(UNMODELLED, "unmodelled", "an instruction changes SP or FP in a way not modelled") \
	X(UNDECODABLE, "undecodable", "bytes that do not decode as an instruction") \
	X(UNREADABLE, "unreadable", "the code cannot be read") \
	X(TOO_LARGE, "too-large", "the function is larger than the analysis takes") \
	X(ENTRY, "entry", "the function is entered with states that disagree") \
	X(ROW_FORM, "row-form", "the row's rule (a CFA read from memory, another " \
		"register) has no counterpart in the analysis")

enum verify_why {
#define VERIFY_WHY_ID(id, name, text) VERIFY_WHY_##id,
	VERIFY_WHYS(VERIFY_WHY_ID)
#undef VERIFY_WHY_ID
	VERIFY_WHY_COUNT
};

/* What .eh_frame (libdw's CFI) says at a finding's address. */
enum verify_dwarf {
	VERIFY_DWARF_NONE = 0,	/* no .eh_frame row there (or not asked) */
	VERIFY_DWARF_CODE,	/* it agrees with the code */
	VERIFY_DWARF_ROW,	/* it agrees with the SFrame row */
	VERIFY_DWARF_NEITHER,	/* it agrees with neither */
	VERIFY_DWARF_EXPR,	/* its rule is a DWARF expression the comparison cannot read */
};

/**
 * struct verify_code - what the code implies at an address
 * @sp_known, @sp_cfa: CFA = SP + @sp_cfa (bytes)
 * @fp_known, @fp_cfa: CFA = FP + @fp_cfa (FP holds a CFA-relative value)
 * @fp_same: the caller's frame pointer is still in FP
 * @fp_saved, @fp_slot: the caller's frame pointer is saved at CFA + @fp_slot
 * @ra_slot: the return address is at CFA + @ra_slot (x86-64: -8)
 */
struct verify_code {
	bool sp_known;
	bool fp_known;
	bool fp_same;
	bool fp_saved;
	int32_t sp_cfa;
	int32_t fp_cfa;
	int32_t fp_slot;
	int32_t ra_slot;
};

/** struct verify_range - instructions [@start, @end) undecided for @why, caused at @why_at */
struct verify_range {
	uint64_t start;
	uint64_t end;
	uint64_t why_at;
	uint8_t why;
};

/**
 * struct verify_finding - one finding, over the instructions [@start, @end)
 * @function: the function's name (symbol, or "" when there is none; owned)
 * @func_start: where its FDE (or symbol) starts
 * @section: the ELF section holding @start ("" when unknown)
 * @sec_start: that section's start (when @section is known)
 * @have_fde, @fde: the index of the SFrame FDE whose function starts at
 *	@func_start (mismatches and unknown findings of an FDE's function)
 * @have_row, @row, @fre_start: the SFrame row in effect at @start and the
 *	start of its FRE (an offset in the function; PCMASK: in the block)
 * @jit: the row is a JIT table entry, [@func_start, @row.code_end)
 * @code: what the code implies at @start (mismatches)
 * @why, @why_at: for unknown, why and the address that caused it
 * @cause: for unknown at a merge, what disagreed there and on which path
 *	("FP is CFA-16 on one path, a value not followed on the path from
 *	0x4687"; owned; may be NULL)
 * @range, @nranges, @insns: an analysed function's unknown finding (one per
 *	function): each run of its undecided instructions in address order
 *	(owned), @insns instructions in all; @why, @why_at and @cause are the
 *	first run's
 * @dwarf: what .eh_frame says at @start (mismatches)
 * @detail: a short sentence for what the fields do not say (owned; may be NULL)
 */
struct verify_finding {
	uint8_t kind;
	uint8_t why;
	uint8_t dwarf;
	bool have_row;
	bool have_fde;
	bool jit;
	uint32_t fde;
	uint64_t start;
	uint64_t end;
	uint64_t func_start;
	uint64_t why_at;
	uint32_t fre_start;
	char *function;
	char *detail;
	char *cause;
	struct verify_range *range;
	uint32_t nranges;
	uint32_t insns;
	char section[24];
	uint64_t sec_start;
	struct emu_unwind_rule row;
	struct verify_code code;
};

/**
 * struct verify_stats - what one run checked
 * @fdes: FDEs in the checked text; @functions: code ranges analysed
 * @rows: FREs of those FDEs
 * @instructions: instructions decoded in the FDEs' ranges
 * @decided: instructions whose row was held to the code (match or mismatch)
 * @undecided: instructions the analysis could not decide (unknown findings)
 * @unreachable: instructions no path reaches (padding, dead code)
 * @not_checked: outermost rows and signal-frame FDEs (no call made them)
 * @by_kind: findings of each kind (counted also when not kept)
 */
struct verify_stats {
	unsigned long fdes;
	unsigned long functions;
	unsigned long rows;
	unsigned long instructions;
	unsigned long decided;
	unsigned long undecided;
	unsigned long unreachable;
	unsigned long not_checked;
	unsigned long by_kind[VERIFY_KIND_COUNT];
};

/* How a row's column compares with the code (struct verify_row). */
enum verify_col {
	VERIFY_COL_MATCH,
	VERIFY_COL_DIFFERS,
	VERIFY_COL_UNDECIDED,
};

/* What a dumped row's first instruction gave, besides a finding's kind (0..VERIFY_UNKNOWN). */
enum verify_row_verdict {
	VERIFY_ROW_MATCH = VERIFY_KIND_COUNT,	/* the row says what the code does */
	VERIFY_ROW_UNREACHED,			/* no path reaches it (padding, dead code) */
	VERIFY_ROW_NOT_CHECKED,			/* outermost row, signal frame */
};

/**
 * struct verify_row - one SFrame row beside what the code implies at its
 *	first instruction (verify_target's @dump)
 * @fde, @func_start, @func_size, @num_fres: its FDE's index, function and rows
 * @name: the function's symbol (not owned: the target's), or NULL
 * @start, @end: the instructions it is in effect for, in a run
 * @fre_start: its FRE's start (an offset in the function; PCMASK: in the block)
 * @have_row, @row: its rule (when emu could translate it)
 * @have_code, @code: what the code implies at @start (when checked there)
 * @cfa, @ra, @fp: each column held to the code at @start (enum verify_col)
 * @verdict: the first instruction's finding (enum verify_kind) or enum verify_row_verdict
 * @why: why it is undecided (@verdict VERIFY_UNKNOWN)
 * @later: the instructions after @start whose row contradicts the code
 */
struct verify_row {
	uint32_t fde;
	uint32_t num_fres;
	uint64_t func_start;
	uint64_t func_size;
	const char *name;
	uint64_t start;
	uint64_t end;
	uint32_t fre_start;
	bool have_row;
	bool have_code;
	struct emu_unwind_rule row;
	struct verify_code code;
	uint8_t cfa, ra, fp;
	uint8_t verdict;
	uint8_t why;
	uint32_t later;
};

/**
 * struct verify_result - findings in address order, and the counts
 * @f, @n: the findings kept (owned); @dropped: beyond VERIFY_MAX_FINDINGS
 * @rows, @nrows: with verify_target's @dump, each row in address order
 *	(owned); @rows_dropped: not kept (no memory, or beyond VERIFY_MAX_FINDINGS)
 */
struct verify_result {
	struct verify_stats st;
	struct verify_finding *f;
	size_t n;
	size_t cap;
	size_t dropped;
	struct verify_row *rows;
	size_t nrows;
	size_t caprows;
	size_t rows_dropped;
};

/** struct verify_sym - a function symbol: [@start, @start + @size), @name not owned */
struct verify_sym {
	uint64_t start;
	uint64_t size;
	const char *name;
};

/** struct verify_import - a GOT slot at @slot holding the imported function @name */
struct verify_import {
	uint64_t slot;
	const char *name;
};

/** struct verify_section - an ELF section [@start, @end) named @name (not owned) */
struct verify_section {
	uint64_t start;
	uint64_t end;
	const char *name;
};

/**
 * struct verify_symbols - names for an object, at run-time addresses, each
 * array sorted by address (verify_symbols_sort()); all may be empty
 */
struct verify_symbols {
	struct verify_sym *sym;
	size_t nsym;
	struct verify_import *imp;
	size_t nimp;
	struct verify_section *sec;
	size_t nsec;
};

/**
 * verify_dwarf_fn - the .eh_frame row at @addr as a neutral rule
 * Return: 0, or -ENOENT when no FDE covers @addr.
 */
typedef int (*verify_dwarf_fn)(void *ctx, uint64_t addr, struct emu_unwind_rule *out);

/**
 * struct verify_lookup - the row in effect at an address, as the unwinder
 *	would find it
 * @fde, @num_rows: its FDE's index and rows (a JIT entry: 0 and 1)
 * @func_start, @func_size: the code its FDE describes (a JIT entry: its own
 *	range, [ip_off, ip_off + size) from the text's start)
 * @row_start: its FRE's start, an offset from @func_start (a JIT entry: 0)
 * @signal: a signal trampoline's (not checked)
 * @jit: a JIT table entry
 * @have_rule, @rule: its rule, when it could be translated
 */
struct verify_lookup {
	uint32_t fde;
	uint32_t num_rows;
	uint64_t func_start;
	uint64_t func_size;
	uint32_t row_start;
	bool signal;
	bool jit;
	bool have_rule;
	struct emu_unwind_rule rule;
};

/**
 * verify_lookup_fn - the row in effect at @addr into @out
 * Return: 0, or -ENOENT when no row covers @addr (other errors: the same).
 */
typedef int (*verify_lookup_fn)(void *ctx, uint64_t addr, struct verify_lookup *out);

/**
 * struct verify_target - what to check (nothing owned)
 * @sframe: the section, validated by emu (emu_sframe_load()) at its
 *	run-time address (verify_run(); verify_function() needs only @lookup)
 * @lookup, @lookup_ctx: the rows, when not @sframe's (a JIT table)
 * @mem: the object's memory at run-time addresses (code, jump tables, GOT)
 * @text: the executable ranges checked; FDEs outside them are skipped
 * @syms: function symbols, imports and sections, or NULL
 * @dwarf, @dwarf_ctx: .eh_frame's opinion, or NULL
 * @bias: run-time minus link-time addresses, when known (0: none): an
 *	absolute address read from data (a jump table) may not be relocated
 *	yet, as in an object registered at exec, before ld.so ran

 * @dump: also record each row beside the code's state (verify_result's @rows)
 */
struct verify_target {
	const struct emu_sframe_section *sframe;
	verify_lookup_fn lookup;
	void *lookup_ctx;
	const struct emu_accessor *mem;
	const struct emu_mappings *text;
	const struct verify_symbols *syms;
	verify_dwarf_fn dwarf;
	void *dwarf_ctx;
	uint64_t bias;
	bool dump;
};

/**
 * verify_run() - check every FDE of @t against its code
 * @out: zeroed by the caller; findings appended in address order
 *
 * Return: 0, -ENOMEM (the disassembler or the analysis could not get
 * memory; what was found so far is in @out), or -ELIBACC (libcapstone cannot
 * be loaded).
 */
int verify_run(const struct verify_target *t, struct verify_result *out);

/**
 * verify_function() - check the rows @t->lookup finds in the function
 * [@start, @end) (named @name, or NULL), entered as the ABI says, against
 * its code: a JIT function, whose bounds the JIT's perf map or its table
 * gives. @out as for verify_run().
 * Return: 0, -ENOMEM, or -ELIBACC (libcapstone cannot be loaded).
 */
int verify_function(const struct verify_target *t, uint64_t start, uint64_t end,
		    const char *name, struct verify_result *out);

/** verify_result_free() - release the findings and rows of @r (its counts stay). */
void verify_result_free(struct verify_result *r);

/** verify_finding_covers() - is @addr among @fd's instructions (an unknown finding: its ranges)? */
static inline bool verify_finding_covers(const struct verify_finding *fd, uint64_t addr)
{
	for (uint32_t i = 0; i < fd->nranges; i++)
		if (addr >= fd->range[i].start && addr < fd->range[i].end)
			return true;
	return !fd->nranges && addr >= fd->start && addr < fd->end;
}

/** verify_kind_name() - "cfa-mismatch", ... for @k. */
const char *verify_kind_name(unsigned int k);

/** verify_why_name() - "merge", ... for @w; verify_why_text(): what it means. */
const char *verify_why_name(unsigned int w);
const char *verify_why_text(unsigned int w);

/** verify_is_mismatch() - a finding of kind @k says the data is wrong (not unknown). */
static inline bool verify_is_mismatch(unsigned int k)
{
	return k < VERIFY_UNKNOWN;
}

/** verify_mismatches() - findings of @st that say the data is wrong. */
unsigned long verify_mismatches(const struct verify_stats *st);

/** verify_stats_add() - add the counts of @st to @sum (the totals of several runs). */
void verify_stats_add(struct verify_stats *sum, const struct verify_stats *st);

/** verify_share_decided() - decided / (decided + undecided), 1.0 when nothing was. */
double verify_share_decided(const struct verify_stats *st);

/** verify_symbols_sort() - sort each array of @s by address (call once filled). */
void verify_symbols_sort(struct verify_symbols *s);

/** verify_symbol_at() - the function symbol holding @addr (size > 0), or NULL. */
const struct verify_sym *verify_symbol_at(const struct verify_symbols *s, uint64_t addr);

/** verify_import_at() - the imported function whose GOT slot is @slot, or NULL. */
const char *verify_import_at(const struct verify_symbols *s, uint64_t slot);

/** verify_section_at() - the name of the section holding @addr, or NULL. */
const char *verify_section_at(const struct verify_symbols *s, uint64_t addr);

/** verify_section_of() - the section holding @addr, or NULL. */
const struct verify_section *verify_section_of(const struct verify_symbols *s, uint64_t addr);

#endif /* SUPERVISOR_VERIFY_VERIFY_H */
