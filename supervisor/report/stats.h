/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything the sampling report says, accumulated sample by sample:
 * classification counts, agreement, per-object coverage, the places where
 * walks disagree (with one example each), folded stacks, freeze times and
 * the unwinders' costs. Owns every string and JSON value in it.
 */
#ifndef SUPERVISOR_REPORT_STATS_H
#define SUPERVISOR_REPORT_STATS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/unwind.h"
#include "classify.h"
#include "formats.h"
#include "profile.h"

/*
 * The loader module's file: codectl-run's own code in the program. Samples
 * in it are counted apart, never among the program's places, and its frames
 * are marked in the folded stacks.
 */
#define STATS_LOADER_MODULE "libcodectl-audit.so"
#define STATS_LOADER_MODULE_MARK "_[codectl-run]"

/*
 * Disagreements kept in full for --json (each place keeps an example of its
 * own besides); the rest are only counted. A kept sample costs ~170 KiB of
 * JSON objects and ~1.5 ms to symbolize and build (80-frame walks,
 * bench/sample's target), on the walking thread while the program runs.
 */
#define STATS_MAX_DISAGREEMENTS 100

/**
 * struct sample_walks - one sample's walks and what the comparison found
 * @in: the walks as the classification reads them (ours with their
 *	plausibility, libunwind's; see struct sample_walks_in)
 * @stop: why our walk ended (emu_stop_reason(), static)
 * @jit_fault: what was wrong with a JIT table when @stop says so, else 0
 * @jit_frames: our frames in JIT code
 * @elf, @elf_flags, @elf_plaus, @n_elf: elfutils' walk when it was asked
 * @v: the verdict
 * @reason: why the covered prefix ended or where the walks part (a short
 *	phrase, owned by the caller)
 * @strict_changed: the kernel's lookup of callers at RA (--strict) and the
 *	lookup at RA - 1 give different stacks
 * @read_past_copy: a walk (ours or a reference's) read the stack past the
 *	copy taken at the sample: what it found there may be of a later moment,
 *	and may have decided where a walk ended
 * @eh_frame_unsupported, @eh_frame_unsupported_rule: our walk's .eh_frame
 *	lookups that found CFI the kernel does not interpret (the frame fell
 *	back to the frame pointer), and the rule of the first
 * @truth, @n_truth, @truth_depth: the program's own chain of return
 *	addresses, innermost first, and its depth (0: the program keeps none;
 *	include/codectl_truth.h)
 */
struct sample_walks {
	pid_t tgid;
	pid_t tid;
	struct sample_walks_in in;
	const char *stop;
	uint8_t jit_fault;
	unsigned int jit_frames;
	const uint64_t *elf;
	const uint8_t *elf_flags;
	const uint8_t *elf_plaus;
	unsigned int n_elf;
	struct sample_verdict v;
	const char *reason;
	bool strict_changed;
	bool programs_own;
	bool read_past_copy;
	uint64_t waited_ns;
	uint64_t freeze_ns;
	unsigned int eh_frame_unsupported;
	enum emu_rule eh_frame_unsupported_rule;
	const uint64_t *truth;
	unsigned int n_truth;
	unsigned int truth_depth;
};

/* Threads that blocked SIGPROF, named in the report at most. */
#define STATS_BLOCKED_NAMED 8

/**
 * struct stats_namer - how frames are named
 * @symbol: "function+0xOFF", "[object+0xOFF]" or "0xADDR" for @ip (@caller:
 *	a return address, looked up at @ip - 1), or NULL; owned by @ctx
 * @object: the path of the file holding @ip ("[vdso]", "[jit]"), or NULL
 *	when no mapping holds it; may be NULL itself (no objects)
 * @comm: thread @tid's name ("" when gone) into @buf (@size bytes); may be
 *	NULL (no names: the thread's root is "?-TGID/TID")
 */
struct stats_namer {
	const char *(*symbol)(void *ctx, uint64_t ip, bool caller);
	const char *(*object)(void *ctx, uint64_t ip, bool caller);
	void *ctx;
	void (*comm)(void *ctx, pid_t tid, char *buf, size_t size);
};

/*
 * Where a wrong frame the verdicts found is: in our walk's SFrame-covered
 * part (ours-wrong, both-wrong), in our walk past it (astray: the frame-
 * pointer fallback), or in libunwind's walk (libunwind-failed).
 */
enum finding_walk { FINDING_COVERED, FINDING_ASTRAY, FINDING_LIBUNWIND, FINDING_WALKS };

struct sample_stats {
	unsigned long total;
	unsigned long by_class[SC_COUNT];
	unsigned long dropped;
	unsigned long dropped_busy;
	unsigned long missed_ticks;
	unsigned long stops_pending;	/* --sampler stop: records while a stop was on its way */
	unsigned long blocked_threads;	/* SIGPROF blocked: samples missed (--sampler sigprof) */
	char blocked_names[STATS_BLOCKED_NAMED][40];
	unsigned long shed;		/* wall-clock samples not taken: over the stop budget */
	unsigned long programs_own;
	unsigned long in_loader_module;	/* samples with a frame in STATS_LOADER_MODULE */
	unsigned long waited;
	uint64_t waited_max_ns;
	unsigned long with_step;
	unsigned long checked_with_step;	/* ... and cross-checked */
	unsigned long agreeing;
	unsigned long outcome[OUTCOME_COUNT];
	unsigned long libunwind_wrong;	/* samples that show libunwind's walk wrong */
	unsigned long fallback_skipped;	/* unverifiable: the fallback left out frames */
	unsigned long findings[WHY_COUNT];	/* wrong frames by why */
	unsigned long findings_in[FINDING_WALKS][WHY_COUNT];	/* ... by whose walk */
	unsigned long side[SIDE_COUNT];
	unsigned long check_failures;
	unsigned long strict_changed;
	unsigned long jit_samples;	/* samples with a frame in JIT code */
	unsigned long jit_frames;	/* frames in JIT code, in all samples */
	unsigned long jit_invalid[EMU_JIT_FAULT_COUNT];	/* walks stopped by a bad table */
	unsigned long jit_invalid_total;
	unsigned long stack_past_copy;	/* our walks that read the stack above the copy */
	uint32_t *freeze_ns;
	size_t nfreeze;
	size_t capfreeze;
	uint64_t ours_ns, ref_ns, elf_ns;
	uint64_t plaus_ns;		/* judging frames, every walk's */
	unsigned long plaus_frames;	/* frames judged */
	unsigned long plaus_hits;	/* ... answered from the oracle's cache */
	unsigned long n_ref_walks, n_elf_walks;
	unsigned long ref_retries;	/* libunwind walks tried again with fresh state */
	void *objects;		/* tsearch: struct stats_object by name */
	void *places;		/* tsearch: struct stats_place by key */
	void *folded;		/* tsearch: struct stats_folded by stack */
	void *threads;		/* tsearch: struct stats_thread by "TGID/TID" */
	size_t n_threads;	/* ... entries, at most STATS_MAX_THREADS */
	unsigned long threads_unlisted;	/* samples of threads past that */
	json_t *disagreements;
	unsigned long disagreements_total;
	json_t *stacks;		/* --json-all, else NULL */
	uint64_t period_ns;
	struct profile profile;	/* the program's samples by function and object */
	void *folded_all;	/* --folded-all: tsearch: struct stats_folded, uncut */
	bool keep_folded_all;	/* fill @folded_all too */
	bool keep_disagreements;	/* fill @disagreements (--json) */
	bool folded_no_root;	/* --no-folded-root: no "comm-TGID/TID" root */
	struct format_stats formats;	/* --compare-formats */
};

/*
 * An object frames were in: @name is its path ("[vdso]", "[jit]" and the
 * like for memory without one); @label what reports call it: the file's
 * name, or its path where two objects sampled share that name (set by
 * stats_objects_sorted())
 */
struct stats_object {
	char *name;
	unsigned long samples;
	unsigned long with_step;
	const char *label;
};

/* A place where walks disagree: a class and the function it happens in. */
struct stats_place {
	char *key;
	char *function;
	enum sample_class cls;
	const char *reason;
	uint8_t why;
	unsigned long count;
	unsigned long side[SIDE_COUNT];
	json_t *example;
};

/* A folded stack, @count samples of it, @ref_wrong of them libunwind's walk had wrong. */
struct stats_folded {
	char *stack;
	unsigned long count;
	unsigned long ref_wrong;
};

/*
 * One thread's samples: @taken by the kernel (or at its stop), @walked of
 * them (the rest were dropped: the supervisor busy, the thread gone), and
 * of those @unverified and @wrong (the verdict's outcome); @comm its name
 * (read at its first sample with a folded stack or a profile, again after
 * an exec). At most STATS_MAX_THREADS are kept (a run of many short
 * processes).
 */
#define STATS_MAX_THREADS 4096

struct stats_thread {
	char *key;
	pid_t tgid;
	pid_t tid;
	unsigned long taken;
	unsigned long walked;
	unsigned long unverified;
	unsigned long wrong;
	bool named;
	char comm[16];
};

/**
 * stats_thread_exec() - thread @tid of @tgid exec'd: its name is read again
 * at its next sample (a fork child of bash that becomes sed)
 */
void stats_thread_exec(struct sample_stats *st, pid_t tgid, pid_t tid);

/** stats_init() - empty statistics; @keep_stacks for --json-all. Return: 0 or -ENOMEM. */
int stats_init(struct sample_stats *st, bool keep_stacks, uint64_t period_ns);

/** stats_free() - release everything. */
void stats_free(struct sample_stats *st);

/**
 * stats_add() - count one sample
 * @object: the path of the file holding frame 0's IP ("[vdso]", "[jit]"), or NULL
 * @names: names for the frames
 * @folded: also count its stack for --folded
 */
void stats_add(struct sample_stats *st, const struct sample_walks *w, const char *object,
	       const struct stats_namer *names, bool folded);

/** stats_drop() - a sample lost (thread gone, registers unreadable). */
void stats_drop(struct sample_stats *st);

/** stats_taken() - thread @tid of process @tgid was sampled (walked or not). */
void stats_taken(struct sample_stats *st, pid_t tgid, pid_t tid);

/**
 * stats_agreement() - agreeing / cross-checked samples with an SFrame/JIT
 * step, or -1 when there is none (no such step, or --no-crosscheck)
 */
double stats_agreement(const struct sample_stats *st);

/** stats_freeze_percentile() - the @pct-th percentile of freeze times, ns (0 when none). */
uint64_t stats_freeze_percentile(struct sample_stats *st, double pct);

/** stats_places_sorted() - places by count, most first; malloc'd, *@n entries. */
struct stats_place **stats_places_sorted(const struct sample_stats *st, size_t *n);

/**
 * stats_objects_sorted() - objects by samples, most first, each with its
 * label; malloc'd, *@n entries
 */
struct stats_object **stats_objects_sorted(const struct sample_stats *st, size_t *n);

/** stats_threads_sorted() - threads by TID; malloc'd, *@n entries. */
struct stats_thread **stats_threads_sorted(const struct sample_stats *st, size_t *n);

/**
 * stats_folded_sorted() - folded stacks by count, most first (@all: every
 * frame of each stack, --folded-all's; else cut at the first frame judged
 * wrong or unverifiable); malloc'd, *@n entries
 */
struct stats_folded **stats_folded_sorted(const struct sample_stats *st, bool all, size_t *n);

#endif /* SUPERVISOR_REPORT_STATS_H */
