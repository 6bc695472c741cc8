// SPDX-License-Identifier: GPL-2.0
/* Running a verdict program under codectl-run and reading its report. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_tmp.h"
#include "verdict_run.h"

#define MAX_ARGS 32
#define CHECK_FAILED 3	/* codectl-run --check's exit status: a sample failed a check */

void verdict_run(struct verdict_run *v, const char *prog, const char *const *opts,
		 const char *const *args)
{
	char dir[PATH_MAX], json[PATH_MAX + 16], path[PATH_MAX];
	const char *argv[MAX_ARGS];
	json_error_t e;
	size_t n = 0;

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-verdict"));
	snprintf(json, sizeof(json), "%s/report.json", dir);
	snprintf(path, sizeof(path), "%s/%s", VERDICT_DIR, prog);
	argv[n++] = "--check";
	argv[n++] = "-q";
	argv[n++] = "--json-all";
	argv[n++] = json;
	for (; opts && *opts && n < MAX_ARGS - 4; opts++)
		argv[n++] = *opts;
	argv[n++] = "--";
	argv[n++] = path;
	for (; args && *args && n < MAX_ARGS - 1; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	run_codectl(&v->r, argv);
	v->j = json_load_file(json, 0, &e);
	cr_assert(v->j, "%s: no report (%s); log:\n%s", prog, e.text, v->r.log);
	unlink(json);
	rmdir(dir);
}

/* Add @from's integers to @to's, in nested objects too; keys @to lacks are taken as they are. */
static void add_counts(json_t *to, json_t *from)
{
	const char *key;
	json_t *f, *t;

	json_object_foreach(from, key, f) {
		t = json_object_get(to, key);
		if (!t)
			json_object_set(to, key, f);
		else if (json_is_integer(t) && json_is_integer(f))
			json_integer_set(t, json_integer_value(t) + json_integer_value(f));
		else if (json_is_object(t) && json_is_object(f))
			add_counts(t, f);
	}
}

/* Append @from's array @key to @to's (made when @to has none). */
static void append(json_t *to, json_t *from, const char *key)
{
	json_t *a = json_object_get(to, key);

	if (!a) {
		a = json_array();
		json_object_set_new(to, key, a);
	}
	json_array_extend(a, json_object_get(from, key));
}

/* Merge report @from into @to: its samples appended, their counts added. */
static void merge_report(json_t *to, json_t *from)
{
	json_t *cf = json_object_get(to, "check_failures");

	append(to, from, "stacks");
	append(to, from, "places");
	add_counts(json_object_get(to, "samples"), json_object_get(from, "samples"));
	json_integer_set(cf, json_integer_value(cf) +
			 json_integer_value(json_object_get(from, "check_failures")));
}

/* The stacks of @stacks at @p. */
static size_t count_at(json_t *stacks, const struct verdict_place *p)
{
	size_t i, n = 0;
	json_t *s;

	json_array_foreach(stacks, i, s)
		n += p->at(s, p->ctx);
	return n;
}

/*
 * Is a place short of its need in @v's report? Logs what run @run, @last
 * (@v itself for the first), gave each place that is.
 */
static bool short_of_need(const struct verdict_run *v, const struct verdict_run *last,
			  const char *prog, int run, const struct verdict_place *places,
			  size_t nplaces)
{
	bool short_of = false;
	size_t i, all;

	for (i = 0; i < nplaces; i++) {
		all = count_at(verdict_stacks(v), &places[i]);
		if (all >= places[i].need)
			continue;
		short_of = true;
		cr_log_info("%s: run %d: %zu %s (%zu in %d runs, %zu needed)", prog, run,
			    count_at(verdict_stacks(last), &places[i]), places[i].what, all, run,
			    places[i].need);
	}
	return short_of;
}

/* The first sample of report @j whose outcome is not "verified" (JSON text), for messages. */
static char *first_unverified(json_t *j)
{
	size_t i;
	json_t *s;

	json_array_foreach(json_object_get(j, "stacks"), i, s)
		if (!verdict_is(s, "outcome", "verified"))
			return json_dumps(s, 0);
	return strdup("none");
}

/*
 * Merge run @run's exit status into @v's: the same, or --check failed in
 * one and passed in the other: whether it fails can depend on whether a
 * run sampled the place that is wrong (a few samples there, or none)
 */
static void merge_status(struct verdict_run *v, const struct verdict_run *next,
			 const char *prog, int run)
{
	int a = v->r.status, b = next->r.status;

	cr_assert(a == b || ((a == 0 || a == CHECK_FAILED) && (b == 0 || b == CHECK_FAILED)),
		  "%s: run %d exited %d, the runs before %d (a sample not verified: %s); log:\n%s",
		  prog, run, b, a, first_unverified(next->j), next->r.log);
	if (b == CHECK_FAILED)
		v->r.status = b;
}

void verdict_run_until(struct verdict_run *v, const char *prog, const char *const *opts,
		       const char *const *args, const struct verdict_place *places,
		       size_t nplaces)
{
	struct verdict_run next;
	bool short_of;
	int run = 1;

	verdict_run(v, prog, opts, args);
	short_of = short_of_need(v, v, prog, run, places, nplaces);
	while (short_of && run < VERDICT_MAX_RUNS) {
		verdict_run(&next, prog, opts, args);
		run++;
		merge_status(v, &next, prog, run);
		cr_assert_str_eq(next.r.out, v->r.out, "%s: run %d printed otherwise; log:\n%s",
				 prog, run, next.r.log);
		merge_report(v->j, next.j);
		short_of = short_of_need(v, &next, prog, run, places, nplaces);
		verdict_free(&next);
	}
}

void verdict_free(struct verdict_run *v)
{
	json_decref(v->j);
	run_free(&v->r);
}

long long verdict_count(const struct verdict_run *v, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(v->j, "samples"), key));
}

json_t *verdict_stacks(const struct verdict_run *v)
{
	return json_object_get(v->j, "stacks");
}

const char *verdict_symbol(json_t *stack, size_t i)
{
	return verdict_str(verdict_frame(stack, false, i), "symbol");
}

bool verdict_frame0_in(json_t *stack, const char *fn)
{
	return verdict_sym_in(verdict_frame(stack, false, 0), fn);
}

bool verdict_in_function(json_t *stack, const void *fn)
{
	return verdict_frame0_in(stack, fn);
}

bool verdict_through(json_t *stack, const void *fn)
{
	for (size_t k = 0; k < verdict_frames(stack, false); k++)
		if (verdict_sym_in(verdict_frame(stack, false, k), fn))
			return true;
	return false;
}

bool verdict_class_is(json_t *stack, const char *cls)
{
	return verdict_is(stack, "class", cls);
}

long long verdict_frame0_offset(json_t *stack, const char *fn)
{
	const char *s = verdict_symbol(stack, 0);
	size_t n = strlen(fn);
	char *end;
	long long off;

	if (strncmp(s, fn, n) || strncmp(s + n, "+0x", 3))
		return -1;
	off = strtoll(s + n + 3, &end, 16);
	return *end ? -1 : off;
}

json_t *verdict_frame(json_t *stack, bool ref, size_t i)
{
	return json_array_get(json_object_get(stack, ref ? "libunwind" : "frames"), i);
}

size_t verdict_frames(json_t *stack, bool ref)
{
	return json_array_size(json_object_get(stack, ref ? "libunwind" : "frames"));
}

unsigned long long verdict_ip(json_t *frame)
{
	const char *s = verdict_str(frame, "ip");

	return strtoull(s, NULL, 16);
}

const char *verdict_str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

bool verdict_ended_in_libc(json_t *stack)
{
	long long k = json_integer_value(json_object_get(stack, "wrong_frame"));

	if (verdict_class_is(stack, "ended"))
		return true;
	return verdict_class_is(stack, "astray") && k >= 1 && k >= verdict_covered(stack) &&
	       verdict_sym_in(verdict_frame(stack, false, (size_t)k - 1), "__libc_start_call_main");
}

bool verdict_system_skip(json_t *stack)
{
	json_t *f0 = verdict_frame(stack, false, 0);

	if (!json_is_true(json_object_get(stack, "fallback_skipped")) ||
	    !(verdict_object_is(f0, "ld-linux-x86-64.so.2") || verdict_object_is(f0, "libc.so.6") ||
	      verdict_object_is(f0, "[vdso]") ||
	      /* sampled in la_version, before it registers anything */
	      verdict_object_is(f0, "libcodectl-audit.so")))
		return false;
	cr_assert(verdict_class_is(stack, "astray") && verdict_is(stack, "outcome", "unverifiable") &&
		  strstr(verdict_str(stack, "reason"), ": frame-pointer fallback"),
		  "%s", json_dumps(stack, 0));
	return true;
}

long long verdict_system_skips(const struct verdict_run *v)
{
	long long n = 0;
	size_t i;
	json_t *s;

	json_array_foreach(verdict_stacks(v), i, s)
		n += verdict_system_skip(s);
	return n;
}

void verdict_remove_perf_map(const struct verdict_run *v)
{
	long long pid, last = 0;
	char map[64];
	size_t i;
	json_t *s;

	/* a run's samples are together in the stacks */
	json_array_foreach(verdict_stacks(v), i, s) {
		pid = json_integer_value(json_object_get(s, "pid"));
		if (pid == last)
			continue;
		last = pid;
		snprintf(map, sizeof(map), "/tmp/perf-%lld.map", pid);
		unlink(map);
	}
}

size_t verdict_fde_rows(const char *prog, unsigned long long pc, struct verdict_row *rows,
			size_t max)
{
	char cmd[PATH_MAX + 64], line[256];
	unsigned long long at;
	bool in = false;
	const char *s;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump --sframe=.sframe '%s'", prog);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	while (fgets(line, sizeof(line), p)) {
		if ((s = strstr(line, "func idx [")) && (s = strstr(s, "pc = ")) &&
		    sscanf(s, "pc = %llx", &at) == 1) {
			in = at == pc;
			continue;
		}
		/* a row: "STARTPC CFA FP RA"; the column header is no number */
		if (in && n < max && sscanf(line, " %llx %31s", &at, rows[n].cfa) == 2) {
			rows[n].off = at - pc;
			n++;
		}
	}
	pclose(p);
	return n;
}

long long verdict_place_samples(const struct verdict_run *v, const char *reason)
{
	long long n = 0;
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(v->j, "places"), i, p)
		if (verdict_is(p, "reason", reason)) {
			cr_assert(verdict_is(p, "class", "ended") ||
				  verdict_is(p, "class", "astray"), "%s", json_dumps(p, 0));
			n += json_integer_value(json_object_get(p, "samples"));
		}
	return n;
}
