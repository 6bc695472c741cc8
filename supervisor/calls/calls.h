/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calls of every entry point (entries.h): one notification from receipt
 * to answer, the answers' accounting per process, and the exec-time
 * registrations (exec_sframe.h).
 */
#ifndef SUPERVISOR_CALLS_CALLS_H
#define SUPERVISOR_CALLS_CALLS_H

#include <stdbool.h>

#include "emu/codectl_call.h"
#include "caller_files.h"
#include "entries.h"
#include "notify.h"
#include "supervisor/trace/slow_read.h"
#include "supervisor/core/log.h"
#include "supervisor/trace/trace.h"
#include "supervisor/verify/session.h"

/*
 * SFrame bytes all traced processes together may hold (each also has its own
 * budget, emu_policy.max_sframe_total).
 */
#define CALLS_SFRAME_GLOBAL_MAX (4096ull << 20)

/**
 * struct calls - what answering the calls needs (owned by main)
 * @policy: the emulated kernel's rules and limits
 * @numbers: the entry points' numbers trapped
 * @trace_lines: --trace: one strace-like line per call
 * @loader_module: the loader module is given to dynamically linked programs
 * @notifier: the seccomp listener (fd -1 when none)
 * @trace: the process tree the callers belong to
 * @slow_fd: an eventfd written when a read that may wait has finished
 *	(-1: none; every read is made in place)
 * @parked, @nparked: calls waiting for such a read (struct parked_call)
 * @verify: --verify: where registrations are checked against their code (NULL: off)
 */
struct calls {
	struct emu_policy policy;
	struct entry_numbers numbers;
	bool trace_lines;
	bool loader_module;
	struct notifier notifier;
	struct trace *trace;
	struct log *log;
	int slow_fd;
	struct parked_call {
		struct seccomp_notif *req;	/* a copy, malloc'd */
		struct slow_read *read;
		uint64_t since_ns;
		bool reported;
	} parked[SLOW_READ_MAX];
	unsigned int nparked;
	struct verify_session *verify;
	struct held_files held;
};

/* A call that waits this long for its memory is reported (once) in the log. */
#define CALLS_WATCHDOG_NS (5 * 1000000000ull)

/** calls_init_slow_reads() - the eventfd of reads that may wait; 0 or a negative errno. */
int calls_init_slow_reads(struct calls *c);

/**
 * calls_retry_parked() - @c->slow_fd is readable: serve again every parked
 * call whose read is done (its pages came in: the call is served from the
 * start, and may park again on another page)
 */
void calls_retry_parked(struct calls *c);

/**
 * calls_watchdog() - report each call that has waited for its memory longer
 * than CALLS_WATCHDOG_NS, once, with the address it waits for
 */
void calls_watchdog(struct calls *c);

/** calls_free() - release the parked calls (their reads' threads are left to the exit). */
void calls_free(struct calls *c);

/**
 * calls_handle_notification() - serve one pending notification
 *
 * Order (seccomp_unotify(2)): receive into a zeroed buffer; copy and validate
 * the caller's memory through emu (process_vm_readv); check that the
 * notification is still valid; answer; apply the registration change only if
 * the answer was delivered, so a call interrupted and re-issued is counted
 * once. A read of pages that are not present runs aside (slow_read.h): when
 * it does not finish at once, the call is parked unanswered and served again
 * from the start once it has (calls_retry_parked()). Call only when the
 * listener is readable.
 */
void calls_handle_notification(struct calls *c);

/**
 * calls_verify_registration() - --verify: check @reg, just committed in @p,
 * against the code it describes, read through @mem (once per object)
 */
void calls_verify_registration(struct calls *c, struct proc *p, const struct emu_accessor *mem,
			       const struct emu_registration *reg);

/**
 * calls_count_kernel_refusals() - count the kernel-patch rules an accepted
 * registration breaks (the exit summary says them, once)
 */
void calls_count_kernel_refusals(struct proc *p, const struct emu_verdict *v);

#endif /* SUPERVISOR_CALLS_CALLS_H */
