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

#include "supervisor/calls/notify.h"

/**
 * struct launch - the started program
 * @pid: its process id
 * @listener: the notify listener fd (owned by the caller)
 * @wait_killable: the filter has WAIT_KILLABLE_RECV
 * @traced: PTRACE_SEIZE succeeded (process-tree tracking is on)
 * @seize_errno: why it did not
 * @exec_err_fd: read end of a close-on-exec pipe: EOF once PROGRAM is
 *	executing, or a struct launch_error when the child failed (it then exits
 *	127/126 for exec, LAUNCH_SETUP_STATUS for the filter)
 */
struct launch {
	pid_t pid;
	int listener;
	bool wait_killable;
	bool traced;
	int seize_errno;
	int exec_err_fd;
};

/* Why the child did not become PROGRAM. */
struct launch_error {
	int stage;		/* LAUNCH_STAGE_* */
	int err;		/* errno */
};

#define LAUNCH_STAGE_SETUP 0	/* no-new-privs, filter or listener hand-over */
#define LAUNCH_STAGE_EXEC 1	/* execvp */
#define LAUNCH_SETUP_STATUS 125	/* the child's exit status after a setup failure */

/**
 * launch_program() - start @argv under @filter
 * @sigmask: the signal mask PROGRAM gets (the caller's original one)
 * @sigpipe: the SIGPIPE disposition PROGRAM gets (the caller's original one)
 * @audit: an rtld-audit module to add to PROGRAM's LD_AUDIT, or NULL
 * @audit_env: with @audit, NULL-terminated NAME=VALUE settings for it put in
 *	PROGRAM's environment (may be NULL)
 * @require_ptrace: kill the child and fail when it cannot be seized
 * @before_exec: called with @ctx and the child's pid once it is seized,
 *	before it may go on to its execve (may be NULL)
 * Return: 0, or a negative errno with nothing left running.
 */
int launch_program(char **argv, const struct notify_filter *filter, const sigset_t *sigmask,
		   const struct sigaction *sigpipe, const char *audit,
		   const char *const *audit_env, bool require_ptrace,
		   void (*before_exec)(void *ctx, pid_t pid), void *ctx, struct launch *out);

/** launch_ptrace_options() - the PTRACE_O_* set used on every tracee. */
long launch_ptrace_options(void);

#endif /* SUPERVISOR_LAUNCH_H */
