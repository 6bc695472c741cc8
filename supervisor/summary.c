// SPDX-License-Identifier: GPL-2.0
/* Exit summary, strace -c style: a table of processes, then the details that matter. */
#include <stdio.h>

#include "summary.h"
#include "trace_line.h"

static void print_details(struct supervisor *s, const struct proc *p)
{
	const struct proc_stats *st = &p->stats;

	for (int r = 1; r < EMU_R_COUNT; r++)
		if (st->rejected_by_rule[r])
			fprintf(s->log, "    pid %d: %lu rejected with %s (%s)\n", (int)p->tgid,
				st->rejected_by_rule[r], errno_name(emu_rule_errno(r)),
				emu_rule_name(r));
	for (int b = 0; b < EMU_KR_COUNT; b++)
		if (st->kernel_refusals[b])
			fprintf(s->log, "    pid %d: %lu accepted that the Linux SFrame patches would "
					"refuse (they require %s)\n", (int)p->tgid,
				st->kernel_refusals[b], emu_kernel_rule_text(1u << b));
	if (st->interrupted)
		fprintf(s->log, "    pid %d: %lu answers not delivered (caller gone or interrupted; "
				"not applied)\n", (int)p->tgid, st->interrupted);
	if (st->exec_failed)
		fprintf(s->log, "    pid %d: %lu exec-time registrations failed\n", (int)p->tgid,
			st->exec_failed);
	if (st->cleared_at_exec)
		fprintf(s->log, "    pid %d: %lu registrations dropped by execve\n", (int)p->tgid,
			st->cleared_at_exec);
}

static void print_row(struct supervisor *s, const struct proc *p)
{
	const struct proc_stats *st = &p->stats;

	fprintf(s->log, "  %8d %6lu %8lu %8lu %12lu %8lu %6lu  %s\n", (int)p->tgid,
		st->exec_registered, st->accepted, st->rejected, st->unregistered, st->left_at_exit,
		st->stale, p->exe[0] ? p->exe : "?");
}

/* The process list is newest first; print it in the order the processes started. */
static void for_each_oldest_first(struct supervisor *s, const struct proc *p,
				  void (*fn)(struct supervisor *, const struct proc *))
{
	const struct proc *stack[64];
	unsigned int n = 0;

	for (; p && n < 64; p = p->next)
		stack[n++] = p;
	if (p)
		for_each_oldest_first(s, p, fn);
	while (n)
		fn(s, stack[--n]);
}

void sv_print_summary(struct supervisor *s)
{
	const struct proc *p;
	unsigned int n = 0;

	for (p = s->tree.procs; p; p = p->next)
		n++;
	fprintf(s->log, "codectl-run: summary: %u process%s\n", n, n == 1 ? "" : "es");
	fprintf(s->log, "  %8s %6s %8s %8s %12s %8s %6s  %s\n", "pid", "exec", "accepted",
		"rejected", "unregistered", "left", "stale", "program");
	for_each_oldest_first(s, s->tree.procs, print_row);
	for_each_oldest_first(s, s->tree.procs, print_details);
}
