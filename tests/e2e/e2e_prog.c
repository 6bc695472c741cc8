// SPDX-License-Identifier: GPL-2.0
/*
 * The tracee of the end-to-end tests: one program, one scenario per command.
 * It uses only include/ and checks its own results; exit status 0 means every
 * check in the program held (the test then compares with codectl-run's report).
 *
 *   exit N | abort | live N | threads T ITER [PAUSE_US] | forks N | short-children N |
 *   uffd-stall N STALL_MS | exec-chain N |
 *   wait-signal | restart MODE ITER | int80 | x32 | fd-scan | self-register |
 *   kill-during-call ROUNDS | vfork-exit | fork-storm | clone-kinds |
 *   storm usr1|stop ITER | read-eintr | interrupt-once | none
 */
#include <dirent.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <codectl.h>

#include "self_sframe.h"

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "e2e_prog: %s:%d: check failed: %s (errno %s)\n",    \
				__FILE__, __LINE__, #cond, strerrorname_np(errno));      \
			exit(99);                                                        \
		}                                                                        \
	} while (0)

static uint8_t *rx_area(size_t len)
{
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	return p;
}

static long reg(uint64_t start, uint64_t end)
{
	struct code_elf_info i = { .text_start = start, .text_end = end,
				   .pathname = (uintptr_t)"/e2e/object" };

	return codectl(CODE_REGISTER_ELF, &i, sizeof(i), 0);
}

static long unreg(uint64_t start)
{
	return codectl(CODE_UNREGISTER, (void *)(uintptr_t)start, 0, 0);
}

static int cmd_live(int n)
{
	uint8_t *t = rx_area(4096);

	for (int i = 0; i < n; i++)
		CHECK(reg((uintptr_t)t + 64 * i, (uintptr_t)t + 64 * i + 64) == 0);
	return 0;	/* exit with the registrations in place */
}

/* @n registrations, each of text mapped just before it (new to any cached mappings). */
static int cmd_new_text(int n)
{
	for (int i = 0; i < n; i++) {
		uint8_t *t = rx_area(4096);

		CHECK(reg((uintptr_t)t, (uintptr_t)t + 4096) == 0);
	}
	printf("new-text: %d registered\n", n);
	return 0;
}

struct worker {
	uint8_t *text;
	int iter;
	int pause_us;	/* between iterations: the threads live together */
	long ok_reg, ok_unreg;
};

static void *worker(void *p)
{
	struct worker *w = p;

	for (int i = 0; i < w->iter; i++) {
		uint64_t a = (uintptr_t)w->text + (i % 16) * 64;

		CHECK(reg(a, a + 64) == 0);
		w->ok_reg++;
		if (!w->pause_us)
			CHECK(reg(a, a + 64) == -1 && errno == EEXIST);
		CHECK(unreg(a) == 0);
		w->ok_unreg++;
		if (!w->pause_us)
			CHECK(unreg(a) == -1 && errno == ENOENT);
		else	/* a crowd of threads living together, valid calls only */
			usleep((useconds_t)w->pause_us);
	}
	return NULL;
}

static int cmd_threads(int nthreads, int iter, int pause_us)
{
	pthread_t *th = calloc((size_t)nthreads, sizeof(*th));
	struct worker *w = calloc((size_t)nthreads, sizeof(*w));
	uint8_t *t = rx_area((size_t)nthreads * 4096);
	pthread_attr_t attr;

	CHECK(th && w && nthreads > 0 && nthreads <= 4096);
	CHECK(!pthread_attr_init(&attr) && !pthread_attr_setstacksize(&attr, 65536));
	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .text = t + 4096 * i, .iter = iter, .pause_us = pause_us };
		CHECK(pthread_create(&th[i], &attr, worker, &w[i]) == 0);
	}
	for (int i = 0; i < nthreads; i++)
		CHECK(pthread_join(th[i], NULL) == 0);
	for (int i = 0; i < nthreads; i++)
		CHECK(w[i].ok_reg == iter && w[i].ok_unreg == iter);
	printf("threads: %ld registrations\n", (long)nthreads * iter);
	free(th);
	free(w);
	return 0;
}

static int cmd_forks(int n)
{
	uint8_t *t = rx_area(4096 * 2);

	CHECK(reg((uintptr_t)t, (uintptr_t)t + 64) == 0);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		CHECK(pid >= 0);
		if (pid == 0) {
			/* a copy of the parent's registration, and one of its own */
			CHECK(reg((uintptr_t)t, (uintptr_t)t + 64) == -1 && errno == EEXIST);
			CHECK(reg((uintptr_t)t + 4096, (uintptr_t)t + 4160) == 0);
			_exit(0);
		}
	}
	for (int i = 0; i < n; i++) {
		int status;

		CHECK(wait(&status) > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	/* the children's registrations were theirs */
	CHECK(unreg((uintptr_t)t + 4096) == -1 && errno == ENOENT);
	return 0;
}

/* Spin for @ms of CPU time: long enough to be sampled. */
static void spin_ms(int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/*
 * @n short children one after the other, each sampled (it spins 5 ms) and
 * registering a range of its own: what the supervisor keeps per exited
 * process must not pile up, nor make a later child's valid call fail.
 */
static int cmd_short_children(int n)
{
	uint8_t *t = rx_area(4096);

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		CHECK(pid >= 0);
		if (pid == 0) {
			spin_ms(5);
			CHECK(reg((uintptr_t)t, (uintptr_t)t + 64) == 0);
			_exit(0);
		}
		CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0);
	}
	printf("short-children: %d registered\n", n);
	return 0;
}

struct stalled_call {
	struct code_elf_info *info;	/* in a page nobody has served yet */
	long ret;
	int err;
};

static void *stalled_call(void *arg)
{
	struct stalled_call *sc = arg;

	sc->ret = codectl(CODE_REGISTER_ELF, sc->info, sizeof(*sc->info), 0);
	sc->err = errno;
	return NULL;
}

/*
 * A call whose struct lies in a userfaultfd page nobody serves waits, while a
 * child process makes @n calls of its own and exits (they must all be
 * answered: one stalled process stalls no other). After @stall_ms the page
 * is served, with a valid struct in it, and the call is answered 0.
 */
static int cmd_uffd_stall(int n, int stall_ms)
{
	uint8_t *t = rx_area(4096 * 2);
	struct code_elf_info *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct code_elf_info *src = aligned_alloc(4096, 4096);
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register ureg = { .range = { (uintptr_t)page, 4096 },
					.mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy = { .dst = (uintptr_t)page, .src = (uintptr_t)src, .len = 4096 };
	struct stalled_call sc = { .info = page };
	pthread_t th;
	pid_t child;
	int status;

	CHECK(page != MAP_FAILED && src && uffd >= 0);
	CHECK(!ioctl(uffd, UFFDIO_API, &api) && !ioctl(uffd, UFFDIO_REGISTER, &ureg));
	CHECK(pthread_create(&th, NULL, stalled_call, &sc) == 0);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		for (int i = 0; i < n; i++) {
			CHECK(reg((uintptr_t)t + 4096, (uintptr_t)t + 4160) == 0);
			CHECK(unreg((uintptr_t)t + 4096) == 0);
		}
		_exit(0);
	}
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && !WEXITSTATUS(status));
	printf("uffd-stall: the other process made %d calls\n", 2 * n);
	usleep((useconds_t)stall_ms * 1000);
	memset(src, 0, 4096);
	*src = (struct code_elf_info){ .text_start = (uintptr_t)t, .text_end = (uintptr_t)t + 64,
				       .pathname = (uintptr_t)"/e2e/stalled" };
	CHECK(!ioctl(uffd, UFFDIO_COPY, &copy));
	CHECK(pthread_join(th, NULL) == 0);
	CHECK(sc.ret == 0);
	printf("uffd-stall: the stalled call answered %ld\n", sc.ret);
	return 0;
}

static int cmd_exec_chain(const char *self, int n)
{
	char arg[16];
	uint8_t *t = rx_area(4096);

	CHECK(reg((uintptr_t)t, (uintptr_t)t + 64) == 0);
	if (n <= 0)
		return 0;
	snprintf(arg, sizeof(arg), "%d", n - 1);
	execl(self, self, "exec-chain", arg, (char *)NULL);
	return 98;
}

static volatile sig_atomic_t got;

static void on_sig(int sig)
{
	got = sig;
}

static int cmd_wait_signal(void)
{
	struct sigaction sa = { .sa_handler = on_sig };
	sigset_t block, old;

	/*
	 * Blocked until sigsuspend(): a signal taken between the test of
	 * "got" and pause() would leave pause() waiting for good.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	while (!got)
		sigsuspend(&old);
	return 40 + got;	/* 55 for SIGTERM, 41 for SIGHUP */
}

struct restart_state {
	uint8_t *text;
	int iter;
	long registered;
	long interrupted;
	volatile int done;
};

/* One call, repeated while a handler without SA_RESTART interrupts it. */
static long retry_eintr(long (*fn)(uint64_t, uint64_t), uint64_t a, uint64_t b, long *eintr)
{
	long r;

	while ((r = fn(a, b)) == -1 && errno == EINTR)
		(*eintr)++;
	return r;
}

static long unreg2(uint64_t a, uint64_t b)
{
	(void)b;
	return unreg(a);
}

static void *restart_worker(void *p)
{
	struct restart_state *st = p;
	uint64_t a = (uintptr_t)st->text;

	for (int i = 0; i < st->iter; i++) {
		long r = reg(a, a + 64);

		if (r == -1 && errno == EINTR) {
			/* not answered, so not applied: nothing to unregister */
			st->interrupted++;
			CHECK(retry_eintr(unreg2, a, 0, &st->interrupted) == -1 && errno == ENOENT);
			continue;
		}
		CHECK(r == 0);
		st->registered++;
		CHECK(retry_eintr(unreg2, a, 0, &st->interrupted) == 0);
	}
	st->done = 1;
	return NULL;
}

/* Signals at the registering thread: SA_RESTART, no SA_RESTART, or SIGSTOP/SIGCONT. */
static int cmd_restart(const char *mode, int iter)
{
	struct restart_state st = { .text = rx_area(4096), .iter = iter };
	volatile int *quit = NULL;
	struct sigaction sa = { .sa_handler = on_sig };
	pthread_t th;
	pid_t helper = 0;

	if (!strcmp(mode, "restart"))
		sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	CHECK(pthread_create(&th, NULL, restart_worker, &st) == 0);
	if (!strcmp(mode, "stopcont")) {
		pid_t self = getpid();

		/* shared: the helper ends with a SIGCONT, never leaving us stopped */
		quit = mmap(NULL, sizeof(*quit), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			    -1, 0);
		CHECK(quit != MAP_FAILED);
		*quit = 0;
		helper = fork();
		if (helper == 0) {
			while (!*quit) {
				kill(self, SIGSTOP);
				usleep(200);
				kill(self, SIGCONT);
				usleep(300);
			}
			_exit(0);
		}
	}
	while (!st.done) {
		if (!helper)
			pthread_kill(th, SIGUSR1);
		usleep(50);
	}
	if (helper) {
		*quit = 1;
		waitpid(helper, NULL, 0);
	}
	CHECK(pthread_join(th, NULL) == 0);
	printf("registrations: %ld interrupted: %ld\n", st.registered, st.interrupted);
	return 0;
}

/*
 * Signals at a thread until stop_sender(), caught by a handler without
 * SA_RESTART: SIGUSR1 from a thread (tgkill), or with @stop, SIGSTOP then
 * SIGCONT at the whole process from a child, SIGCONT caught. @pause_us
 * between two signals (0: as fast as it can). @quit is shared with the child.
 */
struct sender {
	pid_t pid, target;
	useconds_t pause_us;
	bool stop;
	volatile int *quit;
	pthread_t thread;
	pid_t child;
};

static volatile sig_atomic_t handled;

static void on_count(int sig)
{
	(void)sig;
	handled++;
}

static void *send_usr1(void *p)
{
	struct sender *s = p;

	while (!*s->quit) {
		syscall(SYS_tgkill, s->pid, s->target, SIGUSR1);
		if (s->pause_us)
			usleep(s->pause_us);
	}
	return NULL;
}

/* In the child: the process stopped and continued; it always ends continued. */
static void send_stop_cont(const struct sender *s)
{
	while (!*s->quit) {
		kill(s->pid, SIGSTOP);
		usleep(s->pause_us);
		kill(s->pid, SIGCONT);
		usleep(s->pause_us);
	}
	_exit(0);
}

static void start_sender(struct sender *s, bool stop, useconds_t pause_us)
{
	struct sigaction sa = { .sa_handler = on_count };

	*s = (struct sender){ .pid = getpid(), .target = gettid(), .pause_us = pause_us,
			      .stop = stop };
	s->quit = mmap(NULL, sizeof(*s->quit), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	CHECK(s->quit != MAP_FAILED);
	*s->quit = 0;
	CHECK(sigaction(stop ? SIGCONT : SIGUSR1, &sa, NULL) == 0);
	if (!stop) {
		CHECK(pthread_create(&s->thread, NULL, send_usr1, s) == 0);
		return;
	}
	s->child = fork();
	CHECK(s->child >= 0);
	if (!s->child)
		send_stop_cont(s);
}

static void stop_sender(struct sender *s)
{
	pid_t r;

	*s->quit = 1;
	if (s->stop) {
		/* the child's last SIGCONT may interrupt the wait (no SA_RESTART) */
		while ((r = waitpid(s->child, NULL, 0)) == -1 && errno == EINTR)
			;
		CHECK(r == s->child);
	} else {
		CHECK(pthread_join(s->thread, NULL) == 0);
	}
	munmap((void *)s->quit, sizeof(*s->quit));
}

/* What one kind of call returned: 0, -1 with EINTR, or anything else. */
struct tally {
	long ok, eintr, other;
};

static void tally(struct tally *t, long r)
{
	if (!r)
		t->ok++;
	else if (r == -1 && errno == EINTR)
		t->eintr++;
	else
		t->other++;
}

/*
 * storm usr1|stop ITER: ITER register+unregister cycles while signals whose
 * handler has no SA_RESTART keep coming: SIGUSR1 at this thread as fast as
 * another thread can send it, or SIGSTOP/SIGCONT at the process every 100
 * us. No retry: what every call returned is printed, for the test to judge.
 */
static int cmd_storm(const char *kind, int iter)
{
	uint64_t a = (uintptr_t)rx_area(4096);
	struct tally r = { 0 }, u = { 0 };
	bool stop = !strcmp(kind, "stop");
	struct sender s;

	CHECK(stop || !strcmp(kind, "usr1"));
	start_sender(&s, stop, stop ? 100 : 0);
	for (int i = 0; i < iter; i++) {
		tally(&r, reg(a, a + 64));
		tally(&u, unreg(a));
	}
	stop_sender(&s);
	printf("storm: cycles %d register %ld %ld %ld unregister %ld %ld %ld handled %ld\n", iter,
	       r.ok, r.eintr, r.other, u.ok, u.eintr, u.other, (long)handled);
	return 0;
}

/*
 * read-eintr: a read() blocking on an empty pipe, with SIGUSR1 (no
 * SA_RESTART) every millisecond: it fails with EINTR, codectl-run or not.
 */
static int cmd_read_eintr(void)
{
	struct sender s;
	int fds[2], err;
	ssize_t n;
	char c;

	CHECK(pipe(fds) == 0);
	start_sender(&s, false, 1000);
	n = read(fds[0], &c, 1);
	err = errno;
	stop_sender(&s);
	printf("read: %zd %s\n", n, n < 0 ? strerrorname_np(err) : "-");
	return 0;
}

/* The state letter of process @pid (/proc/PID/stat), '?' when unreadable. */
static char proc_state(pid_t pid)
{
	char path[64], state = '?';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f && fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = '?';
	if (f)
		fclose(f);
	return state;
}

/* Is process @pid running the program named @comm (/proc/PID/comm)? */
static bool runs(pid_t pid, const char *comm)
{
	char path[64], name[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(name, sizeof(name), f))
		name[0] = '\0';
	fclose(f);
	name[strcspn(name, "\n")] = '\0';
	return !strcmp(name, comm);
}

struct interrupter {
	pid_t pid, target, supervisor;
	volatile int stopped;
};

/* Stop codectl-run, let the target call, interrupt it, then continue codectl-run. */
static void *interrupt_once(void *p)
{
	struct interrupter *in = p;

	CHECK(kill(in->supervisor, SIGSTOP) == 0);
	while (proc_state(in->supervisor) != 'T')
		usleep(1000);
	in->stopped = 1;
	usleep(100000);		/* the target waits in its call by now */
	CHECK(syscall(SYS_tgkill, in->pid, in->target, SIGUSR1) == 0);
	usleep(100000);		/* and its wait was interrupted */
	CHECK(kill(in->supervisor, SIGCONT) == 0);
	return NULL;
}

/*
 * interrupt-once: one registration that a SIGUSR1 (no SA_RESTART) surely
 * interrupts before its answer: the supervisor, our parent, is stopped from
 * before the call until after the signal, so it cannot take the call. Every
 * thread is made before the stop (a new thread stops for the supervisor).
 */
static int cmd_interrupt_once(void)
{
	struct interrupter in = { .pid = getpid(), .target = gettid(), .supervisor = getppid() };
	struct sigaction sa = { .sa_handler = on_count };
	uint64_t a = (uintptr_t)rx_area(4096);
	pthread_t th;
	long r;

	CHECK(runs(in.supervisor, "codectl-run"));	/* never stop anything else */
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHECK(pthread_create(&th, NULL, interrupt_once, &in) == 0);
	while (!in.stopped)
		usleep(1000);
	r = reg(a, a + 64);
	printf("interrupt-once: register %ld %s handled %ld\n", r, r ? strerrorname_np(errno) : "-",
	       (long)handled);
	CHECK(pthread_join(th, NULL) == 0);
	return 0;
}

static int cmd_int80(void)
{
	long ret;

	/* the i386 entry: not the native architecture, so not trapped */
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(CODECTL_NR), "b"(0), "c"(0), "d"(0)
			 : "memory");
	CHECK(ret == -ENOSYS);
	return 0;
}

static int cmd_x32(void)
{
	/* the x32 bit: allowed by the filter, answered by the kernel */
	CHECK(syscall(CODECTL_NR | 0x40000000, 0, 0, 0, 0) == -1 && errno == ENOSYS);
	return 0;
}

static int cmd_fd_scan(void)
{
	char path[512], target[256];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");

	CHECK(d);
	while ((e = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		CHECK(!strstr(target, "seccomp"));	/* the listener stayed with codectl-run */
	}
	closedir(d);
	return 0;
}

/* "eexist": exec already registered this program's .sframe; "ok": it did not. */
static int cmd_self_register(const char *expect)
{
	struct code_sframe_info s = { 0 };
	int want = strcmp(expect, "eexist") ? 0 : EEXIST;
	long r;

	self_sframe(&s);
	CHECK(s.sframe_start && s.text_start);
	r = codectl(CODE_REGISTER_SFRAME, &s, sizeof(s), 0);
	CHECK(want ? r == -1 && errno == want : r == 0);
	/* the identity aspect is free either way (the split model) */
	CHECK(reg(s.text_start, s.text_end) == 0);
	return 0;
}

static int cmd_kill_during_call(int rounds)
{
	uint8_t *t = rx_area(4096);

	for (int i = 0; i < rounds; i++) {
		pid_t pid = fork();
		int status;

		CHECK(pid >= 0);
		if (pid == 0) {
			for (;;) {
				reg((uintptr_t)t, (uintptr_t)t + 64);
				unreg((uintptr_t)t);
			}
		}
		usleep(200 + (i % 7) * 150);
		kill(pid, SIGKILL);
		CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
	}
	/* the supervisor still answers */
	CHECK(reg((uintptr_t)t, (uintptr_t)t + 64) == 0);
	CHECK(unreg((uintptr_t)t) == 0);
	return 0;
}

static int cmd_vfork_exit(void)
{
	uint8_t *t = rx_area(4096);
	pid_t pid;
	int status;

	CHECK(reg((uintptr_t)t, (uintptr_t)t + 64) == 0);
	pid = vfork();
	if (pid == 0)
		_exit(reg((uintptr_t)t + 64, (uintptr_t)t + 128) ? 1 : 0);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	/* the vfork child's exit left the shared registrations alone */
	CHECK(unreg((uintptr_t)t + 64) == 0);
	CHECK(unreg((uintptr_t)t) == 0);
	return 0;
}

/* A process forking as fast as it can is killed: no task may stay stopped. */
static int cmd_fork_storm(void)
{
	pid_t storm = fork();
	int status;

	CHECK(storm >= 0);
	if (storm == 0)
		for (;;)
			if (!fork())
				_exit(0);
	usleep(200000);
	kill(storm, SIGKILL);
	CHECK(waitpid(storm, &status, 0) == storm && WIFSIGNALED(status));
	return 0;
}

static int clone_child(void *arg)
{
	uint8_t *t = arg;

	return reg((uintptr_t)t + 64, (uintptr_t)t + 128) ? 1 : 0;
}

/* clone(2) flags decide sharing, whatever event reports the child. */
static int cmd_clone_kinds(void)
{
	static char stack[64 << 10] __attribute__((aligned(16)));
	uint8_t *t = rx_area(4096);
	int status;
	pid_t pid;

	/* CLONE_VM without CLONE_THREAD: the child's registration is the parent's */
	pid = clone(clone_child, stack + sizeof(stack), CLONE_VM | SIGCHLD, t);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	CHECK(unreg((uintptr_t)t + 64) == 0);
	/* CLONE_VFORK without CLONE_VM: a copy, the parent keeps nothing of it */
	pid = clone(clone_child, stack + sizeof(stack), CLONE_VFORK | SIGCHLD, t);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	CHECK(unreg((uintptr_t)t + 64) == -1 && errno == ENOENT);
	return 0;
}

static int cmd_none(void)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < 1000000; i++)
		x += i * i;
	return x == 42;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "none";
	int a = argc > 2 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "exit"))
		return a;
	if (!strcmp(cmd, "abort"))
		abort();
	if (!strcmp(cmd, "live"))
		return cmd_live(a);
	if (!strcmp(cmd, "new-text"))
		return cmd_new_text(a);
	if (!strcmp(cmd, "threads"))
		return cmd_threads(a, b, argc > 4 ? atoi(argv[4]) : 0);
	if (!strcmp(cmd, "forks"))
		return cmd_forks(a);
	if (!strcmp(cmd, "short-children"))
		return cmd_short_children(a);
	if (!strcmp(cmd, "uffd-stall"))
		return cmd_uffd_stall(a, b);
	if (!strcmp(cmd, "exec-chain"))
		return cmd_exec_chain(argv[0], a);
	if (!strcmp(cmd, "wait-signal"))
		return cmd_wait_signal();
	if (!strcmp(cmd, "restart") && argc > 3)
		return cmd_restart(argv[2], b);
	if (!strcmp(cmd, "int80"))
		return cmd_int80();
	if (!strcmp(cmd, "x32"))
		return cmd_x32();
	if (!strcmp(cmd, "fd-scan"))
		return cmd_fd_scan();
	if (!strcmp(cmd, "self-register") && argc > 2)
		return cmd_self_register(argv[2]);
	if (!strcmp(cmd, "kill-during-call"))
		return cmd_kill_during_call(a);
	if (!strcmp(cmd, "vfork-exit"))
		return cmd_vfork_exit();
	if (!strcmp(cmd, "none"))
		return cmd_none();
	if (!strcmp(cmd, "fork-storm"))
		return cmd_fork_storm();
	if (!strcmp(cmd, "clone-kinds"))
		return cmd_clone_kinds();
	if (!strcmp(cmd, "storm") && argc > 3)
		return cmd_storm(argv[2], b);
	if (!strcmp(cmd, "read-eintr"))
		return cmd_read_eintr();
	if (!strcmp(cmd, "interrupt-once"))
		return cmd_interrupt_once();
	fprintf(stderr, "e2e_prog: unknown command %s\n", cmd);
	return 2;
}
