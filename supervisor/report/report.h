/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampling report: text on the log, --json and --folded, from the
 * statistics (stats.h) and what the run was (its options, how it sampled,
 * what registrations it saw). It reads nothing else.
 */
#ifndef SUPERVISOR_REPORT_REPORT_H
#define SUPERVISOR_REPORT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "stats.h"
#include "supervisor/core/log.h"
#include "supervisor/core/options.h"

/** struct report_registrations - what every process's codectl calls did, added up */
struct report_registrations {
	unsigned long accepted;
	unsigned long rejected;
	unsigned long unregistered;
	unsigned long at_exec;
	unsigned long stale;
	unsigned long again_after_exec;
};

/**
 * struct report - one run's report
 * @stats: what was counted (not owned)
 * @opts: the run's options
 * @perf_events: samples were triggered by CPU-clock perf events (else by
 *	the supervisor's timer)
 * @ring: they were the kernel's records in perf ring buffers (no signal, no
 *	stop, unless @stop: each record stopped its thread, walked during the
 *	stop); @user_only: they were of user time only (perf_event_paranoid);
 *	@ring_lost: records the kernel could not write (buffers full);
 *	@ring_stack: stack bytes a record held at most
 * @queue: samples that may wait to be unwound (the dropped-while-busy hint)
 * @wall_stops: wall-clock stops a second at most (the shed samples' note)
 * @registrations: for --json
 * @exit_status: the program's, for --json
 * @exited_holding: exited processes whose sampling state is still held
 *	(--json's "supervisor": 0 unless state leaks)
 * @maps_full_reads, @maps_range_reads: whole /proc/PID/maps files read,
 *	and ranges asked of PROCMAP_QUERY (--json's "supervisor")
 * @verify: --verify's "verify" array for --json, or NULL (not owned)
 * @processes: the registrations per process for --json
 *	("registrations_by_process"), or NULL (not owned)
 */
struct report {
	struct sample_stats *stats;
	const struct run_opts *opts;
	bool perf_events;
	bool ring;
	bool stop;
	bool user_only;
	uint64_t ring_lost;
	size_t ring_stack;
	unsigned int queue;
	unsigned int wall_stops;
	struct report_registrations registrations;
	int exit_status;
	unsigned int exited_holding;
	unsigned long maps_full_reads;
	unsigned long maps_range_reads;
	json_t *processes;
	struct log *log;
	json_t *verify;
};

/**
 * report_source_fn - "file.c:LINE" of @ip of process @pid into @buf (@size
 * bytes); @caller: a return address. Return: 0, or a negative errno.
 */
typedef int (*report_source_fn)(void *ctx, pid_t pid, uint64_t ip, bool caller, char *buf,
				size_t size);

/**
 * report_add_sources() - add "source_line" to the frames of the examples and
 * disagreements kept, of process @pid (0: of every process), where @fn
 * knows it; frames that have one already are left as they are
 */
void report_add_sources(struct sample_stats *st, pid_t pid, report_source_fn fn, void *ctx);

/** report_print() - the report on the log (samples, agreement, coverage, places). */
void report_print(const struct report *r);

/**
 * report_check_files() - can --json and --folded of @o be written? Checked
 * before the program starts. Return: 0, or -1 after logging why not.
 */
int report_check_files(struct log *log, const struct run_opts *o);

/**
 * report_write_files() - --json and --folded, each written to a temporary
 * file in the same directory and renamed over FILE
 * Return: 0, or -1 after logging which file could not be written.
 */
int report_write_files(const struct report *r);

#endif /* SUPERVISOR_REPORT_REPORT_H */
