/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampling: the kernel's sample records from perf ring buffers (ring.h:
 * registers and a stack copy taken at the overflow, the thread never
 * stopped), or at a thread's SIGPROF signal-delivery-stop its registers and
 * a copy of its stack, the thread let run on at once. Our walk is made at
 * once, against the registrations of that moment; the references and the
 * verdict later (walk.h), counted in the statistics the report reads. See
 * codectl-run(1), "SAMPLING".
 */
#ifndef SUPERVISOR_SAMPLE_SAMPLER_H
#define SUPERVISOR_SAMPLE_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring.h"
#include "sample.h"
#include "supervisor/core/log.h"
#include "supervisor/core/options.h"
#include "supervisor/report/stats.h"
#include "supervisor/trace/trace.h"
#include "trigger.h"
#include "walk.h"
#include "walk_worker.h"

/*
 * Samples captured and not unwound yet (their threads already run on). The
 * walk worker (walk_worker.h; else the event loop between events) unwinds
 * one at a time, so a stop never waits for more than one walk; a full queue
 * drops the new sample instead of waiting.
 */
#define SAMPLER_QUEUE 128

/*
 * The walking thread starts no walk for SAMPLER_CALLS_QUIET_MS after a call
 * or an execve (sampler_call_seen()), unless SAMPLER_DEFER_MAX samples wait.
 * Calls come in bursts while a loader maps objects: each would wait for the
 * walk in progress (the lock), and the walks made then read each new object
 * again. At most SAMPLER_DEFER_MAX samples wait so: a removal walks its
 * process's waiting samples before it is answered (sampler_flush_proc()).
 */
#define SAMPLER_CALLS_QUIET_MS 5
#define SAMPLER_DEFER_MAX 8

/**
 * sampler_walks_now() - may the walking thread walk, with @nqueued samples
 * waiting, at @now_ns, the last call or execve seen at @call_ns (both
 * CLOCK_MONOTONIC, ns)?
 */
static inline bool sampler_walks_now(unsigned int nqueued, uint64_t now_ns, uint64_t call_ns)
{
	return nqueued && (nqueued >= SAMPLER_DEFER_MAX ||
			   now_ns - call_ns >= SAMPLER_CALLS_QUIET_MS * 1000000ull);
}

/**
 * sampler_quiet_left_ms() - ms, rounded up, until the quiet time of a call
 * seen at @call_ns ends, at @now_ns (0: it has)
 */
static inline int sampler_quiet_left_ms(uint64_t now_ns, uint64_t call_ns)
{
	uint64_t end = call_ns + SAMPLER_CALLS_QUIET_MS * 1000000ull;

	return now_ns >= end ? 0 : (int)((end - now_ns + 999999) / 1000000);
}

/**
 * struct sampler - sampling state of one run (owned by main)
 * @queue, @qhead, @nqueued: ring of captured samples waiting to be unwound
 * @queue_area, @queue_bytes: the mapping holding their stack copies
 * @buf: what every walk reuses
 * @proc_key, @code_key, @truth_key, @thread_key: the tree's slots for a
 *	process's oracles (struct oracles), code pages (struct code_cache) and
 *	truth table (struct truth_table), and a thread's struct thread_sampling
 * @ring, @ring_on: the perf ring buffers (--sampler ring and stop), in use
 * @stop_mode: --sampler stop: each record stops its thread (PTRACE_INTERRUPT)
 * @stop_smp: the sample taken at such a stop
 * @tick_cursor: the thread a wall-clock tick signalled last (round robin)
 * @lines: the line tables read for the examples' file:line, for the run
 * @status_ns: when the last progress line was written; @status_shown: one was
 * @worker: the thread that walks the queue, and the lock on all of this
 * @drain_room, @drain_pending, @drain_seen: the drain under way: the queue's
 *	free slots when it began, the records it found, those handed so far
 * @call_ns: when the last call or execve was seen (CLOCK_MONOTONIC)
 * @no_decoder: libcapstone could not be loaded: no oracles are made
 * @truth_polled: a process keeps its own chain: the ring is drained every
 *	RING_TRUTH_DRAIN_MS from then on (each of its records asks for a stop;
 *	one stop at a time per thread, so a batch of records would give one
 *	sample)
 */
struct sampler {
	struct sample_trigger trig;
	struct sample_ring ring;
	bool ring_on;
	bool stop_mode;
	struct sample stop_smp;
	struct sample queue[SAMPLER_QUEUE];
	uint8_t *queue_area;
	size_t queue_bytes;
	unsigned int qhead;
	unsigned int nqueued;
	unsigned int drain_room;
	unsigned int drain_pending;
	unsigned int drain_seen;
	uint64_t call_ns;
	bool no_decoder;
	struct sample_stats stats;
	struct walk_buffers buf;
	const struct run_opts *opts;
	struct log *log;
	struct trace *trace;
	int proc_key;
	int code_key;
	int truth_key;
	int thread_key;
	pid_t tick_cursor;
	struct source_lines lines;
	uint64_t status_ns;
	bool status_shown;
	struct verify_session *verify;
	struct walk_worker worker;
	bool truth_polled;
};

/**
 * sampler_new() - sampling as @opts asks, of the processes @trace follows
 * (*@out NULL with --freq 0)
 * Return: 0, or a negative errno.
 */
int sampler_new(struct sampler **out, const struct run_opts *opts, struct log *log,
		struct trace *trace);

/** sampler_free() - release the sampler (NULL is fine). */
void sampler_free(struct sampler *sm);

/**
 * sampler_attach() - the program @pid is seized and about to execve: with
 * the ring sampler, its buffers are set up (when perf events cannot give
 * them, SIGPROF takes over, and the log says why)
 */
void sampler_attach(struct sampler *sm, pid_t pid);

/**
 * sampler_on_interrupt() - @th is in a stop asked for by --sampler stop:
 * its registers taken, our walk and the references' made on its memory as
 * it is (any depth, exact), then the thread resumed.
 * Return: false when the stop is not ours.
 */
bool sampler_on_interrupt(struct sampler *sm, struct thread *th);

/**
 * sampler_on_other_stop() - @th is in a ptrace stop other than the one a
 * PTRACE_INTERRUPT asked for (an event, a signal-delivery-stop, a
 * group-stop): the kernel drops a pending interrupt at any trap
 * (ptrace_stop()), so a stop asked for before is not coming: counted as
 * dropped, and the thread may be asked again.
 */
void sampler_on_other_stop(struct sampler *sm, struct thread *th);


/**
 * sampler_wait_ms() - how long the event loop may sleep with nothing to do
 * before it must call sampler_drain(), or let the lock go for walks a call
 * held back (ms; @fallback, -1 for ever, when nothing asks); under the lock
 */
int sampler_wait_ms(const struct sampler *sm, int fallback);

/**
 * sampler_drain() - take the records the kernel wrote to the ring buffers
 * into the queue, our walk made on each: before the registrations change
 * (a call, an exec, an exit), so that every sample is walked against the
 * registrations of its moment
 */
void sampler_drain(struct sampler *sm);

/** sampler_thread_started() - @th had its first stop: start its clock. */
void sampler_thread_started(struct sampler *sm, struct thread *th);

/**
 * sampler_thread_exiting() - @th is about to exit: with SIGPROF sampling,
 * counted and named when it ran long with SIGPROF blocked (its samples lost)
 */
void sampler_thread_exiting(struct sampler *sm, struct thread *th);

/** sampler_thread_exec() - @th exec'd: its clock and its process's oracles start over. */
void sampler_thread_exec(struct sampler *sm, struct thread *th);

/**
 * sampler_on_sigprof() - @th is in a SIGPROF signal-delivery-stop: capture
 * it if the signal is ours or the program's, then resume it (our signal
 * suppressed, the program's delivered unchanged)
 */
void sampler_on_sigprof(struct sampler *sm, struct thread *th);

/**
 * sampler_call_seen() - a call is being answered, or a program was just
 * executed: the walks wait (SAMPLER_CALLS_QUIET_MS). NULL @sm is fine.
 */
void sampler_call_seen(struct sampler *sm);

/**
 * sampler_walk_one() - unwind and count the oldest captured sample, if any
 * (its process's mappings are re-read first when they are old)
 */
void sampler_walk_one(struct sampler *sm);

/**
 * sampler_flush_proc() - unwind the captured samples of process @tgid now
 * (it exits or execs: its registry is about to go)
 */
void sampler_flush_proc(struct sampler *sm, pid_t tgid);

/**
 * sampler_worker_start() - walk the queue on a thread of its own from now
 * on (walk_worker.h), the caller holding the lock (sampler_lock()); when
 * it cannot be started, the event loop walks (sampler_loop_walks())
 */
void sampler_worker_start(struct sampler *sm);

/** sampler_worker_stop() - stop the thread (lock held); the caller walks the rest alone. */
void sampler_worker_stop(struct sampler *sm);

/** sampler_lock() - take the lock on sampling state (NULL, no worker: nothing). */
void sampler_lock(struct sampler *sm);

/** sampler_unlock() - let it go, the worker woken when samples wait. */
void sampler_unlock(struct sampler *sm);

/** sampler_loop_walks() - samples the event loop must walk itself: no worker runs. */
unsigned int sampler_loop_walks(const struct sampler *sm);

/** sampler_pending() - samples captured and not unwound yet (0 for NULL). */
unsigned int sampler_pending(const struct sampler *sm);

/** sampler_flush() - unwind and count every captured sample. */
void sampler_flush(struct sampler *sm);

/*
 * Wall-clock stops a second at most, whatever the number of threads: each
 * costs the thread a freeze and the supervisor ~30 us, and the calls' answers
 * must not wait behind them. Threads past the budget wait for a later tick
 * (counted as shed).
 */
#define SAMPLER_WALL_STOPS_PER_SEC 2000u

/**
 * sampler_on_timer() - the supervisor's timer ticked: SIGPROF to the threads
 * it samples, as many as the queue and SAMPLER_WALL_STOPS_PER_SEC allow,
 * round robin
 */
void sampler_on_timer(struct sampler *sm);

/** sampler_progress() - the status line, every 2 s when stderr is a terminal. */
void sampler_progress(struct sampler *sm);

/** sampler_progress_end() - erase the status line, if one was written (before the summary). */
void sampler_progress_end(struct sampler *sm);

/** sampler_mappings_changed() - @p's mappings changed: its oracles forget their caches. */
void sampler_mappings_changed(struct sampler *sm, struct proc *p);

/**
 * sampler_proc_exited() - @p exited and its samples are walked: its kept
 * examples get their file:line, then everything kept for it goes (its
 * oracles, symbols, code pages, truth table; line tables it provides are
 * kept for the run), so that the state of a long run stays bounded
 */
void sampler_proc_exited(struct sampler *sm, struct proc *p);

/**
 * sampler_source_line() - "file.c:LINE" of @ip of process @pid, through the
 * oracles of the newest process with that pid, while they are kept (a
 * report_source_fn: @ctx is the struct sampler)
 */
int sampler_source_line(void *ctx, pid_t pid, uint64_t ip, bool caller, char *buf, size_t size);

#endif /* SUPERVISOR_SAMPLE_SAMPLER_H */
