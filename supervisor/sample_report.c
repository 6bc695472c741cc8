// SPDX-License-Identifier: GPL-2.0
/* Sampling report: text, JSON (jansson) and folded stacks. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sample_report.h"
#include "proc_unwinders.h"
#include "sampler.h"
#include "supervisor.h"

#define REPORT_PLACES 8
#define REPORT_OBJECTS 12
#define EXAMPLE_HEAD 3		/* frames shown from the top of a long example */
#define EXAMPLE_AROUND 3	/* ... and before the first difference */
#define EXAMPLE_AFTER 6		/* ... and from it on */

/* The newest process with TGID @pid, exited or not (its unwinders outlive it). */
static struct proc *proc_by_pid(struct supervisor *s, json_int_t pid)
{
	struct proc *p;

	for (p = s->tree.procs; p; p = p->next)
		if (p->tgid == pid)
			return p;
	return NULL;
}

static void add_frame_sources(struct source_lines *c, struct proc_dwfl *d, json_t *frames)
{
	char buf[256];
	json_t *f;
	size_t i;

	json_array_foreach(frames, i, f) {
		const char *ip = json_string_value(json_object_get(f, "ip"));

		if (!ip || json_object_get(f, "source_line"))
			continue;
		if (!proc_dwfl_source(c, d, strtoull(ip, NULL, 16), i > 0, buf, sizeof(buf)))
			json_object_set_new(f, "source_line", json_string(buf));
	}
}

static void add_sample_sources(struct supervisor *s, struct source_lines *c, json_t *sample)
{
	struct proc *p = proc_by_pid(s, json_integer_value(json_object_get(sample, "pid")));

	if (!p || !p->unwinders)
		return;
	add_frame_sources(c, &p->unwinders->dwfl, json_object_get(sample, "frames"));
	add_frame_sources(c, &p->unwinders->dwfl, json_object_get(sample, "libunwind"));
}

void sample_report_add_sources(struct supervisor *s)
{
	struct source_lines *c;
	struct stats_place **v;
	json_t *sample;
	size_t n, i;

	if (!s->sampler)
		return;
	c = calloc(1, sizeof(*c));
	if (!c)
		return;
	v = stats_places_sorted(&s->sampler->stats, &n);
	for (i = 0; i < n; i++)
		add_sample_sources(s, c, v[i]->example);
	free(v);
	json_array_foreach(s->sampler->stats.disagreements, i, sample)
		add_sample_sources(s, c, sample);
	source_lines_free(c);
	free(c);
}

static double per(uint64_t ns, unsigned long n)
{
	return n ? (double)ns / (double)n / 1000.0 : 0;
}

/* Samples through JIT code, and why libunwind checks them only up to the first JIT frame. */
static void print_jit(struct supervisor *s, const struct sample_stats *st)
{
	if (!st->jit_samples)
		return;
	fprintf(s->log, "  JIT: %lu samples through JIT code (%lu frames)", st->jit_samples,
		st->jit_frames);
	if (s->opts.crosscheck)
		fprintf(s->log, "; libunwind cannot read JIT unwind info remotely (%s): "
				"frames past the first JIT frame are not cross-checked",
			REF_UNWIND_NO_JIT);
	fprintf(s->log, "\n");
}

/* Walks a JIT table broke off: the program's tables break codectl(2)'s rules. */
static void print_jit_invalid(struct supervisor *s, const struct sample_stats *st)
{
	const char *sep = "";

	if (!st->jit_invalid_total)
		return;
	fprintf(s->log, "  JIT tables: %lu walks stopped at a table breaking codectl(2)'s rules:",
		st->jit_invalid_total);
	for (unsigned int f = 1; f < EMU_JIT_FAULT_COUNT; f++) {
		if (!st->jit_invalid[f])
			continue;
		fprintf(s->log, "%s %s %lu", sep, emu_jit_fault_reason(f), st->jit_invalid[f]);
		sep = ",";
	}
	fprintf(s->log, "%s\n", s->opts.check ? " (--check fails)" : "");
}

static void print_counts(struct supervisor *s, struct sample_stats *st)
{
	const struct sampler *sm = s->sampler;
	double a = stats_agreement(st);

	fprintf(s->log, "codectl-run: sampling: %lu samples (%u Hz, %s), %lu dropped", st->total,
		s->opts.freq, sm->trig.kind == TRIGGER_PERF ? "CPU clock, perf events" :
		s->opts.wall_clock ? "wall clock" : "wall clock: perf events unavailable",
		st->dropped + st->dropped_busy);
	if (st->dropped_busy)
		fprintf(s->log, " (%lu while %u samples waited to be unwound: lower --freq or use "
				"--no-crosscheck)", st->dropped_busy, SAMPLER_QUEUE);
	if (st->missed_ticks)
		fprintf(s->log, ", %lu timer ticks missed while busy", st->missed_ticks);
	if (st->programs_own)
		fprintf(s->log, ", %lu at the program's own SIGPROF", st->programs_own);
	fprintf(s->log, "\n");
	if (st->waited)
		fprintf(s->log, "  %lu samples came over a period late (SIGPROF blocked%s; longest "
				"%.1f ms)\n", st->waited, sm->trig.kind == TRIGGER_PERF ?
				", or periods spent in the kernel skipped" : "",
			(double)st->waited_max_ns / 1e6);
	fprintf(s->log, "  freeze per sample: median %.1f us, max %.1f us\n",
		(double)stats_freeze_percentile(st, 50) / 1e3,
		(double)stats_freeze_percentile(st, 100) / 1e3);
	fprintf(s->log, "  match %lu, sframe-shorter %lu, diverged %lu, libunwind-failed %lu",
		st->by_class[SC_MATCH], st->by_class[SC_SFRAME_SHORTER], st->by_class[SC_DIVERGED],
		st->by_class[SC_LIBUNWIND_FAILED]);
	if (st->by_class[SC_JIT_UNCHECKED])
		fprintf(s->log, ", jit-unchecked %lu", st->by_class[SC_JIT_UNCHECKED]);
	if (st->by_class[SC_UNCHECKED])
		fprintf(s->log, ", not cross-checked %lu", st->by_class[SC_UNCHECKED]);
	fprintf(s->log, "\n");
	print_jit(s, st);
	print_jit_invalid(s, st);
	if (st->stack_past_copy)
		fprintf(s->log, "  %lu walks read the stack above its copy (--stack-size %zu), live "
				"after the thread ran on: their outer frames may be of a later "
				"moment\n", st->stack_past_copy, s->opts.stack_bytes);
	if (a >= 0)
		fprintf(s->log, "  agreement: %.1f%% (%lu of %lu samples with an SFrame/JIT step "
				"agree with libunwind over their SFrame-covered frames)\n",
			a * 100, st->agreeing, st->checked_with_step);
	else
		fprintf(s->log, "  agreement: n/a (%s)\n", st->with_step ?
			"not cross-checked" : "no sample took an SFrame/JIT step");
	if (st->n_elf_walks)
		fprintf(s->log, "  elfutils asked %lu times: sides with codectl-run %lu, with "
				"libunwind %lu, neither %lu\n", st->n_elf_walks, st->side[SIDE_US],
			st->side[SIDE_LIBUNWIND], st->side[SIDE_NEITHER]);
	if (st->strict_changed)
		fprintf(s->log, "  the kernel's lookup of callers at their return address (not at RA-1) "
				"%s %lu stacks\n", s->opts.strict ? "changed" : "would change",
			st->strict_changed);
	fprintf(s->log, "  cost per sample: our unwind %.1f us, libunwind %.1f us", per(st->ours_ns,
		st->total), per(st->ref_ns, st->n_ref_walks));
	if (st->ref_retries)
		fprintf(s->log, " (%lu walks ending at frame 0 retried with fresh libunwind-ptrace "
				"state)", st->ref_retries);
	if (!st->n_elf_walks)
		fprintf(s->log, "\n");
	if (st->n_elf_walks)
		fprintf(s->log, ", elfutils %.1f us\n", per(st->elf_ns, st->n_elf_walks));
}

static void print_coverage(struct supervisor *s, struct sample_stats *st)
{
	size_t n, i;
	struct stats_object **v = stats_objects_sorted(st, &n);

	if (!n) {
		free(v);
		return;
	}
	fprintf(s->log, "  coverage (samples whose walk took an SFrame/JIT step), by object of "
			"frame 0:\n");
	for (i = 0; i < n && i < REPORT_OBJECTS; i++)
		fprintf(s->log, "    %-32s %6.1f%%  (%lu of %lu)\n", v[i]->name,
			100.0 * (double)v[i]->with_step / (double)v[i]->samples, v[i]->with_step,
			v[i]->samples);
	if (n > REPORT_OBJECTS)
		fprintf(s->log, "    (%zu more objects)\n", n - REPORT_OBJECTS);
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
	const char *line = str_at(a, i, "source_line");

	snprintf(buf, size, "%s%s%s%s", str_at(a, i, "symbol"), line[0] ? " (" : "", line,
		 line[0] ? ")" : "");
	return buf;
}

static void print_example_row(struct supervisor *s, json_t *ours, json_t *ref, size_t i,
			      bool marked)
{
	char lt[160], rt[160], left[200];
	size_t n = json_array_size(ours);

	snprintf(left, sizeof(left), "%-46.46s %s", frame_text(ours, i, lt, sizeof(lt)),
		 i < n ? str_at(ours, i, "source") : "");
	fprintf(s->log, "     %s %3zu %-53s | %.56s\n", marked ? "->" : "  ", i,
		i < n ? left : "", frame_text(ref, i, rt, sizeof(rt)));
}

/*
 * One example: our frames beside libunwind's, the first difference marked.
 * A long stack shows its first frames and the frames around the difference.
 */
static void print_example(struct supervisor *s, json_t *ex)
{
	json_t *ours = json_object_get(ex, "frames"), *ref = json_object_get(ex, "libunwind");
	size_t n = json_array_size(ours), m = json_array_size(ref), rows = n > m ? n : m, i;
	json_int_t d = json_integer_value(json_object_get(ex, "first_difference"));
	size_t from = (size_t)d > EXAMPLE_AROUND ? (size_t)d - EXAMPLE_AROUND : 0;

	fprintf(s->log, "       example (pid %lld, tid %lld; %zu | %zu frames):\n",
		json_integer_value(json_object_get(ex, "pid")),
		json_integer_value(json_object_get(ex, "tid")), n, m);
	fprintf(s->log, "       %3s %-53s | %s\n", "#", "ours, and how the frame was reached",
		"libunwind");
	if (from <= EXAMPLE_HEAD)
		from = 0;
	for (i = 0; i < rows && i < EXAMPLE_HEAD && from; i++)
		print_example_row(s, ours, ref, i, false);
	if (from)
		fprintf(s->log, "           ...\n");
	for (i = from; i < rows && i < (size_t)d + EXAMPLE_AFTER; i++)
		print_example_row(s, ours, ref, i, (json_int_t)i == d);
	if (i < rows)
		fprintf(s->log, "           ...\n");
}

static void print_places(struct supervisor *s, struct sample_stats *st)
{
	size_t n, i;
	struct stats_place **v = stats_places_sorted(st, &n);

	if (n)
		fprintf(s->log, "  where SFrame coverage ends or walks disagree (top %d of %zu):\n",
			n < REPORT_PLACES ? (int)n : REPORT_PLACES, n);
	for (i = 0; i < n && i < REPORT_PLACES; i++) {
		struct stats_place *p = v[i];

		fprintf(s->log, "  %2zu. %s in %s: %lu samples (%s)", i + 1,
			sample_class_name(p->cls), p->function, p->count, p->reason);
		if (p->side[SIDE_US] + p->side[SIDE_LIBUNWIND] + p->side[SIDE_NEITHER])
			fprintf(s->log, "; elfutils: with us %lu, with libunwind %lu, neither %lu",
				p->side[SIDE_US], p->side[SIDE_LIBUNWIND], p->side[SIDE_NEITHER]);
		fprintf(s->log, "\n");
		print_example(s, p->example);
	}
	free(v);
}

void sample_report_print(struct supervisor *s)
{
	struct sample_stats *st;

	if (!s->sampler || s->opts.quiet)
		return;
	st = &s->sampler->stats;
	if (s->sampler->status_shown) {
		fprintf(stderr, "\n");	/* end the status line */
		fflush(stderr);
	}
	print_counts(s, st);
	print_coverage(s, st);
	print_places(s, st);
	if (st->check_failures)
		fprintf(s->log, "  %lu samples disagree with libunwind over SFrame-covered frames "
				"and elfutils does not side with codectl-run%s\n", st->check_failures,
			s->opts.check ? ": --check fails" : "");
}
