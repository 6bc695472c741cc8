/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The example JIT's code generator: x86_64 functions written at run time into
 * a registered code area, described with include/codectl_jit.h, chained into
 * call chains that end in a C leaf; the records of what was generated (the
 * truth jit-check compares sampled stacks with), the perf map and the chains
 * file.
 */
#ifndef TESTS_JIT_GEN_H
#define TESTS_JIT_GEN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <codectl_jit.h>

/**
 * struct jit_run - one thread's argument to a chain run
 * @fn: the chain's outermost JIT function; the C entry calls it with the run
 *	in %rdi, which the JIT code leaves alone, so the leaf gets it too
 * @spin: iterations the leaf spins
 * @recurse: recursion depth of the recursing leaf, per run
 * @depth_left: the recursing leaf's countdown
 * @runs: chain runs completed
 * @sink: the spin's result (kept so that the loop is not removed)
 * @hold: while set, the leaf sets @in_leaf and waits until it is cleared
 */
struct jit_run {
	void (*fn)(struct jit_run *);
	uint64_t spin;
	uint32_t recurse;
	uint32_t depth_left;
	uint64_t runs;
	uint64_t sink;
	int hold;
	int in_leaf;
};

/* The C functions at both ends of a chain (jit_leaf.c, compiled with .sframe). */
struct jit_callee {
	const char *name;
	void (*fn)(struct jit_run *);
};

#define JIT_NENTRIES 3
#define JIT_NLEAVES 2
extern const struct jit_callee jit_entries[JIT_NENTRIES];
extern const struct jit_callee jit_leaves[JIT_NLEAVES];

/* Iterations of the leaves' spin loop per microsecond (jit_leaf.c). */
double jit_spin_per_us(void);

enum jit_fn_kind {
	JIT_FN_FP,		/* push %rbp; mov %rsp,%rbp; sub $16,%rsp; ...; leave; ret */
	JIT_FN_FRAMELESS,	/* sub $frame,%rsp; ...; add $frame,%rsp; ret */
};

/* How a chain's frames are expected to be unwound (the chains file's "expect"). */
enum jit_expect {
	JIT_EXPECT_JIT,		/* by the JIT tables: every step from a JIT frame is "jit" */
	JIT_EXPECT_FP,		/* unregistered: frame-pointer fallback, "fp" */
	JIT_EXPECT_EITHER,	/* run across an unregistration: all "jit" or all "fp" */
};

/**
 * struct jit_fn - one generated function
 * @start, @end: its code, [start, end)
 * @chain, @depth: the chain it belongs to, its place there (0 = outermost)
 * @kind, @frame: its shape (@frame: bytes a frameless function subtracts)
 * @table: index of the unwind table holding its FREs
 */
struct jit_fn {
	uint64_t start;
	uint64_t end;
	uint32_t chain;
	uint16_t depth;
	uint8_t kind;
	uint8_t area;
	uint32_t frame;
	uint32_t table;
};

/**
 * struct jit_chain - functions calling each other, from a C entry to a C leaf
 * @first_fn: index in jit_state.fns of its outermost function; the others
 *	follow in depth order (their addresses are shuffled)
 * @depth: functions in the chain
 * @entry, @leaf: indices in jit_entries[] and jit_leaves[]
 * @expect: enum jit_expect
 * @ran: set (atomically) once a thread has run it
 */
struct jit_chain {
	uint32_t first_fn;
	uint16_t depth;
	uint8_t entry;
	uint8_t leaf;
	uint8_t expect;
	int ran;
};

/**
 * struct jit_area - a JIT code area and its unwind tables
 * @code, @len, @used: the RWX mapping and the bytes handed out
 * @tables: its table chain (include/codectl_jit.h)
 * @reg_err: codectl_jit_register()'s answer (0, -ENOSYS outside codectl-run)
 * @poison: append FREs through jit_poison_add() instead of codectl_jit_add()
 */
struct jit_area {
	uint8_t *code;
	size_t len;
	size_t used;
	struct codectl_jit_tables tables;
	int reg_err;
	bool poison;
};

#define JIT_MAX_AREAS 2

/**
 * struct jit_state - everything generated, shared by the threads
 * @lock: serialises code allocation, table appends, records and the perf map
 * @fns, @nfns, @cap_fns: function records
 * @chains, @nchains, @cap_chains: chain records; @nchains is read without the
 *	lock (load-acquire) by threads that run chains compiled by others
 * @perf_map: /tmp/perf-PID.map, or NULL
 * @flush_each: flush the perf map after each chain
 * @min_depth, @max_depth: chain depths
 * @only_fp: generate only functions with a frame pointer
 * @max_recurse: the recursing leaf recurses 0..max_recurse deep
 */
struct jit_state {
	pthread_mutex_t lock;
	struct jit_area areas[JIT_MAX_AREAS];
	unsigned int nareas;
	struct jit_fn *fns;
	size_t nfns;
	size_t cap_fns;
	struct jit_chain *chains;
	size_t nchains;
	size_t cap_chains;
	FILE *perf_map;
	bool flush_each;
	unsigned int min_depth;
	unsigned int max_depth;
	bool only_fp;
	unsigned int max_recurse;
};

/** jit_rand() - xorshift64* step of @s (never 0). */
static inline uint64_t jit_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/**
 * jit_state_init() - allocate the records
 * @max_fns: functions at most
 * Return: 0 or -ENOMEM.
 */
int jit_state_init(struct jit_state *st, size_t max_fns);

/**
 * jit_area_open() - map a code area, describe it with @fres_per_table entries
 *	per table, and register it (one codectl call)
 * @code_len: bytes of code area
 * Return: the area's index, or a negative errno (mapping or table setup); a
 * failed registration is not an error: it is kept in reg_err.
 */
int jit_area_open(struct jit_state *st, size_t code_len, size_t fres_per_table, bool poison);

/**
 * jit_compile_chain() - generate one chain of @depth functions into @area
 * @rng: the calling thread's random state (shapes, placement, entry, leaf)
 * @expect: how its stacks are expected to unwind (enum jit_expect)
 *
 * Under the state lock: the functions are placed at increasing addresses past
 * everything generated before (in a shuffled order, 16-byte aligned, with
 * gaps), written, their FREs appended to the area's tables in address order,
 * and listed in the perf map.
 * Return: the chain's index, -ENOSPC (code area, tables or records full), or
 * another negative errno from the table append.
 */
long jit_compile_chain(struct jit_state *st, unsigned int area, unsigned int depth,
		       uint64_t *rng, enum jit_expect expect);

/** jit_random_depth() - a depth in [min_depth, max_depth]. */
unsigned int jit_random_depth(const struct jit_state *st, uint64_t *rng);

/** jit_published() - chains compiled so far (load-acquire: their code is complete). */
size_t jit_published(struct jit_state *st);

/**
 * jit_run_chain() - run chain @c once: its C entry calls the outermost
 *	function, the innermost calls the C leaf, which spins @r->spin iterations
 */
void jit_run_chain(struct jit_state *st, size_t c, struct jit_run *r);

/**
 * jit_poison_add() - jit-demo's own append path (grow mode): the slots past
 *	used_len are first filled with poison entries (ip_off 0, which makes the
 *	table unsorted should a reader ever use one), then the real entries are
 *	written over them and published with one store-release of used_len; a
 *	full table is chained as codectl_jit_add() does it
 * Return: as codectl_jit_add().
 */
int jit_poison_add(struct codectl_jit_tables *t, const struct code_jit_unwind_fre *fre, size_t n);

/** jit_table_count() - tables in use in @t's chain. */
size_t jit_table_count(const struct codectl_jit_tables *t);

/**
 * jit_perf_map_open() - create /tmp/perf-PID.map for this process
 * Return: 0 or -errno.
 */
int jit_perf_map_open(struct jit_state *st);

/** jit_perf_map_remove() - remove this process's /tmp/perf-PID.map. */
void jit_perf_map_remove(void);

/** jit_perf_map_all() - list every function generated so far (a forked child's map). */
void jit_perf_map_all(struct jit_state *st);

/**
 * jit_write_chains() - write the chains file: this process's pid, the areas,
 *	and every chain that ran, with its functions
 *
 * Text, one record a line, addresses in hex without 0x:
 *	pid PID
 *	area START END REGISTERED			(REGISTERED: 1 or 0)
 *	fn START END CHAIN DEPTH TABLE NAME		(depth 0: outermost)
 *	chain ID ENTRY LEAF EXPECT DEPTH START...	(starts outermost first;
 *							 EXPECT: jit, fp, either)
 * Only chains that ran are listed (a sampled stack can only be in those).
 * Return: 0 or -errno.
 */
int jit_write_chains(struct jit_state *st, const char *path);

#endif /* TESTS_JIT_GEN_H */
