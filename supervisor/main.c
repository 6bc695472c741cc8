// SPDX-License-Identifier: GPL-2.0
/*
 * codectl-run: run a program with codectl(2) emulated for it and its whole
 * process tree. One thread, one event loop: epoll over the seccomp listener,
 * a signalfd (SIGCHLD and the signals forwarded to the program) and the
 * exec-error pipe.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calls.h"
#include "events.h"
#include "launch.h"
#include "sample_report.h"
#include "summary.h"
#include "supervisor.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };

static int open_log(struct supervisor *s)
{
	s->log = stderr;
	if (!s->opts.log_path)
		return 0;
	s->log = fopen(s->opts.log_path, "we");
	if (s->log)
		return 0;
	fprintf(stderr, "codectl-run: cannot open %s: %s\n", s->opts.log_path, strerror(errno));
	s->log = stderr;
	return -1;
}

/*
 * Block SIGCHLD and the forwarded signals; they arrive on a signalfd. Ignore
 * SIGPIPE (a log piped into head must not kill us); the program gets the
 * original disposition back.
 */
static int setup_signals(struct supervisor *s, sigset_t *orig)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t set;

	if (sigaction(SIGPIPE, &ign, &s->orig_sigpipe))
		return -1;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	if (sigprocmask(SIG_BLOCK, &set, orig))
		return -1;
	s->signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return s->signal_fd < 0 ? -1 : 0;
}

static int watch(struct supervisor *s, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * Forward a signal sent to us by another process to the program (or, once it
 * has exited, to the processes it left). Not when the terminal sent it to the
 * whole group, nor when the program itself did (kill(0, sig)): the program got
 * its own.
 */
static void forward(struct supervisor *s, const struct signalfd_siginfo *si)
{
	struct proc *p;

	if (si->ssi_code != SI_USER && si->ssi_code != SI_QUEUE)
		return;
	p = tracees_proc(&s->tree, (pid_t)si->ssi_pid);
	if (p && !p->exited && sv_start_time(p->tgid) == p->start_time)
		return;
	if (!s->child_reaped) {
		kill(s->child, (int)si->ssi_signo);
		return;
	}
	for (p = s->tree.procs; p; p = p->next)
		if (!p->exited && sv_start_time(p->tgid) == p->start_time)
			kill(p->tgid, (int)si->ssi_signo);
}

static void on_signal(struct supervisor *s)
{
	struct signalfd_siginfo si;

	while (read(s->signal_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			sv_reap(s);
		else
			forward(s, &si);
	}
}

static void on_exec_error(struct supervisor *s)
{
	struct launch_error e;
	ssize_t n = read(s->exec_err_fd, &e, sizeof(e));

	if (n == sizeof(e) && e.stage == LAUNCH_STAGE_EXEC)
		sv_log(s, "%s: %s", s->opts.argv[0], strerror(e.err));
	if (n == sizeof(e) && e.stage == LAUNCH_STAGE_SETUP) {
		s->start_failed = true;
		sv_log(s, "cannot install the seccomp listener in %s: %s%s", s->opts.argv[0],
		       strerror(e.err), e.err == EBUSY ? " (it already runs under a seccomp "
							  "notifier, such as another codectl-run)" : "");
	}
	epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, s->exec_err_fd, NULL);
	close(s->exec_err_fd);
	s->exec_err_fd = -1;
}

static void on_listener(struct supervisor *s, uint32_t events)
{
	if (events & EPOLLIN)
		sv_handle_notification(s);
	else if (events & (EPOLLHUP | EPOLLERR)) {
		s->listener_hup = true;
		epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, s->notifier.fd, NULL);
	}
}

/* The exec-error pipe may still hold the child's errno when its exit was seen first. */
static void drain_exec_error(struct supervisor *s)
{
	if (s->exec_err_fd >= 0)
		on_exec_error(s);
}

static bool finished(const struct supervisor *s)
{
	if (!s->child_reaped)
		return false;
	if (s->traced)
		return s->tree.live_threads == 0;
	return s->listener_hup || s->notifier.fd < 0;
}

static void event_loop(struct supervisor *s)
{
	struct epoll_event ev[16];
	int n;

	while (!finished(s)) {
		/* captured samples are unwound one per turn, once no event waits */
		n = epoll_wait(s->epoll_fd, ev, 16, sampler_pending(s) ? 0 : s->sampler ? 2000 : -1);
		if (n < 0 && errno != EINTR) {
			sv_log(s, "epoll_wait: %s", strerror(errno));
			return;
		}
		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == s->signal_fd)
				on_signal(s);
			else if (ev[i].data.fd == s->exec_err_fd)
				on_exec_error(s);
			else if (ev[i].data.fd == s->notifier.fd)
				on_listener(s, ev[i].events);
			else if (s->sampler && ev[i].data.fd == s->sampler->trig.timer_fd)
				sampler_on_timer(s);
		}
		sampler_walk_one(s);
		sampler_progress(s);
	}
}

/* The report, the files, and --check's verdict (exit status 3). */
static void finish_sampling(struct supervisor *s)
{
	int status = WIFEXITED(s->child_status) ? WEXITSTATUS(s->child_status) :
		     128 + WTERMSIG(s->child_status);

	if (!s->sampler)
		return;
	sample_report_add_sources(s);
	sample_report_print(s);
	sample_report_write_files(s, status);
	s->check_failed = s->opts.check && (s->sampler->stats.check_failures ||
					     s->sampler->stats.jit_invalid_total);
}

/*
 * The program's exit status; if a signal killed it, die by the same signal
 * (we are not dumpable: no core), so a shell or a parent sees what it would
 * have seen without codectl-run; 128+N if that fails.
 */
static int exit_status(const struct supervisor *s)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set;
	int sig;

	if (s->start_failed)
		return 1;
	if (s->check_failed)
		return 3;
	if (WIFEXITED(s->child_status))
		return WEXITSTATUS(s->child_status);
	if (!WIFSIGNALED(s->child_status))
		return 1;
	sig = WTERMSIG(s->child_status);
	fflush(s->log);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

/* libcodectl-audit.so next to codectl-run (build tree), or where make install puts it. */
static void find_loader_module(struct supervisor *s)
{
	char exe[2048], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	s->loader_module[0] = '\0';
	if (!s->opts.loader_module || n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(s->loader_module, sizeof(s->loader_module), "%s/libcodectl-audit.so", exe);
	if (access(s->loader_module, R_OK))
		snprintf(s->loader_module, sizeof(s->loader_module), "%s/../lib/codectl-emu/"
			 "libcodectl-audit.so", exe);
	if (access(s->loader_module, R_OK)) {
		sv_note(s, "loader module libcodectl-audit.so not found next to codectl-run: "
			   "loaded objects will not be registered (only the program's own calls)");
		s->loader_module[0] = '\0';
	} else if (strchr(s->loader_module, ':')) {
		/* ld.so splits LD_AUDIT at colons */
		sv_note(s, "the loader module's path %s has a ':', which LD_AUDIT cannot hold: "
			   "loaded objects will not be registered", s->loader_module);
		s->loader_module[0] = '\0';
	}
}

static int start(struct supervisor *s, const sigset_t *orig)
{
	struct notify_filter filter;
	struct launch l;
	int err;

	err = notify_filter_build(&filter, s->opts.nr);
	if (err) {
		sv_log(s, "cannot build the seccomp filter: %s", strerror(-err));
		return err;
	}
	find_loader_module(s);
	err = launch_program(s->opts.argv, &filter, orig, &s->orig_sigpipe,
			     s->loader_module[0] ? s->loader_module : NULL, s->opts.require_ptrace,
			     &l);
	notify_filter_free(&filter);
	if (err) {
		sv_log(s, "cannot start %s: %s%s", s->opts.argv[0], strerror(-err),
		       s->opts.require_ptrace && !l.traced ? " (ptrace refused: is codectl-run "
							   "itself being traced?)" : "");
		return err;
	}
	s->child = l.pid;
	s->traced = l.traced;
	s->exec_err_fd = l.exec_err_fd;
	if (!l.traced)
		sv_log(s, "cannot trace %s (ptrace: %s; is codectl-run itself being traced?): "
			  "running without process-tree tracking: forks start without "
			  "registrations, exec neither clears nor registers", s->opts.argv[0],
		       strerror(l.seize_errno));
	if (l.listener >= 0 && notifier_init(&s->notifier, l.listener, true))
		return -ENOMEM;
	s->notifier.fd = l.listener;
	s->notifier.wait_killable = l.wait_killable;
	return 0;
}

/* The program's first process and thread, known before its first stop. */
static int track_child(struct supervisor *s)
{
	struct proc *p = tracees_new_proc(&s->tree, s->child, 0, NULL);
	struct thread *th = p ? tracees_add_thread(&s->tree, s->child) : NULL;

	if (!th)
		return -ENOMEM;
	th->attached = true;
	proc_set_thread(p, th);
	/* sampled from its execve on: before it, it runs codectl-run's launcher */
	p->start_time = sv_start_time(s->child);
	snprintf(p->exe, sizeof(p->exe), "%s", s->opts.argv[0]);
	return 0;
}

static int setup(struct supervisor *s, sigset_t *orig)
{
	int err;

	s->policy = emu_policy_default();
	s->policy.profile = s->opts.strict ? EMU_PROFILE_STRICT : EMU_PROFILE_DEFAULT;
	s->policy.max_sframe_size = s->opts.max_sframe_size;
	s->policy.max_sframe_total = s->opts.max_sframe_total;
	s->notifier.fd = -1;
	s->exec_err_fd = -1;
	tracees_init(&s->tree, s->opts.max_registrations);
	/* orphans of the program come back to us */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	s->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epoll_fd < 0 || setup_signals(s, orig) || watch(s, s->signal_fd)) {
		sv_log(s, "cannot set up the event loop: %s", strerror(errno));
		return -1;
	}
	if (sample_report_check_files(s))
		return -1;
	err = sampler_new(s);
	if (err) {
		sv_log(s, "cannot set up sampling: %s", strerror(-err));
		return -1;
	}
	if (start(s, orig))
		return -1;
	if (s->sampler && !s->traced) {
		/* an untraced program would die of our SIGPROF */
		sv_note(s, "sampling needs ptrace: no samples");
		sampler_free(s->sampler);
		s->sampler = NULL;
	}
	if (track_child(s))
		return -1;
	if (s->sampler && s->sampler->trig.kind == TRIGGER_TIMER && !s->opts.wall_clock)
		sv_note(s, "perf events unavailable (%s): sampling every thread on the "
			   "supervisor's wall-clock timer instead", strerror(s->sampler->trig.fallback_errno));
	if (s->sampler && s->sampler->trig.timer_fd >= 0 && watch(s, s->sampler->trig.timer_fd)) {
		sv_log(s, "cannot watch the sampling timer: %s", strerror(errno));
		return -1;
	}
	/*
	 * The program cannot ptrace or read us. Only now: a child forked while
	 * we are not dumpable stays so until it execs, and could not be seized.
	 */
	prctl(PR_SET_DUMPABLE, 0);
	if ((s->notifier.fd >= 0 && watch(s, s->notifier.fd)) ||
	    (s->exec_err_fd >= 0 && watch(s, s->exec_err_fd))) {
		sv_log(s, "cannot watch the listener: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void teardown(struct supervisor *s)
{
	if (s->notifier.fd >= 0)
		close(s->notifier.fd);
	notifier_free(&s->notifier);
	tracees_free(&s->tree);
	sampler_free(s->sampler);
	if (s->log != stderr)
		fclose(s->log);
}

int main(int argc, char **argv)
{
	struct supervisor s = { 0 };
	sigset_t orig;
	int err = opts_parse(argc, argv, &s.opts), status = 1;

	if (err)
		return err == OPTS_EXIT_OK ? 0 : 2;
	if (open_log(&s))
		return 1;
	if (!setup(&s, &orig)) {
		event_loop(&s);
		drain_exec_error(&s);
		sampler_flush(&s);
		if (!s.opts.quiet && !s.start_failed)
			sv_print_summary(&s);
		if (!s.start_failed)
			finish_sampling(&s);
		status = exit_status(&s);
	} else if (s.child > 0 && !s.child_reaped) {
		kill(s.child, SIGKILL);
	}
	teardown(&s);
	return status;
}
