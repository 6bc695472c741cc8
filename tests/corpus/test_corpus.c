// SPDX-License-Identifier: GPL-2.0
/*
 * The differential corpus test: every corpus program (tests/corpus/src), in
 * its four builds (-O0/-O2, with and without frame pointers), sampled under
 * "codectl-run -q --json-all FILE --check" (blocked_syscall with
 * --clock wall; noreturn once more with --strict), and the report checked:
 *
 *  - the run: exit status 0 (so --check passed), check_failures 0, none of
 *    the samples was the program's own SIGPROF;
 *  - the counts: total is the sum of the classes and the number of stacks,
 *    nothing unchecked, with_sframe_step and agreeing recomputed from the
 *    stacks, agreement their ratio; every stack's covered prefix recomputed
 *    from its frames' sources, its agreement from libunwind's frames;
 *  - every disagreement within an SFrame-covered prefix is sided with
 *    codectl-run by elfutils (so agreement is 100% or every exception is
 *    libunwind's);
 *  - per program, a rule table over the samples whose frame 0 is one of the
 *    program's own functions: the function where SFrame coverage ends
 *    (frames[covered - 1]) must be one the stack shape allows, and the class
 *    and reason must be the ones that end implies (coverage ends in libc, in
 *    the library without .sframe, in the function gas emitted no FDE for, or
 *    at the frame limit); and every sample with frame 0 in the program is
 *    in a function the rules know (or in start-up or PLT code);
 *  - per program, the cases SFrame cannot express, or that the program is
 *    about, must have been sampled (each is a good part of the run, so even
 *    a starved run has dozens) and be classified as named below;
 *  - noreturn under --strict: the kernel patches' rules refuse gas 2.40's
 *    SFrame version 1 (and 2.44's v2), so the program is not registered: its
 *    samples are covered by frame 0 alone, "refused (kernel-refuses):
 *    <binary>", and no RA lookup is made (strict_ra_changed 0, reported).
 *    With a toolchain whose SFrame they accept (v3), the kernel looks callers
 *    up at the return address: after a call that never returns, the last in
 *    its function, that is the next function's row, and at -O0 the caller's
 *    frame comes out wrong. Those stacks are wrong, and the verdict must say
 *    so: each sample judged wrong must be one the RA lookup changed, and
 *    --check fails exactly when there is one; the rules do not apply to the
 *    others (RA lookups may end walks early).
 *
 * An offending sample is printed with our frames, libunwind's and elfutils'
 * side by side; the JSON is kept (its path is printed) when a check failed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_tmp.h"

extern char **environ;

#define MAX_SHOWN	3	/* failures printed per binary */
#define MAX_ENDS	8	/* distinct ends counted per binary */
#define MAX_NAMED	4	/* program-specific counters */
#define FN_LEN		128

/*
 * How a walk whose SFrame coverage ends at a function must be classified.
 * @reason is a format: "%s" is the binary's name (ARG_BINARY) or the
 * frame-pointer flavour of the library without .sframe (ARG_NOSF); the
 * sample's reason is that, or that followed by " stopped: <stop>". NULL:
 * a match, which has no reason.
 */
struct end {
	const char *fn;
	const char *alt;		/* another name for the same place */
	const char *object;		/* or any function of this object (its frames' "object") */
	const char *cls;		/* a class, or classes separated by '|' */
	const char *reason;
	enum { ARG_NONE, ARG_BINARY, ARG_NOSF } arg;
	bool max_frames;		/* covered == --max-frames, stop "max-frames" */
};

#define LIBC_FALLBACK "no .sframe in libc.so.6: frame-pointer fallback"

/*
 * Coverage ended, the frame-pointer fallback took over: the walk stopped
 * (ended) or found frames libunwind does not have (astray).
 */
#define FALLBACK "ended|astray"

/* Debian's libc has no .sframe: main's and a thread's walks end there. */
static const struct end start_main = {
	.fn = "__libc_start_call_main", .cls = FALLBACK, .reason = LIBC_FALLBACK,
};

static const struct end start_thread = {
	.fn = "start_thread", .cls = FALLBACK, .reason = LIBC_FALLBACK,
};

/* 500 deep: the walk is cut at --max-frames, all of it covered, as libunwind's. */
static const struct end depth_limit = {
	.fn = "recurse", .cls = "match", .max_frames = true,
};

/* The same while the recursion is 126 or 127 deep: the cut falls on its callers. */
static const struct end depth_limit_run = {
	.fn = "run", .cls = "match", .max_frames = true,
};

static const struct end depth_limit_main = {
	.fn = "main", .cls = "match", .max_frames = true,
};

/* ... or 125 deep: the cut falls on libc's frame that called main. */
static const struct end depth_limit_libc = {
	.fn = "__libc_start_call_main", .cls = "match", .max_frames = true,
};

/* The library built without --gsframe: no .sframe in it. */
static const struct end nosf_lib = {
	.fn = "nosf_call_one", .cls = FALLBACK,
	.reason = "no .sframe in libcorpus_nosf-%s.so: frame-pointer fallback",
	.arg = ARG_NOSF,
};

/* DRAP realignment: gas 2.40-2.45 emit no SFrame FDE for the function (realign_with_fde). */
static const struct end drap = {
	.fn = "realigned_drap", .cls = FALLBACK,
	.reason = "no SFrame FDE for %s: frame-pointer fallback", .arg = ARG_BINARY,
};

/* Samples whose frame 0 is in @frame0 must have their coverage end in one of @ends. */
struct rule {
	const char *const *frame0;
	const struct end *const *ends;
};

#define FNS(...)	((const char *const[]){ __VA_ARGS__, NULL })
#define ENDS(...)	((const struct end *const[]){ __VA_ARGS__, NULL })

/* One sample of --json-all's "stacks". */
struct sample {
	json_t *j;
	json_t *frames;		/* ours */
	json_t *ref;		/* libunwind's, when the class is not match */
	json_t *elf;		/* elfutils', when it was asked */
	const char *cls, *stop, *reason, *elfutils;
	size_t n, covered;
	bool agrees;
};

struct program;

/* One binary's run and what was found in it. */
struct vrun {
	const struct program *prog;
	char name[64];			/* e.g. "realign-O2-nofp" */
	bool o2, fp, strict, truth;
	unsigned long truth_samples, truth_frames;	/* samples, frames held to the truth */
	char dir[64];			/* the run's files */
	char json[PATH_MAX], log[PATH_MAX];
	json_t *root;
	size_t max_frames;
	double seconds;			/* codectl-run's run */
	FILE *out;			/* messages, written out in one piece */
	char *buf;
	size_t len;
	unsigned int failures;
	int status;			/* codectl-run's exit status */
	json_int_t ra_wrong;		/* --strict: stacks the kernel's RA lookup made wrong */
	unsigned long own, crt, disagreeing, sided_us;
	const struct end *ends[MAX_ENDS];
	unsigned long end_count[MAX_ENDS];
	unsigned long named[MAX_NAMED];
};

/*
 * A corpus program: its rules, the ends that must have been seen in every
 * build, and program-specific checks of each own sample (@sample, after the
 * rules) and of the whole run (@done).
 */
struct program {
	const char *name;
	const struct rule *rules;
	const struct end *const *must_see;
	bool wall_clock;
	bool strict_too;
	void (*sample)(struct vrun *v, const struct sample *s);
	void (*done)(struct vrun *v);
	/*
	 * Where the toolchain decides the stack shape (gas 2.40-2.45 emit no
	 * FDE for a DRAP function, 2.46+ a FLEX one): a binary whose SFrame
	 * section, as objdump reads it, has an FDE for @fde_fn is checked
	 * against @with_fde instead.
	 */
	const char *fde_fn;
	const struct program *with_fde;
};

/* O2-truth: -O2 -fomit-frame-pointer, and it knows its own stack (codectl_truth.h) */
static const char *const variants[] = { "O0-fp", "O0-nofp", "O2-fp", "O2-nofp", "O2-truth" };

/* ---- reading the report ---- */

static json_int_t jint(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static json_int_t count(const struct vrun *v, const char *key)
{
	return jint(json_object_get(v->root, "samples"), key);
}

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* "func" from "func+0x1c (file.c:3)", "[obj]" from "[obj+0x10]", as codectl-run names places. */
static void fn_name(const char *sym, char *out, size_t size)
{
	size_t n;

	if (!sym)
		sym = "?";
	n = strcspn(sym, "+ ");
	if (n >= size - 1)
		n = size - 2;
	memcpy(out, sym, n);
	out[n] = '\0';
	if (sym[0] == '[' && sym[n] == '+')
		strcpy(out + n, "]");
}

/* The function of our frame @i. */
static const char *fn_at(const struct sample *s, size_t i, char *out)
{
	fn_name(jstr(json_array_get(s->frames, i), "symbol"), out, FN_LEN);
	return out;
}

static bool is_fn(const struct sample *s, size_t i, const char *name)
{
	char fn[FN_LEN];

	return i < s->n && !strcmp(fn_at(s, i, fn), name);
}

static bool in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

static void sample_parse(json_t *j, struct sample *s)
{
	*s = (struct sample){
		.j = j,
		.frames = json_object_get(j, "frames"),
		.ref = json_object_get(j, "libunwind"),
		.elf = json_object_get(j, "elfutils_frames"),
		.cls = jstr(j, "class") ?: "(none)",
		.stop = jstr(j, "stop") ?: "(none)",
		.reason = jstr(j, "reason"),
		.elfutils = jstr(j, "elfutils"),
		.covered = (size_t)jint(j, "covered"),
		.agrees = json_is_true(json_object_get(j, "agrees")),
	};
	s->n = json_array_size(s->frames);
}

/* ---- reporting ---- */

static const char *col(json_t *frames, size_t i, const char *key)
{
	json_t *f = json_array_get(frames, i);

	return f ? jstr(f, key) ?: "?" : "";
}

/* Our frames, libunwind's and elfutils', side by side. */
static void sample_dump(FILE *f, const struct sample *s)
{
	size_t n = s->n, i;

	fprintf(f, "    sample pid %lld tid %lld: class %s, stop %s, covered %zu, agrees %s",
		(long long)jint(s->j, "pid"), (long long)jint(s->j, "tid"), s->cls, s->stop,
		s->covered, s->agrees ? "yes" : "no");
	if (json_object_get(s->j, "first_difference"))
		fprintf(f, ", first difference at %lld",
			(long long)jint(s->j, "first_difference"));
	fprintf(f, "\n    reason: %s\n    elfutils: %s\n", s->reason ?: "(none)",
		s->elfutils ?: "(not asked)");
	if (json_array_size(s->ref) > n)
		n = json_array_size(s->ref);
	if (json_array_size(s->elf) > n)
		n = json_array_size(s->elf);
	fprintf(f, "      # %-6s %-44s | %-44s | %s\n", "source", "ours", "libunwind",
		"elfutils");
	for (i = 0; i < n && i < 40; i++)
		fprintf(f, "    %s%2zu %-6s %-44.44s | %-44.44s | %.44s\n",
			i + 1 == s->covered ? "->" : "  ", i, col(s->frames, i, "source"),
			col(s->frames, i, "symbol"), col(s->ref, i, "symbol"),
			col(s->elf, i, "symbol"));
	if (n > 40)
		fprintf(f, "      ... %zu frames\n", n);
}

/* A failed check; @s, when given, is printed for the first few. */
static void __attribute__((format(printf, 3, 4)))
fail(struct vrun *v, const struct sample *s, const char *fmt, ...)
{
	va_list ap;

	if (++v->failures > MAX_SHOWN) {
		if (v->failures == MAX_SHOWN + 1)
			fprintf(v->out, "  %s: (further failures not shown)\n", v->name);
		return;
	}
	fprintf(v->out, "  %s: FAILED: ", v->name);
	va_start(ap, fmt);
	vfprintf(v->out, fmt, ap);
	va_end(ap);
	fputc('\n', v->out);
	if (s)
		sample_dump(v->out, s);
}

#define expect_eq(v, a, b, what)						\
	do {									\
		long long a_ = (long long)(a), b_ = (long long)(b);		\
		if (a_ != b_)							\
			fail((v), NULL, "%s: %lld, expected %lld", (what), a_, b_); \
	} while (0)

static void count_end(struct vrun *v, const struct end *e)
{
	unsigned int i;

	for (i = 0; i < MAX_ENDS && v->ends[i] && v->ends[i] != e; i++)
		;
	if (i == MAX_ENDS)
		return;
	v->ends[i] = e;
	v->end_count[i]++;
}

static unsigned long end_seen(const struct vrun *v, const struct end *e)
{
	for (unsigned int i = 0; i < MAX_ENDS && v->ends[i]; i++)
		if (v->ends[i] == e)
			return v->end_count[i];
	return 0;
}

/* ---- running codectl-run ---- */

static void vrun_init(struct vrun *v, const struct program *p, const char *variant,
		      bool strict)
{
	*v = (struct vrun){ .prog = p, .strict = strict };
	snprintf(v->name, sizeof(v->name), "%s-%s", p->name, variant);
	v->o2 = !strncmp(variant, "O2", 2);
	v->fp = !strcmp(strchr(variant, '-'), "-fp");
	v->truth = !strcmp(strchr(variant, '-'), "-truth");
	v->out = open_memstream(&v->buf, &v->len);
	cr_assert(v->out, "open_memstream: %s", strerror(errno));
	cr_assert(test_mkdtemp(v->dir, sizeof(v->dir), "codectl-corpus"), "mkdtemp: %s",
		  strerror(errno));
	snprintf(v->json, sizeof(v->json), "%s/%s%s.json", v->dir, v->name,
		 strict ? "-strict" : "");
	snprintf(v->log, sizeof(v->log), "%s/log", v->dir);
}

static void print_log(struct vrun *v)
{
	char line[512];
	FILE *f = fopen(v->log, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(v->out, "    log: %s", line);
	fclose(f);
}

/* codectl-run's exit status, 128 + the signal that killed it, or -errno. */
static int spawn_wait(char *const argv[])
{
	int status, err;
	pid_t pid;

	err = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
	if (err)
		return -err;
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static bool run_binary(struct vrun *v)
{
	char path[PATH_MAX];
	char *argv[16];
	struct timespec t0, t1;
	json_error_t err;
	int n = 0, status;

	snprintf(path, sizeof(path), "%s/%s", CORPUS_DIR, v->name);
	argv[n++] = CODECTL_RUN;
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = v->log;
	argv[n++] = "--json-all";
	argv[n++] = v->json;
	argv[n++] = "--check";
	if (v->prog->wall_clock) {
		argv[n++] = "--clock";
		argv[n++] = "wall";
	}
	if (v->strict)
		argv[n++] = "--strict";
	argv[n++] = "--";
	argv[n++] = path;
	argv[n] = NULL;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	status = spawn_wait(argv);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	v->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (status < 0) {
		fail(v, NULL, "cannot run %s: %s", argv[0], strerror(-status));
		return false;
	}
	if (status == 128 + SIGPROF)
		fail(v, NULL, "the program was killed by a SIGPROF: codectl-run did not take "
			      "its own signal for its own");
	else if (status && !(v->strict && status == 3))	/* --strict: see check_run() */
		fail(v, NULL, "codectl-run exited with status %d%s", status,
		     status == 3 ? " (--check failed)" : "");
	v->status = status;
	if (status)
		print_log(v);
	v->root = json_load_file(v->json, 0, &err);
	if (!v->root) {
		fail(v, NULL, "%s: %s", v->json, err.text);
		print_log(v);
		return false;
	}
	v->max_frames = (size_t)jint(json_object_get(v->root, "run"), "max_frames");
	return true;
}

/* ---- checks every binary gets ---- */

static void check_run(struct vrun *v)
{
	json_t *run = json_object_get(v->root, "run");

	expect_eq(v, jint(run, "exit_status"), 0, "run.exit_status");
	expect_eq(v, json_is_true(json_object_get(run, "strict")), v->strict, "run.strict");
	expect_eq(v, v->max_frames, 128, "run.max_frames");
	expect_eq(v, jint(v->root, "check_failures"), v->ra_wrong, "check_failures");
	if (v->strict)
		expect_eq(v, v->status, v->ra_wrong ? 3 : 0, "codectl-run's exit status (--check)");
	/*
	 * the program's .sframe, registered at exec (ld.so has none); the loader
	 * module's registering it again is answered EEXIST, not counted rejected
	 */
	if (!v->strict) {
		json_t *regs = json_object_get(v->root, "registrations");

		expect_eq(v, jint(regs, "at_exec"), 1, "registrations.at_exec");
		expect_eq(v, jint(regs, "again_after_exec"), 1, "registrations.again_after_exec");
		expect_eq(v, jint(regs, "rejected"), 0, "registrations.rejected");
	}
	/* the corpus programs have no SIGPROF of their own: every sample was ours */
	expect_eq(v, count(v, "programs_own"), 0, "samples.programs_own");
}

/*
 * The samples whose frame-pointer fallback left out frames libunwind found
 * by unwind data (a leaf without unwind data, such as a libc system call
 * wrapper on Debian 12, whose %rbp is its caller's): astray, unverifiable,
 * the covered part ended by the fallback. Their number.
 */
static json_int_t fallback_skips(struct vrun *v)
{
	json_int_t n = 0;
	size_t i;
	json_t *s;

	json_array_foreach(json_object_get(v->root, "stacks"), i, s) {
		if (!json_is_true(json_object_get(s, "fallback_skipped")))
			continue;
		n++;
		if (strcmp(json_string_value(json_object_get(s, "class")), "astray") ||
		    strcmp(json_string_value(json_object_get(s, "outcome")), "unverifiable") ||
		    !strstr(json_string_value(json_object_get(s, "reason")), ": frame-pointer fallback"))
			fail(v, NULL, "a fallback_skipped sample not astray, unverifiable, by the "
			     "fallback: %s", json_string_value(json_object_get(s, "class")));
	}
	return n;
}

/*
 * The classes add up; every sample's covered part is verified correct
 * (nothing wrong, nothing left undecided) but for the samples whose
 * fallback left out frames (unverifiable), and sframe_shorter is still
 * what it was: ended and astray together.
 */
static void check_counts(struct vrun *v)
{
	static const char *const classes[] = {
		"match", "ended", "astray", "diverged", "libunwind_failed", "ours_wrong",
		"both_wrong", "unchecked", "jit_unchecked",
	};
	json_t *wrong = json_object_get(json_object_get(v->root, "samples"), "wrong");
	json_int_t sum = 0;

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		sum += count(v, classes[i]);
	expect_eq(v, sum, count(v, "total"), "the classes' sum");
	expect_eq(v, json_array_size(json_object_get(v->root, "stacks")), count(v, "total"),
		  "the number of stacks");
	expect_eq(v, count(v, "unchecked"), 0, "samples.unchecked");
	/* a walk that read the stack past its copy is not judged (past-copy) */
	expect_eq(v, count(v, "fallback_skipped"), fallback_skips(v), "samples.fallback_skipped");
	expect_eq(v, count(v, "verified"), count(v, "total") - v->ra_wrong - count(v, "past_copy") -
		  count(v, "fallback_skipped"), "samples.verified");
	expect_eq(v, jint(wrong, "ours") + jint(wrong, "both"), v->ra_wrong,
		  "samples.wrong (ours, both)");
	expect_eq(v, count(v, "sframe_shorter"), count(v, "ended") + count(v, "astray"),
		  "samples.sframe_shorter");
}

/* Is @cls one of @want's '|'-separated classes? */
static bool class_in(const char *cls, const char *want)
{
	size_t n = strlen(cls);

	for (const char *w = want; w; w = strchr(w, '|') ? strchr(w, '|') + 1 : NULL)
		if (!strncmp(w, cls, n) && (w[n] == '|' || !w[n]))
			return true;
	return false;
}

/*
 * frames[0] from the registers, SFrame/JIT steps (or a step through a
 * signal frame) up to covered, then another kind of step.
 */
static bool sframe_step(const struct sample *s, size_t i)
{
	const char *src = col(s->frames, i, "source");

	return !strcmp(src, "sframe") || !strcmp(src, "jit") || !strcmp(src, "signal");
}

static void check_covered(struct vrun *v, const struct sample *s)
{
	size_t i;

	if (s->covered < 1 || s->covered > s->n) {
		fail(v, s, "covered %zu of %zu frames", s->covered, s->n);
		return;
	}
	if (strcmp(col(s->frames, 0, "source"), "regs"))
		fail(v, s, "frame 0 not from the registers");
	for (i = 1; i < s->covered; i++)
		if (!sframe_step(s, i))
			fail(v, s, "frame %zu of the %zu covered not reached by an SFrame/JIT step",
			     i, s->covered);
	if (s->covered < s->n && sframe_step(s, s->covered))
		fail(v, s, "frame %zu reached by an SFrame/JIT step, but covered is %zu",
		     s->covered, s->covered);
}

/* Where our frames first differ from libunwind's (both given for all but a match). */
static size_t first_difference(const struct sample *s)
{
	size_t i;

	for (i = 0; i < s->n && i < json_array_size(s->ref); i++)
		if (strcmp(col(s->frames, i, "ip"), col(s->ref, i, "ip")))
			break;
	return i;
}

static void check_agreement(struct vrun *v, const struct sample *s)
{
	bool match = !strcmp(s->cls, "match"), agrees;

	if (!match && (!s->reason || !json_is_array(s->ref))) {
		fail(v, s, "a %s sample without reason or libunwind frames", s->cls);
		return;
	}
	if (match && (s->reason || s->ref)) {
		fail(v, s, "a match with a reason or libunwind frames");
		return;
	}
	agrees = s->covered >= 2 && (match || first_difference(s) >= s->covered);
	if (agrees != s->agrees)
		fail(v, s, "agrees is %s, but the frames say %s", s->agrees ? "true" : "false",
		     agrees ? "true" : "false");
	if (!match && (size_t)jint(s->j, "first_difference") != first_difference(s))
		fail(v, s, "first_difference %lld, the frames say %zu",
		     (long long)jint(s->j, "first_difference"), first_difference(s));
}

/*
 * elfutils is asked exactly about disagreements within the covered prefix
 * that plausibility cannot decide (diverged), and sides with us; not about
 * one among frames read past the stack copy (past-copy), which compares
 * two moments of a stack the thread went on changing.
 */
static void check_side(struct vrun *v, const struct sample *s)
{
	bool disagrees = s->covered >= 2 && !strcmp(s->cls, "diverged") &&
			 strcmp(jstr(s->j, "outcome") ?: "", "past-copy");

	if (!disagrees) {
		if (s->elfutils)
			fail(v, s, "elfutils asked (%s) about a sample without disagreement",
			     s->elfutils);
		return;
	}
	v->disagreeing++;
	if (s->elfutils && !strcmp(s->elfutils, "codectl-run"))
		v->sided_us++;
	else
		fail(v, s, "the SFrame-covered frames disagree with libunwind's and elfutils "
			   "sides with %s, not codectl-run", s->elfutils ?: "(not asked)");
}

/* ---- the truth (O2-truth builds) ---- */

/* Frames the truth may lack above an entry: callees not instrumented, a prologue. */
#define TRUTH_UNTRACKED 3

/* The truth runtime's hooks and helpers (include/codectl_truth.h), inlined or not. */
static const char *const truth_runtime[] = {
	"__cyg_profile_func_enter", "__cyg_profile_func_exit", "codectl_truth_chain",
	"codectl_truth_slot", "codectl_truth_take", "codectl_truth_drop", NULL,
};

/*
 * Our covered return addresses, frame by frame, against the program's own
 * chain (innermost first): the return addresses of frames 1 .. covered - 1
 * must be the chain's, in order, except for frames the chain does not track
 * (a callee that is not instrumented, such as the hooks themselves or libc,
 * a function in its prologue or epilogue), which only come above the
 * innermost entry and above the frame a signal interrupted (its IP is exact,
 * not a return address: not compared). Frames read past the stack copy are
 * of a later moment than the truth taken at the stop: not compared. Nor is a
 * sample taken in the truth runtime: the chain is being changed there (GCC 16
 * keeps codectl_truth_drop() a function of its own, stale entries of
 * functions that never returned still in the chain while it runs).
 */
static void check_truth(struct vrun *v, const struct sample *s)
{
	json_t *t = json_object_get(s->j, "truth");
	json_t *ras = json_object_get(t, "return_addresses");
	size_t nt = json_array_size(ras), j = 0, untracked = TRUTH_UNTRACKED;
	const char *ip, *want;
	char fn[FN_LEN];

	if (in_list(truth_runtime, fn_at(s, 0, fn)))
		return;
	for (size_t i = 1; i < s->covered && j < nt; i++) {
		if (json_is_true(json_object_get(json_array_get(s->frames, i), "past_copy")))
			break;	/* read after the thread ran on: not the sample's */
		ip = col(s->frames, i, "ip");
		want = json_string_value(json_array_get(ras, j));
		if (!strcmp(col(s->frames, i, "source"), "signal")) {
			untracked = TRUTH_UNTRACKED;
		} else if (!strcmp(ip, want)) {
			j++;
			untracked = 0;
		} else if (untracked) {
			untracked--;
		} else {
			fail(v, s, "covered frame %zu returns to %s, the truth's %zu to %s", i, ip,
			     j, want);
			return;
		}
	}
	if (!j)
		return;
	v->truth_samples++;
	v->truth_frames += j;
}

static void check_truth_seen(struct vrun *v)
{
	if (!v->truth)
		return;
	if (v->truth_samples < 20 && !v->prog->wall_clock)	/* blocked: frame 0 in libc */
		fail(v, NULL, "only %lu samples held to the truth", v->truth_samples);
	fprintf(v->out, "  %s: %lu samples, %lu covered frames equal to the truth\n", v->name,
		v->truth_samples, v->truth_frames);
}

/* ---- the rule table ---- */

static const struct rule *rule_of(const struct vrun *v, const struct sample *s)
{
	char fn[FN_LEN];
	const struct rule *r;

	fn_at(s, 0, fn);
	for (r = v->prog->rules; r->frame0; r++)
		if (in_list(r->frame0, fn))
			return r;
	return NULL;
}

/* The end @fn (of @object, or NULL) is, in @r's list. */
static bool end_is(const struct end *e, const char *fn, const char *object)
{
	return !strcmp(e->fn, fn) || (e->alt && !strcmp(e->alt, fn)) ||
	       (e->object && object && !strcmp(e->object, object));
}

/* The end for @fn; for a walk @cut at --max-frames, one that says so first. */
static const struct end *end_of(const struct rule *r, const char *fn, const char *object,
				bool cut)
{
	for (const struct end *const *e = r->ends; *e; e++)
		if (end_is(*e, fn, object) && (*e)->max_frames == cut)
			return *e;
	for (const struct end *const *e = r->ends; *e; e++)
		if (end_is(*e, fn, object))
			return *e;
	return NULL;
}

static void ends_list(const struct rule *r, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (const struct end *const *e = r->ends; *e && len < size; e++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ", " : "",
					(*e)->fn);
}

/* @want, or @want followed by " stopped: <why>" (the fallback ended the walk there). */
static bool reason_is(const char *reason, const char *want)
{
	size_t n = strlen(want);

	return reason && !strncmp(reason, want, n) &&
	       (!reason[n] || !strncmp(reason + n, " stopped: ", 10));
}

static void expected_reason(const struct vrun *v, const struct end *e, char *out, size_t size)
{
	const char *arg = e->arg == ARG_BINARY ? v->name : v->fp ? "fp" : "nofp";

	snprintf(out, size, e->reason, arg);
}

/*
 * A disagreement within the covered prefix, or libunwind's walk ending
 * where ours goes on: its own reason. elfutils' side is check_side()'s
 * (libunwind failing at frame 0 leaves nothing of ours to side with).
 */
static void check_disagreement(struct vrun *v, const struct sample *s)
{
	bool diverged = !strcmp(s->cls, "diverged");

	if (diverged && s->covered < 2)
		fail(v, s, "diverged without an SFrame step");
	else if (diverged && strcmp(s->reason ?: "", "sframe step gives another caller"))
		fail(v, s, "diverged, with reason \"%s\"", s->reason ?: "");
	else if (!diverged && strncmp(s->reason ?: "", "libunwind", 9))
		fail(v, s, "libunwind-failed, with reason \"%s\"", s->reason ?: "");
}

static bool libunwind_failed(const struct sample *s)
{
	return !strcmp(s->cls, "libunwind-failed");
}

static void check_end_class(struct vrun *v, const struct sample *s, const struct end *e)
{
	char want[256];

	if (!strcmp(s->cls, "diverged") || libunwind_failed(s)) {
		check_disagreement(v, s);
		return;
	}
	/* a walk that read the stack past its copy may have ended on a later moment's bytes */
	if (json_is_true(json_object_get(s->j, "read_past_copy")) &&
	    class_in(s->cls, "match|" FALLBACK))
		return;
	if (!class_in(s->cls, e->cls)) {
		fail(v, s, "class %s, expected %s for SFrame coverage ending in %s", s->cls,
		     e->cls, e->fn);
		return;
	}
	if (e->max_frames && (s->covered != v->max_frames || strcmp(s->stop, "max-frames")))
		fail(v, s, "coverage ends in %s: expected %zu covered frames and stop max-frames",
		     e->fn, v->max_frames);
	if (!e->reason || !strcmp(s->cls, "match"))	/* a match has no reason */
		return;
	expected_reason(v, e, want, sizeof(want));
	if (!reason_is(s->reason, want))
		fail(v, s, "reason \"%s\", expected \"%s\"", s->reason ?: "", want);
}

/* The first frame found by a read past the stack copy (or the walk's end: frames), 0: none. */
static size_t past_copy_from(const struct sample *s)
{
	return (size_t)json_integer_value(json_object_get(s->j, "past_copy_from"));
}

static void check_rules(struct vrun *v, const struct sample *s, const struct rule *r)
{
	char fn[FN_LEN], list[256];
	const struct end *e;

	/* frames read outside the stack copy are of a later moment: not the shape's */
	if (!strcmp(jstr(s->j, "outcome") ?: "", "past-copy"))
		return;
	/* nor is where a walk ended by such a read (a ring copy cut short: 3 in 1 200) */
	if (past_copy_from(s) && past_copy_from(s) <= s->covered)
		return;
	fn_at(s, s->covered - 1, fn);
	e = end_of(r, fn, jstr(json_array_get(s->frames, s->covered - 1), "object"),
		   s->covered == v->max_frames && !strcmp(s->stop, "max-frames"));
	if (!e) {
		ends_list(r, list, sizeof(list));
		fail(v, s, "SFrame coverage ends in %s, expected one of: %s", fn, list);
		return;
	}
	count_end(v, e);
	check_end_class(v, s, e);
}

/* ---- --strict on toolchains whose SFrame the kernel patches refuse ---- */

/*
 * gas 2.40 emits SFrame version 1, which the kernel patches' rules refuse:
 * under --strict the program is not registered (the report says by which
 * rule), so its own frames have no SFrame step at all and the RA lookup is
 * never made.
 */
static void check_unregistered(struct vrun *v, const struct sample *s)
{
	char want[256];

	snprintf(want, sizeof(want), "refused (kernel-refuses): %s: frame-pointer fallback",
		 v->name);
	if (s->covered != 1)
		fail(v, s, "covered %zu in a program that is not registered", s->covered);
	else if (libunwind_failed(s))
		check_disagreement(v, s);
	else if (strcmp(s->cls, "match") &&
		 (!class_in(s->cls, FALLBACK) || !reason_is(s->reason, want)))
		fail(v, s, "class %s, reason \"%s\", expected %s with \"%s\"",
		     s->cls, s->reason ?: "", FALLBACK, want);
}

static bool program_registered(const struct vrun *v)
{
	return jint(json_object_get(v->root, "registrations"), "at_exec") > 0;
}

/* ---- one binary ---- */

/* Start-up files' code in the program, and its PLT (no symbol: "[binary+0x..]"). */
static bool is_crt(const struct vrun *v, const struct sample *s)
{
	static const char *const crt[] = {
		"_start", "_init", "_fini", "frame_dummy", "register_tm_clones",
		"deregister_tm_clones", "__do_global_dtors_aux", NULL,
	};
	const char *sym = col(s->frames, 0, "symbol");
	char fn[FN_LEN];
	size_t n = strlen(v->name);

	/* and the truth runtime's hooks (O2-truth) */
	return in_list(crt, fn_at(s, 0, fn)) || in_list(truth_runtime, fn) ||
	       (sym[0] == '[' && !strncmp(sym + 1, v->name, n) && sym[n + 1] == '+');
}

/* A sample judged wrong (ours or both) whose callers the kernel's RA lookup changed (--strict). */
static bool ra_made_wrong(const struct vrun *v, const struct sample *s)
{
	const char *outcome = jstr(s->j, "outcome") ?: "";

	return v->strict && json_is_true(json_object_get(s->j, "strict_ra_changed")) &&
	       (!strcmp(outcome, "ours-wrong") || !strcmp(outcome, "both-wrong"));
}

/* --strict: how many samples the RA lookup made wrong (before the checks that allow them). */
static void count_ra_wrong(struct vrun *v)
{
	json_t *j;
	struct sample s;
	size_t i;

	json_array_foreach(json_object_get(v->root, "stacks"), i, j) {
		sample_parse(j, &s);
		v->ra_wrong += ra_made_wrong(v, &s);
	}
}

static void check_stacks(struct vrun *v)
{
	json_t *stacks = json_object_get(v->root, "stacks"), *j;
	bool unregistered = v->strict && !program_registered(v), ra_wrong;
	unsigned long steps = 0, agreeing = 0;
	const struct rule *r;
	struct sample s;
	size_t i;

	json_array_foreach(stacks, i, j) {
		sample_parse(j, &s);
		ra_wrong = ra_made_wrong(v, &s);	/* counted by check_run(), check_counts() */
		if (!ra_wrong) {
			check_covered(v, &s);
			check_agreement(v, &s);
			check_side(v, &s);
			check_truth(v, &s);
		}
		steps += s.covered >= 2;
		agreeing += s.covered >= 2 && s.agrees;
		r = rule_of(v, &s);
		if (!r)
			v->crt += is_crt(v, &s);
		if (!r || s.covered < 1 || s.covered > s.n)
			continue;
		v->own++;
		if (ra_wrong)
			continue;
		if (unregistered) {
			check_unregistered(v, &s);
		} else if (!v->strict && !v->truth) {	/* not inlined: other shapes */
			check_rules(v, &s, r);
			if (v->prog->sample)
				v->prog->sample(v, &s);
		}
	}
	expect_eq(v, count(v, "with_sframe_step"), steps, "samples.with_sframe_step");
	expect_eq(v, count(v, "agreeing"), agreeing, "samples.agreeing");
}

static void check_agreement_ratio(struct vrun *v)
{
	json_t *a = json_object_get(v->root, "agreement");
	json_int_t steps = count(v, "with_sframe_step");
	double want, d;

	if (!steps) {
		if (!json_is_null(a))
			fail(v, NULL, "agreement %g without SFrame steps", json_number_value(a));
		return;
	}
	want = (double)count(v, "agreeing") / (double)steps;
	d = json_number_value(a) - want;
	if (!json_is_number(a) || d > 1e-9 || d < -1e-9)
		fail(v, NULL, "agreement %g, expected %g", json_number_value(a), want);
}

/*
 * Every sample with frame 0 in the program (coverage, by object) was in one
 * of the functions the rules know, or in start-up or PLT code (some of
 * those names are ld.so's too, hence the range): no function of the
 * program escaped the rules. The spinning programs must have been sampled.
 */
static void check_complete(struct vrun *v)
{
	json_t *prog = json_object_get(json_object_get(v->root, "coverage"), v->name);
	json_int_t in_prog = jint(prog, "samples");

	if (in_prog < (json_int_t)v->own || in_prog > (json_int_t)(v->own + v->crt))
		fail(v, NULL, "%lld samples with frame 0 in %s, %lu in the functions the rules "
			      "know and %lu in start-up or PLT code: a function missing from "
			      "the rules?",
		     (long long)in_prog, v->name, v->own, v->crt);
	if (!v->own && !v->prog->wall_clock)
		fail(v, NULL, "no sample in the program's own functions");
}

static void check_must_see(struct vrun *v)
{
	for (const struct end *const *e = v->prog->must_see; e && *e; e++)
		if (!end_seen(v, *e))
			fail(v, NULL, "no sample's SFrame coverage ends in %s", (*e)->fn);
}

static void check_strict(struct vrun *v)
{
	if (program_registered(v)) {
		fprintf(v->out, "  %s --strict: the program is registered; the RA lookup "
				"changed %lld stacks, %lld of them judged wrong\n", v->name,
			(long long)count(v, "strict_ra_changed"), (long long)v->ra_wrong);
		return;
	}
	/* nothing registered has an SFrame step to look up */
	expect_eq(v, count(v, "with_sframe_step"), 0, "--strict: samples.with_sframe_step");
	expect_eq(v, count(v, "strict_ra_changed"), 0, "--strict: samples.strict_ra_changed");
	fprintf(v->out, "  %s --strict: the program's SFrame is refused by the kernel patches' "
			"rules (not version 2 with FDE_FUNC_START_PCREL or 3): no SFrame steps, "
			"no RA lookups, strict_ra_changed %lld\n", v->name,
		(long long)count(v, "strict_ra_changed"));
}

static void summary(struct vrun *v)
{
	fprintf(v->out, "%s%s (%.1f s): %lld samples, %lld verified: %lld match, %lld ended, "
			"%lld astray, %lld diverged, %lld libunwind-failed; %lld/%lld with an "
			"SFrame step agree, %lu diverge (elfutils sides with codectl-run on %lu); "
			"%lu own",
		v->name, v->strict ? " --strict" : "", v->seconds, (long long)count(v, "total"),
		(long long)count(v, "verified"), (long long)count(v, "match"),
		(long long)count(v, "ended"), (long long)count(v, "astray"),
		(long long)count(v, "diverged"), (long long)count(v, "libunwind_failed"),
		(long long)count(v, "agreeing"), (long long)count(v, "with_sframe_step"),
		v->disagreeing, v->sided_us, v->own);
	for (unsigned int i = 0; i < MAX_ENDS && v->ends[i]; i++)
		fprintf(v->out, "%s %lu end in %s", i ? "," : ":", v->end_count[i],
			v->ends[i]->fn);
	fputc('\n', v->out);
}

static void vrun_finish(struct vrun *v)
{
	bool ok = !v->failures;

	if (!ok && !access(v->json, F_OK))
		fprintf(v->out, "  %s: %u failed checks; the report is kept in %s\n", v->name,
			v->failures, v->json);
	fclose(v->out);
	fwrite(v->buf, 1, v->len, stderr);
	free(v->buf);
	json_decref(v->root);
	if (ok || access(v->json, F_OK)) {
		unlink(v->json);
		unlink(v->log);
		rmdir(v->dir);
	}
	cr_expect(ok, "%s%s: %u failed checks (see above)", v->name,
		  v->strict ? " --strict" : "", v->failures);
}

static void check_binary(const struct program *p, const char *variant, bool strict)
{
	struct vrun v;

	vrun_init(&v, p, variant, strict);
	if (run_binary(&v)) {
		count_ra_wrong(&v);
		check_run(&v);
		check_counts(&v);
		check_stacks(&v);
		check_agreement_ratio(&v);
		if (!v.truth)
			check_complete(&v);
		check_truth_seen(&v);
		if (strict) {
			check_strict(&v);
		} else if (!v.truth) {
			check_must_see(&v);
			if (p->done)
				p->done(&v);
		}
		summary(&v);
	}
	vrun_finish(&v);
}

/* @fn's address in @path, from nm; 0 when it has none. */
static unsigned long long symbol_address(const char *path, const char *fn)
{
	char cmd[PATH_MAX + 32], line[512], name[FN_LEN], type[4];
	unsigned long long addr, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -P '%s'", path);
	p = popen(cmd, "r");
	cr_assert(p, "nm: %s", strerror(errno));
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%127s %3s %llx", name, type, &addr) == 3 && !strcmp(name, fn))
			found = addr;
	pclose(p);
	return found;
}

/* Whether @path's .sframe, as this toolchain's objdump reads it, has an FDE starting at @fn. */
static bool has_sframe_fde(const char *path, const char *fn)
{
	unsigned long long want = symbol_address(path, fn), pc;
	char cmd[PATH_MAX + 48], line[256];
	bool found = false;
	const char *at;
	FILE *p;

	cr_assert_neq(want, 0, "%s: no symbol %s", path, fn);
	snprintf(cmd, sizeof(cmd), "objdump --sframe=.sframe '%s'", path);
	p = popen(cmd, "r");
	cr_assert(p, "objdump: %s", strerror(errno));
	while (fgets(line, sizeof(line), p))
		if ((at = strstr(line, "func idx [")) && (at = strstr(at, "pc = ")) &&
		    sscanf(at, "pc = %llx", &pc) == 1 && pc == want)
			found = true;
	pclose(p);
	return found;
}

static void check_program(const struct program *p)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		const struct program *q = p;

		snprintf(path, sizeof(path), "%s/%s-%s", CORPUS_DIR, p->name, variants[i]);
		if (p->fde_fn && has_sframe_fde(path, p->fde_fn)) {
			q = p->with_fde;
			fprintf(stderr, "  %s-%s: this assembler gave %s an SFrame FDE\n", p->name,
				variants[i], p->fde_fn);
		}
		check_binary(q, variants[i], false);
		if (q->strict_too && !strstr(variants[i], "truth"))
			check_binary(q, variants[i], true);
	}
}

/* ---- the programs ---- */

TestSuite(corpus, .timeout = 120);

/* main -> run -> recurse x500 -> leaf_spin: cut at 128 frames, all covered. */
static const struct program recursion = {
	.name = "recursion",
	.rules = (const struct rule[]){
		{ FNS("leaf_spin"), ENDS(&depth_limit) },
		{ FNS("recurse", "now_ns"), ENDS(&depth_limit, &depth_limit_run, &depth_limit_main,
						 &depth_limit_libc, &start_main) },
		{ FNS("run", "main"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&depth_limit),
};

Test(corpus, recursion)
{
	check_program(&recursion);
}

/* Dynamic allocation: CFA = RBP + 16 even at -fomit-frame-pointer. */
static const struct program alloca_vla = {
	.name = "alloca_vla",
	.rules = (const struct rule[]){
		{ FNS("leaf_spin", "vla_inner", "alloca_middle", "vla_outer", "run", "main",
		      "now_ns"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&start_main),
};

Test(corpus, alloca_vla)
{
	check_program(&alloca_vla);
}

/* Variadic prologues and arguments on the stack. */
static const struct program varargs = {
	.name = "varargs",
	.rules = (const struct rule[]){
		{ FNS("va_leaf_spin", "va_relay", "va_middle", "va_outer", "run", "main",
		      "now_ns"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&start_main),
};

Test(corpus, varargs)
{
	check_program(&varargs);
}

/*
 * The handler chain's walks go through the signal trampoline (__restore_rt,
 * in libc, recognised by its code) to the interrupted deep_spin, named
 * exactly (not at RA - 1), and on to main: the signal step is covered.
 */
static void signal_deep_sample(struct vrun *v, const struct sample *s)
{
	char fn[FN_LEN];
	size_t i;

	if (!is_fn(s, 0, "handler_spin"))
		return;
	for (i = 1; i < s->n && strcmp(col(s->frames, i, "source"), "signal"); i++)
		;
	if (i == s->n || i >= s->covered) {
		fail(v, s, "a handler's walk without a covered signal step");
		return;
	}
	fn_at(s, i, fn);
	if (!json_is_true(json_object_get(json_array_get(s->frames, i), "exact")))
		fail(v, s, "the interrupted frame %zu is not marked exact", i);
	if (!strcmp(fn, "deep_spin"))
		v->named[0]++;
}

static void signal_deep_done(struct vrun *v)
{
	if (!v->named[0])
		fail(v, NULL, "no handler sample stepped through its signal frame into deep_spin");
	fprintf(v->out, "  %s: %lu handler samples stepped into deep_spin\n", v->name,
		v->named[0]);
}

/*
 * A signal that interrupted clock_gettime, in the vDSO or libc: no SFrame
 * there. Where libunwind stops in the vDSO as well (seen with libunwind 1.8,
 * Debian sid), both walks end at the same frame: a match, without a reason.
 * Which vDSO function it is, and whether it has a name at all, is the host
 * kernel's (6.18 keeps clock_gettime's hot path in an unnamed local
 * function): any frame of the vDSO is this end.
 */
static const struct end interrupted_in_vdso = {
	.fn = "[vdso]", .object = "[vdso]", .cls = "match|" FALLBACK,
	.reason = "no .sframe in [vdso]: frame-pointer fallback",
};

static const struct end interrupted_in_libc = {
	.fn = "clock_gettime@@GLIBC_2.17", .alt = "__clock_gettime", .cls = FALLBACK,
	.reason = LIBC_FALLBACK,
};

/* A signal taken as the program's setitimer() arms or disarms the timer: libc, no SFrame. */
static const struct end interrupted_in_setitimer = {
	.fn = "setitimer", .cls = FALLBACK, .reason = LIBC_FALLBACK,
};

static const struct program signal_deep = {
	.name = "signal_deep",
	.rules = (const struct rule[]){
		{ FNS("handler_spin", "handler_nested", "handler", "now_ns"),
		  ENDS(&start_main, &interrupted_in_vdso, &interrupted_in_libc,
		       &interrupted_in_setitimer) },
		{ FNS("deep_spin", "deep_chain", "run", "main"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&start_main),
	.sample = signal_deep_sample,
	.done = signal_deep_done,
};

Test(corpus, signal_deep)
{
	check_program(&signal_deep);
}

/* Deep chains abandoned by longjmp(). */
static const struct program setjmp_longjmp = {
	.name = "setjmp_longjmp",
	.rules = (const struct rule[]){
		{ FNS("dive_bottom", "dive", "between_spin", "until", "run", "main", "now_ns"),
		  ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&start_main),
};

Test(corpus, setjmp_longjmp)
{
	check_program(&setjmp_longjmp);
}

/* -O2: every call after tail_entry's is a sibcall, so leaf_spin returns to tail_entry. */
static void tailcall_sample(struct vrun *v, const struct sample *s)
{
	/* -finstrument-functions: the exit hook keeps every call from being a tail call */
	const char *caller = v->o2 && !v->truth ? "tail_entry" : "tail_c";
	char fn[FN_LEN];

	if (!is_fn(s, 0, "leaf_spin") || s->covered < 2)
		return;
	v->named[0]++;
	if (!is_fn(s, 1, caller))
		fail(v, s, "leaf_spin called from %s, expected %s", fn_at(s, 1, fn), caller);
}

static void tailcall_done(struct vrun *v)
{
	if (!v->named[0])
		fail(v, NULL, "no sample in leaf_spin");
}

static const struct program tailcall = {
	.name = "tailcall",
	.rules = (const struct rule[]){
		{ FNS("leaf_spin", "tail_c", "tail_note", "tail_b", "tail_a", "ping", "pong",
		      "tail_entry", "run", "main", "now_ns"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&start_main),
	.sample = tailcall_sample,
	.done = tailcall_done,
};

Test(corpus, tailcall)
{
	check_program(&tailcall);
}

/*
 * Return addresses after calls to nr_fatal (noreturn) lie at the end of the
 * caller or past it: looked up at RA - 1, each of the three callers is
 * found, below nr_outer.
 */
static const char *const nr_callers[] = { "nr_last", "nr_middle", "nr_expect" };

static void noreturn_sample(struct vrun *v, const struct sample *s)
{
	char fn[FN_LEN];
	size_t i;

	if (!is_fn(s, 0, "nr_fatal") || s->covered < 3)
		return;
	fn_at(s, 1, fn);
	for (i = 0; i < 3 && strcmp(fn, nr_callers[i]); i++)
		;
	if (i == 3 || !is_fn(s, 2, "nr_outer")) {
		fail(v, s, "nr_fatal called from %s, expected one of nr_last, nr_middle, "
			   "nr_expect called from nr_outer", fn);
		return;
	}
	v->named[i]++;
}

static void noreturn_done(struct vrun *v)
{
	for (size_t i = 0; i < 3; i++)
		if (!v->named[i])
			fail(v, NULL, "no sample of nr_fatal called from %s", nr_callers[i]);
}

static const struct program noreturn = {
	.name = "noreturn",
	.rules = (const struct rule[]){
		{ FNS("nr_fatal", "nr_last", "nr_middle", "nr_expect", "nr_outer", "run", "main",
		      "now_ns"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&start_main),
	.strict_too = true,
	.sample = noreturn_sample,
	.done = noreturn_done,
};

Test(corpus, noreturn)
{
	check_program(&noreturn);
}

/* A wrong FRE for one of dispatch's case blocks would break the walk from op_helper. */
static void switch_table_sample(struct vrun *v, const struct sample *s)
{
	char fn[FN_LEN];

	if (!is_fn(s, 0, "op_helper") || s->covered < 2)
		return;
	if (!is_fn(s, 1, "dispatch"))
		fail(v, s, "op_helper called from %s, expected dispatch", fn_at(s, 1, fn));
}

static const struct program switch_table = {
	.name = "switch_table",
	.rules = (const struct rule[]){
		{ FNS("op_helper", "dispatch", "interp_loop", "interp_outer", "run", "main",
		      "now_ns"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&start_main),
	.sample = switch_table_sample,
};

Test(corpus, switch_table)
{
	check_program(&switch_table);
}

static void realign_done(struct vrun *v)
{
	if (!v->named[0])
		fail(v, NULL, "no sample in realigned_drap");
	if (!v->named[1])
		fail(v, NULL, "no sample whose walk reaches realigned_drap from deeper");
}

/*
 * realigned_drap has no SFrame FDE (gas 2.40-2.45): a sample in it is
 * covered by frame 0 alone; a walk from deeper ends its coverage there, at its
 * first frame.
 */
static void realign_sample(struct vrun *v, const struct sample *s)
{
	size_t i;

	for (i = 0; i < s->n && !is_fn(s, i, "realigned_drap"); i++)
		;
	if (i == s->n)
		return;
	v->named[i ? 1 : 0]++;
	if (s->covered != i + 1)
		fail(v, s, "the walk reaches realigned_drap at frame %zu, but covered is %zu",
		     i, s->covered);
}

/*
 * realigned_drap has a FLEX FDE (gas 2.46+: CFA from the DRAP register, then
 * through the saved one): walks go through it, their coverage ends where
 * every other walk of the program's ends.
 */
static void realign_fde_sample(struct vrun *v, const struct sample *s)
{
	size_t i;

	for (i = 0; i < s->n && !is_fn(s, i, "realigned_drap"); i++)
		;
	if (i == s->n)
		return;
	v->named[i ? 1 : 0]++;
	if (s->covered <= i + 1)
		fail(v, s, "the walk ends its coverage at realigned_drap (frame %zu), which has "
			   "an FDE", i);
}

static const struct program realign_with_fde = {
	.name = "realign",
	.rules = (const struct rule[]){
		{ FNS("realigned_drap", "realigned", "realign_callee", "now_ns", "run", "main"),
		  ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&start_main),
	.sample = realign_fde_sample,
	.done = realign_done,
};

static const struct program realign = {
	.name = "realign",
	.rules = (const struct rule[]){
		{ FNS("realigned_drap", "realigned", "realign_callee"), ENDS(&drap) },
		{ FNS("now_ns"), ENDS(&drap, &start_main) },
		{ FNS("run", "main"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&drap),
	.sample = realign_sample,
	.done = realign_done,
	.fde_fn = "realigned_drap",
	.with_fde = &realign_with_fde,
};

Test(corpus, realign)
{
	check_program(&realign);
}

/* The callback's walks end in the library built without .sframe. */
static const struct program nosframe_callback = {
	.name = "nosframe_callback",
	.rules = (const struct rule[]){
		{ FNS("callback", "callback_spin"), ENDS(&nosf_lib) },
		{ FNS("now_ns"), ENDS(&nosf_lib, &start_main) },
		{ FNS("enter_library", "run", "main"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&nosf_lib),
};

Test(corpus, nosframe_callback)
{
	check_program(&nosframe_callback);
}

/* Does @f (a frame of a stack) lie in the library without .sframe? */
static bool in_nosf_library(json_t *f)
{
	const char *obj = json_string_value(json_object_get(f, "object"));

	return obj && strstr(obj, "libcorpus_nosf-nofp.so");
}

/*
 * --synthesize-sframe on the library without .sframe (and without frame
 * pointers, where the fallback cannot get through): the library's frames
 * are now stepped from by SFrame made from its .eh_frame, every sample
 * through the library is verified, and no walk is wrong (--check; ld.so,
 * walked through too, calls its _dl_catch_exception through a PLT slot
 * rebound to libc's during start-up).
 */
Test(corpus, nosframe_callback_synthesized)
{
	char dir[] = "/tmp/codectl-synth-XXXXXX", json[64], log[64], path[PATH_MAX];
	char *argv[] = { CODECTL_RUN, "-q", "-o", log, "--synthesize-sframe", "--json-all", json,
			 "--check", "--", path, NULL };
	unsigned long through = 0, synthesized = 0;
	json_t *root, *s, *f;
	size_t i, k;

	cr_assert(mkdtemp(dir));
	snprintf(json, sizeof(json), "%s/run.json", dir);
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(path, sizeof(path), "%s/nosframe_callback-O2-nofp", CORPUS_DIR);
	cr_assert_eq(spawn_wait(argv), 0, "see %s", log);
	root = json_load_file(json, 0, NULL);
	cr_assert(root);
	json_array_foreach(json_object_get(root, "stacks"), i, s) {
		json_t *frames = json_object_get(s, "frames"), *prev = NULL;
		bool lib = false;

		json_array_foreach(frames, k, f) {
			if (prev && in_nosf_library(prev) &&
			    !strcmp(json_string_value(json_object_get(f, "source")), "synthesized"))
				synthesized++;
			lib |= in_nosf_library(f);
			prev = f;
		}
		if (!lib || in_nosf_library(json_array_get(frames, 0)))
			continue;	/* frame 0 in it: a step to frame 1 may be by the FP */
		through++;
		cr_assert_str_eq(json_string_value(json_object_get(s, "outcome")), "verified",
				 "%s", json_dumps(s, 0));
	}
	cr_assert_gt(through, 50, "%lu samples through the library", through);
	cr_assert_geq(synthesized, through);
	json_decref(root);
	unlink(json);
	unlink(log);
	rmdir(dir);
}

/* Four spinning threads, each walk on its own stack down to start_thread. */
static const char *const thread_fns[] = {
	"thread_alpha", "thread_beta", "thread_gamma", "thread_delta",
};

static void threads_sample(struct vrun *v, const struct sample *s)
{
	for (size_t t = 0; t < 4; t++)
		for (size_t i = 0; i < s->covered; i++)
			if (is_fn(s, i, thread_fns[t]))
				v->named[t]++;
}

static void threads_done(struct vrun *v)
{
	for (size_t t = 0; t < 4; t++)
		if (!v->named[t])
			fail(v, NULL, "no sample of %s's thread", thread_fns[t]);
}

static const struct program threads = {
	.name = "threads",
	.rules = (const struct rule[]){
		{ FNS("alpha_spin", "alpha_4", "alpha_3", "alpha_2", "alpha_1", "thread_alpha",
		      "beta_spin", "beta_recurse", "thread_beta",
		      "gamma_spin", "gamma_vla", "gamma_outer", "thread_gamma",
		      "delta_spin", "delta_step", "thread_delta", "now_ns"), ENDS(&start_thread) },
		{ FNS("run", "main"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.must_see = ENDS(&start_thread),
	.sample = threads_sample,
	.done = threads_done,
};

Test(corpus, threads)
{
	check_program(&threads);
}

/*
 * Wall clock: most samples find the thread blocked, frame 0 in libc
 * (nanosleep, read), where there is no SFrame: no step at all.
 */
static void blocked_syscall_done(struct vrun *v)
{
	json_t *libc = json_object_get(json_object_get(v->root, "coverage"), "libc.so.6");
	json_int_t total = count(v, "total"), in_libc = jint(libc, "samples");

	if (!in_libc || in_libc * 2 <= total)
		fail(v, NULL, "%lld of %lld samples with frame 0 in libc, expected most",
		     (long long)in_libc, (long long)total);
	expect_eq(v, jint(libc, "with_sframe_step"), 0,
		  "coverage[libc.so.6].with_sframe_step");
	fprintf(v->out, "  %s: %lld of %lld samples blocked in libc\n", v->name,
		(long long)in_libc, (long long)total);
}

static const struct program blocked_syscall = {
	.name = "blocked_syscall",
	.rules = (const struct rule[]){
		{ FNS("busy_leaf", "sleep_leaf", "read_leaf", "block_loop", "level", "run", "main",
		      "now_ns"), ENDS(&start_main) },
		{ NULL, NULL },
	},
	.wall_clock = true,
	.done = blocked_syscall_done,
};

Test(corpus, blocked_syscall)
{
	check_program(&blocked_syscall);
}
