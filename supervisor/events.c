// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace lifecycle: fork copies (--strict: empty), vfork and CLONE_VM share
 * until exec, threads share, exec clears and re-registers, exit frees. Every
 * ptrace request may fail with ESRCH when the task is gone: that is not an
 * error. A new task's first stop may come before its creator's event: such a
 * task stays stopped until the event says which process it belongs to.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "events.h"
#include "exec_sframe.h"

static void resume(pid_t tid, int sig)
{
	ptrace(PTRACE_CONT, tid, 0, (long)sig);
}

/*
 * Does @child use @parent's mm (vfork, CLONE_VM) or a copy (fork)? kcmp(2)
 * tells for every kind of event; without it, trust the event.
 */
static bool shares_mm(pid_t parent, pid_t child, int event)
{
	long r = syscall(SYS_kcmp, parent, child, KCMP_VM, 0, 0);

	if (r >= 0)
		return r == 0;
	return event == PTRACE_EVENT_VFORK;
}

static struct proc *new_process(struct supervisor *s, struct proc *parent, pid_t child, bool share)
{
	struct addr_space *as = NULL;
	struct proc *p;

	if (share) {
		as = parent->as;
		as->refs++;
	} else if (!s->opts.strict) {
		as = addr_space_copy(parent->as);
		if (!as)
			return NULL;
	}
	p = tracees_new_proc(&s->tree, child, parent->tgid, as);
	addr_space_put(as);	/* tracees_new_proc took its own reference */
	if (p) {
		p->start_time = sv_start_time(child);
		snprintf(p->exe, sizeof(p->exe), "%s", parent->exe);
	}
	return p;
}

/* A new process: its creator's (or, not known yet, its /proc parent's) address space. */
static struct proc *place_process(struct supervisor *s, pid_t pid, pid_t creator, int event)
{
	pid_t parent_pid = creator ? sv_tgid_of(creator) : sv_ppid_of(pid);
	struct proc *parent = parent_pid ? tracees_proc(&s->tree, parent_pid) : NULL, *p;

	if (parent)
		p = new_process(s, parent, pid, shares_mm(parent->tgid, pid, event));
	else
		p = tracees_new_proc(&s->tree, pid, parent_pid, NULL);
	if (!p)
		sv_log(s, "pid %d: out of memory tracking a new process", (int)pid);
	return p;
}

/* The process of thread group @tgid, placing its leader first if it is new too. */
static struct proc *process_of_group(struct supervisor *s, pid_t tgid)
{
	struct proc *p = tracees_proc(&s->tree, tgid);
	struct thread *leader;

	if (p)
		return p;
	leader = tracees_add_thread(&s->tree, tgid);
	if (!leader)
		return NULL;
	p = place_process(s, tgid, 0, 0);
	if (p)
		proc_set_thread(p, leader);
	return p;
}

/*
 * Put a new task in the tree as soon as either its creator's event or its own
 * first stop is seen, whichever comes first: the creator may be killed before
 * its event is reported. @creator: the announcing task, or 0.
 */
static void place_task(struct supervisor *s, struct thread *th, pid_t creator, int event)
{
	pid_t tgid = sv_tgid_of(th->tid);
	struct proc *p;

	if (!tgid || th->proc)
		return;
	if (tgid == th->tid)
		p = place_process(s, th->tid, creator, event);
	else
		p = process_of_group(s, tgid);
	if (p)
		proc_set_thread(p, th);
}

/* PTRACE_EVENT_FORK/VFORK/CLONE: place the new task (if its first stop did not), resume. */
static void on_new_task(struct supervisor *s, pid_t tid, int event)
{
	struct thread *child;
	unsigned long msg = 0;

	if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg))
		goto out;
	child = tracees_add_thread(&s->tree, (pid_t)msg);
	if (!child)
		goto out;
	place_task(s, child, tid, event);
	if (child->attached)
		resume(child->tid, 0);	/* its first stop came before this event */
out:
	resume(tid, 0);
}

/*
 * A non-leader thread exec'd: it carries on as @th (the TGID) and the old
 * leader is gone. Its sampling state (its perf event) is the one to keep.
 */
static void exec_took_over(struct supervisor *s, struct thread *th, pid_t former)
{
	struct thread *execing = tracees_thread(&s->tree, former);
	struct thread_sampling smp;

	if (execing) {
		smp = th->smp;
		th->smp = execing->smp;
		execing->smp = smp;	/* the dead leader's, closed with it */
	}
	tracees_remove_thread(&s->tree, former);
}

/* PTRACE_EVENT_EXEC: @tid is now the TGID; the old TID is in the event message. */
static void on_exec(struct supervisor *s, pid_t tid)
{
	struct thread *th = tracees_thread(&s->tree, tid);
	struct proc *p = th ? th->proc : NULL;
	unsigned long former = 0;
	long dropped;

	if (!p)
		goto out;
	sampler_flush_proc(s, p->tgid);	/* samples taken before the exec need the old registry */
	if (!ptrace(PTRACE_GETEVENTMSG, tid, 0, &former) && (pid_t)former != tid)
		exec_took_over(s, th, (pid_t)former);
	dropped = proc_exec(&s->tree, p);
	if (dropped < 0) {
		sv_log(s, "pid %d: out of memory at exec", (int)tid);
		goto out;
	}
	p->stats.cleared_at_exec += (unsigned long)dropped;
	sv_read_exe(p);
	sampler_thread_exec(s, th);
	sv_refresh_maps(s, p, tid);
	if (s->opts.exec_registration)
		sv_exec_register(s, p, tid);
out:
	resume(tid, 0);
}

/*
 * PTRACE_EVENT_EXIT of the leader: the mm still exists. Walk the process's
 * waiting samples now, while its memory (JIT tables, stacks past the copy)
 * is readable, then find stale registrations.
 */
static void on_exit_event(struct supervisor *s, pid_t tid)
{
	struct thread *th = tracees_thread(&s->tree, tid);

	if (th && th->proc && th->proc->tgid == tid && th->proc->as) {
		sampler_flush_proc(s, tid);
		sv_refresh_maps(s, th->proc, tid);
	}
	resume(tid, 0);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* PTRACE_EVENT_STOP: a new task's first stop, a group-stop, or an interrupt. */
static void on_event_stop(struct supervisor *s, pid_t tid, int sig)
{
	struct thread *th = tracees_add_thread(&s->tree, tid);

	if (th && !th->attached) {
		th->attached = true;
		place_task(s, th, 0, 0);
		sampler_thread_started(s, th);
		resume(tid, 0);
		return;
	}
	if (is_stop_signal(sig)) {
		/* group-stop: stay stopped, but let SIGCONT through (as strace does) */
		if (th)
			th->group_stopped = true;
		ptrace(PTRACE_LISTEN, tid, 0, 0);
		return;
	}
	if (th)
		th->group_stopped = false;
	resume(tid, 0);
}

static void on_stopped(struct supervisor *s, pid_t tid, int status)
{
	int event = status >> 16, sig = WSTOPSIG(status);

	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_new_task(s, tid, event);
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(s, tid);
		break;
	case PTRACE_EVENT_EXIT:
		on_exit_event(s, tid);
		break;
	case PTRACE_EVENT_STOP:
		on_event_stop(s, tid, sig);
		break;
	default:
		if (sig == SIGPROF && s->sampler && !event)
			sampler_on_sigprof(s, tid);
		else
			resume(tid, sig);	/* a signal for the program: pass it on unchanged */
	}
}

static void on_gone(struct supervisor *s, pid_t tid, int status)
{
	struct proc *p;

	if (tid == s->child) {
		s->child_status = status;
		s->child_reaped = true;
	}
	p = tracees_remove_thread(&s->tree, tid);
	if (p)
		sv_proc_exited(s, p);
}

void sv_reap(struct supervisor *s)
{
	int status;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		if (WIFSTOPPED(status))
			on_stopped(s, tid, status);
		else
			on_gone(s, tid, status);
	}
}
