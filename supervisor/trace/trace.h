/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced tree's lifecycle: which process a thread belongs to, what
 * happens at fork, vfork, clone, exec and exit (ptrace events, events.c),
 * and the address spaces' cached mappings (maps.c). Other parts are told of
 * what happened through hooks (struct trace_hooks), never called from here.
 */
#ifndef SUPERVISOR_TRACE_TRACE_H
#define SUPERVISOR_TRACE_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/core/log.h"
#include "tracees.h"

/**
 * struct trace_hooks - what the parts above are told (each may be NULL)
 * @thread_started: @th had its first stop (it is resumed after the hook)
 * @signal_stop: @th is in a signal-delivery-stop for @sig; return true when
 *	the hook took over (it resumes the thread), false to pass @sig on
 * @interrupted: @th is in a stop PTRACE_INTERRUPT asked for; return true
 *	when the hook took it over (it resumes the thread)
 * @other_stop: @th is in any other stop (an event, a signal-delivery-stop,
 *	a group-stop), told before the stop is handled: an interrupt asked
 *	for before it will not come (the kernel drops it at any trap)
 * @before_exec: @p is about to exec: its registry still holds what it had
 * @exec: @p exec'd (registrations dropped, mappings read; @th is its only
 *	thread, by now the TGID)
 * @thread_exiting: @th is about to exit (its /proc entry still there)
 * @exit_event: @p's leader is about to exit; its memory is still readable
 * @exited: @p has no thread left (before its address space goes)
 * @mappings_changed: @p's mappings changed since they were last read
 * @registrations_changing: a call of @p is about to be answered, and may
 *	change its registrations (told by calls/, which knows of calls);
 *	@removing: the call is a removal
 */
struct trace_hooks {
	void *ctx;
	void (*thread_started)(void *ctx, struct thread *th);
	bool (*signal_stop)(void *ctx, struct thread *th, int sig);
	bool (*interrupted)(void *ctx, struct thread *th);
	void (*other_stop)(void *ctx, struct thread *th);
	void (*before_exec)(void *ctx, struct proc *p);
	void (*exec)(void *ctx, struct proc *p, struct thread *th);
	void (*thread_exiting)(void *ctx, struct thread *th);
	void (*exit_event)(void *ctx, struct proc *p);
	void (*exited)(void *ctx, struct proc *p);
	void (*mappings_changed)(void *ctx, struct proc *p);
	void (*registrations_changing)(void *ctx, struct proc *p, bool removing);
};

#define TRACE_MAX_TRAPPED 6

/**
 * struct trace - the traced tree and how it is followed
 * @traced: ptrace is on (process-tree tracking); without it processes are
 *	found by pid and start time at each call (trace_proc_of())
 * @fork_copies: a fork child starts with a copy of its parent's registrations
 *	(else empty, as the v13 kernel series does)
 * @trace_ends: --trace: a line for every process's end, as strace writes
 *	them ("+++ exited with 0 +++"); without it only ends by a signal are
 *	logged
 * @trapped_nr: the system call numbers the seccomp filter traps (0: none);
 *	@trapped_prctl: the prctl options it traps (0: none). A signal
 *	interrupting such a call before its answer never makes it fail with
 *	EINTR: it restarts after the handler, whatever SA_RESTART says
 * @child: the program started; @child_status: its wait status once reaped
 * @maps_reads: how the cached mappings were brought up to date: @full
 *	re-reads of a /proc/PID/maps, @ranges ranges the kernel answered
 *	through PROCMAP_QUERY (maps_refresh_ranges())
 */
struct trace {
	struct tracees tree;
	struct log *log;
	bool traced;
	bool fork_copies;
	bool trace_ends;
	long trapped_nr[TRACE_MAX_TRAPPED];
	int trapped_prctl[2];
	pid_t child;
	int child_status;
	bool child_reaped;
	struct trace_hooks hooks;
	struct maps_reads {
		unsigned long full;
		unsigned long ranges;
	} maps_reads;
};

/**
 * trace_proc_of() - the process that thread @tid belongs to
 * Without process-tree tracking, processes are created on first sight
 * (from /proc/TID/status). Return: NULL if the thread is unknown and gone.
 */
struct proc *trace_proc_of(struct trace *t, pid_t tid);

/** trace_proc_exited() - @p has no threads left: tell the hooks, count what it left, drop it. */
void trace_proc_exited(struct trace *t, struct proc *p);

/**
 * trace_reap() - collect pending wait statuses and act on them, at most @max
 * (so that the caller can answer waiting calls in between); never blocks
 * Return: true when @max were collected and more may wait (call it again:
 * no new SIGCHLD announces them).
 */
bool trace_reap(struct trace *t, unsigned int max);

#endif /* SUPERVISOR_TRACE_TRACE_H */
