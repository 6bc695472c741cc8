/* SPDX-License-Identifier: GPL-2.0 */
/* The reference unwinders of one traced process: libunwind and elfutils. */
#ifndef SUPERVISOR_PROC_UNWINDERS_H
#define SUPERVISOR_PROC_UNWINDERS_H

#include <stdbool.h>
#include <sys/types.h>

#include "proc_dwfl.h"
#include "ref_unwind.h"

/**
 * struct proc_unwinders - per process, created at its first sample
 * @ref_err: why libunwind cannot be used for it (0 when @ref is ready)
 */
struct proc_unwinders {
	struct ref_unwinder ref;
	int ref_err;
	struct proc_dwfl dwfl;
};

/** proc_unwinders_new() - state for process @pid; NULL on ENOMEM. */
struct proc_unwinders *proc_unwinders_new(pid_t pid, bool crosscheck);

/** proc_unwinders_free() - release @u (NULL is fine). */
void proc_unwinders_free(struct proc_unwinders *u);

/** proc_unwinders_mappings_changed() - flush libunwind's cache, re-read elfutils' modules. */
void proc_unwinders_mappings_changed(struct proc_unwinders *u);

/**
 * proc_unwinders_exited() - the process exited and its samples are walked:
 * drop its perf map (up to 64 MiB; symbols already made are kept). NULL is fine.
 */
void proc_unwinders_exited(struct proc_unwinders *u);

#endif /* SUPERVISOR_PROC_UNWINDERS_H */
