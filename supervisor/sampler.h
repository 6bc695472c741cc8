/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampling: at a thread's SIGPROF signal-delivery-stop, take its registers
 * and a copy of its stack and let it run on at once; then walk the copy with
 * our unwinder, libunwind and (on disagreement) elfutils, and count the
 * result (sample_stats.h). See codectl-run(1), "SAMPLING".
 */
#ifndef SUPERVISOR_SAMPLER_H
#define SUPERVISOR_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/unwind.h"
#include "sample.h"
#include "sample_mem.h"
#include "sample_stats.h"
#include "sample_trigger.h"
#include "tracees.h"

struct supervisor;

/*
 * Samples captured and not unwound yet (their threads already run on). The
 * event loop unwinds one at a time between events, so a stop never waits for
 * more than one walk; a full queue drops the new sample instead of waiting.
 */
#define SAMPLER_QUEUE 128

/**
 * struct sampler - sampling state of one run (owned by struct supervisor)
 * @queue, @qhead, @nqueued: ring of captured samples waiting to be unwound
 * @ours, @ours_alt, @ref, @elf: frame buffers of max_frames entries
 * @checked_failures: samples that fail --check
 * @status_ns: when the last progress line was written
 */
struct sampler {
	struct sample_trigger trig;
	struct sample queue[SAMPLER_QUEUE];
	unsigned int qhead;
	unsigned int nqueued;
	struct sample_stats stats;
	struct emu_unwind_opts uopts;
	struct emu_frame *ours;
	struct emu_frame *ours_alt;
	uint64_t *ref;
	uint64_t *elf;
	struct sample_mem mem;
	uint64_t status_ns;
	bool status_shown;
	char reason[256];
};

/**
 * sampler_new() - sampling as @s->opts asks (NULL with --freq 0)
 * Return: 0 (see @s->sampler), or a negative errno.
 */
int sampler_new(struct supervisor *s);

/** sampler_free() - release the sampler (NULL is fine). */
void sampler_free(struct sampler *sm);

/** sampler_thread_started() - @th had its first stop: start its clock. */
void sampler_thread_started(struct supervisor *s, struct thread *th);

/** sampler_thread_exec() - @th exec'd: its clock and its process's unwinders start over. */
void sampler_thread_exec(struct supervisor *s, struct thread *th);

/**
 * sampler_on_sigprof() - thread @tid is in a SIGPROF signal-delivery-stop:
 * capture it if the signal is ours or the program's, then resume it (our
 * signal suppressed, the program's delivered unchanged)
 */
void sampler_on_sigprof(struct supervisor *s, pid_t tid);

/** sampler_walk_one() - unwind and count the oldest captured sample, if any. */
void sampler_walk_one(struct supervisor *s);

/**
 * sampler_flush_proc() - unwind the captured samples of process @tgid now
 * (it exits or execs: its registry is about to go)
 */
void sampler_flush_proc(struct supervisor *s, pid_t tgid);

/** sampler_pending() - samples captured and not unwound yet. */
unsigned int sampler_pending(const struct supervisor *s);

/** sampler_flush() - unwind and count every captured sample. */
void sampler_flush(struct supervisor *s);

/** sampler_on_timer() - the supervisor's timer ticked: SIGPROF to the threads it samples. */
void sampler_on_timer(struct supervisor *s);

/** sampler_progress() - the status line, every 2 s when the log is a terminal. */
void sampler_progress(struct supervisor *s);

#endif /* SUPERVISOR_SAMPLER_H */
