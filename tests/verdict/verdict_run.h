/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a verdict program under codectl-run --check --json-all and
 * reading what the report says of its samples.
 */
#ifndef TESTS_VERDICT_RUN_H
#define TESTS_VERDICT_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <string.h>

#include "run_helper.h"

/**
 * struct verdict_run - one run and its report
 * @r: the run (exit status, the program's stdout, codectl-run's log)
 * @j: the --json-all report (NULL when none was written)
 */
struct verdict_run {
	struct run r;
	json_t *j;
};

/**
 * verdict_run() - run "codectl-run --check -q --json-all FILE OPTS... --
 * VERDICT_DIR/PROG ARGS..." and load the report
 * @opts, @args: NULL-terminated (either may be NULL)
 */
void verdict_run(struct verdict_run *v, const char *prog, const char *const *opts,
		 const char *const *args);

/**
 * struct verdict_place - the samples a test needs at a place
 * @at: is @stack at the place? (@ctx passed through)
 * @ctx: for @at (may be NULL)
 * @need: how many stacks at the place the test needs (it asserts that itself)
 * @what: what they are, for messages ("samples in the first .plt.sec stub")
 */
struct verdict_place {
	bool (*at)(json_t *stack, const void *ctx);
	const void *ctx;
	size_t need;
	const char *what;
};

/* verdict_run_until() runs a program at most this many times */
#define VERDICT_MAX_RUNS 6

/**
 * verdict_run_until() - verdict_run() again until the report has @need
 * stacks at every place of @places (@nplaces of them), at most
 * VERDICT_MAX_RUNS runs: sampling at 999 Hz of CPU time, a run on a loaded
 * machine may give a place fewer samples than the test needs
 *
 * The reports are merged into @v's: every run's "stacks" and "places"
 * appended, its integers in "samples" (nested objects too) and its
 * "check_failures" added, so verdict_count() counts every stack; the rest
 * ("run", "registrations", ...) and @v->r are the first run's, but for
 * @v->r.status: --check's failure (3) in any run fails the merged run, as
 * it would one longer run (a run without a sample at a wrong place passes
 * --check). Every run's stdout must be the first's, and its exit status
 * the first's but for that (asserted). A run that leaves a place short is
 * logged (cr_log_info) with its count there. Release @v with verdict_free().
 */
void verdict_run_until(struct verdict_run *v, const char *prog, const char *const *opts,
		       const char *const *args, const struct verdict_place *places,
		       size_t nplaces);

/**
 * verdict_place_samples() - the samples the report's "places" count under
 * @reason, over every function (each such place asserted ended or astray)
 */
long long verdict_place_samples(const struct verdict_run *v, const char *reason);

/** verdict_free() - release the run and the report. */
void verdict_free(struct verdict_run *v);

/**
 * verdict_remove_perf_map() - remove the /tmp/perf-PID.map files a program
 * that names its anonymous code wrote (PID: its samples', every run's)
 */
void verdict_remove_perf_map(const struct verdict_run *v);

/** verdict_count() - the report's samples.@key ("total", "match", "ours_wrong", ...). */
long long verdict_count(const struct verdict_run *v, const char *key);

/** verdict_stacks() - the report's "stacks" (every sample). */
json_t *verdict_stacks(const struct verdict_run *v);

/** verdict_symbol() - our frame @i's symbol in @stack ("" when none). */
const char *verdict_symbol(json_t *stack, size_t i);

/** verdict_frame0_in() - is @stack's frame 0 in function @fn (symbol "fn+0x..")? */
bool verdict_frame0_in(json_t *stack, const char *fn);

/** verdict_in_function() - verdict_frame0_in() as a struct verdict_place test (@fn a char *). */
bool verdict_in_function(json_t *stack, const void *fn);

/**
 * verdict_through() - is one of our frames of @stack in function @fn (a
 * char *; the shape of a struct verdict_place test)?
 */
bool verdict_through(json_t *stack, const void *fn);

/** verdict_class_is() - is @stack's class @cls? */
bool verdict_class_is(json_t *stack, const char *cls);

/**
 * verdict_frame0_offset() - the offset of @stack's frame 0 in function @fn
 * (its symbol "fn+0xOFF"), or -1 when frame 0 is not in @fn
 */
long long verdict_frame0_offset(json_t *stack, const char *fn);

/** verdict_frame() - frame @i of our walk (@ref false) or libunwind's (@ref true); NULL if none. */
json_t *verdict_frame(json_t *stack, bool ref, size_t i);

/** verdict_frames() - the number of frames of our walk (@ref false) or libunwind's. */
size_t verdict_frames(json_t *stack, bool ref);

/** verdict_ip() - @frame's "ip" (0 when @frame is NULL). */
unsigned long long verdict_ip(json_t *frame);

/** verdict_str() - @obj's string @key, "" when none (also for a NULL @obj). */
const char *verdict_str(json_t *obj, const char *key);

/** verdict_sym_in() - is frame @f's symbol in function @fn ("fn" or "fn+0x..")? */
static inline bool verdict_sym_in(json_t *f, const char *fn)
{
	const char *s = verdict_str(f, "symbol");
	size_t n = strlen(fn);

	return !strncmp(s, fn, n) && (s[n] == '+' || !s[n]);
}

/** verdict_sym_is() - is frame @f's symbol exactly @sym ("fn+0x0")? */
static inline bool verdict_sym_is(json_t *f, const char *sym)
{
	return !strcmp(verdict_str(f, "symbol"), sym);
}

/** verdict_source_is() - was our frame @f reached by @src ("regs", "sframe", "fp", "signal")? */
static inline bool verdict_source_is(json_t *f, const char *src)
{
	return !strcmp(verdict_str(f, "source"), src);
}

/**
 * verdict_object_is() - is frame @f in @object ("libc.so.6", "[vdso]",
 * "[jit]")? A frame's "object" is its file's path: the file's name is compared.
 */
static inline bool verdict_object_is(json_t *f, const char *object)
{
	const char *path = verdict_str(f, "object"), *slash = strrchr(path, '/');

	return !strcmp(slash ? slash + 1 : path, object);
}

/** verdict_exact() - is frame @f's IP where the thread was ("exact": true)? */
static inline bool verdict_exact(json_t *f)
{
	return json_is_true(json_object_get(f, "exact"));
}

/** verdict_plausible() - did the plausibility oracle call frame @f plausible? */
static inline bool verdict_plausible(json_t *f)
{
	return json_is_true(json_object_get(f, "plausible"));
}

/** verdict_implausible() - did it call frame @f wrong ("plausible": false)? */
static inline bool verdict_implausible(json_t *f)
{
	return json_is_false(json_object_get(f, "plausible"));
}

/** verdict_covered() - the sample's covered prefix (frames). */
static inline long long verdict_covered(json_t *stack)
{
	return json_integer_value(json_object_get(stack, "covered"));
}

/** verdict_is() - is @stack's string field @key @val ("class", "outcome", "why", ...)? */
static inline bool verdict_is(json_t *stack, const char *key, const char *val)
{
	return !strcmp(verdict_str(stack, key), val);
}

/**
 * struct verdict_row - a row of an SFrame FDE as objdump --sframe prints it
 * @off: where it starts, from the function's start (bytes)
 * @cfa: its CFA column ("sp+16", "fp+16", "r11+1044488")
 */
struct verdict_row {
	unsigned long long off;
	char cfa[32];
};

/**
 * verdict_fde_rows() - the rows of the SFrame FDE of program @prog (a path)
 * whose function starts at @pc, at most @max of them in @rows; their number
 * (0: no FDE starts there)
 */
size_t verdict_fde_rows(const char *prog, unsigned long long pc, struct verdict_row *rows,
			size_t max);

/**
 * verdict_ended_in_libc() - did @stack's walk end in libc's bottom frame,
 * right where it should? "ended", or "astray" with the wrong frame the one
 * the frame-pointer fallback found past __libc_start_call_main (whether it
 * does depends on what %rbp holds there: the libc and the program decide)
 */
bool verdict_ended_in_libc(json_t *stack);

/**
 * verdict_system_skip() - is @stack unverifiable because its frame-pointer
 * fallback left out frames in the system's own code: frame 0 in ld.so,
 * libc (no SFrame on Debian 12), the vDSO or the loader module (in
 * la_version, before it has registered anything), at the program's start or
 * in a leaf whose %rbp is still its caller's? No verdict test is about those samples;
 * each is asserted to be what such a sample is (astray, unverifiable, its
 * reason the fallback's).
 */
bool verdict_system_skip(json_t *stack);

/** verdict_system_skips() - how many of @v's stacks verdict_system_skip() holds. */
long long verdict_system_skips(const struct verdict_run *v);

#endif /* TESTS_VERDICT_RUN_H */
