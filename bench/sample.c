// SPDX-License-Identifier: GPL-2.0
/*
 * bench/sample: what sampling costs, measured side by side in one run.
 *   1. On identical samples (a child of this program, stopped 200 times at
 *      random points of a deep recursion, registers and 64 KiB of stack
 *      copied): ns per sample of our unwind and of libunwind's remote unwind
 *      (cache warm, as codectl-run uses it), and the ratio (target >= 20);
 *      the frame-plausibility oracle's judgement of our frames, cold and warm.
 *   2. The freeze per sample (median, p99) as codectl-run reports it.
 *   3. Wall time of a CPU-bound run of this program: alone, under
 *      codectl-run --freq 1000 --no-crosscheck, and with the cross-check,
 *      as ratios (median of 3 runs each).
 * Usage: sample [--quick]     (sample --work N: the CPU-bound target itself)
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
	uint64_t ips[MAX_FRAMES];
	double t0 = now_ns();

	*frames = 0;
	for (unsigned int rep = 0; rep < reps; rep++) {
		for (int i = 0; i < NSAMPLES; i++) {
			const struct sample *s = &b->samples[i].smp;
			struct emu_accessor acc;
			struct oracle_input in = { .tid = s->tid, .regs = s->dwarf, .mem = &acc,
						   .registry = b->registry };
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
			symbols_new_sample(&sym);
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

static int part_identical(struct bench *b)
{
	struct oracles *ref = NULL;
	unsigned long fo, fl;
	double ours, lu, pl_cold = 0, pl_warm = 0;

	if (capture_all(b) || !(b->code = code_cache_new(b->child)) ||
	    procfs_maps_read(b->child, &b->maps) || register_exe(b) ||
	    !(ref = oracles_new(b->child, true)) || !oracles_ready(ref, ORACLE_LIBUNWIND)) {
		fprintf(stderr, "bench/sample: cannot capture samples: %s\n", strerror(errno));
		return -1;
	}
	time_libunwind(b, ref, 1, &fl);	/* warm libunwind's cache */
	lu = time_libunwind(b, ref, b->reps / 10 + 1, &fl);
	ours = time_ours(b, &fo);
	if (time_plausible(b, &pl_cold, &pl_warm)) {
		fprintf(stderr, "bench/sample: cannot judge the samples\n");
		return -1;
	}
	printf("1. identical samples (%d stops of a 20-60 deep recursion, %.1f frames each):\n",
	       NSAMPLES, (double)fo / ((double)b->reps * NSAMPLES));
	printf("   our unwind        %10.0f ns/sample\n", ours);
	printf("   libunwind remote  %10.0f ns/sample (%.1f frames each, cache warm)\n", lu,
	       (double)fl / ((double)(b->reps / 10 + 1) * NSAMPLES));
	printf("   ratio libunwind/ours %.1f (target >= 20)\n", lu / ours);
	printf("   plausibility of our frames: %.0f ns/sample with a new oracle, %.0f ns/sample "
	       "with its cache warm (%.2f x our unwind)\n", pl_cold, pl_warm, pl_warm / ours);
	oracles_free(ref);
	kill(b->child, SIGKILL);
	waitpid(b->child, NULL, __WALL);
	code_cache_free(b->code);
	emu_mappings_free(&b->maps);
	return 0;
}

struct timing {
	double total;	/* wall seconds of the whole command */
	double own;	/* the target's own measure of its work (its "work:" line) */
};

/* One run of @argv; *json gets codectl-run's report when @json_path. */
static int run_timed(char *const argv[], const char *json_path, json_t **json, struct timing *t)
{
	char err_path[] = "/tmp/bench-sample-err-XXXXXX";
	int err_fd = mkstemp(err_path), status;
	double t0 = now_ns();
	FILE *f;
	pid_t pid;

	if (err_fd < 0)
		return -1;
	pid = bench_fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(err_fd, STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	close(err_fd);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	t->total = (now_ns() - t0) / 1e9;
	t->own = -1;
	f = fopen(err_path, "r");
	if (f && fscanf(f, "work: %lf", &t->own) != 1)
		t->own = -1;
	if (f)
		fclose(f);
	unlink(err_path);
	if (json_path && json) {
		json_decref(*json);
		*json = json_load_file(json_path, 0, NULL);
	}
	return t->own < 0 ? -1 : 0;
}

static int cmp_timing(const void *a, const void *b)
{
	double x = ((const struct timing *)a)->own, y = ((const struct timing *)b)->own;

	return (x > y) - (x < y);
}

/* The run with the median own time of three. */
static int median3(char *const argv[], const char *json_path, json_t **json, struct timing *m)
{
	struct timing t[3];

	for (int i = 0; i < 3; i++)
		if (run_timed(argv, json_path, json, &t[i]))
			return -1;
	qsort(t, 3, sizeof(t[0]), cmp_timing);
	*m = t[1];
	return 0;
}

static int part_runs(const char *self, const char *rounds)
{
	char json_path[] = "/tmp/bench-sample-XXXXXX";
	int fd = mkstemp(json_path);
	json_t *json = NULL, *cost;
	char *alone[] = { (char *)self, "--work", (char *)rounds, NULL };
	char *off[] = { CODECTL_RUN, "-q", "--freq", "1000", "--no-crosscheck", "--json",
			json_path, "--", (char *)self, "--work", (char *)rounds, NULL };
	char *on[] = { CODECTL_RUN, "-q", "--freq", "1000", "--json", json_path, "--",
		       (char *)self, "--work", (char *)rounds, NULL };
	struct timing a, n, c;

	if (fd < 0)
		return -1;
	close(fd);
	if (median3(alone, NULL, NULL, &a) || median3(off, json_path, &json, &n) ||
	    median3(on, json_path, &json, &c) || !(cost = json_object_get(json, "cost"))) {
		fprintf(stderr, "bench/sample: a timed run failed\n");
		unlink(json_path);
		return -1;
	}
	unlink(json_path);
	printf("2. freeze per sample (codectl-run, 1 kHz, cross-check on): median %.1f us, "
	       "p99 %.1f us, max %.1f us; %lld samples\n",
	       json_real_value(json_object_get(cost, "freeze_median_us")),
	       json_real_value(json_object_get(cost, "freeze_p99_us")),
	       json_real_value(json_object_get(cost, "freeze_max_us")),
	       json_integer_value(json_object_get(json_object_get(json, "samples"), "total")));
	printf("3. a CPU-bound program's own wall time (median of 3): alone %.3f s; at 1 kHz "
	       "without cross-check %.3f s (%.3fx), with cross-check %.3f s (%.3fx)\n",
	       a.own, n.own, n.own / a.own, c.own, c.own / a.own);
	printf("   whole command, start to report: alone %.3f s, without cross-check %.3f s "
	       "(%.2fx), with %.3f s (%.2fx)\n", a.total, n.total, n.total / a.total, c.total,
	       c.total / a.total);
	json_decref(json);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b = { .reps = 200 };
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	char self[4096];
	ssize_t len;

	if (argc > 2 && !strcmp(argv[1], "--work")) {
		double t0 = now_ns();
		unsigned long sum = work(strtoul(argv[2], NULL, 0));

		/* the program's own wall time, without codectl-run's start and report */
		fprintf(stderr, "work: %.6f s (%lu)\n", (now_ns() - t0) / 1e9, sum);
		return 0;
	}
	b.reps = quick ? 20 : 200;
	b.samples = calloc(NSAMPLES, sizeof(*b.samples));
	b.registry = emu_registry_new(EMU_REGISTRY_DEFAULT_LIMIT);
	remote_mem_init(&b.self, getpid(), -1, NULL);
	b.self_mem = remote_mem_accessor(&b.self);
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (!b.samples || !b.registry || len <= 0)
		return 1;
	self[len] = '\0';
	if (part_identical(&b))
		return 1;
	if (part_runs(self, quick ? "3000" : "60000"))
		return 1;
	emu_registry_free(b.registry);
	free(b.samples);
	return 0;
}
