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
#include "sample.h"
#include "sample_mem.h"
#include "supervisor/oracle/oracle.h"
#include "supervisor/report/stats.h"

/**
 * struct walk_buffers - what every walk reuses: frame buffers of @max
 *	entries each, the sample's memory reader, the reason's text
 */
struct walk_buffers {
	unsigned int max;
	struct emu_frame *ours;
	struct emu_frame *ours_alt;
	uint64_t *ref;
	uint64_t *elf;
	struct sample_mem mem;
	char reason[256];
};

/** walk_buffers_init() - buffers for walks of @max frames; 0 or -ENOMEM. */
int walk_buffers_init(struct walk_buffers *b, unsigned int max);

/** walk_buffers_free() - release them (an all-zero @b is fine). */
void walk_buffers_free(struct walk_buffers *b);

/**
 * struct walk_env - what a sample's walks use besides the sample
 * @registry: the sampled process's registrations (read, never changed)
 * @oracles: its reference unwinders and symbols
 * @uopts: our unwinder's options (frame limit, caller lookup at RA or RA - 1)
 * @crosscheck: walk with libunwind too (and elfutils on disagreement)
 * @folded: count the stack for --folded
 * @buf: the buffers
 * @stats: where the sample is counted
 */
struct walk_env {
	const struct emu_registry *registry;
	struct oracles *oracles;
	struct emu_unwind_opts uopts;
	bool crosscheck;
	bool folded;
	struct walk_buffers *buf;
	struct sample_stats *stats;
};

/** walk_sample() - walk @smp every way, compare, and count it in @env->stats. */
void walk_sample(const struct sample *smp, const struct walk_env *env);

#endif /* SUPERVISOR_SAMPLE_WALK_H */
