// SPDX-License-Identifier: GPL-2.0
/* codectl notifications: from a seccomp_notif to an answer and a registry change. */
#include <errno.h>
#include <linux/audit.h>
#include <string.h>

#include "calls.h"
#include "remote_mem.h"
#include "trace_line.h"

static struct emu_call call_of(const struct seccomp_notif *req)
{
	/* option and flags are unsigned int: the upper halves of the registers are ignored */
	return (struct emu_call){
		.option = (unsigned int)req->data.args[0],
		.info = req->data.args[1],
		.info_size = req->data.args[2],
		.flags = (unsigned int)req->data.args[3],
	};
}

/*
 * Refusals that stale cached mappings can explain: a new mmap since the last
 * read, or a registration whose text was unmapped since (dlclose without
 * CODE_UNREGISTER) still holding the range: it is stale and goes at the re-read.
 */
static bool maps_related(enum emu_rule rule)
{
	return rule == EMU_R_TEXT_NOT_EXEC || rule == EMU_R_SFRAME_NOT_READABLE ||
	       rule == EMU_R_SF_FDE_TEXT || rule == EMU_R_KERNEL_REFUSES || rule == EMU_R_OVERLAP;
}

/*
 * The SFrame bytes this call may add up to: the process's own budget, and what
 * all traced processes together may still hold (copies cost the supervisor's
 * memory, not the tracees').
 */
static struct emu_policy policy_for(const struct supervisor *s, const struct proc *p)
{
	struct emu_policy pol = s->policy;
	uint64_t own = emu_registry_sframe_bytes(p->as->registry), all = 0, others;
	const struct proc *q;

	for (q = s->tree.procs; q; q = q->next)
		if (!q->exited && q->as)
			all += emu_registry_sframe_bytes(q->as->registry);
	others = all > own ? all - own : 0;
	if (others >= SV_SFRAME_GLOBAL_MAX)
		pol.max_sframe_total = own;
	else if (own + SV_SFRAME_GLOBAL_MAX - others < pol.max_sframe_total)
		pol.max_sframe_total = own + SV_SFRAME_GLOBAL_MAX - others;
	return pol;
}

/* Prepare; on a refusal the cached mappings may explain, re-read them and retry once. */
static int prepare(struct supervisor *s, struct proc *p, pid_t tid, const struct emu_call *c,
		   struct emu_call_result *res)
{
	struct remote_mem rm = { .pid = tid };
	struct emu_accessor mem = remote_mem_accessor(&rm);
	struct emu_space sp = { .registry = p->as->registry, .mem = &mem, .maps = &p->as->maps };
	struct emu_policy pol = policy_for(s, p);
	bool fresh = false;
	int err;

	if (!p->as->maps_valid || sv_now_ns() - p->as->maps_ns > SV_MAPS_MAX_AGE_NS) {
		sv_refresh_maps(s, p, tid);
		fresh = true;
	}
	sp.maps_cached = !fresh;
	err = emu_codectl_prepare(&pol, &sp, c, res);
	if (!err || fresh || !maps_related(res->verdict.rule))
		return err;
	emu_codectl_discard(res);
	sv_refresh_maps(s, p, tid);
	sp.maps_cached = false;
	return emu_codectl_prepare(&pol, &sp, c, res);
}

static void count(struct proc *p, const struct emu_call_result *res, int err)
{
	if (err) {
		p->stats.rejected++;
		p->stats.rejected_by_rule[res->verdict.rule]++;
	} else if (res->option == CODE_UNREGISTER) {
		p->stats.unregistered++;
	} else {
		p->stats.accepted++;
	}
}

static void report(struct supervisor *s, struct proc *p, pid_t tid, const struct emu_call *c,
		   const struct emu_call_result *res, int err, const struct trace_strings *strings)
{
	char line[2048];

	count(p, res, err);
	if (!err)
		sv_note_kernel_refusals(s, p, &res->verdict);
	if (!s->opts.trace)
		return;
	trace_line_format(line, sizeof(line), tid, c, res, err, strings);
	if (!err && res->verdict.kernel_refusals)
		fprintf(s->log, "%s [kernel patches would refuse: %s]\n", line,
			emu_kernel_rule_text(res->verdict.kernel_refusals &
					     -res->verdict.kernel_refusals));
	else
		fprintf(s->log, "%s\n", line);
}

/* Answer; commit only when the answer reached the caller. */
static void answer(struct supervisor *s, struct proc *p, pid_t tid, const struct emu_call *c,
		   struct emu_call_result *res, int err)
{
	struct emu_space sp = { .registry = p->as->registry, .maps = &p->as->maps };
	uint64_t id = s->notifier.req->id;
	struct trace_strings strings, *shown = NULL;
	int sent;

	if (!notifier_id_valid(&s->notifier, id))
		return;		/* the caller is gone or was interrupted: it will re-issue */
	if (err && s->opts.trace && res->have_args && c->option == CODE_REGISTER_ELF) {
		/* the caller's strings, for the trace, while it still waits for the answer */
		struct remote_mem rm = { .pid = tid };
		struct emu_accessor mem = remote_mem_accessor(&rm);

		trace_strings_read(&strings, &mem, &res->args.elf);
		shown = &strings;
	}
	sent = notifier_respond(&s->notifier, id, err);
	if (sent) {
		if (sent != -ENOENT)
			sv_log(s, "pid %d: answering codectl failed: %s", (int)tid, strerror(-sent));
		p->stats.interrupted++;
		return;
	}
	if (!err && emu_codectl_commit(&sp, res))
		sv_log(s, "pid %d: internal error: registry changed between check and commit",
		       (int)tid);
	report(s, p, tid, c, res, err, shown);
}

void sv_handle_notification(struct supervisor *s)
{
	struct seccomp_notif *req = s->notifier.req;
	struct emu_call_result res = { 0 };
	struct emu_call c;
	struct proc *p;
	pid_t tid;
	int err;

	err = notifier_receive(&s->notifier);
	if (err) {
		if (err != -ENOENT && err != -EINTR)
			sv_log(s, "receiving a notification failed: %s", strerror(-err));
		return;
	}
	tid = (pid_t)req->pid;
	c = call_of(req);
	p = tid ? sv_proc_of(s, tid) : NULL;
	if (!p || req->data.nr != s->opts.nr || req->data.arch != AUDIT_ARCH_X86_64) {
		/* not a call we can place (or no longer): the kernel's answer */
		notifier_respond(&s->notifier, req->id, -ENOSYS);
		return;
	}
	err = prepare(s, p, tid, &c, &res);
	answer(s, p, tid, &c, &res, err);
	emu_codectl_discard(&res);
}
