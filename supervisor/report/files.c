// SPDX-License-Identifier: GPL-2.0
/*
 * --json and --folded. A regular file (or a new one) is written complete or
 * not at all: to a temporary file beside it, then renamed, so an interrupted
 * run never leaves half a report. Anything else (a symbolic link, a FIFO,
 * /dev/stdout) is opened and written as it is, never replaced.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "page.h"
#include "report.h"
#include "supervisor/core/usage.h"

typedef int (*write_fn)(const struct report *r, FILE *f);

/* "-": to standard output, after what the run wrote there. */
static int write_stdout(const struct report *r, write_fn fn)
{
	int err = fn(r, stdout);

	if (fflush(stdout) || err) {
		log_line(r->log, "cannot write the report to standard output: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Write to @path itself (not a regular file: a link, a FIFO, a terminal). */
static int write_in_place(const struct report *r, const char *path, write_fn fn)
{
	FILE *f = fopen(path, "we");
	int err;

	if (!f) {
		log_line(r->log, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	err = fn(r, f);
	if (fclose(f))
		err = -1;
	if (err)
		log_line(r->log, "cannot write %s: %s", path, strerror(errno));
	return err;
}

static int write_atomically(const struct report *r, const char *path, write_fn fn)
{
	char *tmp = NULL;
	FILE *f = NULL;
	int fd, err = -1;
	mode_t mask;
	struct stat st;

	if (!strcmp(path, "-"))
		return write_stdout(r, fn);
	mask = umask(0);
	umask(mask);	/* a report gets the permissions any new file would */
	if (!lstat(path, &st) && !S_ISREG(st.st_mode))
		return write_in_place(r, path, fn);

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		goto out;
	fd = mkstemp(tmp);
	if (fd < 0 && errno == EACCES) {	/* a writable file in a directory we cannot write */
		free(tmp);
		return write_in_place(r, path, fn);
	}
	if (fd >= 0)
		fchmod(fd, 0666 & ~mask);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	err = fn(r, f);
	if (fflush(f) || fsync(fileno(f)))
		err = -1;
	if (fclose(f))
		err = -1;
	if (!err && rename(tmp, path))
		err = -1;
	if (err)
		unlink(tmp);
out:
	if (err)
		log_line(r->log, "cannot write %s: %s", path, strerror(errno));
	free(tmp);
	return err;
}


/* Walks stopped by a malformed JIT table, by what was wrong ("unsorted": N). */
static json_t *jit_invalid_json(const struct sample_stats *st)
{
	const char *prefix = "jit-table-invalid: ";
	json_t *o = json_object();

	for (unsigned int f = 1; o && f < EMU_JIT_FAULT_COUNT; f++) {
		const char *name = emu_jit_fault_reason(f);

		if (!st->jit_invalid[f])
			continue;
		if (!strncmp(name, prefix, strlen(prefix)))
			name += strlen(prefix);
		json_object_set_new(o, name, json_integer((json_int_t)st->jit_invalid[f]));
	}
	return o;
}
/* The wrong frames by whose walk they are in (covered, astray, libunwind), then by why. */
static json_t *findings_in_json(const struct sample_stats *st)
{
	static const char *const walk[FINDING_WALKS] = {
		[FINDING_COVERED] = "covered", [FINDING_ASTRAY] = "astray",
		[FINDING_LIBUNWIND] = "libunwind",
	};
	json_t *o = json_object();

	for (unsigned int k = 0; o && k < FINDING_WALKS; k++) {
		json_t *why = json_object();

		for (unsigned int w = 1; why && w < WHY_COUNT; w++)
			json_object_set_new(why, classify_why_name(w),
					    json_integer((json_int_t)st->findings_in[k][w]));
		json_object_set_new(o, walk[k], why);
	}
	return o;
}

/* The classes issue 13 added, the headline's outcomes and the wrong frames by why. */
static void verdict_counts(json_t *o, const struct sample_stats *st)
{
	static const struct {
		const char *key;
		enum sample_class cls;
	} added[] = { { "ended", SC_ENDED }, { "astray", SC_ASTRAY },
		      { "ours_wrong", SC_OURS_WRONG }, { "both_wrong", SC_BOTH_WRONG },
		      { "blind_reference", SC_BLIND }, { "after_syscall", SC_AFTER_SYSCALL } };
	json_t *why = json_object();

	for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++)
		json_object_set_new(o, added[i].key,
				    json_integer((json_int_t)st->by_class[added[i].cls]));
	json_object_set_new(o, "verified", json_integer((json_int_t)st->outcome[OUTCOME_VERIFIED]));
	json_object_set_new(o, "unverifiable",
			    json_integer((json_int_t)st->outcome[OUTCOME_UNVERIFIABLE]));
	json_object_set_new(o, "fallback_skipped", json_integer((json_int_t)st->fallback_skipped));
	json_object_set_new(o, "past_copy",
			    json_integer((json_int_t)st->outcome[OUTCOME_PAST_COPY]));
	json_object_set_new(o, "wrong", json_pack("{s:I,s:I,s:I}",
		"ours", (json_int_t)st->outcome[OUTCOME_OURS_WRONG],
		"libunwind", (json_int_t)st->libunwind_wrong,
		"both", (json_int_t)st->outcome[OUTCOME_BOTH_WRONG]));
	for (unsigned int w = 1; why && w < WHY_COUNT; w++)
		json_object_set_new(why, classify_why_name(w), json_integer((json_int_t)st->findings[w]));
	json_object_set_new(o, "wrong_frames", why);
	json_object_set_new(o, "wrong_frames_in", findings_in_json(st));
}

static json_t *counts_json(const struct sample_stats *st)
{
	json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
			 "total", (json_int_t)st->total,
			 "match", (json_int_t)st->by_class[SC_MATCH],
			 "sframe_shorter",
			 (json_int_t)(st->by_class[SC_ENDED] + st->by_class[SC_ASTRAY]),
			 "diverged", (json_int_t)st->by_class[SC_DIVERGED],
			 "libunwind_failed", (json_int_t)st->by_class[SC_LIBUNWIND_FAILED],
			 "unchecked", (json_int_t)st->by_class[SC_UNCHECKED],
			 "dropped", (json_int_t)(st->dropped + st->dropped_busy),
			 "programs_own", (json_int_t)st->programs_own,
			 "waited", (json_int_t)st->waited,
			 "with_sframe_step", (json_int_t)st->with_step,
			 "agreeing", (json_int_t)st->agreeing,
			 "strict_ra_changed", (json_int_t)st->strict_changed);

	if (!o)
		return NULL;
	json_object_set_new(o, "waited_max_ms", json_real((double)st->waited_max_ns / 1e6));
	json_object_set_new(o, "dropped_busy", json_integer((json_int_t)st->dropped_busy));
	json_object_set_new(o, "missed_ticks", json_integer((json_int_t)st->missed_ticks));
	json_object_set_new(o, "shed", json_integer((json_int_t)st->shed));
	json_object_set_new(o, "in_loader_module", json_integer((json_int_t)st->in_loader_module));
	json_object_set_new(o, "blocked_threads", json_integer((json_int_t)st->blocked_threads));
	json_object_set_new(o, "stops_pending", json_integer((json_int_t)st->stops_pending));
	json_object_set_new(o, "jit_unchecked",
			    json_integer((json_int_t)st->by_class[SC_JIT_UNCHECKED]));
	json_object_set_new(o, "through_jit", json_integer((json_int_t)st->jit_samples));
	json_object_set_new(o, "jit_frames", json_integer((json_int_t)st->jit_frames));
	json_object_set_new(o, "jit_table_invalid", jit_invalid_json(st));
	json_object_set_new(o, "stack_past_copy", json_integer((json_int_t)st->stack_past_copy));
	verdict_counts(o, st);
	return o;
}

static json_t *coverage_json(const struct sample_stats *st)
{
	size_t n, i;
	struct stats_object **v = stats_objects_sorted(st, &n);
	json_t *o = json_object();

	for (i = 0; o && i < n; i++)
		json_object_set_new(o, v[i]->label, json_pack("{s:s,s:I,s:I,s:f}",
			"path", v[i]->name, "samples", (json_int_t)v[i]->samples,
			"with_sframe_step", (json_int_t)v[i]->with_step,
			"coverage", (double)v[i]->with_step / (double)v[i]->samples));
	free(v);
	return o;
}

static json_t *threads_json(const struct sample_stats *st)
{
	size_t n, i;
	struct stats_thread **v = stats_threads_sorted(st, &n);
	json_t *a = json_array();

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_pack("{s:i,s:i,s:s,s:I,s:I,s:I,s:I}", "pid",
			(int)v[i]->tgid, "tid", (int)v[i]->tid, "comm", v[i]->comm,
			"taken", (json_int_t)v[i]->taken, "walked", (json_int_t)v[i]->walked,
			"unverified", (json_int_t)v[i]->unverified,
			"wrong", (json_int_t)v[i]->wrong));
	free(v);
	return a;
}

static json_t *places_json(const struct sample_stats *st)
{
	size_t n, i;
	struct stats_place **v = stats_places_sorted(st, &n);
	json_t *a = json_array();

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s,s:I,s:{s:I,s:I,s:I},s:O}",
			"class", classify_class_name(v[i]->cls), "function", v[i]->function,
			"why", classify_why_name(v[i]->why),
			"reason", v[i]->reason, "samples", (json_int_t)v[i]->count,
			"elfutils", "with_us", (json_int_t)v[i]->side[SIDE_US],
			"with_libunwind", (json_int_t)v[i]->side[SIDE_LIBUNWIND],
			"neither", (json_int_t)v[i]->side[SIDE_NEITHER],
			"example", v[i]->example));
	free(v);
	return a;
}

static json_t *registrations_json(const struct report_registrations *t)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "accepted", (json_int_t)t->accepted,
			 "rejected", (json_int_t)t->rejected, "unregistered",
			 (json_int_t)t->unregistered, "at_exec", (json_int_t)t->at_exec,
			 "stale", (json_int_t)t->stale,
			 "again_after_exec", (json_int_t)t->again_after_exec);
}

static json_t *run_json(const struct report *r)
{
	const struct run_opts *o = r->opts;
	json_t *argv = json_array();

	for (char **a = o->argv; *a; a++)
		json_array_append_new(argv, json_string(*a));
	return json_pack("{s:o,s:i,s:i,s:s,s:s,s:b,s:b,s:I,s:i,s:I,s:b}", "program", argv,
			 "exit_status", r->exit_status, "freq", (int)o->freq,
			 "clock", o->wall_clock ? "wall" : "cpu",
			 "trigger", !o->freq ? "none" :
				    r->stop ? "perf-stop" : r->ring ? "perf-ring" :
			 r->perf_events ? "perf-event" : "timer",
			 "strict", o->strict, "crosscheck", o->crosscheck,
			 "stack_size", (json_int_t)(r->ring && !r->stop ? r->ring_stack :
						    o->stack_bytes),
			 "max_frames", (int)o->max_frames, "lost", (json_int_t)r->ring_lost,
			 "user_time_only", r->user_only);
}

/* codectl-run's own descriptors, memory and per-process state as the report is written. */
static json_t *usage_json(const struct report *r)
{
	struct self_usage u;

	if (self_usage_read(&u))
		return json_null();
	return json_pack("{s:i,s:I,s:I,s:i,s:{s:I,s:I}}", "fds", (int)u.fds,
			 "rss_kb", (json_int_t)u.rss_kb, "max_rss_kb", (json_int_t)u.max_rss_kb,
			 "exited_holding_state", (int)r->exited_holding,
			 "maps_reads", "full", (json_int_t)r->maps_full_reads,
			 "ranges", (json_int_t)r->maps_range_reads);
}

static json_t *cost_json(struct sample_stats *st)
{
	json_t *o = json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}",
			 "freeze_median_us", (double)stats_freeze_percentile(st, 50) / 1e3,
			 "freeze_p99_us", (double)stats_freeze_percentile(st, 99) / 1e3,
			 "freeze_max_us", (double)stats_freeze_percentile(st, 100) / 1e3,
			 "ours_per_sample_us", st->total ? (double)st->ours_ns / st->total / 1e3 : 0.0,
			 "libunwind_per_sample_us", st->n_ref_walks ?
				(double)st->ref_ns / st->n_ref_walks / 1e3 : 0.0,
			 "elfutils_per_walk_us", st->n_elf_walks ?
				(double)st->elf_ns / st->n_elf_walks / 1e3 : 0.0);

	if (!o)
		return NULL;
	json_object_set_new(o, "libunwind_retries", json_integer((json_int_t)st->ref_retries));
	json_object_set_new(o, "plausibility_per_sample_us",
			    json_real(st->total ? (double)st->plaus_ns / st->total / 1e3 : 0.0));
	json_object_set_new(o, "frames_judged", json_integer((json_int_t)st->plaus_frames));
	json_object_set_new(o, "frames_judged_from_cache", json_integer((json_int_t)st->plaus_hits));
	return o;
}

/* The --json report's object (NULL on ENOMEM); the caller owns it. */
static json_t *report_json(const struct report *r)
{
	struct sample_stats *st = r->stats;
	double a = stats_agreement(st);
	json_t *root = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:I,s:{s:I,s:I,s:I,s:I},s:O}",
		"run", run_json(r), "samples", counts_json(st),
		"agreement", a < 0 ? json_null() : json_real(a),
		"coverage", coverage_json(st), "registrations", registrations_json(&r->registrations),
		"cost", cost_json(st), "check_failures", (json_int_t)st->check_failures,
		"disagreements_total", (json_int_t)st->disagreements_total,
		"elfutils", "with_us", (json_int_t)st->side[SIDE_US],
		"with_libunwind", (json_int_t)st->side[SIDE_LIBUNWIND],
		"neither", (json_int_t)st->side[SIDE_NEITHER],
		"guessed", (json_int_t)st->side[SIDE_BLIND],
		"disagreements", st->disagreements);

	if (!root)
		return NULL;
	json_object_set_new(root, "places", places_json(st));
	json_object_set_new(root, "threads", threads_json(st));
	json_object_set_new(root, "profile", profile_json(st));
	json_object_set_new(root, "threads_unlisted", json_integer((json_int_t)st->threads_unlisted));
	json_object_set_new(root, "supervisor", usage_json(r));
	if (st->formats.on)
		json_object_set_new(root, "formats", formats_json(&st->formats));
	if (st->stacks)
		json_object_set(root, "stacks", st->stacks);
	if (r->verify)
		json_object_set(root, "verify", r->verify);
	if (r->processes)
		json_object_set(root, "registrations_by_process", r->processes);
	return root;
}

static int write_json(const struct report *r, FILE *f)
{
	json_t *root = report_json(r);
	int err;

	if (!root)
		return -1;
	err = json_dumpf(root, f, JSON_INDENT(1)) ? -1 : 0;
	fputc('\n', f);
	json_decref(root);
	return err;
}

/* The folded stacks for the page: [[stack, count, samples libunwind had wrong], ...]. */
static json_t *flame_json(const struct sample_stats *st)
{
	size_t n, i;
	struct stats_folded **v = stats_folded_sorted(st, false, &n);
	json_t *a = json_array();

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_pack("[s,I,I]", v[i]->stack, (json_int_t)v[i]->count,
						   (json_int_t)v[i]->ref_wrong));
	free(v);
	return a;
}

/*
 * --html: the --json report's object without its disagreements and stacks
 * (the places keep an example each), with the folded stacks, in the page.
 */
static int write_page(const struct report *r, FILE *f)
{
	json_t *data = report_json(r);
	int err;

	if (!data)
		return -1;
	json_object_del(data, "disagreements");
	json_object_del(data, "stacks");
	json_object_set_new(data, "flame", flame_json(r->stats));
	json_object_set_new(data, "flame_root", json_boolean(!r->stats->folded_no_root));
	err = page_write(f, data);
	json_decref(data);
	return err;
}

/* Folded stacks, cut (@all false) or with every frame, one "stack count" line each. */
static int folded_lines(const struct report *r, FILE *f, bool all)
{
	size_t n, i;
	struct stats_folded **v = stats_folded_sorted(r->stats, all, &n);

	for (i = 0; i < n; i++)
		fprintf(f, "%s %lu\n", v[i]->stack, v[i]->count);
	free(v);
	return ferror(f) ? -1 : 0;
}

static int write_folded(const struct report *r, FILE *f)
{
	return folded_lines(r, f, false);
}

static int write_folded_all(const struct report *r, FILE *f)
{
	return folded_lines(r, f, true);
}

/* Can @path be written (checked before the program runs, not after)? */
static int check_path(struct log *log, const char *opt, const char *path)
{
	char *dir = strdup(path), *slash;
	struct stat st;
	int err = 0;

	if (!dir)
		return -1;
	if (!strcmp(path, "-")) {	/* standard output */
		free(dir);
		return 0;
	}
	slash = strrchr(dir, '/');
	if (!lstat(path, &st) && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		err = -1;
	} else if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		err = access(path, W_OK);	/* a FIFO, a terminal, /dev/stdout */
	} else if (!stat(path, &st)) {
		err = access(path, W_OK);
	} else {	/* a new file, or a link to one: its directory */
		if (slash)
			slash[slash == dir ? 1 : 0] = '\0';
		err = access(slash ? dir : ".", W_OK | X_OK);
	}
	if (err)
		log_line(log, "%s %s: cannot write there: %s", opt, path, strerror(errno));
	free(dir);
	return err;
}

int report_check_files(struct log *log, const struct run_opts *o)
{
	if (o->json_path && check_path(log, o->json_all ? "--json-all" : "--json", o->json_path))
		return -1;
	if (o->folded_path && check_path(log, "--folded", o->folded_path))
		return -1;
	if (o->folded_all_path && check_path(log, "--folded-all", o->folded_all_path))
		return -1;
	if (o->html_path && check_path(log, "--html", o->html_path))
		return -1;
	return 0;
}

int report_write_files(const struct report *r)
{
	int err = 0;

	if (r->opts->json_path && write_atomically(r, r->opts->json_path, write_json))
		err = -1;
	if (r->opts->folded_path && write_atomically(r, r->opts->folded_path, write_folded))
		err = -1;
	if (r->opts->folded_all_path &&
	    write_atomically(r, r->opts->folded_all_path, write_folded_all))
		err = -1;
	if (r->opts->html_path && write_atomically(r, r->opts->html_path, write_page))
		err = -1;
	return err;
}
