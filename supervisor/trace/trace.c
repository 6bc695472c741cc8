// SPDX-License-Identifier: GPL-2.0
/* Which process a thread belongs to, with or without ptrace; a process's end. */
#include "supervisor/core/procfs.h"
#include "trace.h"

/* Without ptrace no exit is seen: drop the processes that are gone (or whose pid was reused). */
static void sweep_untraced(struct trace *t)
{
	struct proc *p, *next;

	for (p = t->tree.procs; p; p = next) {
		next = p->next;		/* trace_proc_exited() may free p */
		if (!p->exited && procfs_start_time(p->tgid) != p->start_time)
			trace_proc_exited(t, p);
	}
}

/*
 * Without ptrace: a process is known by its pid and start time, found from the
 * calling thread at each call, and starts with an empty registry.
 */
static struct proc *untraced_proc_of(struct trace *t, pid_t tid)
{
	pid_t tgid = procfs_tgid_of(tid);
	unsigned long long start = tgid ? procfs_start_time(tgid) : 0;
	struct proc *p;

	if (!start)
		return NULL;
	p = tracees_proc(&t->tree, tgid);
	if (p && p->start_time == start)
		return p;
	sweep_untraced(t);
	p = tracees_new_proc(&t->tree, tgid, 0, NULL);
	if (p) {
		p->start_time = start;
		procfs_exe(p->tgid, p->exe, sizeof(p->exe));
	}
	return p;
}

struct proc *trace_proc_of(struct trace *t, pid_t tid)
{
	struct thread *th;

	if (!t->traced)
		return untraced_proc_of(t, tid);
	th = tracees_thread(&t->tree, tid);
	return th && th->proc && th->proc->as ? th->proc : NULL;
}

void trace_proc_exited(struct trace *t, struct proc *p)
{
	if (t->hooks.exited)
		t->hooks.exited(t->hooks.ctx, p);
	p->stats.left_at_exit += proc_exit(p);
	tracees_retire(&t->tree, p);
}
