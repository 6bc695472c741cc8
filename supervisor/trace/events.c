// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace events: a fork child gets a copy of the registrations (or starts
 * empty: @fork_copies), vfork and CLONE_VM share until exec, threads share,
 * exec clears (the exec hook re-registers), exit frees. Every
 * ptrace request may fail with ESRCH when the task is gone: that is not an
 * error. A new task's first stop may come before its creator's event: such a
 * task stays stopped until the event says which process it belongs to. A
 * trapped call a signal interrupted restarts after the handler, whatever
 * SA_RESTART says (restart_trapped()).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "maps.h"
#include "supervisor/core/procfs.h"
#include "trace.h"

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

static struct proc *new_process(struct trace *t, struct proc *parent, pid_t child, bool share)
{
	struct addr_space *as = NULL;
	struct proc *p;

	if (share) {
		as = parent->as;
		as->refs++;
	} else if (t->fork_copies) {
		as = addr_space_copy(parent->as);
		if (!as)
			return NULL;
	}
	p = tracees_new_proc(&t->tree, child, parent->tgid, as);
	addr_space_put(as);	/* tracees_new_proc took its own reference */
	if (p) {
		p->start_time = procfs_start_time(child);
		snprintf(p->exe, sizeof(p->exe), "%s", parent->exe);
	}
	return p;
}

/* A new process: its creator's (or, not known yet, its /proc parent's) address space. */
static struct proc *place_process(struct trace *t, pid_t pid, pid_t creator, int event)
{
	pid_t parent_pid = creator ? procfs_tgid_of(creator) : procfs_ppid_of(pid);
	struct proc *parent = parent_pid ? tracees_proc(&t->tree, parent_pid) : NULL, *p;

	if (parent)
		p = new_process(t, parent, pid, shares_mm(parent->tgid, pid, event));
	else
		p = tracees_new_proc(&t->tree, pid, parent_pid, NULL);
	if (!p)
		log_line(t->log, "pid %d: out of memory tracking a new process", (int)pid);
	return p;
}

/* The process of thread group @tgid, placing its leader first if it is new too. */
static struct proc *process_of_group(struct trace *t, pid_t tgid)
{
	struct proc *p = tracees_proc(&t->tree, tgid);
	struct thread *leader;

	if (p)
		return p;
	leader = tracees_add_thread(&t->tree, tgid);
	if (!leader)
		return NULL;
	p = place_process(t, tgid, 0, 0);
	if (p)
		proc_set_thread(p, leader);
	return p;
}

/*
 * Put a new task in the tree as soon as either its creator's event or its own
 * first stop is seen, whichever comes first: the creator may be killed before
 * its event is reported. @creator: the announcing task, or 0.
 */
static void place_task(struct trace *t, struct thread *th, pid_t creator, int event)
{
	pid_t tgid = procfs_tgid_of(th->tid);
	struct proc *p;

	if (!tgid || th->proc)
		return;
	if (tgid == th->tid)
		p = place_process(t, th->tid, creator, event);
	else
		p = process_of_group(t, tgid);
	if (p)
		proc_set_thread(p, th);
}

/* PTRACE_EVENT_FORK/VFORK/CLONE: place the new task (if its first stop did not), resume. */
static void on_new_task(struct trace *t, pid_t tid, int event)
{
	struct thread *child;
	unsigned long msg = 0;

	if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg))
		goto out;
	child = tracees_add_thread(&t->tree, (pid_t)msg);
	if (!child)
		goto out;
	place_task(t, child, tid, event);
	if (child->attached)
		resume(child->tid, 0);	/* its first stop came before this event */
out:
	resume(tid, 0);
}

/*
 * A non-leader thread exec'd: it carries on as @th (the TGID) and the old
 * leader is gone. What other parts keep for it (its perf event) is the one
 * to keep; the dead leader's goes with the former thread's record.
 */
static void exec_took_over(struct trace *t, struct thread *th, pid_t former)
{
	struct thread *execing = tracees_thread(&t->tree, former);

	if (execing)
		tracees_swap_slots(th, execing);
	tracees_remove_thread(&t->tree, former);
}

/* PTRACE_EVENT_EXEC: @tid is now the TGID; the old TID is in the event message. */
static void on_exec(struct trace *t, pid_t tid)
{
	struct thread *th = tracees_thread(&t->tree, tid);
	struct proc *p = th ? th->proc : NULL;
	unsigned long former = 0;
	long dropped;

	if (!p)
		goto out;
	if (t->hooks.before_exec)
		t->hooks.before_exec(t->hooks.ctx, p);
	if (!ptrace(PTRACE_GETEVENTMSG, tid, 0, &former) && (pid_t)former != tid)
		exec_took_over(t, th, (pid_t)former);
	dropped = proc_exec(&t->tree, p);
	if (dropped < 0) {
		log_line(t->log, "pid %d: out of memory at exec", (int)tid);
		goto out;
	}
	p->stats.cleared_at_exec += (unsigned long)dropped;
	procfs_exe(p->tgid, p->exe, sizeof(p->exe));
	maps_refresh(t, p, tid);
	if (t->hooks.exec)
		t->hooks.exec(t->hooks.ctx, p, th);
out:
	resume(tid, 0);
}

/*
 * PTRACE_EVENT_EXIT of the leader: the mm still exists. Walk the process's
 * waiting samples now, while its memory (JIT tables, stacks past the copy)
 * is readable, then find stale registrations.
 */
static void on_exit_event(struct trace *t, pid_t tid)
{
	struct thread *th = tracees_thread(&t->tree, tid);

	if (th && t->hooks.thread_exiting)
		t->hooks.thread_exiting(t->hooks.ctx, th);
	if (th && th->proc && th->proc->tgid == tid && th->proc->as) {
		if (t->hooks.exit_event)
			t->hooks.exit_event(t->hooks.ctx, th->proc);
		maps_refresh(t, th->proc, tid);
		/* its last thread: the mm goes once it runs on (a leader alone may leave early) */
		th->proc->exiting = th->proc->nthreads <= 1;
	}
	resume(tid, 0);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Any stop but an interrupt's voids an interrupt asked for before it. */
static void other_stop(struct trace *t, pid_t tid)
{
	struct thread *th = tracees_thread(&t->tree, tid);

	if (th && t->hooks.other_stop)
		t->hooks.other_stop(t->hooks.ctx, th);
}

/* PTRACE_EVENT_STOP: a new task's first stop, a group-stop, or an interrupt. */
static void on_event_stop(struct trace *t, pid_t tid, int sig)
{
	struct thread *th = tracees_add_thread(&t->tree, tid);

	if (th && !th->attached) {
		th->attached = true;
		place_task(t, th, 0, 0);
		if (t->hooks.thread_started)
			t->hooks.thread_started(t->hooks.ctx, th);
		resume(tid, 0);
		return;
	}
	if (is_stop_signal(sig)) {
		/* group-stop: stay stopped, but let SIGCONT through (as strace does) */
		other_stop(t, tid);
		if (th)
			th->group_stopped = true;
		ptrace(PTRACE_LISTEN, tid, 0, 0);
		return;
	}
	if (th)
		th->group_stopped = false;
	if (th && t->hooks.interrupted && t->hooks.interrupted(t->hooks.ctx, th))
		return;
	resume(tid, 0);
}

/* The kernel's restart codes (include/linux/errno.h), never seen by programs. */
#define KERNEL_ERESTARTSYS 512
#define KERNEL_ERESTARTNOINTR 513

/* A register of stopped @tid, by its offset in struct user_regs_struct; false when gone. */
static bool peek_reg(pid_t tid, size_t offset, long *val)
{
	errno = 0;
	*val = ptrace(PTRACE_PEEKUSER, tid, (void *)offset, 0);
	return !errno;
}

/* Is system call @nr of @tid (at a stop) one the filter traps? A prctl: by its option. */
static bool is_trapped(const struct trace *t, pid_t tid, long nr)
{
	long option;

	for (int i = 0; i < TRACE_MAX_TRAPPED; i++)
		if (t->trapped_nr[i] && nr == t->trapped_nr[i])
			return true;
	if (nr != SYS_prctl || !t->trapped_prctl[0] ||
	    !peek_reg(tid, offsetof(struct user_regs_struct, rdi), &option))
		return false;
	return (int)option == t->trapped_prctl[0] || (int)option == t->trapped_prctl[1];
}

/*
 * A trapped call waits for its answer in seccomp's interruptible wait
 * (seccomp_do_user_notification(); with WAIT_KILLABLE_RECV only until the
 * supervisor has received it): a signal ends the wait with -ERESTARTSYS, and
 * a handler without SA_RESTART would make that EINTR, which no kernel's
 * registration call returns. At the signal-delivery-stop, before the handler
 * is chosen, -ERESTARTNOINTR takes its place: the kernel then restarts the
 * call after the handler, or at once when there is none (x86 handle_signal(),
 * arch_do_signal_or_restart()). Only when the thread is in that very call:
 * orig_rax is the trapped number (-1 outside a system call), and no answer
 * the supervisor gives is a restart code. The interrupted notification got
 * no answer (an answer is applied only once delivered, calls/calls.c): the
 * call made again is a new notification, answered and applied once.
 * Return: true when the call was made to restart.
 */
static bool restart_trapped(struct trace *t, pid_t tid)
{
	long nr, ret;

	if (!peek_reg(tid, offsetof(struct user_regs_struct, orig_rax), &nr) ||
	    !is_trapped(t, tid, nr))
		return false;
	if (!peek_reg(tid, offsetof(struct user_regs_struct, rax), &ret) ||
	    ret != -KERNEL_ERESTARTSYS)
		return false;
	return !ptrace(PTRACE_POKEUSER, tid, (void *)offsetof(struct user_regs_struct, rax),
		       (void *)(long)-KERNEL_ERESTARTNOINTR);
}

/*
 * A signal-delivery-stop: an interrupted trapped call is made to restart,
 * then the stop is the hook's to take, else the signal goes on unchanged.
 */
static void on_signal_stop(struct trace *t, pid_t tid, int sig)
{
	struct thread *th = tracees_thread(&t->tree, tid);

	if (restart_trapped(t, tid) && th && th->proc)
		th->proc->stats.restarted++;
	if (th && t->hooks.signal_stop && t->hooks.signal_stop(t->hooks.ctx, th, sig))
		return;
	resume(tid, sig);
}

static void on_stopped(struct trace *t, pid_t tid, int status)
{
	int event = status >> 16, sig = WSTOPSIG(status);

	if (event != PTRACE_EVENT_STOP)
		other_stop(t, tid);

	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_new_task(t, tid, event);
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(t, tid);
		break;
	case PTRACE_EVENT_EXIT:
		on_exit_event(t, tid);
		break;
	case PTRACE_EVENT_STOP:
		on_event_stop(t, tid, sig);
		break;
	default:
		if (event)
			resume(tid, sig);
		else
			on_signal_stop(t, tid, sig);
	}
}

/*
 * How process @p ended (its leader's wait status), as strace says it: every
 * end under --trace, an end by a signal always (the program's own crash
 * must never go unsaid).
 */
static void say_end(struct trace *t, struct proc *p, int status)
{
	const char *sig;

	p->ended = true;
	p->wait_status = status;
	if (WIFSIGNALED(status))
		p->stats.killed++;
	if (!t->trace_ends && !WIFSIGNALED(status))
		return;
	if (WIFEXITED(status)) {
		fprintf(t->log->f, "[pid %d] +++ exited with %d +++\n", (int)p->tgid,
			WEXITSTATUS(status));
		return;
	}
	sig = sigabbrev_np(WTERMSIG(status));
	if (t->trace_ends)
		fprintf(t->log->f, "[pid %d] +++ killed by SIG%s%s +++\n", (int)p->tgid,
			sig ? sig : "?", WCOREDUMP(status) ? " (core dumped)" : "");
	else
		log_line(t->log, "pid %d (%s): killed by SIG%s%s", (int)p->tgid,
			 p->exe[0] ? p->exe : "?", sig ? sig : "?",
			 WCOREDUMP(status) ? " (core dumped)" : "");
}

static void on_gone(struct trace *t, pid_t tid, int status)
{
	struct thread *th = tracees_thread(&t->tree, tid);
	struct proc *p;

	if (th && th->proc && th->proc->tgid == tid && (WIFEXITED(status) || WIFSIGNALED(status)))
		say_end(t, th->proc, status);
	if (tid == t->child) {
		t->child_status = status;
		t->child_reaped = true;
	}
	p = tracees_remove_thread(&t->tree, tid);
	if (p)
		trace_proc_exited(t, p);
}

bool trace_reap(struct trace *t, unsigned int max)
{
	int status;
	pid_t tid;

	for (unsigned int n = 0; n < max; n++) {
		tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid <= 0)
			return false;
		if (WIFSTOPPED(status))
			on_stopped(t, tid, status);
		else
			on_gone(t, tid, status);
	}
	return true;
}
