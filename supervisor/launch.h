/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Starting PROGRAM: fork, let the parent seize the child with ptrace, load the
 * notify filter in the child, hand the listener to the parent (SCM_RIGHTS),
 * exec with PATH lookup.
 */
#ifndef SUPERVISOR_LAUNCH_H
#define SUPERVISOR_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "notify.h"

/**
 * struct launch - the started program
 * @pid: its process id
 * @listener: the notify listener fd (owned by the caller)
 * @wait_killable: the filter has WAIT_KILLABLE_RECV
 * @traced: PTRACE_SEIZE succeeded (process-tree tracking is on)
 * @seize_errno: why it did not
 * @exec_err_fd: read end of a close-on-exec pipe: EOF once PROGRAM is
 *	executing, or an int errno when exec failed (the child then exits 127/126)
 */
struct launch {
	pid_t pid;
	int listener;
	bool wait_killable;
	bool traced;
	int seize_errno;
	int exec_err_fd;
};

/**
 * launch_program() - start @argv under @filter
 * @sigmask: the signal mask PROGRAM gets (the caller's original one)
 * @require_ptrace: kill the child and fail when it cannot be seized
 * Return: 0, or a negative errno with nothing left running.
 */
int launch_program(char **argv, const struct notify_filter *filter, const sigset_t *sigmask,
		   bool require_ptrace, struct launch *out);

/** launch_ptrace_options() - the PTRACE_O_* set used on every tracee. */
long launch_ptrace_options(void);

#endif /* SUPERVISOR_LAUNCH_H */
