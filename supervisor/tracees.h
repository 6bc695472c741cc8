/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced process tree: threads (by TID), processes (by TGID) and the
 * address spaces they use. An address space owns the registry, as a kernel
 * mm owns its SFrame tree: threads share it, a vfork child (or a CLONE_VM
 * child) shares its parent's until it execs, a fork child gets a copy.
 */
#ifndef SUPERVISOR_TRACEES_H
#define SUPERVISOR_TRACEES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/mappings.h"
#include "emu/registry.h"
#include "emu/rules.h"

/**
 * struct addr_space - one mm: the registry and the cached mappings
 * @refs: processes using it (more than one while a vfork child shares it)
 * @maps_valid: @maps was read since the last exec
 * @maps_ns: when @maps was read (CLOCK_MONOTONIC); see sv_refresh_maps()
 */
struct addr_space {
	unsigned int refs;
	struct emu_registry *registry;
	struct emu_mappings maps;
	bool maps_valid;
	uint64_t maps_ns;
};

/** struct proc_stats - what one process did, for the exit summary (counters only: they add up) */
struct proc_stats {
	unsigned long accepted;
	unsigned long rejected;
	unsigned long rejected_by_rule[EMU_R_COUNT];
	unsigned long unregistered;
	unsigned long interrupted;	/* answer not delivered: the caller was gone */
	unsigned long exec_registered;
	unsigned long exec_failed;
	unsigned long cleared_at_exec;
	unsigned long stale;
	unsigned long left_at_exit;
	unsigned long kernel_refusals[32];	/* per EMU_KR_* bit, accepted anyway */
};

struct proc_unwinders;

/**
 * struct proc - one traced process
 * @tgid: its process id; @parent: the TGID that created it (0 for the first)
 * @as: its address space (a reference)
 * @nthreads: live threads; the process has exited when it drops to 0
 * @exe: the program it runs (/proc/PID/exe at the last exec), for reports
 * @unwinders: libunwind and elfutils state for its samples (see
 *	proc_unwinders.h), created at the first sample; NULL before
 * @next: all processes ever traced, newest first (kept for the summary)
 */
struct proc {
	pid_t tgid;
	pid_t parent;
	unsigned long long start_time;	/* /proc/PID/stat starttime: tells reused pids apart */
	struct addr_space *as;
	unsigned int nthreads;
	bool exited;
	char exe[256];
	struct proc_stats stats;
	struct proc_unwinders *unwinders;
	struct proc *next;
};

/**
 * struct thread_sampling - how a thread is sampled (see sample_trigger.h)
 * @perf_fd: its CPU-clock perf event that sends it SIGPROF, or -1
 * @perf_count: the event's count (ns of CPU time) at the last sample
 * @sent_ns: when the supervisor last sent it SIGPROF (CLOCK_MONOTONIC), 0
 *	when no signal of ours is pending
 * @on: the thread is sampled (from the program's execve on)
 */
struct thread_sampling {
	bool on;
	int perf_fd;
	uint64_t perf_count;
	uint64_t sent_ns;
};

/**
 * struct thread - one traced thread
 * @attached: its first ptrace stop was seen (it may be resumed)
 * @proc: NULL until the event that created it told us its process
 */
struct thread {
	pid_t tid;
	struct proc *proc;
	bool attached;
	bool group_stopped;
	struct thread_sampling smp;
};

/* Exited processes kept with their own summary row; later ones are added up. */
#define TRACEES_MAX_EXITED 1000

/**
 * struct tracees - the whole tree; owns every object in it
 * @folded, @nfolded: statistics of exited processes beyond TRACEES_MAX_EXITED
 */
struct tracees {
	void *threads;		/* tsearch tree of struct thread, by tid */
	struct proc *procs;
	unsigned int live_threads;
	unsigned int exited;
	size_t max_registrations;
	struct proc_stats folded;
	unsigned long nfolded;
};

void tracees_init(struct tracees *t, size_t max_registrations);
void tracees_free(struct tracees *t);

/** tracees_thread() - the thread @tid, or NULL. */
struct thread *tracees_thread(const struct tracees *t, pid_t tid);

/** tracees_add_thread() - a thread record for @tid (found or new); NULL on ENOMEM. */
struct thread *tracees_add_thread(struct tracees *t, pid_t tid);

/**
 * tracees_remove_thread() - forget @tid
 * Return: its process when that was the last thread (the caller reports the
 * exit, then calls proc_exit()), else NULL.
 */
struct proc *tracees_remove_thread(struct tracees *t, pid_t tid);

/** tracees_proc() - the live process @tgid, or NULL. */
struct proc *tracees_proc(const struct tracees *t, pid_t tgid);

/**
 * tracees_new_proc() - a process using @as (a new reference is taken), or a
 * fresh empty address space when @as is NULL; NULL on ENOMEM
 */
struct proc *tracees_new_proc(struct tracees *t, pid_t tgid, pid_t parent,
			      struct addr_space *as);

/** proc_set_thread() - make @th a thread of @p. */
void proc_set_thread(struct proc *p, struct thread *th);

/** addr_space_new() - an empty address space; NULL on ENOMEM. */
struct addr_space *addr_space_new(size_t max_registrations);

/** addr_space_copy() - a fork child's copy of @as; NULL on ENOMEM. */
struct addr_space *addr_space_copy(const struct addr_space *as);

/** addr_space_put() - drop a reference; the last one frees the registry. */
void addr_space_put(struct addr_space *as);

/**
 * proc_exec() - @p exec'd: a fresh, empty address space of its own
 * Return: registrations dropped by the exec (0 when the old one is still
 * shared, as by a vfork parent), or -ENOMEM.
 */
long proc_exec(struct tracees *t, struct proc *p);

/**
 * proc_exit() - @p has no threads left: drop its address space
 * Return: registrations left in it when this was its last user, else 0.
 */
unsigned long proc_exit(struct proc *p);

/**
 * tracees_retire() - @p has exited (proc_exit() done): keep it for the summary,
 * or, beyond TRACEES_MAX_EXITED, add its statistics to @t->folded and free it
 */
void tracees_retire(struct tracees *t, struct proc *p);

#endif /* SUPERVISOR_TRACEES_H */
