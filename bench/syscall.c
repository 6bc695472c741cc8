// SPDX-License-Identifier: GPL-2.0
/*
 * bench/syscall: what a registration call costs under codectl-run, measured
 * side by side in one run (median ns per call, each call timed on its own):
 *   (a) CODE_REGISTER_SFRAME of a 4 KiB section + CODE_UNREGISTER, under codectl-run;
 *   (s) sframe_register() of the same sections + sframe_unregister(), under
 *       codectl-run;
 *   (b) the codectl calls answered by a no-op seccomp-notify responder (same
 *       filter, answers 0, no work), with and without SYNC_WAKE_UP;
 *   (c) a plain system call of the same number, answered ENOSYS by the kernel.
 * Prints the ratios a/b, s/b and b/c. Usage: syscall [--quick]
 * (internally: syscall client N NSEC codectl|sframe, run as the measured program)
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <codectl.h>
#include <sframe_register.h>

#include "supervisor/calls/notify.h"
#include "tests/lib/sframe_samples.h"
#include "child.h"

struct pair_times {
	double reg;	/* median ns of the registration */
	double unreg;	/* median ns of the unregistration */
};

/* Sections the client cycles through: more than the emulator caches (8), so each is new. */
#define NSECTIONS 16

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* One registration and its unregistration, through codectl or sframe_register. */
static long reg_pair(const struct code_sframe_info *in, bool sframe, double *t1)
{
	struct sframe_setup s = { .sframe_start = in->sframe_start,
				  .sframe_size = in->sframe_end - in->sframe_start,
				  .text_start = in->text_start,
				  .text_size = in->text_end - in->text_start };
	long a;

	if (!sframe) {
		a = codectl(CODE_REGISTER_SFRAME, (void *)in, sizeof(*in), 0);
		*t1 = now_ns();
		codectl(CODE_UNREGISTER, (void *)(uintptr_t)in->text_start, 0, 0);
		return a;
	}
	a = sframe_register(&s, sizeof(s));
	*t1 = now_ns();
	s = (struct sframe_setup){ .sframe_start = in->sframe_start };
	sframe_unregister(&s, sizeof(s));
	return a;
}

/*
 * @nsec v3 sections of 4 KiB (113 functions of 16 bytes, 4 FREs each: 36 bytes
 * per function), each over its own text, registered and unregistered in turn
 * (through sframe_register with @sframe).
 */
static int client(int n, int nsec, bool sframe, struct pair_times *t)
{
	uint8_t *area = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double *r = calloc((size_t)n, sizeof(double)), *u = calloc((size_t)n, sizeof(double));
	struct code_sframe_info info[NSECTIONS];
	struct sfw_layout lay;

	if (area == MAP_FAILED || !r || !u)
		return -1;
	for (int k = 0; k < nsec; k++) {
		uint8_t *text = area + 4096 * k, *sec = area + (512 << 10) + 4096 * k;
		size_t len = sample_section(3, true, (uintptr_t)sec, (uintptr_t)text, 113, 16, sec,
					    4096, &lay);

		info[k] = (struct code_sframe_info){ .text_start = (uintptr_t)text,
						     .text_end = (uintptr_t)text + 113 * 16,
						     .sframe_start = (uintptr_t)sec,
						     .sframe_end = (uintptr_t)sec + len };
	}
	for (int i = 0; i < n; i++) {
		const struct code_sframe_info *in = &info[i % nsec];
		double t0 = now_ns(), t1, t2;
		long a = reg_pair(in, sframe, &t1);

		t2 = now_ns();
		if (a && errno != ENOSYS)
			return -1;
		r[i] = t1 - t0;
		u[i] = t2 - t1;
	}
	t->reg = median(r, n);
	t->unreg = median(u, n);
	free(r);
	free(u);
	return 0;
}

/* Answer every notification with 0 until the listener hangs up. */
static void noop_responder(int fd, bool sync)
{
	struct notifier nf;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (notifier_init(&nf, fd, sync))
		exit(1);
	while (poll(&p, 1, -1) > 0 && !(p.revents & (POLLHUP | POLLERR))) {
		if (notifier_receive(&nf))
			continue;
		if (notifier_id_valid(&nf, nf.req->id))
			notifier_respond(&nf, nf.req->id, 0);
	}
	notifier_free(&nf);
}

/* A child process; its pair_times come back through a pipe. */
static int in_child(int n, struct pair_times *t, int (*body)(int n, struct pair_times *t, void *),
		    void *arg)
{
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = bench_fork();
	if (pid == 0) {
		close(p[0]);
		_exit(body(n, t, arg) || write(p[1], t, sizeof(*t)) != sizeof(*t));
	}
	close(p[1]);
	if (pid < 0 || read(p[0], t, sizeof(*t)) != sizeof(*t)) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	waitpid(pid, &status, 0);
	return 0;
}

struct noop_arg {
	struct notify_filter f;
	bool sync;
};

/* The client under codectl-run's filter, answered by a no-op responder process. */
static int noop_body(int n, struct pair_times *t, void *arg)
{
	const struct noop_arg *a = arg;
	bool killable = true;
	int fd, err;
	pid_t responder;

	fd = notify_filter_load(&a->f, &killable);
	if (fd < 0)
		return 1;
	responder = bench_fork();
	if (responder == 0) {
		noop_responder(fd, a->sync);
		_exit(0);
	}
	close(fd);
	err = responder < 0 || client(n, NSECTIONS, false, t);
	kill(responder, SIGKILL);
	waitpid(responder, NULL, 0);
	return err;
}

static int measure_noop(int n, bool sync, struct pair_times *t)
{
	struct noop_arg a = { .sync = sync };
	struct notify_traps traps = { .nr = { CODECTL_NR }, .n = 1 };
	int err;

	if (notify_filter_build(&a.f, &traps))
		return -1;
	err = in_child(n, t, noop_body, &a);
	notify_filter_free(&a.f);
	return err;
}

static int plain_body(int n, struct pair_times *t, void *arg)
{
	(void)arg;
	return client(n, NSECTIONS, false, t);
}

/* The client run by codectl-run: its medians come back on stdout. */
static int measure_codectl_run(const char *self, int n, int nsec, const char *mode,
			       struct pair_times *t)
{
	char cmd[1024];
	FILE *f;
	int ok;

	snprintf(cmd, sizeof(cmd), "%s -q -- %s client %d %d %s", CODECTL_RUN, self, n, nsec, mode);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "reg %lf unreg %lf", &t->reg, &t->unreg) == 2;
	return pclose(f) == 0 && ok ? 0 : -1;
}

enum { CFG_A, CFG_AW, CFG_S, CFG_B, CFG_BS, CFG_C, NCFG };

static void pin_to_one_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		return;
	}
}

/* One round of every configuration, @n calls each. */
static int round_all(const char *self, int n, struct pair_times *t)
{
	return measure_codectl_run(self, n, NSECTIONS, "codectl", &t[CFG_A]) ||
	       measure_codectl_run(self, n, 1, "codectl", &t[CFG_AW]) ||
	       measure_codectl_run(self, n, NSECTIONS, "sframe", &t[CFG_S]) ||
	       measure_noop(n, false, &t[CFG_B]) ||
	       measure_noop(n, true, &t[CFG_BS]) || in_child(n, &t[CFG_C], plain_body, NULL);
}

/* The median over the rounds of each configuration's medians. */
static void combine(struct pair_times rounds[][NCFG], int nrounds, struct pair_times *out)
{
	double r[16], u[16];

	for (int c = 0; c < NCFG; c++) {
		for (int k = 0; k < nrounds; k++) {
			r[k] = rounds[k][c].reg;
			u[k] = rounds[k][c].unreg;
		}
		out[c].reg = median(r, nrounds);
		out[c].unreg = median(u, nrounds);
	}
}

static void print_row(const char *what, const struct pair_times *t)
{
	printf("  %-52s %9.0f %9.0f\n", what, t->reg, t->unreg);
}

static void print_ratio(const char *what, const struct pair_times *x, const struct pair_times *y)
{
	printf("  %-52s %9.2f %9.2f\n", what, x->reg / y->reg, x->unreg / y->unreg);
}

int main(int argc, char **argv)
{
	struct pair_times rounds[16][NCFG], t[NCFG], unpinned[16][NCFG], u[NCFG];
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	int nrounds = quick ? 3 : 7, n = quick ? 300 : 1000;

	if (argc > 4 && !strcmp(argv[1], "client")) {
		if (client(atoi(argv[2]), atoi(argv[3]), !strcmp(argv[4], "sframe"), &t[0]))
			return 1;
		printf("reg %.1f unreg %.1f\n", t[0].reg, t[0].unreg);
		return 0;
	}
	/* sync wake-up matters when the two sides may run on different CPUs */
	for (int k = 0; k < nrounds; k++)
		if (measure_noop(n, false, &unpinned[k][CFG_B]) ||
		    measure_noop(n, true, &unpinned[k][CFG_BS]) ||
		    in_child(n, &unpinned[k][CFG_C], plain_body, NULL) ||
		    measure_codectl_run(argv[0], n, NSECTIONS, "codectl", &unpinned[k][CFG_A]) ||
		    measure_codectl_run(argv[0], n, 1, "codectl", &unpinned[k][CFG_AW]) ||
		    measure_codectl_run(argv[0], n, NSECTIONS, "sframe", &unpinned[k][CFG_S]))
			return 1;
	combine(unpinned, nrounds, u);
	/*
	 * Every process of the measurement runs on one CPU (the affinity is
	 * inherited): the supervisor/tracee placement, not our work, otherwise
	 * decides a round trip. Rounds interleave the configurations, so drift
	 * of the machine hits them alike.
	 */
	pin_to_one_cpu();
	for (int k = 0; k < nrounds; k++) {
		if (round_all(argv[0], n, rounds[k])) {
			fprintf(stderr, "bench/syscall: a measurement failed\n");
			return 1;
		}
	}
	combine(rounds, nrounds, t);
	printf("bench/syscall: median ns per call (median of %d rounds of %d calls), all on one CPU\n",
	       nrounds, n);
	printf("  %-52s %9s %9s\n", "", "register", "unregister");
	print_row("(a) codectl-run, 4 KiB v3 section, each one new", &t[CFG_A]);
	print_row("(a') codectl-run, the same section again (cached)", &t[CFG_AW]);
	print_row("(s) codectl-run, sframe_register/unregister, each new", &t[CFG_S]);
	print_row("(b) no-op notify responder, SYNC_WAKE_UP", &t[CFG_BS]);
	print_row("(b') no-op notify responder, no SYNC_WAKE_UP", &t[CFG_B]);
	print_row("(c) plain syscall, ENOSYS from the kernel", &t[CFG_C]);
	print_ratio("ratio a/b  (target <= 1.5)", &t[CFG_A], &t[CFG_BS]);
	print_ratio("ratio a'/b", &t[CFG_AW], &t[CFG_BS]);
	print_ratio("ratio s/b", &t[CFG_S], &t[CFG_BS]);
	print_ratio("ratio s/a", &t[CFG_S], &t[CFG_A]);
	print_ratio("ratio b/c", &t[CFG_BS], &t[CFG_C]);
	printf("  unpinned (the scheduler places the two sides):\n");
	print_row("(a) codectl-run, each section new", &u[CFG_A]);
	print_row("(s) codectl-run, sframe_register, each new", &u[CFG_S]);
	print_row("(b) no-op notify responder, SYNC_WAKE_UP", &u[CFG_BS]);
	print_row("(b') no-op notify responder, no SYNC_WAKE_UP", &u[CFG_B]);
	print_ratio("ratio a/b", &u[CFG_A], &u[CFG_BS]);
	print_ratio("sync wake-up gain: b'/b", &u[CFG_B], &u[CFG_BS]);
	return 0;
}
