/* SPDX-License-Identifier: GPL-2.0 */
/* codectl-run's state: options, the listener, the process tree, the log. */
#ifndef SUPERVISOR_SUPERVISOR_H
#define SUPERVISOR_SUPERVISOR_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "emu/codectl_call.h"
#include "notify.h"
#include "options.h"
#include "sampler.h"
#include "tracees.h"

/**
 * struct supervisor - everything one run owns (created in main, no globals)
 * @child: the program started; @child_status: its wait status once reaped
 * @traced: process-tree tracking (ptrace) is on
 * @exec_err_fd: see struct launch; -1 once closed
 * @loader_module: path of libcodectl-audit.so given to the program, or ""
 */
struct supervisor {
	struct run_opts opts;
	struct emu_policy policy;
	FILE *log;
	struct notifier notifier;
	int epoll_fd;
	int signal_fd;
	int exec_err_fd;
	pid_t child;
	int child_status;
	bool child_reaped;
	struct sigaction orig_sigpipe;
	char loader_module[4096];
	bool traced;
	bool start_failed;
	bool listener_hup;
	struct tracees tree;
	struct sampler *sampler;
	bool check_failed;
};

/** sv_log() - a line on the log, "codectl-run: " first. */
void sv_log(struct supervisor *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** sv_note() - like sv_log(), but not with -q. */
void sv_note(struct supervisor *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * sv_proc_of() - the process that thread @tid belongs to
 * Without process-tree tracking, processes are created on first sight
 * (from /proc/TID/status). Return: NULL if the thread is unknown and gone.
 */
struct proc *sv_proc_of(struct supervisor *s, pid_t tid);

/*
 * Cached mappings older than this are re-read before a call is checked
 * (reading /proc/PID/maps costs ~1 us per mapping, so not at every call).
 */
#define SV_MAPS_MAX_AGE_NS (100 * 1000 * 1000ull)

/* SFrame bytes all traced processes together may hold (each also has its own budget). */
#define SV_SFRAME_GLOBAL_MAX (4096ull << 20)

/** sv_now_ns() - CLOCK_MONOTONIC in nanoseconds. */
uint64_t sv_now_ns(void);

/** sv_refresh_maps() - re-read @p's mappings (from @tid) and drop stale registrations. */
int sv_refresh_maps(struct supervisor *s, struct proc *p, pid_t tid);

/**
 * sv_note_kernel_refusals() - count the kernel-patch rules an accepted
 * registration breaks; the first of each kind in a process is noted in the log
 */
void sv_note_kernel_refusals(struct supervisor *s, struct proc *p, const struct emu_verdict *v);

/** sv_tgid_of() - the process a thread belongs to (/proc/TID/status); 0 when it is gone. */
pid_t sv_tgid_of(pid_t tid);

/** sv_ppid_of() - the parent process of a task (/proc/TID/status); 0 when it is gone. */
pid_t sv_ppid_of(pid_t tid);

/** sv_start_time() - field 22 of /proc/PID/stat (clock ticks); 0 when the process is gone. */
unsigned long long sv_start_time(pid_t pid);

/** sv_read_exe() - set @p->exe from /proc/PID/exe (empty when unreadable). */
void sv_read_exe(struct proc *p);

/** sv_proc_exited() - @p has no threads left: count what it left and drop it. */
void sv_proc_exited(struct supervisor *s, struct proc *p);

#endif /* SUPERVISOR_SUPERVISOR_H */
