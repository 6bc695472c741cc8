// SPDX-License-Identifier: GPL-2.0
/*
 * codectl-run's sampling on programs that are hard to sample: garbage frame
 * pointers, code unmapped under a sample, threads exiting, recursion beyond
 * --max-frames, the program's own SIGPROF profiler, SIGPROF blocked; and the
 * output files and --check.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_helper.h"
#include "test_tmp.h"

#define SRUN(r, ...) run_codectl((r), (const char *const[]){ "--no-loader-module", __VA_ARGS__, NULL })

TestSuite(sampling, .timeout = 120);

/* A fresh private directory for one test's files; @buf gets "DIR/NAME". */
static const char *tmp_path(char *buf, size_t size, const char *name)
{
	char dir[PATH_MAX];

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-sampling"));
	cr_assert_lt((size_t)snprintf(buf, size, "%s/%s", dir, name), size);
	return buf;
}

static json_t *load(const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);

	cr_assert(j, "%s: %s", path, e.text);
	return j;
}

static json_int_t count(json_t *j, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(j, "samples"), key));
}

/* Stacks (--json-all) whose frame 0 symbol starts with @prefix, or whose stop is @stop. */
static size_t stacks_where(json_t *j, const char *prefix, const char *stop)
{
	json_t *stacks = json_object_get(j, "stacks"), *s;
	size_t i, n = 0;

	json_array_foreach(stacks, i, s) {
		const char *sym = json_string_value(json_object_get(
			json_array_get(json_object_get(s, "frames"), 0), "symbol"));
		const char *st = json_string_value(json_object_get(s, "stop"));

		if (prefix && sym && !strncmp(sym, prefix, strlen(prefix)))
			n++;
		else if (stop && st && !strcmp(st, stop))
			n++;
	}
	return n;
}

static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * The JSON's coverage: each object under its file's name (its path where
 * two share the name), with its path; @prog's is the program's real path.
 */
static void check_coverage_names(json_t *j, const char *prog)
{
	json_t *cov = json_object_get(j, "coverage"), *o, *other;
	char real[PATH_MAX];
	const char *key, *k2, *path;
	bool shared, seen = false;

	cr_assert(realpath(prog, real));
	cr_assert_gt(json_object_size(cov), 0);
	json_object_foreach(cov, key, o) {
		path = json_string_value(json_object_get(o, "path"));
		cr_assert(path, "%s has no path", key);
		shared = false;
		json_object_foreach(cov, k2, other)
			shared |= other != o &&
				  !strcmp(file_name(json_string_value(json_object_get(other, "path"))),
					  file_name(path));
		cr_assert_str_eq(key, shared ? path : file_name(path));
		if (!strcmp(path, real))
			seen = true;
	}
	cr_assert(seen, "no coverage entry with the path %s", real);
}

/* Stacks that stopped at the frame limit with frame 1 in @fn. */
static size_t max_frames_in(json_t *j, const char *fn)
{
	json_t *stacks = json_object_get(j, "stacks"), *s;
	size_t i, n = 0;

	json_array_foreach(stacks, i, s) {
		const char *sym = json_string_value(json_object_get(
			json_array_get(json_object_get(s, "frames"), 1), "symbol"));
		const char *st = json_string_value(json_object_get(s, "stop"));

		n += st && !strcmp(st, "max-frames") && sym && !strncmp(sym, fn, strlen(fn));
	}
	return n;
}

Test(sampling, hostile_stacks_end_walks_not_the_supervisor)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	struct run r;
	json_t *j;

	SRUN(&r, "-q", "--json-all", json, "--", SAMPLE_PROG, "chaos");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert(strstr(r.out, "chaos: recursion 3001 deep"), "%s", r.out);
	j = load(json);
	cr_assert_gt(count(j, "total"), 0);
	cr_assert_eq(count(j, "total"), json_array_size(json_object_get(j, "stacks")));
	cr_assert_eq(json_integer_value(json_object_get(j, "check_failures")), 0);
	/* a countdown at the bottom of 3000 frames: walks end at the frame limit */
	cr_assert_gt(stacks_where(j, NULL, "max-frames"), 0);
	/* ... and every one of them is inside the recursion */
	cr_assert_eq(max_frames_in(j, "recurse"), stacks_where(j, NULL, "max-frames"));
	/* the anonymous page has no module: its IPs are bare addresses */
	cr_assert_gt(stacks_where(j, "0x", NULL), 0);
	check_coverage_names(j, SAMPLE_PROG);
	json_decref(j);
	run_free(&r);
}

Test(sampling, walks_past_the_stack_copy_are_counted)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	struct run r;
	json_t *j;

	/* 512 bytes of stack copied: the walks up the recursion read the rest live */
	SRUN(&r, "--stack-size", "512", "--no-crosscheck", "--json", json, "--", SAMPLE_PROG,
	     "chaos");
	cr_assert_eq(r.status, 0, "%s", r.log);
	j = load(json);
	cr_assert_gt(count(j, "stack_past_copy"), 0);
	cr_assert_leq(count(j, "stack_past_copy"), count(j, "total"));
	cr_assert(strstr(r.log, " walks read the stack outside its copy (above its --stack-size 512 bytes,"),
		  "%s", r.log);
	json_decref(j);
	run_free(&r);
}

/* Which phase of sample-prog torn frame @f is in: 'a', 'b', or 0 for neither. */
static char torn_phase(json_t *f)
{
	const char *sym = json_string_value(json_object_get(f, "symbol"));
	static const char *const fns[] = { "spin_", "rec_", "phase_" };

	for (size_t i = 0; sym && i < 3; i++) {
		size_t n = strlen(fns[i]);

		if (!strncmp(sym, fns[i], n) && (sym[n] == 'a' || sym[n] == 'b') && sym[n + 1] == '+')
			return sym[n];
	}
	return 0;
}

/* Is @s a sample of sample-prog torn at the bottom of a phase (in spin_a or spin_b)? */
static bool torn_at_bottom(json_t *s)
{
	const char *sym = json_string_value(json_object_get(
		json_array_get(json_object_get(s, "frames"), 0), "symbol"));

	return sym && (!strncmp(sym, "spin_a+", 7) || !strncmp(sym, "spin_b+", 7));
}

/*
 * One sample of sample-prog torn, spinning at the bottom of a phase: does it
 * mix both phases' frames (@judged_only: among those not read past the
 * copy), and is it the whole stack (spin, 161 rec, phase, torn, main)?
 */
static void torn_sample(json_t *s, bool judged_only, bool *mixed, bool *whole)
{
	json_t *frames = json_object_get(s, "frames"), *f;
	unsigned int seen = 0, recs = 0;
	bool main_seen = false;
	const char *sym;
	size_t i;

	json_array_foreach(frames, i, f) {
		char ph = torn_phase(f);

		sym = json_string_value(json_object_get(f, "symbol"));
		if (judged_only && json_is_true(json_object_get(f, "past_copy")))
			break;
		seen |= ph == 'a' ? 1 : ph == 'b' ? 2 : 0;
		recs += sym && !strncmp(sym, "rec_", 4);
		main_seen |= sym && !strncmp(sym, "main+", 5);
	}
	*mixed = seen == 3;
	*whole = recs == 161 && main_seen;
}

/*
 * One run of sample-prog torn for @seconds of CPU time, with the ring
 * sampler: no stack mixing both phases is certified; how many samples were
 * at the bottom of a phase, and how many of those read the other phase live
 * (*@torn). Every one of them read the stack past its copy.
 */
static size_t torn_ring_run(const char *seconds, size_t *torn)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	size_t i, at_spin = 0, past_copy = 0;
	bool mixed, whole;
	struct run r;
	json_t *j, *s;

	SRUN(&r, "-q", "--max-frames", "256", "--json-all", json, "--", SAMPLE_PROG, "torn",
	     seconds);
	cr_assert_eq(r.status, 0, "%s", r.log);
	j = load(json);
	*torn = 0;
	json_array_foreach(json_object_get(j, "stacks"), i, s) {
		if (!torn_at_bottom(s))
			continue;
		at_spin++;
		torn_sample(s, false, &mixed, &whole);
		*torn += mixed;
		past_copy += json_integer_value(json_object_get(s, "past_copy_from")) > 0;
		torn_sample(s, true, &mixed, &whole);
		cr_assert(!mixed || strcmp(json_string_value(json_object_get(s, "outcome")),
					   "verified"), "a torn stack certified: %s",
			  json_dumps(s, JSON_COMPACT));
	}
	cr_assert_eq(past_copy, at_spin, "every one read the stack past its copy");
	json_decref(j);
	run_free(&r);
	return at_spin;
}

/*
 * Stacks deeper than any copy (~160 KiB), their phase changing every ~0.1 ms:
 * with the ring sampler the frames above the copy are read after the thread
 * ran on, and are never judged (past-copy), so no stack mixing both phases
 * is ever certified; with --sampler stop every walk is made during the stop
 * and every one is whole and verified. The ring part runs until it has 300
 * samples at the bottom of a phase and one that read the other phase
 * (a loaded machine walks fewer: the queue drops what it cannot hold), for
 * 1, 2, then 4 s of CPU time.
 */
Test(sampling, torn_stacks_are_never_certified_and_exact_at_a_stop)
{
	static const char *const seconds[] = { "1", "2", "4" };
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	size_t i, k, at_spin = 0, torn = 0, whole_n = 0;
	bool mixed, whole;
	struct run r;
	json_t *j, *s;

	for (k = 0; k < 3 && (at_spin <= 300 || !torn); k++)
		at_spin = torn_ring_run(seconds[k], &torn);
	cr_assert_gt(at_spin, 300, "%zu samples at the bottom of a phase in %s s", at_spin,
		     seconds[k - 1]);
	cr_assert_gt(torn, 0, "none of %zu read the other phase live (no test)", at_spin);

	SRUN(&r, "-q", "--sampler", "stop", "--max-frames", "256", "--json-all", json, "--",
	     SAMPLE_PROG, "torn");
	cr_assert_eq(r.status, 0, "%s", r.log);
	j = load(json);
	at_spin = 0;
	json_array_foreach(json_object_get(j, "stacks"), i, s) {
		if (!torn_at_bottom(s))
			continue;
		at_spin++;
		torn_sample(s, false, &mixed, &whole);
		cr_assert(!mixed && whole, "%s", json_dumps(s, JSON_COMPACT));
		cr_assert_str_eq(json_string_value(json_object_get(s, "outcome")), "verified");
		whole_n += whole;
	}
	cr_assert_gt(at_spin, 300, "%zu samples at the bottom of a phase", at_spin);
	cr_assert_eq(whole_n, at_spin);
	json_decref(j);
	run_free(&r);
}

/*
 * A makecontext coroutine's first function returns into __start_context,
 * which no call precedes: makecontext stores it as the return address. The
 * frame is right, exact, named from libc's debug file; every sample through
 * the coroutine verifies and --check passes.
 */
Test(sampling, a_makecontext_coroutine_verifies)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	size_t i, k, in_co = 0;
	struct run r;
	json_t *j, *s, *f;

	SRUN(&r, "-q", "--check", "--json-all", json, "--", SAMPLE_PROG, "coroutine");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.log);
	cr_assert_str_eq(r.out, "coroutine: done\n");
	j = load(json);
	json_array_foreach(json_object_get(j, "stacks"), i, s) {
		json_t *frames = json_object_get(s, "frames");

		json_array_foreach(frames, k, f)
			if (!strncmp(json_string_value(json_object_get(f, "symbol")), "co_work+", 8))
				break;
		if (k == json_array_size(frames))
			continue;
		in_co++;
		f = json_array_get(frames, k + 1);
		cr_assert_str_eq(json_string_value(json_object_get(f, "symbol")),
				 "__start_context+0x0", "%s", json_dumps(s, JSON_COMPACT));
		cr_assert(json_is_true(json_object_get(f, "exact")) &&
			  json_is_true(json_object_get(f, "plausible")), "%s",
			  json_dumps(s, JSON_COMPACT));
		cr_assert_str_eq(json_string_value(json_object_get(s, "outcome")), "verified",
				 "%s", json_dumps(s, JSON_COMPACT));
	}
	cr_assert_gt(in_co, 200, "%zu samples in the coroutine", in_co);
	cr_assert_eq(count(j, "both_wrong") + count(j, "ours_wrong"), 0);
	json_decref(j);
	run_free(&r);
}

/*
 * The program's own CPU-clock timer fires once per 10 ms of its CPU time under
 * either sampler: every expiry up to the last delivery is delivered or merged
 * into one delivered (si_overrun, which a loaded machine causes alone too),
 * so their sum is the CPU time at that delivery in 10 ms, whatever the load
 * (the expiries after it are lost with the disarm, alone as well: not
 * counted). SIGPROF merged into the program's lost 14-52 % before.
 */
Test(sampling, programs_own_cpu_timer_loses_no_expiry)
{
	static const char *const samplers[] = { "ring", "sigprof" };
	int delivered, overruns, foreign;
	struct run r;
	double cpu;
	size_t i;

	for (i = 0; i < 2; i++) {
		SRUN(&r, "-q", "--sampler", samplers[i], "--", SAMPLE_PROG, "own-timer");
		cr_assert_eq(r.status, 0, "%s%s", r.out, r.log);
		cr_assert_eq(sscanf(r.out, "own-timer: %d delivered, %d overruns, %d foreign, cpu %lf",
				    &delivered, &overruns, &foreign, &cpu), 4, "%s", r.out);
		cr_assert_eq(foreign, 0);
		cr_assert(delivered + overruns >= (int)(cpu * 100) - 1 &&
			  delivered + overruns <= (int)(cpu * 100) + 1,
			  "%s: %d delivered + %d overruns in %.6f s of CPU time", samplers[i],
			  delivered, overruns, cpu);
		run_free(&r);
	}
}

Test(sampling, programs_own_sigprof_is_delivered_and_ours_never)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	struct run r;
	int own = -1, foreign = -1;
	json_int_t taken = 0;
	json_t *j, *t;
	size_t i;

	SRUN(&r, "-q", "--sampler", "sigprof", "--json", json, "--", SAMPLE_PROG, "own-prof");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.log);
	cr_assert_eq(sscanf(r.out, "own-prof: %d own SIGPROFs, %d foreign", &own, &foreign), 2);
	cr_assert_eq(foreign, 0);
	j = load(json);
	/* each of the program's own signals was one sample, and was delivered */
	cr_assert_eq(count(j, "programs_own"), own);
	cr_assert_gt(count(j, "total"), own);
	json_decref(j);
	run_free(&r);
	/* the ring sampler sends none and takes none at the program's own */
	SRUN(&r, "-q", "--json", json, "--", SAMPLE_PROG, "own-prof");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.log);
	cr_assert_eq(sscanf(r.out, "own-prof: %d own SIGPROFs, %d foreign", &own, &foreign), 2);
	cr_assert_eq(foreign, 0);
	j = load(json);
	cr_assert_eq(count(j, "programs_own"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "run"), "trigger")),
			 "perf-ring");
	/* taken, walked or not (a loaded machine may drop some from a full queue) */
	json_array_foreach(json_object_get(j, "threads"), i, t)
		taken += json_integer_value(json_object_get(t, "taken"));
	cr_assert_gt(taken, 800, "%lld samples taken", (long long)taken);
	json_decref(j);
	run_free(&r);
}

Test(sampling, blocked_sigprof_is_sampled_when_unblocked)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	struct run r;
	json_t *j;
	double waited;

	SRUN(&r, "-q", "--sampler", "sigprof", "--json", json, "--", SAMPLE_PROG, "blocked");
	cr_assert_eq(r.status, 0, "%s", r.log);
	j = load(json);
	waited = json_real_value(json_object_get(json_object_get(j, "samples"), "waited_max_ms"));
	/*
	 * the first overflow came at most one period into the 300 ms of CPU
	 * time blocked; the wait is wall time, which a loaded machine stretches
	 */
	cr_assert_geq(count(j, "waited"), 1);
	cr_assert(waited >= 290 && waited < 1000, "waited %.1f ms", waited);
	json_decref(j);
	run_free(&r);
}

/*
 * Samples taken of thread @tid (the JSON's "threads": walked or not, as a
 * loaded machine may drop some from a full queue).
 */
static long samples_of(json_t *j, int tid)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(j, "threads"), i, t)
		if (json_integer_value(json_object_get(t, "tid")) == tid)
			return (long)json_integer_value(json_object_get(t, "taken"));
	return 0;
}

/*
 * Threads with every signal blocked (xz -T2's workers) get as many samples
 * per CPU second as any other with the ring sampler: the kernel takes them.
 * SIGPROF reaches them only once unblocked, which these never are.
 */
Test(sampling, threads_blocking_every_signal_are_sampled_by_the_ring)
{
	char jbuf[256], *p;
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	struct run r;
	double cpu, user, rate;
	bool user_only;
	int tid, n = 0;
	json_t *j;

	SRUN(&r, "-q", "--json-all", json, "--", SAMPLE_PROG, "masked");
	cr_assert_eq(r.status, 0, "%s", r.log);
	j = load(json);
	/* an unprivileged user may sample user time only (perf_event_paranoid 2) */
	user_only = json_is_true(json_object_get(json_object_get(j, "run"), "user_time_only"));
	for (p = r.out; (p = strstr(p, "masked: tid ")); p++, n++) {
		cr_assert_eq(sscanf(p, "masked: tid %d cpu %lf user %lf", &tid, &cpu, &user), 3);
		rate = (double)samples_of(j, tid) / (user_only ? user : cpu);
		/* 999 Hz of CPU time (a tick's rounding either way) */
		cr_assert(rate > 900 && rate < 1100, "tid %d: %ld samples in %.3f s of CPU, %.3f "
			  "of user time%s", tid, samples_of(j, tid), cpu, user,
			  user_only ? " (user time sampled only)" : "");
	}
	cr_assert_eq(n, 2, "%s", r.out);
	json_decref(j);
	run_free(&r);
	SRUN(&r, "-q", "--sampler", "sigprof", "--json-all", json, "--", SAMPLE_PROG, "masked");
	cr_assert_eq(r.status, 0, "%s", r.log);
	j = load(json);
	for (p = r.out; (p = strstr(p, "masked: tid ")); p++) {
		cr_assert_eq(sscanf(p, "masked: tid %d cpu %lf", &tid, &cpu), 2);
		cr_assert_eq(samples_of(j, tid), 0);
	}
	cr_assert_eq(count(j, "blocked_threads"), 2);
	json_decref(j);
	run_free(&r);
}

/* -F 0: no sample and no sampling report, but the files asked for, without samples. */
Test(sampling, freq_zero_takes_no_samples_and_writes_the_files)
{
	char jbuf[256], fbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	const char *folded = tmp_path(fbuf, sizeof(fbuf), "stacks.folded");
	struct stat st;
	struct run r;
	json_t *j;

	SRUN(&r, "--freq", "0", "--json", json, "--folded", folded, "--", SAMPLE_PROG, "blocked");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_null(strstr(r.log, "sampling:"), "%s", r.log);
	j = load(json);
	cr_assert_eq(count(j, "total"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "run"), "trigger")),
			 "none");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "run"), "freq")), 0);
	cr_assert_eq(stat(folded, &st), 0);
	cr_assert_eq(st.st_size, 0);
	json_decref(j);
	run_free(&r);
}

Test(sampling, folded_stacks_count_every_sample)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	char fbuf[256];
	const char *folded = tmp_path(fbuf, sizeof(fbuf), "stacks.folded");
	unsigned long total = 0, n;
	char line[65536], *sp;
	struct run r;
	json_t *j;
	FILE *f;

	SRUN(&r, "-q", "--json", json, "--folded", folded, "--", SAMPLE_PROG, "blocked");
	cr_assert_eq(r.status, 0, "%s", r.log);
	f = fopen(folded, "r");
	cr_assert(f);
	while (fgets(line, sizeof(line), f)) {
		int tgid, tid, end = 0;

		sp = strrchr(line, ' ');
		cr_assert(sp && sscanf(sp, " %lu", &n) == 1, "%s", line);
		total += n;
		/* each stack under its thread's root, "comm-TGID/TID" */
		cr_assert(!strncmp(line, "sample-prog-", 12) &&
			  sscanf(line + 12, "%d/%d;%n", &tgid, &tid, &end) == 2 && end > 0, "%s",
			  line);
	}
	fclose(f);
	j = load(json);
	cr_assert_eq((json_int_t)total, count(j, "total"));
	/* the profile counts the program's samples: all but those in the loader module */
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "profile"), "samples")) +
		     count(j, "in_loader_module"), count(j, "total"));
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(
		     json_object_get(j, "profile"), "processes"), 0), "samples")), count(j, "total"));
	json_decref(j);
	run_free(&r);
}

/*
 * sample_prog @mode under --clock wall at 200 Hz with @sampler: its samples
 * in libc's syscall() (no SFrame there: the walk ends at once, but it was
 * sampled), and *@total in all.
 */
static size_t wall_samples_in_syscall(const char *mode, const char *sampler, long long *total)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	struct run r;
	size_t n;
	json_t *j;

	SRUN(&r, "-q", "--clock", "wall", "--freq", "200", "--sampler", sampler, "--json-all",
	     json, "--", SAMPLE_PROG, mode);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.log);
	j = load(json);
	n = stacks_where(j, "syscall", NULL);
	*total = count(j, "total");
	json_decref(j);
	run_free(&r);
	return n;
}

/*
 * 300 ms in nanosleep, next to no CPU time: only the wall clock sees it.
 * 60 periods; a loaded machine delays the timer, so at least 10 (the CPU
 * clock sees 0 or 1).
 */
Test(sampling, wall_clock_samples_a_blocked_thread)
{
	long long total;

	cr_assert_geq(wall_samples_in_syscall("sleep", "ring", &total), 10);
	cr_assert_geq(total, 10);
}

/*
 * The wall clock stops a thread blocking every signal (no SIGPROF, which it
 * would never take): sampled in its sleep, which restarts unseen (the
 * program fails on an early return); SIGPROF never reaches it there.
 */
Test(sampling, wall_clock_stops_a_thread_that_blocks_every_signal)
{
	long long total;

	cr_assert_geq(wall_samples_in_syscall("sleep-masked", "ring", &total), 10);
	cr_assert_eq(wall_samples_in_syscall("sleep-masked", "sigprof", &total), 0);
}

/*
 * A sample taken inside execve (the perf event is enabled before the exec's
 * own ptrace stop): the exec's stop overtakes the stop asked for, which the
 * kernel then drops. The thread must be asked again at its next sample, not
 * forgotten: 100 execs of 5 ms and 0.3 s of CPU time at 999 Hz give about
 * 800 samples.
 */
Test(sampling, a_stop_overtaken_by_an_exec_is_asked_again)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	struct run r;
	json_t *j;

	SRUN(&r, "-q", "--sampler", "stop", "--no-crosscheck", "--json", json, "--", SAMPLE_PROG,
	     "exec-chain");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "exec-chain: done\n");
	j = load(json);
	cr_assert_gt(count(j, "total"), 400, "%lld samples", (long long)count(j, "total"));
	json_decref(j);
	run_free(&r);
}

/*
 * Wrong SFrame data (RA at CFA-16): every SFrame step finds a wrong caller;
 * from count_down (CFA = SP + 8) it reads the RA below SP: ours-wrong
 * (ra-below-sp) whatever the word there is, read late or not.
 */
Test(sampling, check_fails_on_wrong_sframe_with_exit_status_3)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	struct run r;
	json_t *j;

	run_codectl(&r, (const char *const[]){ "--no-loader-module", "--no-exec-registration",
		    "-q", "--check", "--json", json, "--", SAMPLE_PROG, "bad-sframe", NULL });
	cr_assert_eq(r.status, 3, "%d %s", r.status, r.log);
	j = load(json);
	/* the rule says so, whatever the word below SP: no elfutils needed */
	cr_assert_gt(count(j, "ours_wrong"), 0);
	cr_assert_gt(json_integer_value(json_object_get(json_object_get(json_object_get(
			     j, "samples"), "wrong_frames"), "ra-below-sp")), 0);
	cr_assert_eq(count(j, "ours_wrong") + count(j, "both_wrong") + count(j, "diverged"),
		     count(j, "with_sframe_step"));
	/* the rest, in libc without unwind data, where a fallback may leave out a frame */
	cr_assert_eq(count(j, "verified") + count(j, "fallback_skipped"),
		     count(j, "total") - count(j, "with_sframe_step"));
	cr_assert_eq(json_integer_value(json_object_get(j, "check_failures")),
		     count(j, "with_sframe_step") - count(j, "agreeing"));
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "elfutils"),
							"with_us")), 0);
	cr_assert_eq(count(j, "agreeing"), 0);
	json_decref(j);
	run_free(&r);
	/* the same without --check: the program's exit status */
	run_codectl(&r, (const char *const[]){ "--no-loader-module", "--no-exec-registration",
		    "-q", "--", SAMPLE_PROG, "bad-sframe", NULL });
	cr_assert_eq(r.status, 0, "%s", r.log);
	run_free(&r);
}

/* SIGINT to codectl-run: the program dies of it, the report is still written whole. */
Test(sampling, interrupted_run_writes_complete_files)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	char fbuf[256];
	const char *folded = tmp_path(fbuf, sizeof(fbuf), "stacks.folded");
	int status;
	pid_t pid;
	json_t *j;

	pid = fork();
	if (pid == 0) {
		execl(CODECTL_RUN, CODECTL_RUN, "-q", "--no-loader-module", "--json", json,
		      "--folded", folded, "--", SAMPLE_PROG, "spin", NULL);
		_exit(127);
	}
	usleep(600 * 1000);
	kill(pid, SIGINT);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "status %#x", status);
	j = load(json);
	cr_assert_gt(count(j, "total"), 0);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "run"), "exit_status")),
		     128 + SIGINT);
	json_decref(j);
	cr_assert_eq(access(folded, R_OK), 0);
}

/* Report paths are checked before the program runs; links are written through, not replaced. */
Test(sampling, report_paths_checked_first_and_links_kept)
{
	char buf[256], target[300], link[300];
	const char *dir;
	struct run r;
	struct stat st;
	json_t *j;

	SRUN(&r, "--json", "/nonexistent-dir/report.json", "--", SAMPLE_PROG, "blocked");
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.log, "cannot write there"), "%s", r.log);
	cr_assert_null(r.out && strstr(r.out, "blocked: done") ? r.out : NULL, "the program ran");
	run_free(&r);
	dir = tmp_path(buf, sizeof(buf), "");
	snprintf(target, sizeof(target), "%starget.json", dir);
	snprintf(link, sizeof(link), "%slink.json", dir);
	cr_assert_eq(symlink("target.json", link), 0);
	SRUN(&r, "-q", "--no-crosscheck", "--json", link, "--", SAMPLE_PROG, "blocked");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert(!lstat(link, &st) && S_ISLNK(st.st_mode));
	j = load(target);
	/* nothing was cross-checked: no agreement figure */
	cr_assert(json_is_null(json_object_get(j, "agreement")));
	cr_assert_eq(count(j, "unchecked"), count(j, "total"));
	json_decref(j);
	run_free(&r);
}

/* Frame @i of @stack: its symbol starts with @prefix and it was reached by @source. */
static bool frame_is(json_t *stack, size_t i, const char *prefix, const char *source)
{
	json_t *f = json_array_get(json_object_get(stack, "frames"), i);
	const char *sym = json_string_value(json_object_get(f, "symbol"));
	const char *src = json_string_value(json_object_get(f, "source"));

	return sym && src && !strncmp(sym, prefix, strlen(prefix)) && !strcmp(src, source);
}

/* A stack through sample-prog's JIT code, checked against the shape it must have. */
static void check_jit_stack(json_t *s, size_t *in_loop, size_t *in_leaf)
{
	const char *cls = json_string_value(json_object_get(s, "class"));
	json_int_t first = json_integer_value(json_object_get(s, "first_jit_frame"));
	json_int_t n = json_integer_value(json_object_get(s, "jit_frames"));

	if (first >= json_integer_value(json_object_get(s, "covered"))) {
		/* the frame-pointer fallback after the covered prefix read a JIT address */
		cr_assert_str_eq(json_string_value(json_object_get(s, "outcome")), "verified");
		return;
	}
	cr_assert(!strcmp(cls, "jit-unchecked") || !strcmp(cls, "match"), "class %s", cls);
	cr_assert(json_is_true(json_object_get(s, "agrees")));
	if (frame_is(s, 0, "jit_loop+", "regs")) {
		/* run_jit -> jit_outer -> jit_middle -> jit_loop */
		cr_assert(frame_is(s, 1, "jit_middle+", "jit"));
		cr_assert(frame_is(s, 2, "jit_outer+0x6", "sframe"));
		cr_assert(frame_is(s, 3, "run_jit+", "jit"));
		cr_assert_eq(first, 0);
		cr_assert_eq(n, 2);
		(*in_loop)++;
	} else if (frame_is(s, 0, "count_down+", "regs")) {
		/* run_jit -> jit_outer -> jit_middle -> count_down */
		cr_assert(frame_is(s, 1, "jit_middle+", "sframe"));
		cr_assert(frame_is(s, 2, "jit_outer+0x6", "sframe"));
		cr_assert(frame_is(s, 3, "run_jit+", "jit"));
		cr_assert_eq(first, 2);
		cr_assert_eq(n, 1);
		(*in_leaf)++;
	}
}

/*
 * JIT code registered with CODE_REGISTER_JIT and named in a perf map: frames
 * get the map's names and "[jit]" as their object; libunwind checks them up
 * to the first JIT frame only, and --check does not fail for the rest.
 */
Test(sampling, jit_frames_named_from_the_perf_map_and_checked_up_to_the_first_one)
{
	char jbuf[256], map[64];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	size_t i, in_loop = 0, in_leaf = 0, in_jit0 = 0, through = 0, frames = 0, unchecked = 0;
	json_t *j, *s, *jit;
	const char *cls;
	struct run r;

	SRUN(&r, "--check", "--json-all", json, "--", SAMPLE_PROG, "jit");
	j = load(json);
	s = json_array_get(json_object_get(j, "stacks"), 0);
	snprintf(map, sizeof(map), "/tmp/perf-%lld.map",
		 (long long)json_integer_value(json_object_get(s, "pid")));
	unlink(map);
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert(strstr(r.out, "jit: done"), "%s", r.out);
	cr_assert(strstr(r.log, "frames past the first JIT frame are not cross-checked"), "%s",
		  r.log);
	cr_assert_eq(json_integer_value(json_object_get(j, "check_failures")), 0);
	json_array_foreach(json_object_get(j, "stacks"), i, s) {
		if (!json_integer_value(json_object_get(s, "jit_frames")))
			continue;
		through++;
		frames += (size_t)json_integer_value(json_object_get(s, "jit_frames"));
		/* JIT code: jit_outer, jit_loop (jit_middle is C) */
		in_jit0 += frame_is(s, 0, "jit_outer+", "regs") || frame_is(s, 0, "jit_loop+", "regs");
		cls = json_string_value(json_object_get(s, "class"));
		unchecked += !strcmp(cls, "jit-unchecked");
		check_jit_stack(s, &in_loop, &in_leaf);
	}
	cr_assert_gt(in_loop, 0);
	cr_assert_gt(in_leaf, 0);
	cr_assert_eq(count(j, "through_jit"), (json_int_t)through);
	cr_assert_eq(count(j, "jit_frames"), (json_int_t)frames);
	/* jit-unchecked only through JIT code (the others are matches: check_jit_stack()) */
	cr_assert_eq(count(j, "jit_unchecked"), (json_int_t)unchecked);
	jit = json_object_get(json_object_get(j, "coverage"), "[jit]");
	/* frame 0 in JIT code: the object is "[jit]", and its FREs give a step */
	cr_assert_geq(in_jit0, in_loop);
	cr_assert_eq(json_integer_value(json_object_get(jit, "samples")), (json_int_t)in_jit0);
	cr_assert_eq(json_integer_value(json_object_get(jit, "with_sframe_step")),
		     (json_int_t)in_jit0);
	json_decref(j);
	run_free(&r);
}

/*
 * 1000 threads living together, each registering 20 times, sampled by the
 * wall clock at 100 Hz (100 000 stops a second asked for): the calls are
 * answered first and sampling sheds the stops over its budget, threads
 * taking turns, so the program finishes (before shedding it never did).
 */
Test(sampling, a_thousand_wall_clock_sampled_threads_get_every_answer)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	const struct summary_row *row;
	struct run r;
	json_t *j;

	SRUN(&r, "--clock", "wall", "--freq", "100", "--json", json, "--", E2E_PROG, "threads",
	     "1000", "20", "20000");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "threads: 20000 registrations\n");
	row = run_first_row(&r);
	cr_assert(row);
	cr_assert_eq(row->accepted, 20000);
	cr_assert_eq(row->unregistered, 20000);
	cr_assert_eq(row->rejected, 0);
	cr_assert_eq(row->left, row->exec, "only what was registered at exec is left");
	j = load(json);
	cr_assert_gt(count(j, "shed"), 0);
	cr_assert_gt(count(j, "total"), 0);
	json_decref(j);
	run_free(&r);
}

/* Does this kernel answer PROCMAP_QUERY (Linux 6.11+)? */
static bool have_procmap_query(void)
{
	uint64_t q[13] = { sizeof(q), 0, (uintptr_t)&q };
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	bool yes = fd >= 0 && !ioctl(fd, _IOWR('f', 17, uint64_t[13]), q);

	if (fd >= 0)
		close(fd);
	return yes;
}

/*
 * 50 registrations, each of text mapped just before the call: every one is
 * refused by the cached mappings and checked again with fresh ones, read
 * whole (maps_reads.full) or, where the kernel has PROCMAP_QUERY, asked for
 * the call's text only (maps_reads.ranges). Besides those 50, exactly two
 * whole reads: at exec and at exit. A call that finds the cache older than
 * 100 ms reads it whole instead of asking, so the split between the two
 * depends on time, their sum does not.
 */
Test(sampling, new_text_is_looked_up_not_all_mappings_read)
{
	char jbuf[256];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	json_int_t full, ranges;
	json_t *j, *m;
	struct run r;

	SRUN(&r, "-q", "-F", "0", "--json", json, "--", E2E_PROG, "new-text", "50");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "new-text: 50 registered\n");
	j = load(json);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "run"), "trigger")),
			 "none");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "registrations"),
							"accepted")), 50);
	m = json_object_get(json_object_get(j, "supervisor"), "maps_reads");
	full = json_integer_value(json_object_get(m, "full"));
	ranges = json_integer_value(json_object_get(m, "ranges"));
	cr_assert_eq(full + ranges, 50 + 2, "full %lld, ranges %lld", (long long)full,
		     (long long)ranges);
	if (have_procmap_query())
		cr_assert_geq(ranges, 25, "full %lld, ranges %lld", (long long)full,
			      (long long)ranges);
	else
		cr_assert_eq(ranges, 0);
	json_decref(j);
	run_free(&r);
}

/*
 * A shell loop of command substitutions, sampled: each $(...) forks, the
 * fork runs a pipeline whose sed child execs. A sample of a fork child
 * walked between its execve and the exec event (the exec hook walks the
 * queued samples first) read the new program's mappings; the child had
 * none cached of its own, so the parent's registrations it inherited
 * looked unmapped: "stale ... unloaded without CODE_UNREGISTER", 100 times
 * in 20 rounds, none with -F 0. A fork child now starts with the parent's
 * cached mappings, and an execve is told apart by its vDSO.
 */
Test(sampling, shell_loop_of_forks_and_execs_leaves_nothing_stale)
{
	const char *loop = "for i in $(seq 50); do x=$(echo a | sed s/a/b/); done; echo $x";
	struct run r;
	int rows;

	run_codectl(&r, (const char *const[]){ "--", "/bin/bash", "-c", loop, NULL });
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "b\n");
	cr_assert_null(strstr(r.log, "stale registration dropped"), "%s", r.log);
	rows = r.nrows;
	cr_assert_geq(rows, 100, "a process per fork: %s", r.log);
	for (int i = 0; i < rows; i++)
		cr_assert_eq(r.rows[i].stale, 0, "pid %d: %s", r.rows[i].pid, r.log);
	run_free(&r);
}

/*
 * "-" is standard output for --json, --folded and -o, as for strace and perf:
 * no file named "-" is made, and what goes there comes after the program's
 * own output.
 */
Test(sampling, dash_is_standard_output)
{
	struct stat st;
	json_error_t e;
	const char *p;
	struct run r;
	json_t *j;

	cr_assert_neq(lstat("-", &st), 0, "a file named - is here before the test");
	SRUN(&r, "-q", "-F", "0", "--json", "-", "--", E2E_PROG, "new-text", "3");
	cr_assert_eq(r.status, 0, "%s", r.log);
	p = "new-text: 3 registered\n";
	cr_assert_eq(strncmp(r.out, p, strlen(p)), 0, "%s", r.out);
	j = json_loads(r.out + strlen(p), 0, &e);
	cr_assert(j, "%s: %s", e.text, r.out);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "registrations"),
							"accepted")), 3);
	json_decref(j);
	run_free(&r);
	SRUN(&r, "-F", "0", "-o", "-", "--", E2E_PROG, "new-text", "3");
	cr_assert_eq(r.status, 0, "%s", r.out);
	cr_assert_str_eq(r.log, "");
	cr_assert(strstr(r.out, "new-text: 3 registered\n"), "%s", r.out);
	cr_assert(strstr(r.out, "codectl-run: summary"), "%s", r.out);
	run_free(&r);
	cr_assert_neq(lstat("-", &st), 0, "a file named - was made");
}

/*
 * codectl-run's own descriptors at the end of a run of @n short sampled
 * children, and how many of them still hold per-process state.
 */
static void short_children(int n, json_int_t *fds, json_int_t *holding)
{
	char jbuf[256], nbuf[16], want[64];
	const char *json = tmp_path(jbuf, sizeof(jbuf), "report.json");
	struct run r;
	json_t *j, *u;

	snprintf(nbuf, sizeof(nbuf), "%d", n);
	snprintf(want, sizeof(want), "short-children: %d registered\n", n);
	SRUN(&r, "-q", "--json", json, "--", E2E_PROG, "short-children", nbuf);
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, want);
	j = load(json);
	cr_assert_gt(count(j, "total"), 0);
	u = json_object_get(j, "supervisor");
	*fds = json_integer_value(json_object_get(u, "fds"));
	*holding = json_integer_value(json_object_get(u, "exited_holding_state"));
	cr_assert_gt(*fds, 0);
	json_decref(j);
	run_free(&r);
}

/*
 * What is kept per sampled process (libunwind's and libdw's state, symbols,
 * code pages) goes when it exits: none of 600 short children holds any at
 * the end, and codectl-run has about the descriptors 50 left it with (before,
 * all 600 held theirs, ~2 descriptors and ~0.2 MB each). The descriptors
 * kept for the run (line tables per file, whichever files the kept examples
 * name) vary by a few from run to run, so they are held to a bound far below
 * one per child; memory is not compared (under ASan freed memory stays in
 * quarantine).
 */
Test(sampling, exited_processes_leave_no_state_behind)
{
	json_int_t fds_50, holding_50, fds_600, holding_600;

	short_children(50, &fds_50, &holding_50);
	short_children(600, &fds_600, &holding_600);
	cr_assert_eq(holding_50, 0);
	cr_assert_eq(holding_600, 0);
	cr_assert_leq(fds_600, fds_50 + 32, "descriptors: %lld after 50 children, %lld after 600",
		      (long long)fds_50, (long long)fds_600);
}

/*
 * Under a limit of 256 descriptors, 600 short sampled children each make a
 * valid call: every one is answered 0 (before, once the kept state had used
 * the descriptors up, /proc/PID/maps could not be opened and valid calls got
 * EINVAL, "text not executable").
 */
Test(sampling, valid_calls_are_answered_under_descriptor_pressure)
{
	struct rlimit lim = { 256, 256 };
	const struct summary_row *row;
	struct run r;

	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
	SRUN(&r, "--", E2E_PROG, "short-children", "600");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "short-children: 600 registered\n");
	row = run_first_row(&r);
	cr_assert(row);
	for (int i = 0; i < r.nrows; i++)
		cr_assert_eq(r.rows[i].rejected, 0, "pid %d", r.rows[i].pid);
	cr_assert(!strstr(r.log, "emulator failure"), "%s", r.log);
	run_free(&r);
}

/*
 * A call whose struct lies in a userfaultfd page nobody serves: codectl-run
 * reads it aside, so a child process's 2000 calls are answered meanwhile;
 * after 6 s the watchdog has said what the call waits for, the page is served
 * and the call answered 0 (before, the one event loop waited in
 * process_vm_readv and every traced process stalled). Needs userfaultfd for
 * kernel-mode faults: root, as the suite runs.
 */
Test(sampling, a_call_stalled_on_its_memory_stalls_no_other_process)
{
	struct run r;

	cr_assert_eq(geteuid(), 0, "userfaultfd for the supervisor's reads needs root");
	SRUN(&r, "--", E2E_PROG, "uffd-stall", "1000", "6000");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "uffd-stall: the other process made 2000 calls\n"
				"uffd-stall: the stalled call answered 0\n");
	cr_assert(strstr(r.log, "a codectl call has waited ") &&
		  strstr(r.log, " for 80 bytes of its memory at "),
		  "%s", r.log);
	cr_assert(strstr(r.log, "only it waits"), "%s", r.log);
	run_free(&r);
}
