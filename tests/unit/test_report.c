// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling report (supervisor/report/) alone: statistics from walks
 * classified here, then the text on the log and the --json and --folded
 * files, compared with what they must say.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/report/report.h"
#include "test_tmp.h"

/* Frames in a fake process: 0x1000 leaf, 0x2000 mid, 0x3000 main, 0x9000 libc. */
static const char *sym(void *ctx, uint64_t ip, bool caller)
{
	(void)ctx;
	switch ((caller ? ip - 1 : ip) & ~0xfffull) {
	case 0x1000:
		return "leaf+0x10";
	case 0x2000:
		return "mid+0x20";
	case 0x3000:
		return "main+0x30";
	default:
		return "[libc.so.6+0x9000]";
	}
}

/* The object of a frame, looked up where it is named (a caller at @ip - 1). */
static const char *object(void *ctx, uint64_t ip, bool caller)
{
	(void)ctx;
	return ((caller ? ip - 1 : ip) & ~0xfffull) == 0x9000 ? "libc.so.6" : "prog";
}

/* Thread names: a space and a ';' in one, which a folded frame cannot hold. */
static void comm(void *ctx, pid_t tid, char *buf, size_t size)
{
	(void)ctx;
	snprintf(buf, size, "%s", tid == 43 ? "my prog;1" : "");
}

static const struct stats_namer names = { sym, object, NULL, comm };

static const struct emu_frame stack3[] = {
	{ .ip = 0x1010, .source = EMU_SRC_REGS }, { .ip = 0x2020, .source = EMU_SRC_SFRAME }, { .ip = 0x3030, .source = EMU_SRC_SFRAME },
};
static const uint64_t ref3[] = { 0x1010, 0x2020, 0x3030 };
static const uint64_t ref4[] = { 0x1010, 0x2020, 0x3030, 0x9040 };
static const struct emu_frame stack_fp[] = {
	{ .ip = 0x1010, .source = EMU_SRC_REGS }, { .ip = 0x2020, .source = EMU_SRC_SFRAME }, { .ip = 0x3030, .source = EMU_SRC_SFRAME },
	{ .ip = 0x9999, .source = EMU_SRC_FP },
};

/* A JIT step to a word that is not code, and libunwind's guess the same. */
static const struct emu_frame stack_lie[] = {
	{ .ip = 0x1010, .source = EMU_SRC_REGS }, { .ip = 0x2020, .source = EMU_SRC_JIT }, { .ip = 0x3e8, .source = EMU_SRC_JIT },
};
static const uint64_t ref_lie[] = { 0x1010, 0x2020, 0x3e8 };
static const uint8_t yes4[] = { PLAUSIBLE_YES, PLAUSIBLE_YES, PLAUSIBLE_YES, PLAUSIBLE_YES };
static const uint8_t lie[] = { PLAUSIBLE_YES, PLAUSIBLE_YES, PLAUSIBLE_NOT_CODE };
static const uint8_t fallback_not_code[] = { PLAUSIBLE_YES, PLAUSIBLE_YES, PLAUSIBLE_YES,
					     PLAUSIBLE_NOT_CODE };

/* One sample: our @n frames against libunwind's @ref (both @plaus), classified, counted. */
static void add(struct sample_stats *st, const struct emu_frame *ours, unsigned int n,
		const uint64_t *ref, unsigned int n_ref, const uint8_t *plaus, const char *reason)
{
	struct sample_walks w = {
		.tgid = 42, .tid = 43, .stop = "ra-zero", .freeze_ns = 20000,
		.in = { .ours = ours, .n = n, .plaus = plaus, .stop = EMU_STOP_OUTERMOST,
			.jit_frame = SAMPLE_NO_JIT_FRAME, .ref = ref, .n_ref = n_ref,
			.ref_plaus = plaus, .have_ref = true },
	};

	classify_sample(&w.in, &w.v);
	w.reason = reason;
	stats_add(st, &w, "prog", &names, true);
}

static struct sample_stats stats;
static struct run_opts opts;

static void setup(void)
{
	static char *argv[] = { "prog", NULL };

	cr_assert_eq(stats_init(&stats, true, 1000000), 0);
	add(&stats, stack3, 3, ref3, 3, yes4, NULL);
	add(&stats, stack3, 3, ref3, 3, yes4, NULL);
	add(&stats, stack_fp, 4, ref4, 4, NULL, "no .sframe in libc.so.6: frame-pointer fallback");
	add(&stats, stack_lie, 3, ref_lie, 3, lie, "frame 2, by a jit step, is not-code");
	opts = (struct run_opts){ .freq = 999, .crosscheck = true, .stack_bytes = 65536,
				  .max_frames = 128, .argv = argv };
}

static void teardown(void)
{
	stats_free(&stats);
}

TestSuite(report, .init = setup, .fini = teardown);

static char *print(void)
{
	struct log log = { 0 };
	size_t len;
	char *text = NULL;
	struct report r = { .stats = &stats, .opts = &opts, .perf_events = true, .ring = true,
			    .ring_stack = 65336, .queue = 128, .log = &log };

	log.f = open_memstream(&text, &len);
	cr_assert(log.f);
	report_print(&r);
	fclose(log.f);
	return text;
}

Test(report, counts_agreement_coverage_and_places)
{
	char *text = print();

	cr_assert(strstr(text, "codectl-run: sampling: 4 samples (999 Hz, CPU clock, perf ring "
			       "buffers), 0 dropped\n"), "%s", text);
	cr_assert(strstr(text, "  no thread stopped: the kernel copied the registers and up to "
			       "65336 bytes of stack at each sample\n"), "%s", text);
	/* the fallback's 0x9999 where libunwind's unwind data has 0x9040: frames left out */
	cr_assert(strstr(text, "  verdict: 2 verified correct in their covered part; wrong: ours 0, "
			       "libunwind's 0, both 1; unverifiable 1 (1: the frame-pointer fallback "
			       "left out frames that libunwind found by unwind data)\n"), "%s", text);
	cr_assert(strstr(text, "  whole walks, ours against libunwind's: match 2, ended 0, astray 1, "
			       "diverged 0, libunwind-failed 0, both-wrong 1\n"), "%s", text);
	cr_assert(strstr(text, "  wrong frames the verdicts found: in SFrame-covered parts: "
			       "not-code 1\n"), "%s", text);
	cr_assert(strstr(text, "  agreement: 75.0% (3 of 4 samples with an SFrame/JIT step agree "
			       "with libunwind over their SFrame-covered frames)\n"), "%s", text);
	cr_assert(strstr(text, "    prog                              100.0%  (4 of 4)\n"), "%s",
		  text);
	cr_assert(strstr(text, "   2. both-wrong in mid: 1 samples (not-code; frame 2, by a jit "
			       "step, is not-code)\n"), "%s", text);
	cr_assert(strstr(text, "  1 samples show our walk wrong"), "%s", text);
	cr_assert(strstr(text, "    ->   3 [libc.so.6+0x9000]                             fp     | "
			       "[libc.so.6+0x9000]\n"), "%s", text);
	cr_assert(strstr(text, "   1. astray in main: 1 samples (no .sframe in "
			       "libc.so.6: frame-pointer fallback)\n"), "%s", text);
	cr_assert_null(strstr(text, "freeze per sample"), "%s", text);
	free(text);
}

/*
 * Where the time goes: functions by self and total over the frames each
 * stack keeps (the lie's not-code frame is not counted), marked where
 * samples were unverifiable (~) or wrong (!); the thread by its name.
 */
Test(report, profile_by_function_object_and_thread)
{
	char *text;

	opts.report = OPTS_REPORT_PROFILE;
	text = print();
	cr_assert(strstr(text, "  profile: 4 samples of the program, by the frames each stack "
			       "keeps (~: some unverifiable, !: some wrong)\n"
			       "    functions by self:\n"
			       "     ! 100.0%      4 self  100.0%      4 total  leaf  prog\n"
			       "     !   0.0%      0 self  100.0%      4 total  mid  prog\n"
			       "     ~   0.0%      0 self   75.0%      3 total  main  prog\n"
			       "    functions by total:\n"), "%s", text);
	cr_assert(strstr(text, "    objects by total:\n"
			       "     ! 100.0%      4 self  100.0%      4 total  prog\n"
			       "    by process:\n"
			       "     ! 100.0%      4  pid 42 my prog;1\n"
			       "    by thread:\n"
			       "     ! 100.0%      4  tid 43 my prog;1 (pid 42)\n"), "%s", text);
	/* --report profile: not the coverage part */
	cr_assert_null(strstr(text, "where SFrame coverage ends"), "%s", text);
	cr_assert_null(strstr(text, "[libc.so.6]"), "%s", text);
	free(text);
	opts.report = OPTS_REPORT_COVERAGE;
	text = print();
	cr_assert_null(strstr(text, "profile:"), "%s", text);
	cr_assert(strstr(text, "where SFrame coverage ends"), "%s", text);
	free(text);
}

Test(report, quiet_prints_nothing)
{
	char *text;

	opts.quiet = true;
	text = print();
	cr_assert_str_eq(text, "");
	free(text);
}

Test(report, json_and_folded_files)
{
	char dir[PATH_MAX], json_path[PATH_MAX + 16], folded_path[PATH_MAX + 16], line[256];
	struct log log = { .f = stderr };
	struct report r = { .stats = &stats, .opts = &opts, .perf_events = false, .queue = 128,
			    .registrations = { 5, 1, 2, 3, 0 }, .exit_status = 7, .log = &log };
	json_t *j, *samples, *lied, *frame, *prof;
	json_error_t e;
	FILE *f;

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-report"));
	snprintf(json_path, sizeof(json_path), "%s/r.json", dir);
	snprintf(folded_path, sizeof(folded_path), "%s/r.folded", dir);
	opts.json_path = json_path;
	opts.folded_path = folded_path;
	cr_assert_eq(report_check_files(&log, &opts), 0);
	cr_assert_eq(report_write_files(&r), 0);
	j = json_load_file(json_path, 0, &e);
	cr_assert(j, "%s", e.text);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "run"), "exit_status")),
		     7);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "run"), "trigger")),
			 "timer");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "samples"), "match")),
		     2);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "registrations"),
							"at_exec")), 3);
	samples = json_object_get(j, "samples");
	cr_assert_eq(json_integer_value(json_object_get(samples, "both_wrong")), 1);
	cr_assert_eq(json_integer_value(json_object_get(samples, "astray")), 1);
	cr_assert_eq(json_integer_value(json_object_get(samples, "sframe_shorter")), 1);
	cr_assert_eq(json_integer_value(json_object_get(samples, "verified")), 2);
	cr_assert_eq(json_integer_value(json_object_get(samples, "unverifiable")), 1);
	cr_assert_eq(json_integer_value(json_object_get(samples, "fallback_skipped")), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(samples, "wrong"),
							"libunwind")), 0);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(samples, "wrong"),
							"both")), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(samples, "wrong_frames"),
							"not-code")), 1);
	/* ... and whose walk it is in: ours, in the covered part (both-wrong) */
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_object_get(samples,
		     "wrong_frames_in"), "covered"), "not-code")), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_object_get(samples,
		     "wrong_frames_in"), "astray"), "not-code")), 0);
	cr_assert_eq(json_array_size(json_object_get(j, "stacks")), 4);
	cr_assert_eq(json_array_size(json_object_get(j, "places")), 2);
	lied = json_array_get(json_object_get(j, "stacks"), 3);
	cr_assert_str_eq(json_string_value(json_object_get(lied, "class")), "both-wrong");
	cr_assert_str_eq(json_string_value(json_object_get(lied, "why")), "not-code");
	cr_assert_eq(json_integer_value(json_object_get(lied, "wrong_frame")), 2);
	frame = json_array_get(json_object_get(lied, "frames"), 2);
	cr_assert(json_is_false(json_object_get(frame, "plausible")));
	cr_assert_str_eq(json_string_value(json_object_get(frame, "why")), "not-code");
	frame = json_array_get(json_object_get(lied, "frames"), 1);
	cr_assert(json_is_true(json_object_get(frame, "plausible")));
	cr_assert_str_eq(json_string_value(json_object_get(frame, "object")), "prog");
	frame = json_array_get(json_object_get(json_array_get(json_object_get(j, "stacks"), 2),
					       "frames"), 3);
	cr_assert_str_eq(json_string_value(json_object_get(frame, "symbol")), "[libc.so.6+0x9000]");
	cr_assert_str_eq(json_string_value(json_object_get(frame, "object")), "libc.so.6");
	/* the profile: by function (by total), object, process; the thread's name */
	prof = json_object_get(j, "profile");
	cr_assert_eq(json_integer_value(json_object_get(prof, "samples")), 4);
	frame = json_array_get(json_object_get(prof, "functions"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(frame, "function")), "leaf");
	cr_assert_str_eq(json_string_value(json_object_get(frame, "object")), "prog");
	cr_assert_eq(json_integer_value(json_object_get(frame, "self")), 4);
	cr_assert_eq(json_integer_value(json_object_get(frame, "unverified")), 1);
	cr_assert_eq(json_integer_value(json_object_get(frame, "wrong")), 1);
	cr_assert_eq(json_array_size(json_object_get(prof, "functions")), 3);
	frame = json_array_get(json_object_get(prof, "processes"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(frame, "comm")), "my prog;1");
	cr_assert_eq(json_integer_value(json_object_get(frame, "samples")), 4);
	frame = json_array_get(json_object_get(j, "threads"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(frame, "comm")), "my prog;1");
	cr_assert_eq(json_integer_value(json_object_get(frame, "wrong")), 1);
	json_decref(j);
	/*
	 * cut at the first frame judged wrong or unverifiable: the fallback's
	 * frame that left out libunwind's, the JIT step's not-code frame
	 */
	f = fopen(folded_path, "r");
	cr_assert(f);
	cr_assert(fgets(line, sizeof(line), f));
	cr_assert_str_eq(line, "my_prog_1-42/43;main;mid;leaf 2\n");
	cr_assert(fgets(line, sizeof(line), f));
	cr_assert_str_eq(line, "my_prog_1-42/43;[unverified];main;mid;leaf 1\n");
	cr_assert(fgets(line, sizeof(line), f));
	cr_assert_str_eq(line, "my_prog_1-42/43;[wrong: not-code];mid;leaf 1\n");
	cr_assert_null(fgets(line, sizeof(line), f));
	fclose(f);
	unlink(json_path);
	unlink(folded_path);
	rmdir(dir);
}

/* Read @path whole into @buf, and remove it. */
static void slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert(f, "%s", path);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
}

/* The --folded and --folded-all files of @st's samples (one run), read into @cut and @all. */
static void folded_of(struct sample_stats *st, char *cut, char *all, size_t size)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], path_all[PATH_MAX + 16];
	struct log log = { .f = stderr };
	struct report r = { .stats = st, .opts = &opts, .queue = 128, .log = &log };

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-report"));
	snprintf(path, sizeof(path), "%s/r.folded", dir);
	snprintf(path_all, sizeof(path_all), "%s/all.folded", dir);
	opts.folded_path = path;
	opts.folded_all_path = path_all;
	cr_assert_eq(report_write_files(&r), 0);
	slurp(path, cut, size);
	slurp(path_all, all, size);
	rmdir(dir);
}

/*
 * --folded-all keeps every frame of our walk (its own file, beside
 * --folded's in one run), --no-folded-root leaves the
 * thread's root out; frames past the covered prefix that libunwind does not
 * have too (it ended) are cut as [past-coverage].
 */
Test(report, folded_all_uncut_without_root_and_past_coverage)
{
	struct sample_stats st;
	char cut[1024], all[1024];

	cr_assert_eq(stats_init(&st, false, 1000000), 0);
	st.keep_folded_all = true;
	st.folded_no_root = true;
	add(&st, stack_fp, 4, ref4, 4, NULL, NULL);
	add(&st, stack_lie, 3, ref_lie, 3, lie, NULL);
	folded_of(&st, cut, all, sizeof(cut));
	cr_assert_str_eq(all, "[libc.so.6];main;mid;leaf 1\n[libc.so.6];mid;leaf 1\n");
	/* both files of one run: the cut form too */
	cr_assert_str_eq(cut, "[unverified];main;mid;leaf 1\n[wrong: not-code];mid;leaf 1\n");
	stats_free(&st);

	cr_assert_eq(stats_init(&st, false, 1000000), 0);
	add(&st, stack_fp, 4, ref3, 3, yes4, NULL);	/* libunwind ends at main */
	add(&st, stack_fp, 4, ref3, 3, fallback_not_code, NULL);
	folded_of(&st, cut, all, sizeof(cut));
	/* the fallback's frame past the covered part, not code: astray, not our walk wrong */
	cr_assert_str_eq(cut, "my_prog_1-42/43;[astray: not-code];main;mid;leaf 1\n"
			      "my_prog_1-42/43;[past-coverage];main;mid;leaf 1\n");
	cr_assert_str_eq(all, "");	/* not kept: no --folded-all when counted */
	stats_free(&st);
}

Test(report, unwritable_path_is_refused_before_the_run)
{
	struct log log = { 0 };
	char *text = NULL;
	size_t len;

	opts.json_path = "/proc/no-such-dir/r.json";
	log.f = open_memstream(&text, &len);
	cr_assert_eq(report_check_files(&log, &opts), -1);
	fclose(log.f);
	cr_assert(strstr(text, "codectl-run: --json /proc/no-such-dir/r.json: cannot write there"),
		  "%s", text);
	free(text);
}

/*
 * At most STATS_MAX_THREADS threads are listed (a run of many short
 * processes keeps bounded memory); the samples of the others are counted.
 */
Test(report, threads_listed_up_to_the_cap_the_rest_counted)
{
	size_t before = stats.n_threads, n, i, twice = 0;
	struct stats_thread **v;

	for (pid_t tid = 1; tid <= STATS_MAX_THREADS + 2; tid++)
		stats_taken(&stats, 100000, 100000 + tid);
	stats_taken(&stats, 100000, 100001);	/* listed: counted in its entry */
	v = stats_threads_sorted(&stats, &n);
	cr_assert(v);
	cr_assert_eq(stats.n_threads, STATS_MAX_THREADS);
	cr_assert_eq(n, STATS_MAX_THREADS);
	cr_assert_eq(stats.threads_unlisted, before + 2);
	for (i = 0; i < n; i++)
		twice += v[i]->tid == 100001 && v[i]->taken == 2;
	cr_assert_eq(twice, 1);
	free(v);
}

/* One walk of format @f: our @n frames against libunwind's @ref, classified, counted. */
static void add_format(struct format_stats *fs, enum format_id f, const struct emu_frame *ours,
		       unsigned int n, const uint64_t *ref, unsigned int n_ref,
		       const uint8_t *plaus, const char *object, bool outermost, uint64_t ns)
{
	static const struct table_bytes bytes = { 300, 60, 400, 250 };
	struct sample_walks w = {
		.in = { .ours = ours, .n = n, .plaus = plaus, .stop = EMU_STOP_OUTERMOST,
			.jit_frame = SAMPLE_NO_JIT_FRAME, .ref = ref, .n_ref = n_ref,
			.ref_plaus = plaus, .have_ref = true },
	};

	classify_sample(&w.in, &w.v);
	cr_assert_eq(formats_add(fs, f, &w, object, strcmp(object, "prog") ? NULL : &bytes,
				 outermost, ns), 0);
}

/* --compare-formats' counts: by format, by object, the tables' bytes, the walks that differ. */
Test(report, formats_compared)
{
	struct format_stats fs = { .on = true, .n = 2 };
	static const uint64_t sf[] = { 0x1010, 0x2020 }, eh[] = { 0x1010, 0x2020, 0x3030 };
	json_t *j, *o;
	char *text;
	size_t len;
	FILE *f;

	add_format(&fs, FORMAT_SFRAME, stack3, 3, ref3, 3, yes4, "prog", false, 300);
	add_format(&fs, FORMAT_EH_FRAME, stack3, 3, ref3, 3, yes4, "prog", true, 3000);
	add_format(&fs, FORMAT_SFRAME, stack_lie, 3, ref_lie, 3, lie, "libc.so.6", false, 60);
	add_format(&fs, FORMAT_EH_FRAME, stack3, 2, ref3, 3, yes4, "libc.so.6", false, 600);
	formats_differ(&fs, sf, 2, eh, 3, sym, NULL);
	j = formats_json(&fs);
	cr_assert(j);
	cr_assert_eq(json_integer_value(json_object_get(j, "walks_differ")), 1);
	o = json_object_get(j, "sframe");
	cr_assert_eq(json_integer_value(json_object_get(o, "samples")), 2);
	cr_assert_eq(json_integer_value(json_object_get(o, "verified")), 1);
	cr_assert_eq(json_integer_value(json_object_get(o, "wrong")), 1);
	cr_assert_eq(json_integer_value(json_object_get(o, "frames")), 6);
	cr_assert_eq(json_real_value(json_object_get(o, "ns_per_frame")), 60.0);
	o = json_object_get(j, "eh_frame");
	cr_assert_eq(json_integer_value(json_object_get(o, "outermost")), 1);
	cr_assert_eq(json_integer_value(json_object_get(o, "covered_frames")), 5);
	cr_assert_eq(json_real_value(json_object_get(o, "ns_per_frame")), 720.0);
	o = json_array_get(json_object_get(j, "objects"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(o, "object")), "libc.so.6");
	cr_assert_null(json_object_get(o, "table_bytes"));
	o = json_array_get(json_object_get(j, "objects"), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(o, "table_bytes"),
							"eh_frame")), 400);
	o = json_array_get(json_object_get(j, "differences"), 0);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(o, "eh_frame"), 2)),
			 "main+0x30");
	json_decref(j);
	f = open_memstream(&text, &len);
	cr_assert(f);
	formats_print(f, &fs);
	fclose(f);
	cr_assert(strstr(text, "    all                          2      0  50.0%   3.0     1    60.0"
			       "       2      1 100.0%   2.5     0   720.0\n"), "%s", text);
	cr_assert(strstr(text, "    prog                         1      0 100.0%   3.0     0   100.0"
			       "       1      1 100.0%   3.0     0  1000.0       300      460\n"),
		  "%s", text);
	cr_assert(strstr(text, "walks that differ between the formats: 1 of 2 samples\n"));
	cr_assert_null(strstr(text, "synth"), "%s", text);
	free(text);
	formats_free(&fs);
}

/* With --synthesize-sframe: a third format, its counts and its object's bytes. */
Test(report, formats_compared_with_the_synthesized)
{
	struct format_stats fs = { .on = true, .n = 3 };
	json_t *j, *o;
	char *text;
	size_t len;
	FILE *f;

	add_format(&fs, FORMAT_SFRAME, stack3, 2, ref3, 3, yes4, "prog", false, 300);
	add_format(&fs, FORMAT_EH_FRAME, stack3, 3, ref3, 3, yes4, "prog", true, 3000);
	add_format(&fs, FORMAT_SYNTHESIZED, stack3, 3, ref3, 3, yes4, "prog", true, 90);
	j = formats_json(&fs);
	o = json_object_get(j, "synthesized");
	cr_assert_eq(json_integer_value(json_object_get(o, "samples")), 1);
	cr_assert_eq(json_integer_value(json_object_get(o, "verified")), 1);
	cr_assert_eq(json_real_value(json_object_get(o, "ns_per_frame")), 30.0);
	o = json_array_get(json_object_get(j, "objects"), 0);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(o, "synthesized"),
							"covered_frames")), 3);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(o, "table_bytes"),
							"synthesized")), 250);
	json_decref(j);
	f = open_memstream(&text, &len);
	cr_assert(f);
	formats_print(f, &fs);
	fclose(f);
	cr_assert(strstr(text, "SFrame+synth"), "%s", text);
	cr_assert(strstr(text, "       300      460      250\n"), "%s", text);
	free(text);
	formats_free(&fs);
}
