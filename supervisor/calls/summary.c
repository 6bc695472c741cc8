// SPDX-License-Identifier: GPL-2.0
/* Exit summary, strace -c style: a table of processes, then the details that matter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "summary.h"
#include "trace_line.h"

/* One line: how many registrations, and each rule with how many it refuses. */
static void print_kernel_refusals(FILE *f, const struct proc *p)
{
	const struct proc_stats *st = &p->stats;
	const char *sep = "";

	if (!st->kernel_refused)
		return;
	fprintf(f, "    pid %d: %lu accepted that the Linux SFrame patches would refuse "
		   "(they require ", (int)p->tgid, st->kernel_refused);
	for (int b = 0; b < EMU_KR_COUNT; b++) {
		if (!st->kernel_refusals[b])
			continue;
		fprintf(f, "%s%s", sep, emu_kernel_rule_text(1u << b));
		if (st->kernel_refusals[b] != st->kernel_refused)
			fprintf(f, ": %lu of them", st->kernel_refusals[b]);
		sep = "; ";
	}
	fprintf(f, ")\n");
}

static void print_details(FILE *f, const struct proc *p)
{
	const struct proc_stats *st = &p->stats;
	const char *sig;

	if (p->ended && WIFSIGNALED(p->wait_status)) {
		sig = sigabbrev_np(WTERMSIG(p->wait_status));
		fprintf(f, "    pid %d: +++ killed by SIG%s%s +++\n", (int)p->tgid, sig ? sig : "?",
			WCOREDUMP(p->wait_status) ? " (core dumped)" : "");
	}
	for (int r = 1; r < EMU_R_COUNT; r++)
		if (st->rejected_by_rule[r])
			fprintf(f, "    pid %d: %lu rejected with %s (%s)\n", (int)p->tgid,
				st->rejected_by_rule[r], errno_name(emu_rule_errno(r)),
				emu_rule_name(r));
	print_kernel_refusals(f, p);
	if (st->interrupted)
		fprintf(f, "    pid %d: %lu answers not delivered (caller gone or interrupted; "
				"not applied)\n", (int)p->tgid, st->interrupted);
	if (st->restarted)
		fprintf(f, "    pid %d: %lu restart%s after a signal interrupted a call before "
				"its answer (never EINTR)\n", (int)p->tgid, st->restarted,
			st->restarted == 1 ? "" : "s");
	if (st->exec_failed)
		fprintf(f, "    pid %d: %lu exec-time registrations failed\n", (int)p->tgid,
			st->exec_failed);
	if (st->unwind_removed)
		fprintf(f, "    pid %d: %lu registrations removed at unwind (their data had "
				"become unreadable or broken)\n", (int)p->tgid, st->unwind_removed);
	if (st->synthesized)
		fprintf(f, "    pid %d: %lu text range%s given SFrame synthesized from .eh_frame "
				"(--synthesize-sframe)\n", (int)p->tgid, st->synthesized,
			st->synthesized == 1 ? "" : "s");
	if (st->cleared_at_exec)
		fprintf(f, "    pid %d: %lu registrations dropped by execve\n", (int)p->tgid,
			st->cleared_at_exec);
}

static void print_row(FILE *f, const struct proc *p)
{
	const struct proc_stats *st = &p->stats;

	fprintf(f, "  %8d %6lu %8lu %8lu %12lu %8lu %6lu  %s\n", (int)p->tgid,
		st->exec_registered, st->accepted, st->rejected, st->unregistered, st->left_at_exit,
		st->stale, p->exe[0] ? p->exe : "?");
}

static void print_folded(FILE *f, const struct tracees *t)
{
	const struct proc_stats *st = &t->folded;

	fprintf(f, "  %8s %6lu %8lu %8lu %12lu %8lu %6lu  (%lu more processes, added up",
		"...", st->exec_registered, st->accepted, st->rejected, st->unregistered,
		st->left_at_exit, st->stale, t->nfolded);
	if (st->killed)
		fprintf(f, "; %lu killed by a signal", st->killed);
	fprintf(f, ")\n");
}

/* Did any process have a registration accepted that the kernel patches refuse? */
static bool any_kernel_refusal(const struct tracees *t)
{
	return summary_totals(t).kernel_refused != 0;
}

/* The process list is newest first; the summary shows them in the order they started. */
static const struct proc **oldest_first(const struct proc *list, size_t *n)
{
	const struct proc **v, *p;
	size_t i = 0;

	for (*n = 0, p = list; p; p = p->next)
		(*n)++;
	v = calloc(*n ? *n : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (p = list; p; p = p->next)
		v[*n - ++i] = p;
	return v;
}

struct proc_stats summary_totals(const struct tracees *t)
{
	struct proc_stats total = t->folded;

	for (const struct proc *p = t->procs; p; p = p->next)
		proc_stats_add(&total, &p->stats);
	return total;
}

void summary_print(FILE *f, const struct tracees *t)
{
	size_t n, i;
	const struct proc **v = oldest_first(t->procs, &n);

	if (!v)
		return;
	fprintf(f, "codectl-run: summary: %zu process%s\n", n + t->nfolded,
		n + t->nfolded == 1 ? "" : "es");
	fprintf(f, "  %8s %6s %8s %8s %12s %8s %6s  %s\n", "pid", "exec", "accepted",
		"rejected", "unregistered", "left", "stale", "program");
	for (i = 0; i < n; i++)
		print_row(f, v[i]);
	if (t->nfolded)
		print_folded(f, t);
	for (i = 0; i < n; i++)
		print_details(f, v[i]);
	if (any_kernel_refusal(t))
		fprintf(f, "    (--kernel v16 answers as a kernel with those patches would: with "
			   "their errors)\n");
	free(v);
}

/* One process's registrations: what its calls did, its refusals by rule. */
static json_t *process_json(const struct proc *p)
{
	const struct proc_stats *s = &p->stats;
	json_t *by_rule = json_object(), *o;

	for (unsigned int r = 0; by_rule && r < EMU_R_COUNT; r++)
		if (s->rejected_by_rule[r])
			json_object_set_new(by_rule, emu_rule_name(r),
					    json_integer((json_int_t)s->rejected_by_rule[r]));
	o = json_pack("{s:i,s:s,s:I,s:I,s:o,s:I,s:I,s:I,s:I,s:{s:I,s:I,s:I,s:I,s:I}}",
		      "pid", (int)p->tgid,
		      "program", p->exe, "accepted", (json_int_t)s->accepted,
		      "rejected", (json_int_t)s->rejected, "rejected_by_rule",
		      by_rule ? by_rule : json_null(), "unregistered", (json_int_t)s->unregistered,
		      "at_exec", (json_int_t)s->exec_registered, "stale", (json_int_t)s->stale,
		      "left_at_exit", (json_int_t)s->left_at_exit,
		      "sframe_memory", "held_peak", (json_int_t)s->sframe_held_peak,
		      "file_blocks_read", (json_int_t)s->file_blocks_read,
		      "file_block_hits", (json_int_t)s->file_block_hits,
		      "file_evictions", (json_int_t)s->file_evictions,
		      "file_resident_peak", (json_int_t)s->file_resident_peak);
	return o;
}

json_t *summary_json(const struct tracees *t)
{
	size_t n, i;
	const struct proc **v = oldest_first(t->procs, &n);
	json_t *a = v ? json_array() : NULL;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, process_json(v[i]));
	free(v);
	return a;
}
