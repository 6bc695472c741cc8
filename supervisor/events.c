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

/* Do two tasks share one mm (CLONE_VM)? kcmp(2); when unavailable, assume not. */
static bool same_vm(pid_t a, pid_t b)
{
	return syscall(SYS_kcmp, a, b, KCMP_VM, 0, 0) == 0;
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
	if (p)
		snprintf(p->exe, sizeof(p->exe), "%s", parent->exe);
	return p;
}

/* PTRACE_EVENT_FORK/VFORK/CLONE: place the new task, then let both run. */
static void on_new_task(struct supervisor *s, pid_t tid, int event)
{
	struct thread *th = tracees_thread(&s->tree, tid), *child;
	struct proc *parent = th ? th->proc : NULL, *p;
	unsigned long msg = 0;

	if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) || !parent)
		goto out;
	child = tracees_add_thread(&s->tree, (pid_t)msg);
	if (!child)
		goto out;
	if (event == PTRACE_EVENT_CLONE && sv_tgid_of(child->tid) == parent->tgid) {
		p = parent;
	} else {
		bool share = event == PTRACE_EVENT_VFORK ||
			     (event == PTRACE_EVENT_CLONE && same_vm(tid, child->tid));

		p = new_process(s, parent, child->tid, share);
		if (!p)
			sv_log(s, "pid %d: out of memory tracking a new process", (int)child->tid);
	}
	if (p)
		proc_set_thread(p, child);
	if (child->attached)
		resume(child->tid, 0);	/* its first stop came before this event */
out:
	resume(tid, 0);
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
	if (!ptrace(PTRACE_GETEVENTMSG, tid, 0, &former) && (pid_t)former != tid)
		tracees_remove_thread(&s->tree, (pid_t)former);
	dropped = proc_exec(&s->tree, p);
	if (dropped < 0) {
		sv_log(s, "pid %d: out of memory at exec", (int)tid);
		goto out;
	}
	p->stats.cleared_at_exec += (unsigned long)dropped;
	sv_read_exe(p);
	sv_refresh_maps(s, p, tid);
	if (s->opts.exec_registration)
		sv_exec_register(s, p, tid);
out:
	resume(tid, 0);
}

/* PTRACE_EVENT_EXIT of the leader: the mm still exists; find stale registrations. */
static void on_exit_event(struct supervisor *s, pid_t tid)
{
	struct thread *th = tracees_thread(&s->tree, tid);

	if (th && th->proc && th->proc->tgid == tid && th->proc->as)
		sv_refresh_maps(s, th->proc, tid);
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
		if (th->proc)
			resume(tid, 0);
		return;		/* else: resumed when its creator's event arrives */
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
