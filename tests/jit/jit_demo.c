// SPDX-License-Identifier: GPL-2.0
/*
 * jit-demo: an example JIT for x86_64 that registers its code area once with
 * codectl(2) (CODE_REGISTER_JIT, through include/codectl_jit.h) and then
 * generates code at run time: chains of 4-12 functions, some with a frame
 * pointer and some without, calling each other from a C entry down to a C
 * leaf that spins (or recurses, then spins). Every function's FREs are
 * appended to the registered tables without a system call. Every function goes
 * to /tmp/perf-PID.map as it is generated; at exit, every chain that ran goes
 * to the chains file (--chains) for jit-check: each function's [start, end),
 * chain, depth and table, each chain's functions outermost first, its C entry,
 * its leaf and how its frames are expected to unwind (see jit_gen.c).
 *
 *   jit-demo [--mode MODE] [--threads N] [--seconds S] [--functions N]
 *            [--table-fres N] [--min-depth N] [--max-depth N] [--spin-us N]
 *            [--runs N] [--code-mb N] [--seed N] [--chains FILE] [--no-perf-map]
 *            [--linger S]
 *
 * Modes:
 *   demo        N threads, each compiling new chains and running them (default)
 *   grow        a writer thread appends --functions functions (100000) over
 *               --seconds through its own append path, which fills the slots
 *               past the published end with poison entries first; N runner
 *               threads run the newest chains and older ones meanwhile
 *   big         --functions functions (1000000) first, then three threads run
 *               the first chain, the one in the middle and the last
 *   unregister  a thread runs a chain, then is held inside it while the code
 *               area is unregistered; it then finishes and runs a chain
 *               compiled after the unregistration (frame pointers only, so
 *               that the FP fallback finds the true chain: "fp" expected)
 *   fork        the parent registers an area and compiles a chain; a forked
 *               child registers its own area and runs chains in both
 *   corrupt     chains run, then the table is made unsorted (its last entry's
 *               ip_off set to 0) while they go on running
 *
 * --seconds S: each running thread runs S seconds of its own CPU time (so
 * that a busy machine makes a run longer, not its samples fewer; at most 20 S
 * of wall time); grow: the writer's appends are spread over S seconds of wall
 * time; unregister: S/2 of CPU time before and after; corrupt: S/2 of wall
 * time before and after the corruption.
 *
 * Outside codectl-run codectl(2) answers ENOSYS: the demo says that
 * registration is unavailable and runs all the same. Exit status 0 on
 * success; one summary line on stdout (fork: the child's and the parent's).
 * --linger S stays idle S seconds before exiting (see linger()). The perf
 * map is removed at exit (codectl-run has read it by then) unless
 * --keep-perf-map: runs in a test suite would fill /tmp.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jit_gen.h"

#define MAX_THREADS 64

enum mode { MODE_DEMO, MODE_GROW, MODE_BIG, MODE_UNREGISTER, MODE_FORK, MODE_CORRUPT };

static const char *const mode_names[] = { "demo", "grow", "big", "unregister", "fork", "corrupt" };

struct opts {
	enum mode mode;
	unsigned int threads;
	double seconds;
	size_t functions;
	size_t table_fres;
	unsigned int min_depth;
	unsigned int max_depth;
	double spin_us;
	unsigned int runs;
	size_t code_mb;
	uint64_t seed;
	const char *chains;
	bool perf_map;
	bool keep_perf_map;
	double linger;
};

/**
 * struct ctx - the run shared by all threads
 * @iters: the leaf's spin, in iterations
 * @stop: set when the threads must stop (grow: the writer is done)
 */
struct ctx {
	struct opts o;
	struct jit_state st;
	uint64_t iters;
	int stop;
};

/**
 * struct worker - one thread
 * @area: the area it compiles into
 * @pick: chains it runs instead of compiling (big, corrupt), or NULL
 * @extra: a chain it runs between its own (fork: the parent's), or -1
 * @cpu_limit: it stops once its CPU time reaches this (seconds; 0: never):
 *	CPU-clock sampling takes samples in proportion to CPU time, so a busy
 *	machine makes the run longer, not the samples fewer
 * @wall_end: it stops at this CLOCK_MONOTONIC time all the same
 */
struct worker {
	pthread_t th;
	struct ctx *cx;
	unsigned int id;
	unsigned int area;
	uint64_t rng;
	struct jit_run run;
	const size_t *pick;
	size_t npick;
	long extra;
	double cpu_limit;
	double wall_end;
	size_t compiled;
	long err;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of the calling thread, seconds. */
static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_for(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * --linger: stay alive, idle, before exiting. codectl-run unwinds the samples
 * it still holds for a process only once the process is gone, when its JIT
 * tables can no longer be read ("jit-table-invalid: header-unreadable"): an
 * idle process gives it the time to unwind them while they can.
 */
static void linger(struct ctx *cx)
{
	if (cx->o.linger > 0)
		sleep_for(cx->o.linger);
}

static bool stopping(const struct worker *w)
{
	return __atomic_load_n(&w->cx->stop, __ATOMIC_ACQUIRE) ||
	       (w->cpu_limit > 0 && thread_cpu() >= w->cpu_limit) || now() >= w->wall_end;
}

static void run_one(struct worker *w, size_t c)
{
	w->run.spin = w->cx->iters;
	w->run.recurse = (uint32_t)(jit_rand(&w->rng) % (w->cx->st.max_recurse + 1));
	jit_run_chain(&w->cx->st, c, &w->run);
}

/* demo, fork: compile a chain, run it --runs times, again until stopping(). */
static void *demo_thread(void *arg)
{
	struct worker *w = arg;
	struct ctx *cx = w->cx;
	long c;

	while (!stopping(w)) {
		c = jit_compile_chain(&cx->st, w->area, jit_random_depth(&cx->st, &w->rng),
				      &w->rng, JIT_EXPECT_JIT);
		if (c == -ENOSPC && jit_published(&cx->st))
			c = (long)(jit_rand(&w->rng) % jit_published(&cx->st));
		if (c < 0) {
			w->err = c;
			break;
		}
		w->compiled++;
		for (unsigned int k = 0; k < cx->o.runs && !stopping(w); k++) {
			run_one(w, (size_t)c);
			if (w->extra >= 0)
				run_one(w, (size_t)w->extra);
		}
	}
	return NULL;
}

/* big, corrupt: run the chains picked, in random order, until stopping(). */
static void *pick_thread(void *arg)
{
	struct worker *w = arg;

	while (!stopping(w))
		run_one(w, w->pick[jit_rand(&w->rng) % w->npick]);
	return NULL;
}

/* grow: run the newest chain and a random older one, until the writer is done. */
static void *grow_runner(void *arg)
{
	struct worker *w = arg;
	size_t n;

	while (!__atomic_load_n(&w->cx->stop, __ATOMIC_ACQUIRE)) {
		n = jit_published(&w->cx->st);
		run_one(w, n - 1);
		run_one(w, (size_t)(jit_rand(&w->rng) % n));
	}
	return NULL;
}

/* grow: append chains until --functions, paced over --seconds. */
static void *grow_writer(void *arg)
{
	struct worker *w = arg;
	struct ctx *cx = w->cx;
	double t0 = now();
	long c;

	while (cx->st.nfns < cx->o.functions) {
		size_t left = cx->o.functions - cx->st.nfns;
		unsigned int depth = jit_random_depth(&cx->st, &w->rng);

		c = jit_compile_chain(&cx->st, 0, depth < left ? depth : (unsigned int)left,
				      &w->rng, JIT_EXPECT_JIT);
		if (c < 0) {
			w->err = c;
			break;
		}
		w->compiled++;
		/* pacing (not synchronisation): spread the appends over the run */
		while ((double)cx->st.nfns > (double)cx->o.functions * (now() - t0) / cx->o.seconds)
			sleep_for(0.0005);
	}
	__atomic_store_n(&cx->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A worker that runs --seconds of its own CPU time (at most 20 times that of wall time). */
static void setup(struct worker *w, struct ctx *cx, unsigned int id)
{
	*w = (struct worker){ .cx = cx, .id = id, .extra = -1,
			      .rng = cx->o.seed * 0x9e3779b97f4a7c15ull + id + 1,
			      .cpu_limit = cx->o.seconds, .wall_end = now() + 20 * cx->o.seconds };
}

/* A worker that runs until ctx.stop. */
static void setup_until_stop(struct worker *w, struct ctx *cx, unsigned int id)
{
	setup(w, cx, id);
	w->cpu_limit = 0;
	w->wall_end = INFINITY;
}

/* Start @n workers (already set up when @preset) on @fn; join them; first error. */
static long run_workers(struct ctx *cx, struct worker *w, unsigned int n, void *(*fn)(void *),
			bool preset)
{
	long err = 0;

	for (unsigned int i = 0; i < n; i++) {
		int e;

		if (!preset)
			setup(&w[i], cx, i);
		e = pthread_create(&w[i].th, NULL, fn, &w[i]);
		if (e) {
			fprintf(stderr, "jit-demo: pthread_create: %s\n", strerror(e));
			exit(1);
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].err && !err)
			err = w[i].err;
	}
	return err;
}

static size_t sum_compiled(const struct worker *w, unsigned int n)
{
	size_t s = 0;

	for (unsigned int i = 0; i < n; i++)
		s += w[i].compiled;
	return s;
}

static uint64_t sum_runs(const struct worker *w, unsigned int n)
{
	uint64_t s = 0;

	for (unsigned int i = 0; i < n; i++)
		s += w[i].run.runs;
	return s;
}

static const char *reg_text(const struct jit_area *a)
{
	return a->reg_err ? strerror(-a->reg_err) : "registered";
}

static int open_area(struct ctx *cx, bool poison)
{
	size_t len = cx->o.code_mb << 20;
	int a = jit_area_open(&cx->st, len, cx->o.table_fres, poison);

	if (a < 0) {
		fprintf(stderr, "jit-demo: code area of %zu MiB: %s\n", cx->o.code_mb,
			strerror(-a));
		exit(1);
	}
	if (cx->st.areas[a].reg_err)
		printf("jit-demo: registration unavailable (codectl: %s): running unregistered\n",
		       strerror(-cx->st.areas[a].reg_err));
	return a;
}

static int fail(const char *what, long err)
{
	fprintf(stderr, "jit-demo: %s: %s\n", what, strerror((int)-err));
	return 1;
}

static int mode_demo(struct ctx *cx)
{
	struct worker w[MAX_THREADS];
	long err;

	open_area(cx, false);
	err = run_workers(cx, w, cx->o.threads, demo_thread, false);
	if (err)
		return fail("compile", err);
	printf("jit-demo: demo: %u threads, %zu chains, %zu functions, %zu tables, %llu runs, %s\n",
	       cx->o.threads, sum_compiled(w, cx->o.threads), cx->st.nfns,
	       jit_table_count(&cx->st.areas[0].tables),
	       (unsigned long long)sum_runs(w, cx->o.threads), reg_text(&cx->st.areas[0]));
	return 0;
}

static int mode_grow(struct ctx *cx)
{
	struct worker w[MAX_THREADS + 1];
	uint64_t rng = cx->o.seed + 1;
	long err;

	open_area(cx, true);
	err = jit_compile_chain(&cx->st, 0, cx->st.min_depth, &rng, JIT_EXPECT_JIT);
	if (err < 0)
		return fail("compile", err);
	/* the writer decides when to stop */
	for (unsigned int i = 0; i <= cx->o.threads; i++)
		setup_until_stop(&w[i], cx, i);
	if (pthread_create(&w[cx->o.threads].th, NULL, grow_writer, &w[cx->o.threads]))
		return fail("pthread_create", -EAGAIN);
	err = run_workers(cx, w, cx->o.threads, grow_runner, true);
	pthread_join(w[cx->o.threads].th, NULL);
	if (!err)
		err = w[cx->o.threads].err;
	if (err)
		return fail("compile", err);
	printf("jit-demo: grow: %zu functions appended in %zu chains, %zu tables, poisoned ahead; "
	       "%u runners, %llu runs, %s\n", cx->st.nfns, cx->st.nchains,
	       jit_table_count(&cx->st.areas[0].tables), cx->o.threads,
	       (unsigned long long)sum_runs(w, cx->o.threads), reg_text(&cx->st.areas[0]));
	return 0;
}

static int mode_big(struct ctx *cx)
{
	struct worker w[3];
	uint64_t rng = cx->o.seed + 1;
	size_t pick[3];
	double t0 = now();
	long c = 0;

	open_area(cx, false);
	while (cx->st.nfns < cx->o.functions) {
		size_t left = cx->o.functions - cx->st.nfns;
		unsigned int depth = jit_random_depth(&cx->st, &rng);

		c = jit_compile_chain(&cx->st, 0, depth < left ? depth : (unsigned int)left, &rng,
				      JIT_EXPECT_JIT);
		if (c < 0)
			return fail("compile", c);
	}
	if (cx->st.perf_map)
		fflush(cx->st.perf_map);
	pick[0] = 0;
	pick[1] = cx->st.fns[cx->o.functions / 2].chain;
	pick[2] = (size_t)c;
	printf("jit-demo: big: %zu functions in %zu chains, %zu tables of %zu entries, "
	       "generated in %.2f s\n", cx->st.nfns, cx->st.nchains,
	       jit_table_count(&cx->st.areas[0].tables), cx->o.table_fres, now() - t0);
	for (unsigned int i = 0; i < 3; i++) {
		setup(&w[i], cx, i);
		w[i].pick = &pick[i];
		w[i].npick = 1;
	}
	run_workers(cx, w, 3, pick_thread, true);
	printf("jit-demo: big: ran chains %zu (table %u), %zu (table %u), %zu (table %u); "
	       "%llu runs, %s\n", pick[0], cx->st.fns[cx->st.chains[pick[0]].first_fn].table,
	       pick[1], cx->st.fns[cx->st.chains[pick[1]].first_fn].table, pick[2],
	       cx->st.fns[cx->st.chains[pick[2]].first_fn].table,
	       (unsigned long long)sum_runs(w, 3), reg_text(&cx->st.areas[0]));
	return 0;
}

/*
 * unregister: the runner runs chain A (registered) for half the time, then
 * holds its next run in the leaf; the main thread unregisters the area and
 * lets it go on; it runs A until chain B, compiled after the unregistration,
 * exists, then B for the other half.
 */
struct unreg {
	struct worker w;
	size_t a;
	long b;		/* chain B, -1 until compiled (atomic) */
	int pipe[2];	/* the runner says its next run will be held */
};

static void *unreg_thread(void *arg)
{
	struct unreg *u = arg;
	struct worker *w = &u->w;
	double half = w->cx->o.seconds / 2, end;
	long b;

	while (thread_cpu() < half)
		run_one(w, u->a);
	__atomic_store_n(&w->run.hold, 1, __ATOMIC_RELEASE);	/* the next run waits in the leaf */
	if (write(u->pipe[1], "h", 1) != 1)
		__atomic_store_n(&w->run.hold, 0, __ATOMIC_RELEASE);
	while ((b = __atomic_load_n(&u->b, __ATOMIC_ACQUIRE)) < 0)
		run_one(w, u->a);
	for (end = thread_cpu() + half; thread_cpu() < end;)
		run_one(w, (size_t)b);
	return NULL;
}

static int mode_unregister(struct ctx *cx)
{
	struct unreg u = { .b = -1 };
	uint64_t rng = cx->o.seed + 1;
	struct jit_area *a;
	long c, ret;
	char hold;

	cx->st.only_fp = true;	/* so that the FP fallback finds the true chain too */
	a = &cx->st.areas[open_area(cx, false)];
	c = jit_compile_chain(&cx->st, 0, cx->st.max_depth, &rng, JIT_EXPECT_EITHER);
	if (c < 0)
		return fail("compile", c);
	u.a = (size_t)c;
	setup(&u.w, cx, 0);
	if (pipe(u.pipe))
		return fail("pipe", -errno);
	if (pthread_create(&u.w.th, NULL, unreg_thread, &u))
		return fail("pthread_create", -EAGAIN);
	if (read(u.pipe[0], &hold, 1) != 1)
		return fail("read", -EIO);
	/* a few instructions away: the held run's chain, then its leaf */
	while (!__atomic_load_n(&u.w.run.in_leaf, __ATOMIC_ACQUIRE))
		sched_yield();
	/* the runner is in chain A's leaf, below chain A's JIT frames */
	ret = codectl(CODE_UNREGISTER, (void *)(uintptr_t)a->tables.text_start, 0, 0) ? -errno : 0;
	if (!ret)
		a->tables.registered = 0;
	__atomic_store_n(&u.w.run.hold, 0, __ATOMIC_RELEASE);
	c = jit_compile_chain(&cx->st, 0, cx->st.max_depth, &rng, JIT_EXPECT_FP);
	if (c < 0)
		return fail("compile", c);
	__atomic_store_n(&u.b, c, __ATOMIC_RELEASE);
	pthread_join(u.w.th, NULL);
	close(u.pipe[0]);
	close(u.pipe[1]);
	printf("jit-demo: unregister: codectl(CODE_UNREGISTER) = %d%s%s while a thread was in "
	       "chain %zu; then chain %ld; %llu runs\n", ret ? -1 : 0, ret ? " " : "",
	       ret ? strerror((int)-ret) : "", u.a, c, (unsigned long long)u.w.run.runs);
	/* outside codectl-run the unregistration fails as the registration did */
	return ret && a->reg_err == 0 ? 1 : 0;
}

/* fork: the child registers an area of its own and runs chains in both. */
static int fork_child(struct ctx *cx, size_t parent_chain)
{
	struct worker w[MAX_THREADS];
	long err;
	int ran;

	if (cx->o.perf_map) {
		fclose(cx->st.perf_map);	/* the parent's: flushed before the fork */
		if (jit_perf_map_open(&cx->st))
			cx->st.perf_map = NULL;
		jit_perf_map_all(&cx->st);
	}
	open_area(cx, false);
	for (unsigned int i = 0; i < cx->o.threads; i++) {
		setup(&w[i], cx, i);
		w[i].area = 1;
	}
	w[0].extra = (long)parent_chain;
	err = run_workers(cx, w, cx->o.threads, demo_thread, true);
	if (err)
		return fail("compile", err);
	ran = __atomic_load_n(&cx->st.chains[parent_chain].ran, __ATOMIC_RELAXED);
	printf("jit-demo: fork: child %d: %zu chains in its own area, the parent's chain run %s; "
	       "%s\n", (int)getpid(), sum_compiled(w, cx->o.threads), ran ? "too" : "never",
	       reg_text(&cx->st.areas[1]));
	return 0;
}

static int mode_fork(struct ctx *cx)
{
	uint64_t rng = cx->o.seed + 1;
	int status;
	long c;
	pid_t pid;

	open_area(cx, false);
	c = jit_compile_chain(&cx->st, 0, cx->st.max_depth, &rng, JIT_EXPECT_JIT);
	if (c < 0)
		return fail("compile", c);
	if (cx->st.perf_map)
		fflush(cx->st.perf_map);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return fail("fork", -errno);
	if (pid == 0) {
		status = fork_child(cx, (size_t)c);
		if (!status && cx->o.chains && jit_write_chains(&cx->st, cx->o.chains))
			status = fail(cx->o.chains, -errno);
		fflush(stdout);
		linger(cx);
		if (cx->st.perf_map && !cx->o.keep_perf_map) {
			fclose(cx->st.perf_map);
			jit_perf_map_remove();
		}
		_exit(status);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail("waitpid", -errno);
	printf("jit-demo: fork: parent %d: child %d exited %d\n", (int)getpid(), (int)pid,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* corrupt: make the table unsorted halfway through. */
static int mode_corrupt(struct ctx *cx)
{
	struct worker w[MAX_THREADS];
	struct code_jit_unwind_table *tab;
	uint64_t rng = cx->o.seed + 1, n;
	size_t pick[16];
	unsigned char *last;
	uint32_t zero = 0;

	open_area(cx, false);
	for (unsigned int i = 0; i < 16; i++) {
		long c = jit_compile_chain(&cx->st, 0, jit_random_depth(&cx->st, &rng), &rng,
					   JIT_EXPECT_JIT);

		if (c < 0)
			return fail("compile", c);
		pick[i] = (size_t)c;
	}
	for (unsigned int i = 0; i < cx->o.threads; i++) {
		setup_until_stop(&w[i], cx, i);
		w[i].pick = pick;
		w[i].npick = 16;
	}
	for (unsigned int i = 0; i < cx->o.threads; i++)
		if (pthread_create(&w[i].th, NULL, pick_thread, &w[i]))
			return fail("pthread_create", -EAGAIN);
	/* timing, not synchronisation: samples before and after the corruption */
	sleep_for(cx->o.seconds / 2);
	tab = cx->st.areas[0].tables.tail;
	n = tab->used_len / CODECTL_JIT_FRE_STRIDE;
	last = (unsigned char *)(tab + 1) + (n - 1) * CODECTL_JIT_FRE_STRIDE;
	memcpy(last + offsetof(struct code_jit_unwind_fre, ip_off), &zero, sizeof(zero));
	sleep_for(cx->o.seconds / 2);
	__atomic_store_n(&cx->stop, 1, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < cx->o.threads; i++)
		pthread_join(w[i].th, NULL);
	printf("jit-demo: corrupt: entry %llu of table %zu set to ip_off 0 (unsorted) halfway; "
	       "%llu runs, %s\n", (unsigned long long)(n - 1),
	       jit_table_count(&cx->st.areas[0].tables) - 1,
	       (unsigned long long)sum_runs(w, cx->o.threads), reg_text(&cx->st.areas[0]));
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: jit-demo [--mode demo|grow|big|unregister|fork|corrupt] [--threads N]\n"
		"       [--seconds S] [--functions N] [--table-fres N] [--min-depth N]\n"
		"       [--max-depth N] [--spin-us N] [--runs N] [--code-mb N] [--seed N]\n"
		"       [--chains FILE] [--no-perf-map] [--keep-perf-map] [--linger S]\n");
	exit(2);
}

static enum mode parse_mode(const char *s)
{
	for (unsigned int i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(s, mode_names[i]))
			return (enum mode)i;
	usage();
	return MODE_DEMO;
}

static unsigned long long number(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (!*s || *end)
		usage();
	return v;
}

static void defaults(struct opts *o)
{
	*o = (struct opts){ .mode = MODE_DEMO, .threads = 4, .seconds = 3, .table_fres = 16384,
			    .min_depth = 4, .max_depth = 12, .spin_us = 200, .runs = 4,
			    .seed = 1, .perf_map = true };
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{ "mode", 1, 0, 'm' }, { "threads", 1, 0, 't' }, { "seconds", 1, 0, 's' },
		{ "functions", 1, 0, 'f' }, { "table-fres", 1, 0, 'T' }, { "min-depth", 1, 0, 'd' },
		{ "max-depth", 1, 0, 'D' }, { "spin-us", 1, 0, 'u' }, { "runs", 1, 0, 'r' },
		{ "code-mb", 1, 0, 'c' }, { "seed", 1, 0, 'S' }, { "chains", 1, 0, 'C' },
		{ "no-perf-map", 0, 0, 'n' }, { "keep-perf-map", 0, 0, 'k' },
		{ "linger", 1, 0, 'L' }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;

	defaults(o);
	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (c) {
		case 'm': o->mode = parse_mode(optarg); break;
		case 't': o->threads = (unsigned int)number(optarg); break;
		case 's': o->seconds = atof(optarg); break;
		case 'f': o->functions = number(optarg); break;
		case 'T': o->table_fres = number(optarg); break;
		case 'd': o->min_depth = (unsigned int)number(optarg); break;
		case 'D': o->max_depth = (unsigned int)number(optarg); break;
		case 'u': o->spin_us = atof(optarg); break;
		case 'r': o->runs = (unsigned int)number(optarg); break;
		case 'c': o->code_mb = number(optarg); break;
		case 'S': o->seed = number(optarg); break;
		case 'C': o->chains = optarg; break;
		case 'n': o->perf_map = false; break;
		case 'k': o->keep_perf_map = true; break;
		case 'L': o->linger = atof(optarg); break;
		default: usage();
		}
	}
	if (optind != argc || !o->threads || o->threads > MAX_THREADS || o->seconds <= 0 ||
	    !o->min_depth || o->min_depth > o->max_depth || o->max_depth > 64 || !o->table_fres ||
	    o->spin_us < 0 || !o->runs || o->linger < 0)
		usage();
}

/* Functions and code the mode needs at most. */
static void size_mode(struct opts *o)
{
	if (!o->functions)
		o->functions = o->mode == MODE_GROW ? 100000 : 1000000;
	/* 48 bytes a function at most (27, aligned to 16, and a 16-byte gap) */
	if (!o->code_mb)
		o->code_mb = (o->functions * 48 >> 20) + 1;
}

int main(int argc, char **argv)
{
	static struct ctx cx;
	static int (*const modes[])(struct ctx *) = {
		mode_demo, mode_grow, mode_big, mode_unregister, mode_fork, mode_corrupt,
	};
	int ret;

	parse(argc, argv, &cx.o);
	size_mode(&cx.o);
	if (jit_state_init(&cx.st, cx.o.functions + 64))
		return fail("records", -ENOMEM);
	cx.st.min_depth = cx.o.min_depth;
	cx.st.max_depth = cx.o.max_depth;
	cx.st.flush_each = cx.o.mode != MODE_BIG;
	if (cx.o.perf_map && jit_perf_map_open(&cx.st))
		fprintf(stderr, "jit-demo: /tmp/perf-%d.map: %s\n", (int)getpid(), strerror(errno));
	cx.iters = (uint64_t)(cx.o.spin_us * jit_spin_per_us());
	ret = modes[cx.o.mode](&cx);
	if (cx.st.perf_map)
		fclose(cx.st.perf_map);
	if (cx.o.perf_map && !cx.o.keep_perf_map)
		jit_perf_map_remove();
	/* fork: the child wrote the chains, the parent has nothing to add */
	if (!ret && cx.o.chains && cx.o.mode != MODE_FORK && jit_write_chains(&cx.st, cx.o.chains))
		return fail(cx.o.chains, -errno);
	linger(&cx);
	return ret;
}
