// SPDX-License-Identifier: GPL-2.0
/*
 * bench/syscall: what a registration call costs under codectl-run, measured
 * side by side in one run (median ns per call, each call timed on its own):
 *   (a) CODE_REGISTER_SFRAME of a 4 KiB section + CODE_UNREGISTER, under codectl-run;
 *   (s) sframe_register() of the same sections + sframe_unregister(), under
 *       codectl-run;
 *   (a0) (a) under codectl-run -F 0: the call path without sampling;
 *   (b) the codectl calls answered by a no-op seccomp-notify responder (same
 *       filter, answers 0, no work), with and without SYNC_WAKE_UP;
 *   (b+) (b) with the caller sampled as codectl-run samples it (its perf
 *       events, records read and dropped): what sampling adds to any
 *       responder, the kernel's sampling timer being stopped and started
 *       at each switch between the sampled caller and the responder;
 *   (f) the floor: a responder that reads what every registration must
 *       read (the struct, then the section it names; process_vm_readv) and
 *       answers 0, with no check;
 *   (c) a plain system call of the same number, answered ENOSYS by the kernel.
 * Prints the ratios a/b (issue 22's target: <= 1.3), the parts of it, and b/c.
 * Usage: syscall [--quick]
 * (internally: syscall client N NSEC codectl|sframe, run as the measured program)
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <linux/perf_event.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <codectl.h>
#include <sframe_register.h>

#include "supervisor/calls/notify.h"
#include "supervisor/sample/ring.h"
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

static void drop_record(void *ctx, const struct ring_record *rec)
{
	(void)ctx;
	(void)rec;
}

/*
 * @nsec v3 sections of 4 KiB (113 functions of 16 bytes, 4 FREs each: 36 bytes
 * per function), each over its own text, registered and unregistered in turn
 * (through sframe_register with @sframe); with @ring (the caller's own
 * sample buffers), its records are drained between calls, untimed.
 */
static int client(int n, int nsec, bool sframe, struct pair_times *t, struct sample_ring *ring)
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
		if (ring)
			ring_drain(ring, drop_record, NULL);
	}
	t->reg = median(r, n);
	t->unreg = median(u, n);
	free(r);
	free(u);
	return 0;
}

/* The responders beside codectl-run: see the top of this file. */
enum noop_kind { NOOP, NOOP_SAMPLED, FLOOR };

/* The most floor_reads() reads of a section. */
#define FLOOR_SECTION_MAX (64u << 10)

/*
 * What every CODE_REGISTER_SFRAME of @req must read at least: the struct,
 * then the section it names (up to FLOOR_SECTION_MAX bytes into @sec). No
 * check of either. Return: 0, or -EIO when a read failed (the caller is
 * answered so, and the measurement fails: a floor without its reads would
 * be no floor).
 */
static int floor_reads(const struct seccomp_notif *req, uint8_t *sec)
{
	struct code_sframe_info in;
	struct iovec l = { &in, sizeof(in) }, r = { (void *)req->data.args[1], sizeof(in) };
	size_t len;

	if (req->data.args[0] != CODE_REGISTER_SFRAME)
		return 0;
	if (process_vm_readv(req->pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof(in))
		return -EIO;
	len = in.sframe_end - in.sframe_start;
	l = (struct iovec){ sec, len < FLOOR_SECTION_MAX ? len : FLOOR_SECTION_MAX };
	r = (struct iovec){ (void *)in.sframe_start, l.iov_len };
	return process_vm_readv(req->pid, &l, 1, &r, 1, 0) == (ssize_t)l.iov_len ? 0 : -EIO;
}

/* Answer every notification with 0 until the listener hangs up. */
static void noop_responder(int fd, bool sync, enum noop_kind kind)
{
	uint8_t *sec = malloc(FLOOR_SECTION_MAX);
	struct notifier nf;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (!sec || notifier_init(&nf, fd, sync))
		exit(1);
	while (poll(&p, 1, -1) > 0 && !(p.revents & (POLLHUP | POLLERR))) {
		int err;

		if (notifier_receive(&nf))
			continue;
		err = kind == FLOOR ? floor_reads(nf.req, sec) : 0;
		if (notifier_id_valid(&nf, nf.req->id))
			notifier_respond(&nf, nf.req->id, err);
	}
	notifier_free(&nf);
	free(sec);
}

/*
 * The calling process sampled as codectl-run samples a program (ring.h: its
 * events, OPTS_DEFAULT_FREQ, a 64 KiB stack per record), from now on.
 */
static int sample_self(struct sample_ring *ring)
{
	if (ring_open(ring, getpid(), 1000000000ull / 999, 64 << 10))
		return -1;
	for (unsigned int i = 0; i < ring->ncpu; i++)
		if (ring->fd[i] >= 0 && ioctl(ring->fd[i], PERF_EVENT_IOC_ENABLE, 0))
			return -1;
	return 0;
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
	enum noop_kind kind;
};

/* The client under codectl-run's filter, answered by a no-op responder process. */
static int noop_body(int n, struct pair_times *t, void *arg)
{
	const struct noop_arg *a = arg;
	struct sample_ring ring = { 0 };
	bool killable = true;
	int fd, err;
	pid_t responder;

	fd = notify_filter_load(&a->f, &killable);
	if (fd < 0)
		return 1;
	responder = bench_fork();
	if (responder == 0) {
		noop_responder(fd, a->sync, a->kind);
		_exit(0);
	}
	close(fd);
	/* the floor's responder reads its parent: Yama's ptrace_scope 1, where on, must be told */
	if (a->kind == FLOOR && responder > 0)
		prctl(PR_SET_PTRACER, responder);
	if (a->kind == NOOP_SAMPLED && responder > 0 && sample_self(&ring)) {
		/* no perf events here (perf_event_paranoid, a container): (b+) is n/a */
		*t = (struct pair_times){ NAN, NAN };
		err = 0;
	} else {
		err = responder < 0 ||
		      client(n, NSECTIONS, false, t, a->kind == NOOP_SAMPLED ? &ring : NULL);
	}
	ring_close(&ring);
	kill(responder, SIGKILL);
	waitpid(responder, NULL, 0);
	return err;
}

static int measure_noop(int n, bool sync, enum noop_kind kind, struct pair_times *t)
{
	struct noop_arg a = { .sync = sync, .kind = kind };
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
	return client(n, NSECTIONS, false, t, NULL);
}

/* The client run by codectl-run @opts: its medians come back on stdout. */
static int measure_codectl_run(const char *self, const char *opts, int n, int nsec,
			       const char *mode, struct pair_times *t)
{
	char cmd[1024];
	FILE *f;
	int ok;

	snprintf(cmd, sizeof(cmd), "%s -q %s -- %s client %d %d %s", CODECTL_RUN, opts, self, n,
		 nsec, mode);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "reg %lf unreg %lf", &t->reg, &t->unreg) == 2;
	return pclose(f) == 0 && ok ? 0 : -1;
}

enum { CFG_A, CFG_A0, CFG_AW, CFG_S, CFG_B, CFG_BS, CFG_BP, CFG_F, CFG_C, NCFG };

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
	return measure_codectl_run(self, "", n, NSECTIONS, "codectl", &t[CFG_A]) ||
	       measure_codectl_run(self, "-F 0", n, NSECTIONS, "codectl", &t[CFG_A0]) ||
	       measure_codectl_run(self, "", n, 1, "codectl", &t[CFG_AW]) ||
	       measure_codectl_run(self, "", n, NSECTIONS, "sframe", &t[CFG_S]) ||
	       measure_noop(n, false, NOOP, &t[CFG_B]) ||
	       measure_noop(n, true, NOOP, &t[CFG_BS]) ||
	       measure_noop(n, true, NOOP_SAMPLED, &t[CFG_BP]) ||
	       measure_noop(n, true, FLOOR, &t[CFG_F]) ||
	       in_child(n, &t[CFG_C], plain_body, NULL);
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

/* NaN (a row that could not be measured) printed as n/a. */
static void print_pair(const char *what, double reg, double unreg, int decimals)
{
	printf("  %-52s", what);
	for (int i = 0; i < 2; i++) {
		double v = i ? unreg : reg;

		if (isnan(v))
			printf(" %9s", "n/a");
		else
			printf(" %9.*f", decimals, v);
	}
	printf("\n");
}

static void print_row(const char *what, const struct pair_times *t)
{
	print_pair(what, t->reg, t->unreg, 0);
}

static void print_ratio(const char *what, const struct pair_times *x, const struct pair_times *y)
{
	print_pair(what, x->reg / y->reg, x->unreg / y->unreg, 2);
}

/* Every configuration's medians and the ratios that tell the cost apart. */
static void print_table(const struct pair_times *t)
{
	printf("  %-52s %9s %9s\n", "", "register", "unregister");
	print_row("(a) codectl-run, 4 KiB v3 section, each one new", &t[CFG_A]);
	print_row("(a0) codectl-run -F 0 (no sampling), each new", &t[CFG_A0]);
	print_row("(a') codectl-run, the same section again (cached)", &t[CFG_AW]);
	print_row("(s) codectl-run, sframe_register/unregister, each new", &t[CFG_S]);
	print_row("(b) no-op notify responder, SYNC_WAKE_UP", &t[CFG_BS]);
	print_row("(b') no-op notify responder, no SYNC_WAKE_UP", &t[CFG_B]);
	print_row("(b+) (b), the caller sampled as codectl-run does", &t[CFG_BP]);
	print_row("(f) floor: (b) + reading the struct and the section", &t[CFG_F]);
	print_row("(c) plain syscall, ENOSYS from the kernel", &t[CFG_C]);
	print_ratio("ratio a/b  (target <= 1.3)", &t[CFG_A], &t[CFG_BS]);
	print_ratio("ratio a0/b (the call path, no sampling)", &t[CFG_A0], &t[CFG_BS]);
	print_ratio("ratio b+/b (sampling the caller, any responder)", &t[CFG_BP], &t[CFG_BS]);
	print_ratio("ratio a/b+ (both sampled)", &t[CFG_A], &t[CFG_BP]);
	print_ratio("ratio f/b  (the floor: two reads, no check)", &t[CFG_F], &t[CFG_BS]);
	print_ratio("ratio a0/f (codectl-run's own work)", &t[CFG_A0], &t[CFG_F]);
	print_ratio("ratio a'/b", &t[CFG_AW], &t[CFG_BS]);
	print_ratio("ratio s/b", &t[CFG_S], &t[CFG_BS]);
	print_ratio("ratio s/a", &t[CFG_S], &t[CFG_A]);
	print_ratio("ratio b/c", &t[CFG_BS], &t[CFG_C]);
	print_ratio("sync wake-up gain: b'/b", &t[CFG_B], &t[CFG_BS]);
}

int main(int argc, char **argv)
{
	struct pair_times rounds[16][NCFG], t[NCFG], unpinned[16][NCFG], u[NCFG];
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	int nrounds = quick ? 3 : 7, n = quick ? 300 : 1000;

	if (argc > 4 && !strcmp(argv[1], "client")) {
		if (client(atoi(argv[2]), atoi(argv[3]), !strcmp(argv[4], "sframe"), &t[0], NULL))
			return 1;
		printf("reg %.1f unreg %.1f\n", t[0].reg, t[0].unreg);
		return 0;
	}
	/* sync wake-up matters when the two sides may run on different CPUs */
	for (int k = 0; k < nrounds; k++)
		if (round_all(argv[0], n, unpinned[k]))
			goto failed;
	combine(unpinned, nrounds, u);
	/*
	 * Every process of the measurement runs on one CPU (the affinity is
	 * inherited): the supervisor/tracee placement, not our work, otherwise
	 * decides a round trip. Rounds interleave the configurations, so drift
	 * of the machine hits them alike.
	 */
	pin_to_one_cpu();
	for (int k = 0; k < nrounds; k++)
		if (round_all(argv[0], n, rounds[k]))
			goto failed;
	combine(rounds, nrounds, t);
	printf("bench/syscall: median ns per call (median of %d rounds of %d calls), all on one CPU\n",
	       nrounds, n);
	print_table(t);
	printf("  unpinned (the scheduler places the two sides):\n");
	print_table(u);
	return 0;
failed:
	fprintf(stderr, "bench/syscall: a measurement failed\n");
	return 1;
}
