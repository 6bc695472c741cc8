// SPDX-License-Identifier: GPL-2.0
/*
 * bench/sample: what sampling costs, measured side by side in one run.
 *   1. On identical samples (a child of this program, stopped 200 times at
 *      random points of a deep recursion, registers and 64 KiB of stack
 *      copied): ns per sample of our unwind and of libunwind's remote unwind
 *      (cache warm), as shipped (two signal-mask system calls per step; in a
 *      run of this program with CODECTL_LIBUNWIND_SIGMASK=libunwind) and as
 *      codectl-run runs it (those calls answered in the process:
 *      supervisor/oracle/libunwind_sigmask.c, linked in here too), and the
 *      ratio of the shipped one to ours (target >= 20); the
 *      frame-plausibility oracle's judgement of our frames, cold and warm.
 *   2. A CPU-bound thread blocking every signal (as xz -T2's workers): its
 *      own CPU time for the same work, alone, under perf record -F 999
 *      --call-graph dwarf (its 8 KiB stack copy, and 64 KiB as ours), and
 *      under codectl-run at 999 Hz with the ring sampler and the stop sampler,
 *      each with the cross-check on and off (rounds alternate the ways; each
 *      run's time over its round's time alone, the median of those): the
 *      slowdown of each against alone, and the thread's samples per CPU
 *      second, with the targets (ring <= 1.5x perf's slowdown and <= 3 %,
 *      stop <= 6 %).
 *   3. The program's own ITIMER_PROF ticks per CPU second, alone and under
 *      codectl-run, over three times the work (~200 ticks: one tick is
 *      0.5 %), the median of each round's ratio (target: within 2 %; the
 *      kernel charges that clock by scheduler tick, so a loaded machine
 *      skews it, alone too).
 * Usage: sample [--quick]     (sample --work N, --ticks N: the targets themselves;
 *                              sample --libunwind-ns: part 1's libunwind figure alone)
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emu/emu.h"
#include "supervisor/oracle/oracle.h"
#include "supervisor/oracle/plausible.h"
#include "supervisor/sample/code_cache.h"
#include "supervisor/sample/sample_mem.h"
#include "supervisor/core/procfs.h"
#include "supervisor/trace/remote_mem.h"
#include "tests/lib/self_sframe.h"
#include "child.h"

#define NSAMPLES 200
#define MAX_FRAMES 128
#define STACK_BYTES (64u << 10)

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The target: recursion 60 deep through three shapes of frame, then a spin. */
static unsigned long recurse(unsigned long n, unsigned long spin);

__attribute__((noinline, noclone)) static unsigned long leaf(unsigned long spin)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < spin; i++)
		x += i ^ (x >> 3);
	return x;
}

__attribute__((noinline, noclone)) static unsigned long with_alloca(unsigned long n,
								     unsigned long spin)
{
	volatile char *p = __builtin_alloca(n * 8 + 16);

	p[0] = (char)n;
	return recurse(n - 1, spin) + (unsigned long)p[0];
}

__attribute__((noinline, noclone)) static unsigned long with_locals(unsigned long n,
								     unsigned long spin)
{
	volatile unsigned long v[16];

	v[n % 16] = n;
	return recurse(n - 1, spin) + v[n % 16];
}

__attribute__((noinline, noclone)) static unsigned long recurse(unsigned long n,
								 unsigned long spin)
{
	unsigned long r;

	if (!n)
		return leaf(spin);
	r = n % 3 ? with_locals(n, spin) : with_alloca(n, spin);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

static unsigned long work(unsigned long rounds)
{
	unsigned long sum = 0;

	for (unsigned long i = 0; i < rounds; i++)
		sum += recurse(20 + i % 40, 20000);
	return sum;
}

struct captured {
	struct sample smp;
	uint8_t stack[STACK_BYTES + SAMPLE_RED_ZONE];
};

struct bench {
	pid_t child;
	struct code_cache *code;	/* the child's code pages, as codectl-run keeps them */
	struct emu_mappings maps;
	struct captured *samples;
	struct emu_registry *registry;
	struct remote_mem self;
	struct emu_accessor self_mem;
	unsigned int reps;
};

/* The child is a fork: our own .sframe, at our own addresses, describes it. */
static int register_exe(struct bench *b)
{
	struct code_sframe_info exe = { 0 };
	struct emu_mappings maps = { 0 };
	struct emu_space sp = { .registry = b->registry, .mem = &b->self_mem, .maps = &maps };
	struct emu_policy p = emu_policy_default();
	struct emu_call_result res;
	int err;

	self_sframe(&exe);
	if (!exe.sframe_start || procfs_maps_read(getpid(), &maps))
		return -1;
	err = emu_register_exec_sframe(&p, &sp, &exe, &res);
	emu_mappings_free(&maps);
	return err;
}

static void capture_one(struct bench *b, struct captured *c)
{
	struct sample *s = &c->smp;
	struct iovec local, remote;
	ssize_t n;

	s->tid = s->tgid = b->child;
	s->taken_ns = (uint64_t)now_ns();
	s->stack = c->stack;
	ptrace(PTRACE_GETREGS, b->child, 0, &s->regs);
	sample_set_dwarf_regs(s);
	s->stack_start = s->regs.rsp - SAMPLE_RED_ZONE;
	local = (struct iovec){ .iov_base = c->stack, .iov_len = sizeof(c->stack) };
	remote = (struct iovec){ .iov_base = (void *)(uintptr_t)s->stack_start,
				 .iov_len = sizeof(c->stack) };
	n = process_vm_readv(b->child, &local, 1, &remote, 1, 0);
	s->stack_len = n > 0 ? (size_t)n : 0;
}

/* Stop the child NSAMPLES times at pseudo-random moments and copy it. */
static int capture_all(struct bench *b)
{
	int status;

	b->child = bench_fork();
	if (b->child == 0) {
		for (;;)
			work(1000000);
	}
	if (b->child < 0 || ptrace(PTRACE_SEIZE, b->child, 0, 0))
		return -1;
	for (int i = 0; i < NSAMPLES; i++) {
		usleep(200 + (unsigned int)(i * 7919) % 900);
		ptrace(PTRACE_INTERRUPT, b->child, 0, 0);
		if (waitpid(b->child, &status, __WALL) != b->child || !WIFSTOPPED(status))
			return -1;
		capture_one(b, &b->samples[i]);
		ptrace(PTRACE_CONT, b->child, 0, 0);
	}
	ptrace(PTRACE_INTERRUPT, b->child, 0, 0);	/* stays stopped while we unwind */
	waitpid(b->child, &status, __WALL);
	return 0;
}

static double time_ours(struct bench *b, unsigned long *frames)
{
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = MAX_FRAMES };
	static struct sample_mem mem;
	struct emu_frame f[MAX_FRAMES];
	struct emu_unwind_result res;
	double t0 = now_ns();

	*frames = 0;
	for (unsigned int rep = 0; rep < b->reps; rep++) {
		for (int i = 0; i < NSAMPLES; i++) {
			const struct sample *s = &b->samples[i].smp;
			struct emu_regs r = { .ip = s->regs.rip, .sp = s->regs.rsp,
					      .fp = s->regs.rbp };
			struct emu_accessor acc;

			sample_mem_init(&mem, s, b->code, &b->maps);
			acc = sample_mem_accessor(&mem);
			emu_unwind(b->registry, &acc, &r, &o, f, &res);
			*frames += res.nframes;
		}
	}
	return (now_ns() - t0) / ((double)b->reps * NSAMPLES);
}

/* libunwind, the oracle codectl-run cross-checks with, on the same samples. */
static double time_libunwind(struct bench *b, struct oracles *ref, unsigned int reps,
			     unsigned long *frames)
{
	static struct sample_mem mem;
	struct oracle_walker walker = { 0 };
	uint64_t ips[MAX_FRAMES];
	double t0 = now_ns();

	*frames = 0;
	for (unsigned int rep = 0; rep < reps; rep++) {
		for (int i = 0; i < NSAMPLES; i++) {
			const struct sample *s = &b->samples[i].smp;
			struct emu_accessor acc;
			struct oracle_input in = { .tid = s->tid, .regs = s->dwarf, .mem = &acc,
						   .registry = b->registry, .walker = &walker,
						   .taken_ns = s->taken_ns };
			struct oracle_walk w = { .ips = ips, .max = MAX_FRAMES };

			sample_mem_init(&mem, s, b->code, &b->maps);
			acc = sample_mem_accessor(&mem);
			oracles_walk(ref, ORACLE_LIBUNWIND, &in, &w);
			*frames += w.n;
		}
	}
	return (now_ns() - t0) / ((double)reps * NSAMPLES);
}

/*
 * The frame-plausibility oracle on our walks of the same samples (the walks
 * not timed): one pass with a new oracle (*@cold), then passes with its
 * cache warm, as codectl-run judges every walk. ns per sample.
 */
static int time_plausible(struct bench *b, double *cold, double *warm)
{
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = MAX_FRAMES };
	struct plausibility *p = plausibility_new();
	static struct sample_mem mem;
	struct emu_frame f[MAX_FRAMES];
	uint64_t ips[MAX_FRAMES];
	uint8_t flags[MAX_FRAMES], out[MAX_FRAMES];
	struct emu_unwind_result res;
	struct symbols sym;
	double spent = 0, t0;

	symbols_init(&sym, b->child);
	if (!p)
		return -1;
	for (unsigned int rep = 0; rep <= b->reps / 10 + 1; rep++) {
		if (rep == 1) {
			*cold = spent / NSAMPLES;
			spent = 0;
		}
		for (int i = 0; i < NSAMPLES; i++) {
			const struct sample *s = &b->samples[i].smp;
			struct emu_regs r = { .ip = s->regs.rip, .sp = s->regs.rsp,
					      .fp = s->regs.rbp };
			struct emu_accessor acc;
			struct plausible_env env = { .maps = &b->maps, .registry = b->registry,
						     .mem = &acc, .function = symbols_function,
						     .ctx = &sym };

			sample_mem_init(&mem, s, b->code, &b->maps);
			acc = sample_mem_accessor(&mem);
			emu_unwind(b->registry, &acc, &r, &o, f, &res);
			for (unsigned int k = 0; k < res.nframes; k++) {
				ips[k] = f[k].ip;
				flags[k] = f[k].flags;
			}
			symbols_new_sample(&sym, s->taken_ns);
			t0 = now_ns();
			plausibility_judge(p, &env, ips, flags, res.nframes, out);
			spent += now_ns() - t0;
		}
	}
	*warm = spent / ((double)(b->reps / 10 + 1) * NSAMPLES);
	plausibility_free(p);
	symbols_free(&sym);
	return 0;
}

/* libunwind as shipped: this program again, its signal masks set (ns per sample, < 0: failed). */
static double libunwind_shipped_ns(const char *self)
{
	char cmd[4200], line[128];
	double ns = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "CODECTL_LIBUNWIND_SIGMASK=libunwind '%s' --libunwind-ns", self);
	p = popen(cmd, "r");
	if (p && fgets(line, sizeof(line), p))
		ns = strtod(line, NULL);
	if (p)
		pclose(p);
	return ns > 0 ? ns : -1;
}

static int part_identical(struct bench *b, const char *self)
{
	struct oracles *ref = NULL;
	unsigned long fo, fl;
	double ours, lu, shipped = -1, pl_cold = 0, pl_warm = 0;

	if (capture_all(b) || !(b->code = code_cache_new(b->child)) ||
	    procfs_maps_read(b->child, &b->maps) || register_exe(b) ||
	    !(ref = oracles_new(b->child, true)) || !oracles_ready(ref, ORACLE_LIBUNWIND)) {
		fprintf(stderr, "bench/sample: cannot capture samples: %s\n", strerror(errno));
		return -1;
	}
	time_libunwind(b, ref, 1, &fl);	/* warm libunwind's cache */
	lu = time_libunwind(b, ref, b->reps / 10 + 1, &fl);
	if (!self) {
		printf("%.0f\n", lu);
		goto out;
	}
	shipped = libunwind_shipped_ns(self);
	ours = time_ours(b, &fo);
	if (time_plausible(b, &pl_cold, &pl_warm)) {
		fprintf(stderr, "bench/sample: cannot judge the samples\n");
		return -1;
	}
	printf("1. identical samples (%d stops of a 20-60 deep recursion, %.1f frames each):\n",
	       NSAMPLES, (double)fo / ((double)b->reps * NSAMPLES));
	printf("   our unwind                        %10.0f ns/sample\n", ours);
	printf("   libunwind remote, as shipped      %10.0f ns/sample (cache warm; its signal "
	       "masks set: two system calls a step)\n", shipped);
	printf("   libunwind remote, in codectl-run  %10.0f ns/sample (%.1f frames each, cache "
	       "warm; its masks answered in the process)\n", lu,
	       (double)fl / ((double)(b->reps / 10 + 1) * NSAMPLES));
	printf("   ratio libunwind as shipped/ours %.1f (target >= 20); in codectl-run/ours %.1f\n",
	       shipped / ours, lu / ours);
	printf("   plausibility of our frames: %.0f ns/sample with a new oracle, %.0f ns/sample "
	       "with its cache warm (%.2f x our unwind)\n", pl_cold, pl_warm, pl_warm / ours);
out:
	oracles_free(ref);
	kill(b->child, SIGKILL);
	waitpid(b->child, NULL, __WALL);
	code_cache_free(b->code);
	emu_mappings_free(&b->maps);
	return 0;
}

/*
 * The targets. sample --work ROUNDS: one thread doing ROUNDS of work with
 * every signal blocked (as xz -T2's workers run); one line on stderr,
 * "work: tid TID S S" (its CPU seconds in the work, and in its whole life).
 * sample --ticks ROUNDS: the same work while the program counts its own
 * ITIMER_PROF ticks (10 ms of its CPU time each): "ticks: TICKS, cpu S".
 * One thread leaves the other CPU of a two-CPU machine to the sampler.
 */
static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

static double cpu_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int target(unsigned long rounds)
{
	double t0;
	unsigned long sum;
	sigset_t all;

	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, NULL))
		return 1;
	t0 = cpu_of(CLOCK_THREAD_CPUTIME_ID);
	sum = work(rounds);
	fprintf(stderr, "work: tid %d %.6f %.6f (%lu)\n", (int)gettid(),
		cpu_of(CLOCK_THREAD_CPUTIME_ID) - t0, cpu_of(CLOCK_THREAD_CPUTIME_ID), sum);
	return 0;
}

static int ticks_target(unsigned long rounds)
{
	struct itimerval on = { { 0, 10000 }, { 0, 10000 } }, off = { 0 };
	struct sigaction sa = { .sa_handler = on_tick, .sa_flags = SA_RESTART };
	unsigned long sum;

	if (sigaction(SIGPROF, &sa, NULL) || setitimer(ITIMER_PROF, &on, NULL))
		return 1;
	sum = work(rounds);
	setitimer(ITIMER_PROF, &off, NULL);
	fprintf(stderr, "ticks: %d, cpu %.6f (%lu)\n", (int)ticks,
		cpu_of(CLOCK_PROCESS_CPUTIME_ID), sum);
	return 0;
}

/* One run of a target: its own measures, and its thread's samples. */
struct timing {
	double cpu;		/* the work's CPU seconds (--work) */
	double ticks;		/* ITIMER_PROF ticks per CPU second (--ticks) */
	pid_t tid;
	double life;		/* the thread's CPU seconds, all its life */
	long samples;		/* samples taken of it (-1: not known) */
};

/* The target's line ("work:" or "ticks:") from @path. */
static int read_target_line(const char *path, struct timing *t)
{
	FILE *f = fopen(path, "r");
	int n = 0, tid, tk;
	double cpu;
	char line[512];

	*t = (struct timing){ .samples = -1 };
	while (f && fgets(line, sizeof(line), f) && n != 3 && n != 2) {
		n = sscanf(line, "work: tid %d %lf %lf", &tid, &t->cpu, &t->life);
		if (n != 3)
			n = sscanf(line, "ticks: %d, cpu %lf", &tk, &cpu) == 2 ? 2 : 0;
	}
	if (f)
		fclose(f);
	if (n == 2)
		t->ticks = tk / cpu;
	t->tid = n == 3 ? tid : 0;
	return n == 2 || n == 3 ? 0 : -1;
}

/* Samples of the thread: codectl-run's JSON "threads", or perf script's TIDs. */
static void count_samples(const char *json_path, const char *perf_data, struct timing *t)
{
	json_t *j = json_path ? json_load_file(json_path, 0, NULL) : NULL, *th;
	char cmd[512], line[64];
	size_t i;
	FILE *p;

	json_array_foreach(json_object_get(j, "threads"), i, th)
		if (json_integer_value(json_object_get(th, "tid")) == t->tid)
			t->samples = json_integer_value(json_object_get(th, "taken"));
	json_decref(j);
	if (!perf_data)
		return;
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F tid 2>/dev/null", perf_data);
	p = popen(cmd, "r");
	t->samples = 0;
	while (p && fgets(line, sizeof(line), p))
		t->samples += atoi(line) == t->tid;
	if (p)
		pclose(p);
}

/* One run of @argv (execvp), the target's line read from its standard error. */
static int run_timed(char *const argv[], const char *json_path, const char *perf_data,
		     struct timing *t)
{
	char err_path[] = "/tmp/bench-sample-err-XXXXXX";
	int err_fd = mkstemp(err_path), status, ret = -1;
	pid_t pid;

	if (err_fd < 0)
		return -1;
	pid = bench_fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(err_fd, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(err_fd);
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    !WEXITSTATUS(status) && !read_target_line(err_path, t)) {
		count_samples(json_path, perf_data, t);
		ret = 0;
	}
	unlink(err_path);
	return ret;
}

/* The ways the target is run, side by side. */
enum config { ALONE, PERF, PERF_64K, RING, RING_OFF, STOP, STOP_OFF, TICKS_ALONE, TICKS_RING,
	      NCONFIG };

static const char *const config_name[NCONFIG] = {
	[ALONE] = "alone",
	[PERF] = "perf record -F 999 --call-graph dwarf",
	[PERF_64K] = "  the same, dwarf,65528 (our stack copy)",
	[RING] = "codectl-run (ring)",
	[RING_OFF] = "codectl-run (ring) --no-crosscheck",
	[STOP] = "codectl-run --sampler stop",
	[STOP_OFF] = "codectl-run --sampler stop --no-crosscheck",
	[TICKS_ALONE] = "ITIMER_PROF alone",
	[TICKS_RING] = "ITIMER_PROF under codectl-run (ring)",
};

/*
 * @c's command line for the target doing @rounds (@ticks_rounds counting
 * its ticks); NULL-terminated in @argv.
 */
static void config_argv(enum config c, const char *self, const char *rounds,
			const char *ticks_rounds, const char *json, const char *perf_data,
			const char *argv[24])
{
	size_t n = 0;

	if (c == PERF || c == PERF_64K) {
		static const char *const perf[] = { "perf", "record", "-q", "-F", "999",
						    "--call-graph" };

		for (size_t i = 0; i < sizeof(perf) / sizeof(perf[0]); i++)
			argv[n++] = perf[i];
		argv[n++] = c == PERF ? "dwarf" : "dwarf,65528";
		argv[n++] = "-o";
		argv[n++] = perf_data;
		argv[n++] = "--";
	} else if (c != ALONE && c != TICKS_ALONE) {
		argv[n++] = CODECTL_RUN;
		argv[n++] = "-q";
		argv[n++] = "--freq";
		argv[n++] = "999";
		argv[n++] = "--json";
		argv[n++] = json;
		if (c == STOP || c == STOP_OFF) {
			argv[n++] = "--sampler";
			argv[n++] = "stop";
		}
		if (c == RING_OFF || c == STOP_OFF)
			argv[n++] = "--no-crosscheck";
		argv[n++] = "--";
	}
	argv[n++] = self;
	argv[n++] = c >= TICKS_ALONE ? "--ticks" : "--work";
	argv[n++] = c >= TICKS_ALONE ? ticks_rounds : rounds;
	argv[n] = NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAX_ROUNDS 9
#define ROUNDS 7

/* What the rounds measured of one configuration. */
struct config_result {
	int n;
	double cpu[MAX_ROUNDS];
	double ticks[MAX_ROUNDS];
	double rate[MAX_ROUNDS];	/* samples per CPU second of the thread */
};

static void record(struct config_result *r, const struct timing *t)
{
	r->cpu[r->n] = t->cpu;
	r->ticks[r->n] = t->ticks;
	r->rate[r->n] = t->samples < 0 ? -1 : t->samples / t->life;
	r->n++;
}

/* Does perf (from $PATH) record here? */
static bool perf_works(const char *perf_data)
{
	char *const argv[] = { "perf", "record", "-q", "-o", (char *)perf_data, "--", "true", NULL };
	int status, null;
	pid_t pid = bench_fork();

	if (pid == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

/* The median of @v[i] / @base[i] over the rounds both have, minus 1. */
static double paired_change(const double *v, const double *base, int n)
{
	double r[MAX_ROUNDS];

	for (int i = 0; i < n; i++)
		r[i] = v[i] / base[i];
	return n ? median(r, n) - 1 : 0;
}

static void print_results(struct config_result *res, bool have_perf)
{
	double perf = 0, slow;
	int n;

	if (have_perf)
		perf = paired_change(res[PERF].cpu, res[ALONE].cpu, res[PERF].n);
	printf("2. a thread's own CPU time for the same work (it blocks every signal), 999 Hz, "
	       "median of %d alternated rounds (each over its round alone):\n", res[ALONE].n);
	for (int c = 0; c < TICKS_ALONE; c++) {
		if (!res[c].n)
			continue;
		slow = paired_change(res[c].cpu, res[ALONE].cpu, res[c].n);
		printf("   %-44s %+6.2f %%", config_name[c], slow * 100);
		if (c != ALONE)
			printf("  %5.0f samples/CPU-s", median(res[c].rate, res[c].n));
		if (c == RING && have_perf)
			printf("  %.2fx perf's (target <= 1.5x and <= 3 %%)",
			       perf > 0 ? slow / perf : 0);
		if (c == STOP)
			printf("  (target <= 6 %%)");
		printf("\n");
	}
	if (!have_perf)
		printf("   perf record: not run (perf is not installed or does not work here: "
		       "apt-get install linux-perf)\n");
	n = res[TICKS_RING].n;
	slow = paired_change(res[TICKS_RING].ticks, res[TICKS_ALONE].ticks, n);
	printf("3. the program's own ITIMER_PROF ticks per CPU second: alone %.1f, under "
	       "codectl-run (ring) %.1f (%+.2f %%, median of the rounds' ratios; target "
	       "within 2 %%)\n", median(res[TICKS_ALONE].ticks, res[TICKS_ALONE].n),
	       median(res[TICKS_RING].ticks, n), slow * 100);
}

static int part_runs(const char *self, unsigned long work, int nrounds)
{
	char json[] = "/tmp/bench-sample-XXXXXX", perf_data[] = "/tmp/bench-sample-perf-XXXXXX";
	char rounds[24], ticks_rounds[24];
	int fd = mkstemp(json), pfd = mkstemp(perf_data), ret = 0;
	struct config_result res[NCONFIG] = { 0 };
	const char *argv[24];
	struct timing t;
	bool have_perf;

	if (fd < 0 || pfd < 0)
		return -1;
	close(fd);
	close(pfd);
	snprintf(rounds, sizeof(rounds), "%lu", work);
	snprintf(ticks_rounds, sizeof(ticks_rounds), "%lu", 3 * work);
	have_perf = perf_works(perf_data);
	for (int round = 0; round < nrounds && !ret; round++) {
		for (int c = 0; c < NCONFIG && !ret; c++) {
			if ((c == PERF || c == PERF_64K) && !have_perf)
				continue;
			config_argv(c, self, rounds, ticks_rounds, json, perf_data, argv);
			ret = run_timed((char *const *)argv, c > PERF_64K && c != TICKS_ALONE ? json : NULL,
					c == PERF || c == PERF_64K ? perf_data : NULL, &t);
			if (ret)
				fprintf(stderr, "bench/sample: %s: a timed run failed\n",
					config_name[c]);
			else
				record(&res[c], &t);
		}
	}
	unlink(json);
	unlink(perf_data);
	if (!ret)
		print_results(res, have_perf);
	return ret;
}

int main(int argc, char **argv)
{
	struct bench b = { .reps = 200 };
	bool quick = argc > 1 && !strcmp(argv[1], "--quick"), only_libunwind;
	char self[4096];
	ssize_t len;

	if (argc > 2 && !strcmp(argv[1], "--work"))
		return target(strtoul(argv[2], NULL, 0));
	if (argc > 2 && !strcmp(argv[1], "--ticks"))
		return ticks_target(strtoul(argv[2], NULL, 0));
	only_libunwind = argc > 1 && !strcmp(argv[1], "--libunwind-ns");
	b.reps = quick || only_libunwind ? 20 : 200;
	b.samples = calloc(NSAMPLES, sizeof(*b.samples));
	b.registry = emu_registry_new(EMU_REGISTRY_DEFAULT_LIMIT);
	remote_mem_init(&b.self, getpid(), -1, NULL);
	b.self_mem = remote_mem_accessor(&b.self);
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (!b.samples || !b.registry || len <= 0)
		return 1;
	self[len] = '\0';
	if (part_identical(&b, only_libunwind ? NULL : self))
		return 1;
	if (only_libunwind)
		return 0;
	if (part_runs(self, quick ? 3000 : 40000, quick ? 1 : ROUNDS))
		return 1;
	emu_registry_free(b.registry);
	free(b.samples);
	return 0;
}
