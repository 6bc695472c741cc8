/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entry points codectl-run answers: codectl(2), sframe_register(2) and
 * sframe_unregister(2), the v12 prctl (with --prctl-sframe),
 * stacktrace_setup(2), and eh_frame_register(2) with eh_frame_unregister(2). Each front-end recognises its notifications by
 * number (the prctl: by its option), decodes the caller's registers into the
 * emu call of its entry point, and has its own --trace line; the registry,
 * the validation and the unwinder behind them are one.
 */
#ifndef SUPERVISOR_CALLS_ENTRIES_H
#define SUPERVISOR_CALLS_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/seccomp.h>

#include "emu/codectl_call.h"
#include "emu/kernel_call.h"
#include "supervisor/trace/maps.h"
#include "notify.h"
#include "trace_line.h"

/**
 * struct entry_numbers - where the entry points are trapped
 * @codectl, @sframe_register, @sframe_unregister, @stacktrace_setup,
 *	@eh_frame_register, @eh_frame_unregister: numbers
 * @prctl: prctl(PR_ADD_SFRAME) and prctl(PR_REMOVE_SFRAME) are trapped too
 */
struct entry_numbers {
	long codectl;
	long sframe_register;
	long sframe_unregister;
	long stacktrace_setup;
	long eh_frame_register;
	long eh_frame_unregister;
	bool prctl;
};

/**
 * struct entry_call - one trapped call, decoded
 * @entry: its entry point
 * @codectl: the arguments of a codectl call
 * @kcall: the arguments of the others
 */
struct entry_call {
	enum emu_entry entry;
	struct emu_call codectl;
	struct emu_kcall kcall;
};

/** entries_traps() - what the seccomp filter must trap for @n. */
void entries_traps(const struct entry_numbers *n, struct notify_traps *t);

/**
 * entries_decode() - the entry point and arguments of notification @req
 * Return: 0, or -ENOSYS when it is none of ours (another ABI, a number not
 * trapped, a prctl option not ours).
 */
int entries_decode(const struct entry_numbers *n, const struct seccomp_notif *req,
		   struct entry_call *out);

/**
 * entries_removes() - is @c a removal (CODE_UNREGISTER, sframe_unregister,
 * PR_REMOVE_SFRAME, stacktrace_setup's unregister), at whichever entry point?
 */
bool entries_removes(const struct entry_call *c);

#define ENTRIES_RANGES 2	/* ranges a call speaks of, at most */

/**
 * entries_ranges() - the address ranges registration @c speaks of (its text,
 * its SFrame section or JIT code), for a check of the mappings there after
 * a refusal they may explain; @res is its prepared result (the caller's
 * struct, where it has one). Ranges may be empty (start >= end).
 * Return: how many are in @r (0 for a removal or a struct not read).
 */
size_t entries_ranges(const struct entry_call *c, const struct emu_call_result *res,
		      struct maps_range r[ENTRIES_RANGES]);

/** entries_prepare() - emu_codectl_prepare() or emu_kcall_prepare(), as @c's entry is. */
int entries_prepare(const struct emu_policy *p, const struct emu_space *sp,
		    const struct entry_call *c, struct emu_call_result *res);

/**
 * entries_trace_line() - the --trace line of @c, under its entry point's name
 *	(trace_line_format(), trace_kcall_format())
 */
size_t entries_trace_line(char *buf, size_t len, pid_t tid, const struct entry_call *c,
			  const struct emu_call_result *res, int err,
			  const struct trace_strings *strings);

#endif /* SUPERVISOR_CALLS_ENTRIES_H */
