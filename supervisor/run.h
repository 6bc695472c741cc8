/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run of codectl-run: its parts put together. Only the top (main.c,
 * run.c) sees this; each part gets what it needs of it (see docs/HACKING.md).
 */
#ifndef SUPERVISOR_RUN_H
#define SUPERVISOR_RUN_H

#include <signal.h>
#include <stdbool.h>

#include "supervisor/calls/calls.h"
#include "supervisor/core/log.h"
#include "supervisor/core/options.h"
#include "supervisor/sample/sampler.h"
#include "supervisor/trace/trace.h"
#include "supervisor/verify/session.h"

/**
 * struct run - everything one run owns (made in main, no globals)
 * @trace: the process tree and its lifecycle
 * @calls: the codectl calls' answers
 * @sampler: sampling, or NULL (--freq 0, or no ptrace)
 * @verify: --verify's checks of the registered sections, or NULL
 * @exec_err_fd: see struct launch; -1 once closed
 * @loader_module: path of libcodectl-audit.so given to the program, or ""
 * @loader_env: the module's settings (--loader-abi), as NAME=VALUE
 * @sframe_path_env: CODECTL_SFRAME_PATH=DIRS (--sframe-path)
 * @listener_hup: the seccomp listener hung up (every filtered task is gone)
 * @exec_failed: PROGRAM could not be executed (its error is the one line
 *	printed: no summary, no report, no files)
 */
struct run {
	struct run_opts opts;
	struct log log;
	struct trace trace;
	struct calls calls;
	struct sampler *sampler;
	struct verify_session *verify;
	int epoll_fd;
	int signal_fd;
	int exec_err_fd;
	struct sigaction orig_sigpipe;
	char loader_module[4096];
	char loader_env[3][64];
	char sframe_path_env[4096 + 32];
	bool start_failed;
	bool exec_failed;
	bool listener_hup;
	bool check_failed;
	bool reap_pending;	/* SIGCHLD came: wait statuses to collect */
};

/* Wait statuses collected per turn of the event loop, between the calls' answers. */
#define REAP_BATCH 32

/** run_hooks() - what the process tree's events mean to the other parts. */
struct trace_hooks run_hooks(struct run *r);

#endif /* SUPERVISOR_RUN_H */
