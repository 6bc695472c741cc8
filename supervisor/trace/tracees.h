/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced process tree: threads (by TID), processes (by TGID) and the
 * address spaces they use. An address space owns the registry, as a kernel
 * mm owns its SFrame tree: threads share it, a vfork child (or a CLONE_VM
 * child) shares its parent's until it execs, a fork child gets a copy.
 */
#ifndef SUPERVISOR_TRACE_TRACEES_H
#define SUPERVISOR_TRACE_TRACEES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/mappings.h"
#include "emu/registry.h"
#include "emu/rules.h"
#include "remote_mem.h"

#define ADDR_SPACE_REFUSED 64	/* refusal notes kept per address space */

/**
 * struct addr_space - one mm: the registry and the cached mappings
 * @refs: processes using it (more than one while a vfork child shares it)
 * @maps_valid: @maps was read since the last exec
 * @maps_ns: when @maps was read (CLOCK_MONOTONIC); see maps_refresh()
 * @maps_hinted: a call said the mappings changed since @maps was read
 * @refused: the last ADDR_SPACE_REFUSED text ranges whose unwind data was
 *	refused or dropped, and why (addr_space_note_refusal()), so that a
 *	report can say why a walk found none there
 * @fds: its /proc/PID/pagemap and maps, opened on first use: which pages a
 *	read may wait on (remote_mem.h), and single mappings (maps_refresh_ranges())
 */
struct addr_space {
	unsigned int refs;
	struct emu_registry *registry;
	struct emu_mappings maps;
	bool maps_valid;
	bool maps_hinted;
	uint64_t maps_ns;
	struct remote_mem_fds fds;
	struct addr_space_refusal {
		uint64_t start;
		uint64_t end;
		const char *why;	/* static: a rule's name, "stale" */
	} refused[ADDR_SPACE_REFUSED];
	unsigned int nrefused;
};

/**
 * addr_space_note_refusal() - the unwind data for text [@start, @end) was
 * refused (@why: the rule's name) or dropped ("stale"); the oldest note goes
 * when ADDR_SPACE_REFUSED are kept
 */
void addr_space_note_refusal(struct addr_space *as, uint64_t start, uint64_t end,
			     const char *why);

/** addr_space_refusal_at() - why the newest note holding @ip was made, or NULL. */
const char *addr_space_refusal_at(const struct addr_space *as, uint64_t ip);

/** struct proc_stats - what one process did, for the exit summary (counters only: they add up) */
struct proc_stats {
	unsigned long accepted;
	unsigned long rejected;
	unsigned long rejected_by_rule[EMU_R_COUNT];
	unsigned long again_after_exec;	/* EEXIST for exactly the text exec had registered */
	unsigned long unregistered;
	unsigned long interrupted;	/* answer not delivered: the caller was gone */
	unsigned long restarted;	/* calls a signal interrupted before the answer: restarts */
	unsigned long exec_registered;
	unsigned long exec_failed;
	unsigned long cleared_at_exec;
	unsigned long stale;
	unsigned long unwind_removed;	/* a kernel profile's lookup found the data broken */
	unsigned long synthesized;	/* text ranges given SFrame made from .eh_frame */
	unsigned long left_at_exit;
	unsigned long killed;		/* ended by a signal */
	unsigned long sframe_held_peak;	/* most bytes of SFrame held for it at once */
	unsigned long file_blocks_read;	/* file-backed SFrame blocks read (decompressed) */
	unsigned long file_block_hits;	/* ... found resident */
	unsigned long file_evictions;	/* ... given back under the budget */
	unsigned long file_resident_peak;	/* most bytes of them resident at once */
	unsigned long kernel_refused;	/* accepted registrations with any EMU_KR_* bit */
	unsigned long kernel_refusals[32];	/* per EMU_KR_* bit, accepted anyway */
};

/** proc_stats_add() - add @from's counters to @to's. */
void proc_stats_add(struct proc_stats *to, const struct proc_stats *from);

/*
 * What other parts keep per process or per thread (sampling state, unwinder
 * state, perf events): the tree holds it in a slot by key, without knowing
 * its type, and frees it with the process or thread by the function given
 * with the key (tracees_proc_key(), tracees_thread_key()).
 */
#define TRACEES_KEYS 4
typedef void (*tracees_free_fn)(void *data);

/**
 * struct proc - one traced process
 * @tgid: its process id; @parent: the TGID that created it (0 for the first)
 * @as: its address space (a reference)
 * @nthreads: live threads; the process has exited when it drops to 0
 * @exe: the program it runs (/proc/PID/exe at the last exec), for reports
 * @slot: what other parts keep for it, by key; kept after its exit, as long
 *	as its summary row is (see tracees_retire())
 * @next: all processes ever traced, newest first (kept for the summary)
 */
struct proc {
	pid_t tgid;
	pid_t parent;
	unsigned long long start_time;	/* /proc/PID/stat starttime: tells reused pids apart */
	struct addr_space *as;
	unsigned int nthreads;
	bool exited;
	bool exiting;		/* its last thread passed its exit event: its memory is going */
	bool ended;		/* @wait_status is its leader's last, from waitpid() */
	int wait_status;
	char exe[256];
	struct proc_stats stats;
	void *slot[TRACEES_KEYS];
	struct proc *next;
};

/**
 * struct thread - one traced thread
 * @attached: its first ptrace stop was seen (it may be resumed)
 * @proc: NULL until the event that created it told us its process
 * @slot: what other parts keep for it, by key
 */
struct thread {
	pid_t tid;
	struct proc *proc;
	bool attached;
	bool group_stopped;
	void *slot[TRACEES_KEYS];
};

/* Exited processes kept with their own summary row; later ones are added up. */
#define TRACEES_MAX_EXITED 1000

/**
 * struct tracees - the whole tree; owns every object in it
 * @max_registrations: each new registry's limit
 * @inclusive_end: each new registry's ranges end inclusive (the v13 profile)
 * @folded, @nfolded: statistics of exited processes beyond TRACEES_MAX_EXITED
 * @proc_free, @thread_free: how each key's slots are freed (NULL: key unused)
 */
struct tracees {
	void *threads;		/* tsearch tree of struct thread, by tid */
	struct proc *procs;
	unsigned int live_threads;
	unsigned int exited;
	size_t max_registrations;
	bool inclusive_end;
	struct proc_stats folded;
	unsigned long nfolded;
	tracees_free_fn proc_free[TRACEES_KEYS];
	tracees_free_fn thread_free[TRACEES_KEYS];
};

void tracees_init(struct tracees *t, size_t max_registrations);
void tracees_free(struct tracees *t);

/**
 * tracees_proc_key() - a slot in every process for another part's state,
 *	freed by @free (never NULL) with the process
 * Return: the key (an index into struct proc's @slot), or -ENOSPC.
 */
int tracees_proc_key(struct tracees *t, tracees_free_fn free);

/** tracees_thread_key() - the same for threads. */
int tracees_thread_key(struct tracees *t, tracees_free_fn free);

/** tracees_proc_clear() - free what process slot @key holds, and empty it. */
void tracees_proc_clear(struct tracees *t, struct proc *p, int key);

/**
 * tracees_swap_slots() - exchange what @a and @b hold (a non-leader thread
 * that exec'd carries on as the leader's TID: its state goes with it)
 */
void tracees_swap_slots(struct thread *a, struct thread *b);

/**
 * tracees_exited_holding() - how many exited processes still hold state in a
 * slot (what other parts should have freed at the exit: 0 when they did)
 */
unsigned int tracees_exited_holding(const struct tracees *t);

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

/** addr_space_new() - an empty address space with @t's registry settings; NULL on ENOMEM. */
struct addr_space *addr_space_new(const struct tracees *t);

/**
 * addr_space_copy() - a fork child's copy of @as: its registrations and its
 * cached mappings (not its open /proc files); NULL on ENOMEM
 */
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

#endif /* SUPERVISOR_TRACE_TRACEES_H */
