// SPDX-License-Identifier: GPL-2.0
/* The sampling report as text on the log. */
#include <jansson.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "supervisor/oracle/oracle.h"

#define REPORT_PLACES 8
#define REPORT_OBJECTS 12
#define EXAMPLE_HEAD 3		/* frames shown from the top of a long example */
#define EXAMPLE_AROUND 3	/* ... and before the first difference */
#define EXAMPLE_AFTER 6		/* ... and from it on */

static void add_frame_sources(report_source_fn fn, void *ctx, pid_t pid, json_t *frames)
{
	char buf[256];
	json_t *f;
	size_t i;

	json_array_foreach(frames, i, f) {
		const char *ip = json_string_value(json_object_get(f, "ip"));

		if (!ip || json_object_get(f, "source_line"))
			continue;
		if (!fn(ctx, pid, strtoull(ip, NULL, 16),
			i > 0 && !json_is_true(json_object_get(f, "exact")), buf, sizeof(buf)))
			json_object_set_new(f, "source_line", json_string(buf));
	}
}

static void add_sample_sources(report_source_fn fn, void *ctx, pid_t only, json_t *sample)
{
	pid_t pid = (pid_t)json_integer_value(json_object_get(sample, "pid"));

	if (only && pid != only)
		return;
	add_frame_sources(fn, ctx, pid, json_object_get(sample, "frames"));
	add_frame_sources(fn, ctx, pid, json_object_get(sample, "libunwind"));
}

struct sources_ctx {
	report_source_fn fn;
	void *ctx;
	pid_t pid;
};

static void add_place_sources(const void *node, VISIT which, void *arg)
{
	const struct stats_place *p = *(struct stats_place *const *)node;
	struct sources_ctx *c = arg;

	if (which == postorder || which == leaf)
		add_sample_sources(c->fn, c->ctx, c->pid, p->example);
}

void report_add_sources(struct sample_stats *st, pid_t pid, report_source_fn fn, void *ctx)
{
	struct sources_ctx c = { fn, ctx, pid };
	json_t *sample;
	size_t i;

	twalk_r(st->places, add_place_sources, &c);
	json_array_foreach(st->disagreements, i, sample)
		add_sample_sources(fn, ctx, pid, sample);
}

static double per(uint64_t ns, unsigned long n)
{
	return n ? (double)ns / (double)n / 1000.0 : 0;
}

/* Wrong frames the verdicts found, by whose walk they are in, then by why. */
static void print_findings(const struct report *r, const struct sample_stats *st)
{
	static const char *const walk[FINDING_WALKS] = {
		[FINDING_COVERED] = "in SFrame-covered parts",
		[FINDING_ASTRAY] = "past them (astray)",
		[FINDING_LIBUNWIND] = "in libunwind's walks",
	};
	bool any = false;

	for (unsigned int k = 0; k < FINDING_WALKS; k++) {
		bool first = true;

		for (unsigned int why = 1; why < WHY_COUNT; why++) {
			if (!st->findings_in[k][why])
				continue;
			if (first)
				fprintf(r->log->f, "%s%s: ", any ? "; " :
					"  wrong frames the verdicts found: ", walk[k]);
			else
				fprintf(r->log->f, ", ");
			fprintf(r->log->f, "%s %lu", classify_why_name(why), st->findings_in[k][why]);
			first = false;
			any = true;
		}
	}
	if (any)
		fprintf(r->log->f, "\n");
}

/* Samples through JIT code, and why libunwind checks them only up to the first JIT frame. */
static void print_jit(const struct report *r, const struct sample_stats *st)
{
	if (!st->jit_samples)
		return;
	fprintf(r->log->f, "  JIT: %lu samples through JIT code (%lu frames)", st->jit_samples,
		st->jit_frames);
	if (r->opts->crosscheck)
		fprintf(r->log->f, "; libunwind cannot read JIT unwind info remotely (%s): "
				"frames past the first JIT frame are not cross-checked",
			ORACLE_LIBUNWIND_NO_JIT);
	fprintf(r->log->f, "\n");
}

/* Walks a JIT table broke off: the program's tables break codectl(2)'s rules. */
static void print_jit_invalid(const struct report *r, const struct sample_stats *st)
{
	const char *sep = "";

	if (!st->jit_invalid_total)
		return;
	fprintf(r->log->f, "  JIT tables: %lu walks stopped at a table breaking codectl(2)'s rules:",
		st->jit_invalid_total);
	for (unsigned int f = 1; f < EMU_JIT_FAULT_COUNT; f++) {
		if (!st->jit_invalid[f])
			continue;
		fprintf(r->log->f, "%s %s %lu", sep, emu_jit_fault_reason(f), st->jit_invalid[f]);
		sep = ",";
	}
	fprintf(r->log->f, "%s\n", r->opts->check ? " (--check fails)" : "");
}

/*
 * The headline: what the samples say of our walks' covered parts, then the
 * classes (the five always, the others when they occur).
 */
static void print_verdicts(const struct report *r, const struct sample_stats *st)
{
	static const enum sample_class always[] = { SC_MATCH, SC_ENDED, SC_ASTRAY, SC_DIVERGED,
						    SC_LIBUNWIND_FAILED };
	static const enum sample_class rare[] = { SC_OURS_WRONG, SC_BOTH_WRONG, SC_BLIND,
						  SC_JIT_UNCHECKED, SC_UNCHECKED,
						  SC_AFTER_SYSCALL };
	const char *sep = "";
	size_t i;

	fprintf(r->log->f, "  verdict: %lu verified correct in their covered part; wrong: ours %lu, "
			"libunwind's %lu, both %lu; unverifiable %lu",
		st->outcome[OUTCOME_VERIFIED], st->outcome[OUTCOME_OURS_WRONG], st->libunwind_wrong,
		st->outcome[OUTCOME_BOTH_WRONG], st->outcome[OUTCOME_UNVERIFIABLE]);
	if (st->fallback_skipped)
		fprintf(r->log->f, " (%lu: the frame-pointer fallback left out frames that "
				"libunwind found by unwind data)", st->fallback_skipped);
	if (st->outcome[OUTCOME_PAST_COPY])
		fprintf(r->log->f, "; outside the stack copy %lu (not judged)",
			st->outcome[OUTCOME_PAST_COPY]);
	fputc('\n', r->log->f);
	fprintf(r->log->f, "  whole walks, ours against libunwind's: ");
	for (i = 0; i < sizeof(always) / sizeof(always[0]); i++, sep = ", ")
		fprintf(r->log->f, "%s%s %lu", sep, classify_class_name(always[i]),
			st->by_class[always[i]]);
	for (i = 0; i < sizeof(rare) / sizeof(rare[0]); i++)
		if (st->by_class[rare[i]])
			fprintf(r->log->f, ", %s %lu", classify_class_name(rare[i]),
				st->by_class[rare[i]]);
	fprintf(r->log->f, "\n");
	print_findings(r, st);
}

static void print_counts(const struct report *r, struct sample_stats *st)
{
	double a = stats_agreement(st);

	fprintf(r->log->f, "codectl-run: sampling: %lu samples (%u Hz, %s), %lu dropped", st->total,
		r->opts->freq, r->stop ? "CPU clock, perf ring buffers, each walked at a stop" :
		r->ring ? "CPU clock, perf ring buffers" :
		r->perf_events ? "CPU clock, perf events, SIGPROF" :
		r->opts->wall_clock ? "wall clock" : "wall clock: perf events unavailable",
		st->dropped + st->dropped_busy);
	if (r->ring_lost)
		fprintf(r->log->f, ", %llu lost by the kernel (its buffers were full)",
			(unsigned long long)r->ring_lost);
	if (st->dropped_busy)
		fprintf(r->log->f, " (%lu while %u samples waited to be unwound: lower --freq or use "
				"--no-crosscheck)", st->dropped_busy, r->queue);
	if (st->missed_ticks)
		fprintf(r->log->f, ", %lu timer ticks missed while busy", st->missed_ticks);
	if (st->stops_pending)
		fprintf(r->log->f, ", %lu while the thread's last stop was still on its way",
			st->stops_pending);
	if (st->shed)
		fprintf(r->log->f, ", %lu shed (wall clock: at most %u stops a second, threads "
				"take turns)", st->shed, r->wall_stops);
	if (st->programs_own)
		fprintf(r->log->f, ", %lu at the program's own SIGPROF", st->programs_own);
	fprintf(r->log->f, "\n");
	if (st->blocked_threads) {
		fprintf(r->log->f, "  %lu threads blocked SIGPROF while they ran, and lost their "
				"samples (--sampler ring samples them):", st->blocked_threads);
		for (unsigned long i = 0; i < st->blocked_threads && i < STATS_BLOCKED_NAMED; i++)
			fprintf(r->log->f, "%s %s", i ? "," : "", st->blocked_names[i]);
		fprintf(r->log->f, "%s\n", st->blocked_threads > STATS_BLOCKED_NAMED ? ", ..." : "");
	}
	if (st->waited && r->stop)
		fprintf(r->log->f, "  %lu stops came over a period after the kernel's sample "
				"(longest %.1f ms)\n", st->waited, (double)st->waited_max_ns / 1e6);
	else if (st->waited)
		fprintf(r->log->f, "  %lu samples came over a period late (%s; longest %.1f ms)\n",
			st->waited, r->opts->wall_clock && r->opts->sampler != OPTS_SAMPLER_SIGPROF ?
			"the stop came late: codectl-run busy, or the thread not stoppable at once" :
			r->perf_events ?
			"SIGPROF blocked, or periods spent in the kernel skipped" : "SIGPROF blocked",
			(double)st->waited_max_ns / 1e6);
	if (r->ring && !r->stop)
		fprintf(r->log->f, "  no thread stopped: the kernel copied the registers and up "
				"to %zu bytes of stack at each sample\n", r->ring_stack);
	else
		fprintf(r->log->f, "  freeze per sample: median %.1f us, max %.1f us\n",
			(double)stats_freeze_percentile(st, 50) / 1e3,
			(double)stats_freeze_percentile(st, 100) / 1e3);
	print_verdicts(r, st);
	print_jit(r, st);
	print_jit_invalid(r, st);
	if (st->stack_past_copy)
		fprintf(r->log->f, "  %lu walks read the stack outside its copy (above its "
				"--stack-size %zu bytes, or below SP where an epilogue's rule "
				"reads a popped FP), live after the thread ran on: their outer "
				"frames may be of a later moment and are not judged (past-copy); "
				"--sampler stop walks them exactly\n", st->stack_past_copy,
			r->opts->stack_bytes);
	if (a >= 0)
		fprintf(r->log->f, "  agreement: %.1f%% (%lu of %lu samples with an SFrame/JIT step "
				"agree with libunwind over their SFrame-covered frames)\n",
			a * 100, st->agreeing, st->checked_with_step);
	else
		fprintf(r->log->f, "  agreement: n/a (%s)\n", st->with_step ?
			"not cross-checked" : "no sample took an SFrame/JIT step");
	if (st->n_elf_walks)
		fprintf(r->log->f, "  elfutils asked %lu times: sides with codectl-run %lu, with "
				"libunwind %lu, neither %lu, only guessed %lu\n", st->n_elf_walks,
			st->side[SIDE_US], st->side[SIDE_LIBUNWIND], st->side[SIDE_NEITHER],
			st->side[SIDE_BLIND]);
	if (st->strict_changed)
		fprintf(r->log->f, "  the kernel's lookup of callers at their return address (not at RA-1) "
				"%s %lu stacks\n", r->opts->strict ? "changed" : "would change",
			st->strict_changed);
	fprintf(r->log->f, "  cost per sample: our unwind %.1f us, plausibility %.1f us (%.2f us a "
			"frame, %.0f%% from its cache), libunwind %.1f us", per(st->ours_ns, st->total),
		per(st->plaus_ns, st->total), per(st->plaus_ns, st->plaus_frames),
		st->plaus_frames ? 100.0 * (double)st->plaus_hits / (double)st->plaus_frames : 0.0,
		per(st->ref_ns, st->n_ref_walks));
	if (st->ref_retries)
		fprintf(r->log->f, " (%lu walks ending at frame 0 retried with fresh libunwind-ptrace "
				"state)", st->ref_retries);
	if (!st->n_elf_walks)
		fprintf(r->log->f, "\n");
	if (st->n_elf_walks)
		fprintf(r->log->f, ", elfutils %.1f us\n", per(st->elf_ns, st->n_elf_walks));
}

static void print_coverage(const struct report *r, struct sample_stats *st)
{
	size_t n, i;
	struct stats_object **v = stats_objects_sorted(st, &n);

	if (!n) {
		free(v);
		return;
	}
	fprintf(r->log->f, "  coverage (samples whose walk took an SFrame, JIT or .eh_frame step), by "
			"object of frame 0:\n");
	for (i = 0; i < n && i < REPORT_OBJECTS; i++)
		fprintf(r->log->f, "    %-32s %6.1f%%  (%lu of %lu)\n", v[i]->label,
			100.0 * (double)v[i]->with_step / (double)v[i]->samples, v[i]->with_step,
			v[i]->samples);
	if (n > REPORT_OBJECTS)
		fprintf(r->log->f, "    (%zu more objects)\n", n - REPORT_OBJECTS);
	free(v);
}

static const char *str_at(json_t *a, size_t i, const char *key)
{
	const char *v = json_string_value(json_object_get(json_array_get(a, i), key));

	return v ? v : "";
}

/* "symbol (file.c:12)" of frame @i, when the line is known. */
static const char *frame_text(json_t *a, size_t i, char *buf, size_t size)
{
	const char *line = str_at(a, i, "source_line"), *why = str_at(a, i, "why");
	bool tramp = json_is_true(json_object_get(json_array_get(a, i), "signal_trampoline"));

	snprintf(buf, size, "%s%s%s%s%s%s%s%s", why[0] ? "!" : "", str_at(a, i, "symbol"),
		 tramp ? " <signal frame>" : "", line[0] ? " (" : "", line, line[0] ? ")" : "",
		 why[0] ? " " : "", why);
	return buf;
}

static void print_example_row(const struct report *r, json_t *ours, json_t *ref, size_t i,
			      bool marked)
{
	char lt[160], rt[160], left[200];
	size_t n = json_array_size(ours);

	snprintf(left, sizeof(left), "%-46.46s %s", frame_text(ours, i, lt, sizeof(lt)),
		 i < n ? str_at(ours, i, "source") : "");
	fprintf(r->log->f, "     %s %3zu %-53s | %.56s\n", marked ? "->" : "  ", i,
		i < n ? left : "", frame_text(ref, i, rt, sizeof(rt)));
}

/* --verify: the verifier's finding where the wrong frame's row is (main.c links them). */
static void print_verify_link(const struct report *r, json_t *ex)
{
	json_t *v = json_object_get(ex, "verify_finding");

	if (!v)
		return;
	fprintf(r->log->f, "       the verifier found there, in %s: %s\n",
		json_string_value(json_object_get(v, "object")),
		json_string_value(json_object_get(v, "text")));
}

/*
 * One example: our frames beside libunwind's, the first difference marked.
 * A long stack shows its first frames and the frames around the difference.
 */
static void print_example(const struct report *r, json_t *ex)
{
	json_t *ours = json_object_get(ex, "frames"), *ref = json_object_get(ex, "libunwind");
	size_t n = json_array_size(ours), m = json_array_size(ref), rows = n > m ? n : m, i;
	json_int_t d = json_integer_value(json_object_get(ex, "first_difference"));
	size_t from = (size_t)d > EXAMPLE_AROUND ? (size_t)d - EXAMPLE_AROUND : 0;

	fprintf(r->log->f, "       example (pid %lld, tid %lld; %zu | %zu frames):\n",
		json_integer_value(json_object_get(ex, "pid")),
		json_integer_value(json_object_get(ex, "tid")), n, m);
	fprintf(r->log->f, "       %3s %-53s | %s\n", "#", "ours, and how the frame was reached",
		"libunwind");
	if (from <= EXAMPLE_HEAD)
		from = 0;
	for (i = 0; i < rows && i < EXAMPLE_HEAD && from; i++)
		print_example_row(r, ours, ref, i, false);
	if (from)
		fprintf(r->log->f, "           ...\n");
	for (i = from; i < rows && i < (size_t)d + EXAMPLE_AFTER; i++)
		print_example_row(r, ours, ref, i, (json_int_t)i == d);
	if (i < rows)
		fprintf(r->log->f, "           ...\n");
	print_verify_link(r, ex);
}

static void print_places(const struct report *r, struct sample_stats *st)
{
	size_t n, i;
	struct stats_place **v = stats_places_sorted(st, &n);

	if (n)
		fprintf(r->log->f, "  where SFrame coverage ends or walks disagree (top %d of %zu):\n",
			n < REPORT_PLACES ? (int)n : REPORT_PLACES, n);
	for (i = 0; i < n && i < REPORT_PLACES; i++) {
		struct stats_place *p = v[i];

		fprintf(r->log->f, "  %2zu. %s in %s: %lu samples (%s%s%s)", i + 1,
			classify_class_name(p->cls), p->function, p->count,
			classify_why_name(p->why), p->why ? "; " : "", p->reason);
		if (p->side[SIDE_US] + p->side[SIDE_LIBUNWIND] + p->side[SIDE_NEITHER])
			fprintf(r->log->f, "; elfutils: with us %lu, with libunwind %lu, neither %lu",
				p->side[SIDE_US], p->side[SIDE_LIBUNWIND], p->side[SIDE_NEITHER]);
		fprintf(r->log->f, "\n");
		print_example(r, p->example);
	}
	free(v);
}

void report_print(const struct report *r)
{
	struct sample_stats *st = r->stats;

	if (r->opts->quiet)
		return;
	print_counts(r, st);
	if (r->opts->report != OPTS_REPORT_COVERAGE)
		profile_print(r->log->f, st);
	if (r->opts->report == OPTS_REPORT_PROFILE)
		return;
	print_coverage(r, st);
	formats_print(r->log->f, &st->formats);
	print_places(r, st);
	if (st->in_loader_module)
		fprintf(r->log->f, "  %lu samples in codectl-run's own loader module (%s, "
				"registering objects as ld.so would): not among the places above\n",
			st->in_loader_module, STATS_LOADER_MODULE);
	if (st->check_failures)
		fprintf(r->log->f, "  %lu samples show our walk wrong (an implausible frame, or RA 0 "
				"through a row not marked outermost, in the covered part) or "
				"disagree with libunwind there where elfutils does not side with "
				"codectl-run%s\n", st->check_failures,
			r->opts->check ? ": --check fails" : "");
}
