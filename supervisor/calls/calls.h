/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The codectl calls: one notification from receipt to answer, the answers'
 * accounting per process, and the exec-time registrations (exec_sframe.h).
 */
#ifndef SUPERVISOR_CALLS_CALLS_H
#define SUPERVISOR_CALLS_CALLS_H

#include <stdbool.h>

#include "emu/codectl_call.h"
#include "notify.h"
#include "supervisor/core/log.h"
#include "supervisor/trace/trace.h"

/*
 * SFrame bytes all traced processes together may hold (each also has its own
 * budget, emu_policy.max_sframe_total).
 */
#define CALLS_SFRAME_GLOBAL_MAX (4096ull << 20)

/**
 * struct calls - what answering codectl calls needs (owned by main)
 * @policy: the emulated kernel's rules and limits
 * @nr: the system call number trapped
 * @trace_lines: --trace: one strace-like line per call
 * @loader_module: the loader module is given to dynamically linked programs
 * @notifier: the seccomp listener (fd -1 when none)
 * @trace: the process tree the callers belong to
 */
struct calls {
	struct emu_policy policy;
	long nr;
	bool trace_lines;
	bool loader_module;
	struct notifier notifier;
	struct trace *trace;
	struct log *log;
};

/**
 * calls_handle_notification() - serve one pending notification
 *
 * Order (seccomp_unotify(2)): receive into a zeroed buffer; copy and validate
 * the caller's memory through emu (process_vm_readv); check that the
 * notification is still valid; answer; apply the registration change only if
 * the answer was delivered, so a call interrupted and re-issued is counted
 * once. Call only when the listener is readable.
 */
void calls_handle_notification(struct calls *c);

/**
 * calls_note_kernel_refusals() - count the kernel-patch rules an accepted
 * registration breaks; the first of each kind in a process is noted in the log
 */
void calls_note_kernel_refusals(struct calls *c, struct proc *p, const struct emu_verdict *v);

#endif /* SUPERVISOR_CALLS_CALLS_H */
