// SPDX-License-Identifier: GPL-2.0
/*
 * codectl-run: run a program with codectl(2) emulated for it and its whole
 * process tree. One thread, one event loop: epoll over the seccomp listener,
 * a signalfd (SIGCHLD and the signals forwarded to the program), the
 * exec-error pipe and the sampling timer. The parts (docs/HACKING.md):
 * trace/ follows the process tree, calls/ answers the codectl calls,
 * sample/ takes and walks samples with oracle/'s help, report/ says what
 * they showed; run.c tells each what the others' events mean.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sframe_setup.h>

#include "launch.h"
#include "run.h"
#include "supervisor/calls/summary.h"
#include "supervisor/report/report.h"
#include "supervisor/core/procfs.h"
#include "supervisor/core/x86_decoder.h"
#include "supervisor/verify/report.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };

static int open_log(struct run *r)
{
	r->log = (struct log){ .f = stderr, .quiet = r->opts.quiet };
	if (!r->opts.log_path)
		return 0;
	if (!strcmp(r->opts.log_path, "-")) {
		r->log.f = stdout;
		setvbuf(stdout, NULL, _IOLBF, 0);	/* lines apart from the program's */
		return 0;
	}
	r->log.f = fopen(r->opts.log_path, "we");
	if (r->log.f)
		return 0;
	fprintf(stderr, "codectl-run: cannot open %s: %s\n", r->opts.log_path, strerror(errno));
	r->log.f = stderr;
	return -1;
}

/*
 * Block SIGCHLD and the forwarded signals; they arrive on a signalfd. Ignore
 * SIGPIPE (a log piped into head must not kill us); the program gets the
 * original disposition back.
 */
static int setup_signals(struct run *r, sigset_t *orig)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t set;

	if (sigaction(SIGPIPE, &ign, &r->orig_sigpipe))
		return -1;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	if (sigprocmask(SIG_BLOCK, &set, orig))
		return -1;
	r->signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return r->signal_fd < 0 ? -1 : 0;
}

static int watch(struct run *r, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * Forward a signal sent to us by another process to the program (or, once it
 * has exited, to the processes it left). Not when the terminal sent it to the
 * whole group, nor when the program itself did (kill(0, sig)): the program got
 * its own.
 */
static void forward(struct run *r, const struct signalfd_siginfo *si)
{
	struct proc *p;

	if (si->ssi_code != SI_USER && si->ssi_code != SI_QUEUE)
		return;
	p = tracees_proc(&r->trace.tree, (pid_t)si->ssi_pid);
	if (p && !p->exited && procfs_start_time(p->tgid) == p->start_time)
		return;
	if (!r->trace.child_reaped) {
		kill(r->trace.child, (int)si->ssi_signo);
		return;
	}
	for (p = r->trace.tree.procs; p; p = p->next)
		if (!p->exited && procfs_start_time(p->tgid) == p->start_time)
			kill(p->tgid, (int)si->ssi_signo);
}

static void on_signal(struct run *r)
{
	struct signalfd_siginfo si;

	while (read(r->signal_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			r->reap_pending = true;
		else
			forward(r, &si);
	}
}

/* Wait statuses, a batch at a time: the calls' answers come first (event_loop()). */
static void reap_some(struct run *r)
{
	if (r->reap_pending)
		r->reap_pending = trace_reap(&r->trace, REAP_BATCH);
}

static void on_exec_error(struct run *r)
{
	struct launch_error e;
	ssize_t n = read(r->exec_err_fd, &e, sizeof(e));

	if (n == sizeof(e) && e.stage == LAUNCH_STAGE_EXEC) {
		r->exec_failed = true;
		log_line(&r->log, "%s: %s", r->opts.argv[0], strerror(e.err));
	}
	if (n == sizeof(e) && e.stage == LAUNCH_STAGE_SETUP) {
		r->start_failed = true;
		log_line(&r->log, "cannot install the seccomp listener in %s: %s%s",
			 r->opts.argv[0], strerror(e.err), e.err == EBUSY ?
			 " (it already runs under a seccomp notifier, such as another codectl-run)" :
			 "");
	}
	epoll_ctl(r->epoll_fd, EPOLL_CTL_DEL, r->exec_err_fd, NULL);
	close(r->exec_err_fd);
	r->exec_err_fd = -1;
}

static void on_listener(struct run *r, uint32_t events)
{
	if (events & EPOLLIN) {
		sampler_call_seen(r->sampler);
		calls_handle_notification(&r->calls);
	} else if (events & (EPOLLHUP | EPOLLERR)) {
		r->listener_hup = true;
		epoll_ctl(r->epoll_fd, EPOLL_CTL_DEL, r->calls.notifier.fd, NULL);
	}
}

/* The exec-error pipe may still hold the child's errno when its exit was seen first. */
static void drain_exec_error(struct run *r)
{
	if (r->exec_err_fd >= 0)
		on_exec_error(r);
}

static bool finished(const struct run *r)
{
	if (!r->trace.child_reaped)
		return false;
	if (r->trace.traced)
		return r->trace.tree.live_threads == 0;
	return r->listener_hup || r->calls.notifier.fd < 0;
}

/*
 * Codectl calls are answered before anything else: each turn handles the
 * waiting notifications first, then a batch of wait statuses (sample stops
 * among them) and the timer. Captured samples are walked by the walking
 * thread while the loop waits for events (the loop holds the sampling lock
 * otherwise: sampler_lock()); without it, one sample per turn when nothing
 * waits.
 */
static void event_loop(struct run *r)
{
	struct epoll_event ev[16];
	bool busy;
	int timeout, n;

	sampler_worker_start(r->sampler);
	while (!finished(r)) {
		busy = r->reap_pending || sampler_loop_walks(r->sampler);
		timeout = busy ? 0 : sampler_wait_ms(r->sampler, r->sampler || r->calls.nparked ?
							1000 : -1);
		sampler_unlock(r->sampler);
		n = epoll_wait(r->epoll_fd, ev, 16, timeout);
		sampler_lock(r->sampler);
		if (n < 0 && errno != EINTR) {
			log_line(&r->log, "epoll_wait: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++)
			if (ev[i].data.fd == r->calls.notifier.fd)
				on_listener(r, ev[i].events);
		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == r->calls.slow_fd)
				calls_retry_parked(&r->calls);
			else if (ev[i].data.fd == r->signal_fd)
				on_signal(r);
			else if (ev[i].data.fd == r->exec_err_fd)
				on_exec_error(r);
			else if (r->sampler && ev[i].data.fd == r->sampler->trig.timer_fd)
				sampler_on_timer(r->sampler);
		}
		/* every turn, whatever woke it: a busy loop never waits out its timeout */
		sampler_drain(r->sampler);
		reap_some(r);
		if (!r->reap_pending && sampler_loop_walks(r->sampler))
			sampler_walk_one(r->sampler);
		sampler_progress(r->sampler);
		calls_watchdog(&r->calls);
	}
	sampler_worker_stop(r->sampler);
}

/* The program's exit status as a shell shows it (128 + N for signal N). */
static int program_status(const struct run *r)
{
	int st = r->trace.child_status;

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * --verify: a wrong sample's example gets the verifier's finding at the row
 * its walk went wrong by, if there is one: the wrong frame was reached from
 * the frame before it, with that frame's row (looked up at its IP, or at its
 * return address - 1).
 */
static void link_example(const struct verify_session *v, json_t *ex)
{
	json_t *frames = json_object_get(ex, "frames"), *f;
	json_int_t k = json_integer_value(json_object_get(ex, "wrong_frame"));
	size_t n = json_array_size(frames), step;
	const struct verify_finding *fd;
	const char *object, *ip;
	char text[512], start[24], end[24];
	uint64_t addr, at;

	if (!json_object_get(ex, "wrong_frame") || !n)
		return;
	step = k > 0 ? (size_t)k - 1 : 0;
	f = json_array_get(frames, step < n ? step : n - 1);
	ip = json_string_value(json_object_get(f, "ip"));
	if (!ip)
		return;
	addr = strtoull(ip, NULL, 16);
	if (step && !json_is_true(json_object_get(f, "exact")))
		addr--;
	fd = verify_session_find(v, (pid_t)json_integer_value(json_object_get(ex, "pid")), addr,
				 &object, &at);
	if (!fd)
		return;
	verify_finding_text(fd, 0, text, sizeof(text));
	snprintf(start, sizeof(start), "%#llx", (unsigned long long)fd->start);
	snprintf(end, sizeof(end), "%#llx", (unsigned long long)fd->end);
	json_object_set_new(ex, "verify_finding",
			    json_pack("{s:s,s:s,s:s,s:s,s:s}", "kind", verify_kind_name(fd->kind),
				      "object", object, "start", start, "end", end, "text", text));
}

static void link_verify(const struct verify_session *v, struct sample_stats *st)
{
	size_t n;
	struct stats_place **p = stats_places_sorted(st, &n);

	for (size_t i = 0; p && i < n; i++)
		if (p[i]->example)
			link_example(v, p[i]->example);
	free(p);
}

/*
 * -F 0: no samples, but the files asked for are written all the same (the
 * registrations, --verify's findings, the supervisor's own figures).
 */
static void write_files_unsampled(struct run *r, struct report *rep)
{
	struct sample_stats none;

	if (!r->opts.json_path && !r->opts.folded_path && !r->opts.folded_all_path &&
	    !r->opts.html_path)
		return;
	if (stats_init(&none, false, 0)) {
		log_line(&r->log, "out of memory: --json, --folded and --html files not written");
		return;
	}
	rep->stats = &none;
	rep->verify = r->verify ? verify_session_json(r->verify) : NULL;
	report_write_files(rep);
	json_decref(rep->verify);
	stats_free(&none);
}

/* The report, the files, and --check's verdict (exit status 3). */
static void finish_sampling(struct run *r)
{
	struct proc_stats t = summary_totals(&r->trace.tree);
	struct report rep = {
		.stats = r->sampler ? &r->sampler->stats : NULL,
		.opts = &r->opts,
		.perf_events = r->sampler && (r->sampler->trig.kind == TRIGGER_PERF ||
					      r->sampler->ring_on),
		.ring = r->sampler && r->sampler->ring_on,
		.stop = r->sampler && r->sampler->stop_mode,
		.user_only = r->sampler && (!r->sampler->ring_on || r->sampler->ring.user_only),
		.ring_lost = r->sampler ? r->sampler->ring.lost : 0,
		.ring_stack = r->sampler ? r->sampler->ring.stack_bytes : 0,
		.queue = SAMPLER_QUEUE,
		.wall_stops = SAMPLER_WALL_STOPS_PER_SEC,
		.registrations = { t.accepted, t.rejected, t.unregistered, t.exec_registered,
				   t.stale, t.again_after_exec },
		.exit_status = program_status(r),
		.exited_holding = tracees_exited_holding(&r->trace.tree),
		.maps_full_reads = r->trace.maps_reads.full,
		.maps_range_reads = r->trace.maps_reads.ranges,
		.processes = summary_json(&r->trace.tree),
		.log = &r->log,
	};

	if (!r->sampler) {
		write_files_unsampled(r, &rep);
		json_decref(rep.processes);
		return;
	}
	if (r->verify) {
		link_verify(r->verify, rep.stats);
		rep.verify = verify_session_json(r->verify);
	}
	report_add_sources(rep.stats, 0, sampler_source_line, r->sampler);
	sampler_progress_end(r->sampler);
	report_print(&rep);
	report_write_files(&rep);
	r->check_failed = r->opts.check && (rep.stats->check_failures ||
					     rep.stats->jit_invalid_total);
	json_decref(rep.verify);
	json_decref(rep.processes);
}

/*
 * The program's exit status; if a signal killed it, die by the same signal
 * (we are not dumpable: no core), so a shell or a parent sees what it would
 * have seen without codectl-run; 128+N if that fails.
 */
static int exit_status(const struct run *r)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	int st = r->trace.child_status, sig;
	sigset_t set;

	if (r->start_failed)
		return 1;
	if (r->check_failed)
		return 3;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (!WIFSIGNALED(st))
		return 1;
	sig = WTERMSIG(st);
	fflush(r->log.f);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

/*
 * libcodectl-audit.so next to codectl-run (build tree), or where make install
 * puts it: LIBDIR/codectl-emu, which the Makefile gives as seen from BINDIR.
 */
#ifndef AUDIT_DIR_FROM_BINDIR
#define AUDIT_DIR_FROM_BINDIR "../lib/codectl-emu"
#endif

static void find_loader_module(struct run *r)
{
	char exe[2048], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	r->loader_module[0] = '\0';
	if (!r->opts.loader_module || n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(r->loader_module, sizeof(r->loader_module), "%s/libcodectl-audit.so", exe);
	if (access(r->loader_module, R_OK))
		snprintf(r->loader_module, sizeof(r->loader_module),
			 "%s/" AUDIT_DIR_FROM_BINDIR "/libcodectl-audit.so", exe);
	if (access(r->loader_module, R_OK)) {
		log_note(&r->log, "loader module libcodectl-audit.so not found next to codectl-run "
				  "nor in %s/" AUDIT_DIR_FROM_BINDIR ": loaded objects will not be "
				  "registered (only the program's own calls)", exe);
		r->loader_module[0] = '\0';
	} else if (strchr(r->loader_module, ':')) {
		/* ld.so splits LD_AUDIT at colons */
		log_note(&r->log, "the loader module's path %s has a ':', which LD_AUDIT cannot "
				  "hold: loaded objects will not be registered", r->loader_module);
		r->loader_module[0] = '\0';
	}
}

/*
 * What the loader module is told besides LD_AUDIT (--loader-abi): the
 * interface it registers with and the numbers trapped (sframe_register's,
 * eh_frame_register's); where SFrame files are (--sframe-path).
 */
static void loader_env(struct run *r, const char **env)
{
	int n = 0;

	if (r->opts.loader_abi) {
		snprintf(r->loader_env[0], sizeof(r->loader_env[0]), "CODECTL_AUDIT_ABI=%s",
			 r->opts.loader_abi);
		snprintf(r->loader_env[1], sizeof(r->loader_env[1]),
			 "CODECTL_AUDIT_SFRAME_NR=%ld,%ld", r->opts.sframe_nr[0],
			 r->opts.sframe_nr[1]);
		snprintf(r->loader_env[2], sizeof(r->loader_env[2]),
			 "CODECTL_AUDIT_EH_FRAME_NR=%ld,%ld", r->opts.eh_frame_nr[0],
			 r->opts.eh_frame_nr[1]);
		env[n++] = r->loader_env[0];
		env[n++] = r->loader_env[1];
		env[n++] = r->loader_env[2];
	}
	if (r->opts.sframe_path) {
		snprintf(r->sframe_path_env, sizeof(r->sframe_path_env), "CODECTL_SFRAME_PATH=%s",
			 r->opts.sframe_path);
		env[n++] = r->sframe_path_env;
	}
	env[n] = NULL;
}

/* The program's samples are taken from its execve on. */
static void attach_sampler(void *ctx, pid_t pid)
{
	struct run *r = ctx;

	if (r->sampler)
		sampler_attach(r->sampler, pid);
}

static int start(struct run *r, const sigset_t *orig)
{
	struct notify_filter filter;
	struct notify_traps traps;
	const char *env[5];
	struct launch l;
	int err;

	entries_traps(&r->calls.numbers, &traps);
	err = notify_filter_build(&filter, &traps);
	if (err) {
		log_line(&r->log, "cannot build the seccomp filter: %s", strerror(-err));
		return err;
	}
	find_loader_module(r);
	r->calls.loader_module = r->loader_module[0];
	loader_env(r, env);
	err = launch_program(r->opts.argv, &filter, orig, &r->orig_sigpipe,
			     r->loader_module[0] ? r->loader_module : NULL, env,
			     r->opts.require_ptrace, attach_sampler, r, &l);
	notify_filter_free(&filter);
	if (err) {
		log_line(&r->log, "cannot start %s: %s%s", r->opts.argv[0], strerror(-err),
			 r->opts.require_ptrace && !l.traced ? " (ptrace refused: is codectl-run "
							       "itself being traced?)" : "");
		return err;
	}
	r->trace.child = l.pid;
	r->trace.traced = l.traced;
	r->exec_err_fd = l.exec_err_fd;
	if (!l.traced)
		log_line(&r->log, "cannot trace %s (ptrace: %s; is codectl-run itself being "
				  "traced?): running without process-tree tracking: forks start "
				  "without registrations, exec neither clears nor registers",
			 r->opts.argv[0], strerror(l.seize_errno));
	if (l.listener >= 0 && notifier_init(&r->calls.notifier, l.listener, true))
		return -ENOMEM;
	r->calls.notifier.fd = l.listener;
	r->calls.notifier.wait_killable = l.wait_killable;
	return 0;
}

/* The program's first process and thread, known before its first stop. */
static int track_child(struct run *r)
{
	struct tracees *t = &r->trace.tree;
	struct proc *p = tracees_new_proc(t, r->trace.child, 0, NULL);
	struct thread *th = p ? tracees_add_thread(t, r->trace.child) : NULL;

	if (!th)
		return -ENOMEM;
	th->attached = true;
	proc_set_thread(p, th);
	/* sampled from its execve on: before it, it runs codectl-run's launcher */
	p->start_time = procfs_start_time(r->trace.child);
	snprintf(p->exe, sizeof(p->exe), "%s", r->opts.argv[0]);
	return 0;
}

/* The parts, before the program starts: the tree, the calls, sampling. */
static int setup_parts(struct run *r)
{
	const struct run_opts *o = &r->opts;
	int err;

	r->trace = (struct trace){
		.log = &r->log, .fork_copies = o->kernel != EMU_PROFILE_V13, .trace_ends = o->trace,
		.trapped_nr = { o->nr, o->sframe_nr[0], o->sframe_nr[1], o->stacktrace_nr,
				o->eh_frame_nr[0], o->eh_frame_nr[1] },
		.hooks = run_hooks(r),
	};
	if (o->prctl_sframe) {
		r->trace.trapped_prctl[0] = PR_ADD_SFRAME;
		r->trace.trapped_prctl[1] = PR_REMOVE_SFRAME;
	}
	tracees_init(&r->trace.tree, o->max_registrations);
	r->trace.tree.inclusive_end = o->kernel == EMU_PROFILE_V13;
	r->calls = (struct calls){
		.policy = emu_policy_default(), .trace_lines = o->trace, .trace = &r->trace,
		.log = &r->log,
		.numbers = { o->nr, o->sframe_nr[0], o->sframe_nr[1], o->stacktrace_nr,
			     o->eh_frame_nr[0], o->eh_frame_nr[1], o->prctl_sframe },
	};
	r->calls.policy.profile = o->kernel;
	r->calls.policy.sframe_validation = o->sframe_validation;
	r->calls.policy.max_sframe_size = r->opts.max_sframe_size;
	r->calls.policy.max_sframe_total = r->opts.max_sframe_total;
	r->calls.policy.max_sframe_cache = r->opts.sframe_cache;
	r->calls.notifier.fd = -1;
	r->calls.slow_fd = -1;
	if (report_check_files(&r->log, &r->opts))
		return -1;
	if (r->opts.verify) {
		r->verify = verify_session_new(&r->log);
		r->calls.verify = r->verify;
		if (!r->verify)
			return -1;
	}
	if (calls_init_slow_reads(&r->calls) || watch(r, r->calls.slow_fd)) {
		log_line(&r->log, "cannot set up reads aside: %s", strerror(errno));
		return -1;
	}
	err = sampler_new(&r->sampler, &r->opts, &r->log, &r->trace);
	if (err)
		log_line(&r->log, "cannot set up sampling: %s", strerror(-err));
	else if (r->sampler)
		r->sampler->verify = r->verify;	/* JIT functions are checked as sampled */
	/*
	 * Samples are judged, and --verify reads code, with capstone: loaded
	 * now, before the program starts, not while a call of it waits.
	 */
	if (!err && (r->sampler || r->verify) && x86_decoder_preload()) {
		log_line(&r->log, "%s cannot be loaded: no sample is judged (dropped), no code "
			 "verified", x86_decoder_library());
		if (r->sampler)
			r->sampler->no_decoder = true;
	}
	return err ? -1 : 0;
}

/* Sampling, once the program runs: dropped without ptrace, told about its clock. */
static int start_sampling(struct run *r)
{
	struct sampler *sm = r->sampler;

	if (sm && !r->trace.traced) {
		/* an untraced program would die of our SIGPROF */
		log_note(&r->log, "sampling needs ptrace: no samples");
		sampler_free(sm);
		r->sampler = NULL;
		return 0;
	}
	if (sm && sm->trig.kind == TRIGGER_TIMER && !r->opts.wall_clock)
		log_note(&r->log, "perf events unavailable (%s): sampling every thread on the "
				  "supervisor's wall-clock timer instead",
			 strerror(sm->trig.fallback_errno));
	if (sm && sm->trig.timer_fd >= 0 && watch(r, sm->trig.timer_fd)) {
		log_line(&r->log, "cannot watch the sampling timer: %s", strerror(errno));
		return -1;
	}
	for (unsigned int i = 0; sm && sm->ring_on && i < sm->ring.ncpu; i++)
		if (sm->ring.fd[i] >= 0 && watch(r, sm->ring.fd[i])) {
			log_line(&r->log, "cannot watch the perf buffers: %s", strerror(errno));
			return -1;
		}
	return 0;
}

/*
 * Room for the files callers hand over (HELD_FILES_MAX) beside our own: the
 * soft descriptor limit up to the hard one. Only once the program runs: it
 * keeps the limits it was started with.
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= HELD_FILES_MAX + HELD_FILES_RESERVE)
		return;
	rl.rlim_cur = rl.rlim_max < HELD_FILES_MAX + HELD_FILES_RESERVE ? rl.rlim_max :
		      HELD_FILES_MAX + HELD_FILES_RESERVE;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static int setup(struct run *r, sigset_t *orig)
{
	r->exec_err_fd = -1;
	/* orphans of the program come back to us */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epoll_fd < 0 || setup_signals(r, orig) || watch(r, r->signal_fd)) {
		log_line(&r->log, "cannot set up the event loop: %s", strerror(errno));
		return -1;
	}
	if (setup_parts(r) || start(r, orig) || start_sampling(r) || track_child(r))
		return -1;
	/*
	 * The program cannot ptrace or read us. Only now: a child forked while
	 * we are not dumpable stays so until it execs, and could not be seized.
	 */
	prctl(PR_SET_DUMPABLE, 0);
	raise_fd_limit();
	held_files_limit(&r->calls.held);
	if ((r->calls.notifier.fd >= 0 && watch(r, r->calls.notifier.fd)) ||
	    (r->exec_err_fd >= 0 && watch(r, r->exec_err_fd))) {
		log_line(&r->log, "cannot watch the listener: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void teardown(struct run *r)
{
	if (r->calls.notifier.fd >= 0)
		close(r->calls.notifier.fd);
	notifier_free(&r->calls.notifier);
	calls_free(&r->calls);
	tracees_free(&r->trace.tree);
	held_files_free(&r->calls.held);	/* after the registrations holding them */
	sampler_free(r->sampler);
	verify_session_free(r->verify);
	if (r->log.f != stderr && r->log.f != stdout)
		fclose(r->log.f);
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	sigset_t orig;
	int err = opts_parse(argc, argv, &r.opts), status = 1;

	if (err)
		return err == OPTS_EXIT_OK ? 0 : 2;
	if (open_log(&r))
		return 1;
	if (!setup(&r, &orig)) {
		event_loop(&r);
		drain_exec_error(&r);
		sampler_drain(r.sampler);
		sampler_flush(r.sampler);
		sampler_progress_end(r.sampler);
		if (!r.opts.quiet && !r.start_failed && !r.exec_failed)
			summary_print(r.log.f, &r.trace.tree);
		if (r.verify && !r.opts.quiet && !r.start_failed && !r.exec_failed)
			verify_session_summary(r.verify, r.log.f);
		if (!r.start_failed && !r.exec_failed)
			finish_sampling(&r);
		status = exit_status(&r);
	} else if (r.trace.child > 0 && !r.trace.child_reaped) {
		kill(r.trace.child, SIGKILL);
	}
	teardown(&r);
	return status;
}
