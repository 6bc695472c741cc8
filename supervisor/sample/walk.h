/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sample's walks: ours (the emu/ unwinder over the process's
 * registrations), libunwind's, and elfutils' when those two disagree; the
 * comparison (report/classify.h), counted in the statistics.
 */
#ifndef SUPERVISOR_SAMPLE_WALK_H
#define SUPERVISOR_SAMPLE_WALK_H

#include <stdbool.h>

#include "emu/registry.h"
#include "emu/unwind.h"
#include "code_cache.h"
#include "sample.h"
#include "sample_mem.h"
#include "supervisor/oracle/oracle.h"
#include "supervisor/trace/tracees.h"
#include "supervisor/report/stats.h"
#include "supervisor/verify/session.h"

/* The byte-per-frame buffers of struct walk_buffers: flags and plausibility. */
enum walk_bytes {
	WALK_OURS_FLAGS,
	WALK_OURS_PLAUS,
	WALK_REF_FLAGS,
	WALK_REF_PLAUS,
	WALK_ELF_FLAGS,
	WALK_ELF_PLAUS,
	WALK_BYTES
};

/**
 * struct walk_buffers - what every walk reuses: frame buffers of @max
 *	entries each (our frames, their IPs, libunwind's and elfutils' IPs,
 *	and per frame the flags and plausibility of each walk), the sample's
 *	memory reader, what the walks ask of the oracles (struct
 *	oracle_walker), the reason's text, an unnamed JIT frame's name: used
 *	by one walk at a time (the sampling lock), on either thread that walks
 */
struct walk_buffers {
	unsigned int max;
	struct emu_frame *ours;
	struct emu_frame *ours_alt;
	uint64_t *ours_ips;
	uint64_t *ref;
	uint64_t *ref_alt;
	uint64_t *elf;
	uint8_t *bytes[WALK_BYTES];
	struct sample_mem mem;
	struct oracle_walker walker;
	char reason[1024];
	char missing[64];
	char jit_name[32];
};

/** walk_buffers_init() - buffers for walks of @max frames; 0 or -ENOMEM. */
int walk_buffers_init(struct walk_buffers *b, unsigned int max);

/** walk_buffers_free() - release them (an all-zero @b is fine). */
void walk_buffers_free(struct walk_buffers *b);

/**
 * struct walk_env - what a sample's walks use besides the sample
 * @registry: the sampled process's registrations (read, never changed)
 * @maps: its mappings, or NULL when they are not known (no frame is judged)
 * @as: its address space (the refusals noted there name missing unwind data)
 * @fresh_maps: the mappings read again when they are older than a sample
 *	taken at @taken_ns (CLOCK_MONOTONIC), else NULL; asked, with
 *	@fresh_maps_ctx, before a frame is called no code
 * @oracles: its reference unwinders, plausibility oracle and symbols
 * @code: its code pages kept across samples (read as @maps say), or NULL
 * @uopts: our unwinder's options (frame limit, caller lookup at RA or RA - 1)
 * @removed: with @removed_ctx, told of each registration a kernel profile's
 *	lookup found broken (the kernel removes it: the caller does, once the
 *	sample is counted); NULL: nobody is told
 * @crosscheck: walk with libunwind too (and elfutils on disagreement)
 * @folded: count the stack for --folded
 * @buf: the buffers
 * @stats: where the sample is counted
 * @verify: --verify's session: each JIT function our walk goes through is
 *	checked the first time (NULL: no --verify)
 */
struct walk_env {
	const struct emu_registry *registry;
	const struct emu_mappings *maps;
	const struct addr_space *as;
	const struct emu_mappings *(*fresh_maps)(void *ctx, uint64_t taken_ns);
	void *fresh_maps_ctx;
	struct oracles *oracles;
	struct code_cache *code;
	struct emu_unwind_opts uopts;
	void (*removed)(void *ctx, const struct emu_removal *rm);
	void *removed_ctx;
	bool crosscheck;
	bool folded;
	struct walk_buffers *buf;
	struct sample_stats *stats;
	struct verify_session *verify;
};

/**
 * walk_ours() - our walk of @smp into @smp->ours (its @frames given by the
 * caller), made as soon as the sample is taken: against the registrations
 * of that moment, which a kernel profile's lookup may change (the
 * registrations it found broken are removed through @env->removed now)
 */
void walk_ours(struct sample *smp, const struct walk_env *env);

/**
 * walk_rest() - the references' walks of @smp, the verdict on them and on
 * @smp->ours, counted in @env->stats (a sample walk_ours() could not walk is
 * counted dropped)
 */
void walk_rest(const struct sample *smp, const struct walk_env *env);

#endif /* SUPERVISOR_SAMPLE_WALK_H */
