// SPDX-License-Identifier: GPL-2.0
/* Trapped calls: from a seccomp_notif to an answer and a registry change. */
#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <string.h>

#include "calls.h"
#include "supervisor/core/clock.h"
#include "supervisor/trace/remote_mem.h"
#include "supervisor/trace/maps.h"
#include "trace_line.h"

/*
 * Refusals that stale cached mappings can explain: a new mmap since the last
 * read, or a registration whose text was unmapped since (dlclose without
 * CODE_UNREGISTER) still holding the range: it is stale and goes at the re-read.
 */
static bool maps_related(enum emu_rule rule)
{
	return rule == EMU_R_TEXT_NOT_EXEC || rule == EMU_R_SFRAME_NOT_READABLE ||
	       rule == EMU_R_SF_FDE_TEXT || rule == EMU_R_KERNEL_REFUSES || rule == EMU_R_OVERLAP ||
	       rule == EMU_R_SETUP_SFRAME_VMA || rule == EMU_R_SETUP_TEXT_VMA ||
	       rule == EMU_R_SETUP_FDE_TEXT || rule == EMU_R_EHF_HDR_VMA ||
	       rule == EMU_R_EHF_NO_EH_FRAME || rule == EMU_R_EHF_FAULT ||
	       rule == EMU_R_SFRAME_FAULT || rule == EMU_R_EHF_HDR_FAULT ||
	       rule == EMU_R_BUILD_ID_MISMATCH;
	       /* (the faults: fresh mappings may refuse the range first; the build id:
		  the object's first mapping may be newer than the cache) */
}

/*
 * The SFrame bytes this call may add up to: the process's own budget, and what
 * all traced processes together may still hold (copies cost the supervisor's
 * memory, not the tracees').
 */
static struct emu_policy policy_for(const struct calls *c, const struct proc *p)
{
	struct emu_policy pol = c->policy;
	uint64_t own = emu_registry_sframe_bytes(p->as->registry), all = 0, others;
	const struct proc *q;

	for (q = c->trace->tree.procs; q; q = q->next)
		if (!q->exited && q->as)
			all += emu_registry_sframe_bytes(q->as->registry);
	others = all > own ? all - own : 0;
	if (others >= CALLS_SFRAME_GLOBAL_MAX)
		pol.max_sframe_total = own;
	else if (own + CALLS_SFRAME_GLOBAL_MAX - others < pol.max_sframe_total)
		pol.max_sframe_total = own + CALLS_SFRAME_GLOBAL_MAX - others;
	return pol;
}

/* Read @p's mappings again: an error of the reader's own (not the process gone) is logged. */
static int refresh(struct calls *c, struct proc *p, pid_t tid)
{
	int err = maps_refresh(c->trace, p, tid);

	if (!err || err == -ENOENT || err == -ESRCH)
		return 0;
	log_line(c->log, "pid %d: cannot read /proc/%d/maps: %s", (int)tid, (int)tid,
		 strerror(-err));
	return err;
}

/*
 * The answer when the emulator, not the caller, failed: the mappings or the
 * caller's memory could not be read for a reason of the supervisor's (out of
 * descriptors or memory). Never taken for "not mapped": EAGAIN.
 */
static int emulator_failure(struct calls *c, pid_t tid, struct emu_call_result *res, int err,
			    const char *what)
{
	emu_codectl_discard(res);
	*res = (struct emu_call_result){ 0 };
	log_line(c->log, "pid %d: answering EAGAIN (emulator failure): %s", (int)tid, what);
	return emu_reject(&res->verdict, EMU_R_EMULATOR_FAILURE, "%s: %s", what, strerror(-err));
}

/* How current the mappings a call was prepared with are. */
enum maps_state {
	MAPS_CACHED,	/* as cached, maybe older than the call */
	MAPS_RANGES,	/* asked of the kernel where the call speaks of */
	MAPS_FULL,	/* all read again */
};

/*
 * After a refusal the mappings may explain: ask the kernel for those where
 * the call speaks of, or where that cannot be, or was done already, read
 * them all again. Return: the state reached, or a negative errno.
 */
static int refresh_for(struct calls *c, struct proc *p, pid_t tid, const struct entry_call *call,
		       const struct emu_call_result *res, enum maps_state st)
{
	struct maps_range r[ENTRIES_RANGES];
	size_t n;
	int err;

	if (st == MAPS_CACHED) {
		n = entries_ranges(call, res, r);
		if (n && !maps_refresh_ranges(c->trace, p, tid, r, n))
			return MAPS_RANGES;
	}
	err = refresh(c, p, tid);
	return err ? err : MAPS_FULL;
}

/*
 * Prepare; on a refusal the cached mappings may explain, bring them up to
 * date (where the call speaks of, then all) and try again.
 */
static int prepare(struct calls *c, struct proc *p, pid_t tid, const struct entry_call *call,
		   struct remote_mem *rm, struct emu_call_result *res)
{
	struct emu_accessor mem = remote_mem_accessor(rm);
	struct caller_files cf = { .tgid = p->tgid, .tid = tid, .held = &c->held };
	struct emu_files files = caller_files_of(&cf);
	struct emu_space sp = { .registry = p->as->registry, .mem = &mem, .maps = &p->as->maps,
				.files = &files };
	struct emu_policy pol = policy_for(c, p);
	int st = MAPS_CACHED, err;

	if (c->trace->hooks.registrations_changing)
		c->trace->hooks.registrations_changing(c->trace->hooks.ctx, p,
						       entries_removes(call));
	if (maps_old(p)) {
		st = refresh_for(c, p, tid, call, res, MAPS_RANGES);
		if (st < 0)
			return emulator_failure(c, tid, res, st, "reading its mappings");
	}
	for (;;) {
		sp.maps_cached = st == MAPS_CACHED;
		err = entries_prepare(&pol, &sp, call, res);
		if (!err || st == MAPS_FULL || !maps_related(res->verdict.rule))
			break;
		emu_codectl_discard(res);
		st = refresh_for(c, p, tid, call, res, st);
		if (st < 0)
			return emulator_failure(c, tid, res, st, "reading its mappings");
	}
	if (rm->internal_err)
		return emulator_failure(c, tid, res, -rm->internal_err, "reading its memory");
	return err;
}

/* The text [*start, *end) a registration call (read in full) asked for; false if none. */
static bool asked_text(const struct emu_call_result *res, uint64_t *start, uint64_t *end)
{
	if (!res->have_args || res->unregister)
		return false;
	if (res->entry != EMU_ENTRY_CODECTL) {	/* struct sframe_setup */
		*start = res->args.setup.text_start;
		*end = res->args.setup.text_start + res->args.setup.text_size;
		return true;
	}
	switch (res->option) {
	case CODE_REGISTER_ELF:
		*start = res->args.elf.text_start, *end = res->args.elf.text_end;
		return true;
	case CODE_REGISTER_SFRAME:
		*start = res->args.sframe.text_start, *end = res->args.sframe.text_end;
		return true;
	case CODE_REGISTER_SFRAME_FILE:
		*start = res->args.sframe_file.text_start, *end = res->args.sframe_file.text_end;
		return true;
	case CODE_REGISTER_JIT:
		*start = res->args.jit.text_start, *end = res->args.jit.text_end;
		return true;
	}
	return false;
}

/*
 * EEXIST for exactly the text exec registered (the main program, ld.so): a
 * loader registering every object it maps, as docs/loader-integration.md
 * says the loader module does, meets it by design. Not the program's error.
 */
static bool again_after_exec(const struct proc *p, const struct emu_call_result *res,
			     uint64_t start, uint64_t end)
{
	const struct emu_registration *reg;

	if (res->verdict.rule != EMU_R_OVERLAP)
		return false;
	reg = emu_registry_find_unwind(p->as->registry, start);
	return reg && reg->origin == EMU_ORIGIN_EXEC && reg->text_start == start &&
	       reg->text_end == end;
}

static void count_refusal(struct proc *p, const struct emu_call_result *res)
{
	uint64_t start, end;
	bool text = asked_text(res, &start, &end);

	if (text && again_after_exec(p, res, start, end)) {
		p->stats.again_after_exec++;
		return;
	}
	p->stats.rejected++;
	p->stats.rejected_by_rule[res->verdict.rule]++;
	/* for a report that finds no unwind data there */
	if (text)
		addr_space_note_refusal(p->as, start, end, emu_rule_name(res->verdict.rule));
}

static void count(struct proc *p, const struct emu_call_result *res, int err)
{
	if (err) {
		count_refusal(p, res);
	} else if (res->unregister) {
		p->stats.unregistered++;
	} else {
		p->stats.accepted++;
		if (emu_registry_sframe_bytes(p->as->registry) > p->stats.sframe_held_peak)
			p->stats.sframe_held_peak = emu_registry_sframe_bytes(p->as->registry);
	}
}

void calls_count_kernel_refusals(struct proc *p, const struct emu_verdict *v)
{
	if (v->kernel_refusals)
		p->stats.kernel_refused++;
	for (unsigned int bit = 0; v->kernel_refusals >> bit && bit < EMU_KR_COUNT; bit++)
		if (v->kernel_refusals & (1u << bit))
			p->stats.kernel_refusals[bit]++;
}

static void report(struct calls *c, struct proc *p, pid_t tid, const struct entry_call *call,
		   const struct emu_call_result *res, int err, const struct trace_strings *strings)
{
	char line[2048];

	count(p, res, err);
	if (!err)
		calls_count_kernel_refusals(p, &res->verdict);
	if (!c->trace_lines)
		return;
	entries_trace_line(line, sizeof(line), tid, call, res, err, strings);
	if (!err && res->verdict.kernel_refusals)
		fprintf(c->log->f, "%s [kernel patches would refuse: %s]\n", line,
			emu_kernel_rule_text(res->verdict.kernel_refusals &
					     -res->verdict.kernel_refusals));
	else
		fprintf(c->log->f, "%s\n", line);
}

void calls_verify_registration(struct calls *c, struct proc *p, const struct emu_accessor *mem,
			       const struct emu_registration *reg)
{
	if (c->verify && reg)
		verify_session_check(c->verify, p->tgid, reg, mem);
}

/* --verify: the caller's memory, read in place (it waits for no answer now). */
static void verify_committed(struct calls *c, struct proc *p, pid_t tid,
			     const struct emu_call_result *res)
{
	struct remote_mem rm;
	struct emu_accessor mem;

	if (!c->verify || !res->reg)
		return;
	remote_mem_init(&rm, tid, -1, NULL);
	mem = remote_mem_accessor(&rm);
	calls_verify_registration(c, p, &mem, res->reg);
}

/*
 * Answer; commit only when the answer reached the caller. A caller that is
 * gone, or was interrupted (it will re-issue), makes the send fail
 * (-ENOENT): nothing is committed, so no SECCOMP_IOCTL_NOTIF_ID_VALID is
 * needed before it, except where the caller's strings are read for
 * --trace (they must be the caller's, read while it waits).
 */
static void answer(struct calls *c, struct proc *p, pid_t tid, uint64_t id,
		   const struct entry_call *call, struct emu_call_result *res, int err)
{
	struct emu_space sp = { .registry = p->as->registry, .maps = &p->as->maps };
	struct trace_strings strings, *shown = NULL;
	int sent;

	if (err && c->trace_lines && res->have_args && call->entry == EMU_ENTRY_CODECTL &&
	    call->codectl.option == CODE_REGISTER_ELF) {
		/* the caller's strings, for the trace, while it still waits for the answer */
		struct remote_mem rm;
		struct emu_accessor mem = remote_mem_accessor(&rm);

		if (!notifier_id_valid(&c->notifier, id))
			return;
		remote_mem_init(&rm, tid, -1, NULL);
		trace_strings_read(&strings, &mem, &res->args.elf);
		shown = &strings;
	}
	sent = notifier_respond(&c->notifier, id, err);
	if (sent) {
		if (sent != -ENOENT)
			log_line(c->log, "pid %d: answering %s failed: %s", (int)tid,
				 emu_entry_name(call->entry), strerror(-sent));
		p->stats.interrupted++;
		return;
	}
	if (!err)
		maps_hint_changed(p, res->staged);	/* samples see the file it speaks of */
	if (!err && emu_codectl_commit(&sp, res))
		log_line(c->log, "pid %d: internal error: registry changed between check and commit",
			 (int)tid);
	report(c, p, tid, call, res, err, shown);
	if (!err)
		verify_committed(c, p, tid, res);
}

/* Keep @req unanswered until @read is done; false when it cannot be kept. */
static bool park(struct calls *c, const struct seccomp_notif *req, struct slow_read *read)
{
	struct parked_call *pc = &c->parked[c->nparked];

	pc->req = malloc(c->notifier.req_size);
	if (!pc->req)
		return false;
	memcpy(pc->req, req, c->notifier.req_size);
	pc->read = read;
	pc->since_ns = clock_now_ns();
	pc->reported = false;
	c->nparked++;
	return true;
}

/* Serve @req: prepare, answer, apply; or park it while a read of its memory waits. */
static void serve(struct calls *c, const struct seccomp_notif *req)
{
	struct emu_call_result res = { 0 };
	pid_t tid = (pid_t)req->pid;
	struct entry_call call;
	struct remote_mem rm;
	struct proc *p;
	int err;

	p = tid ? trace_proc_of(c->trace, tid) : NULL;
	if (!p || entries_decode(&c->numbers, req, &call)) {
		/* not a call we can place (or no longer): the kernel's answer */
		notifier_respond(&c->notifier, req->id, -ENOSYS);
		return;
	}
	remote_mem_init(&rm, tid, c->nparked < SLOW_READ_MAX ? c->slow_fd : -1,
			&p->as->fds);
	err = prepare(c, p, tid, &call, &rm, &res);
	if (rm.parked) {	/* the caller waits for its memory; the others do not */
		emu_codectl_discard(&res);
		if (park(c, req, rm.parked))
			return;
		slow_read_wait(rm.parked, -1);	/* out of memory: wait here after all */
		slow_read_finish(rm.parked, NULL);
		serve(c, req);
		return;
	}
	answer(c, p, tid, req->id, &call, &res, err);
	emu_codectl_discard(&res);
}

void calls_handle_notification(struct calls *c)
{
	int err = notifier_receive(&c->notifier);

	if (err) {
		if (err != -ENOENT && err != -EINTR)
			log_line(c->log, "receiving a notification failed: %s", strerror(-err));
		return;
	}
	serve(c, c->notifier.req);
}

int calls_init_slow_reads(struct calls *c)
{
	c->slow_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return c->slow_fd < 0 ? -errno : 0;
}

void calls_retry_parked(struct calls *c)
{
	uint64_t n;
	unsigned int i = 0;

	if (read(c->slow_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	while (i < c->nparked) {
		struct parked_call pc = c->parked[i];

		if (!slow_read_done(pc.read)) {
			i++;
			continue;
		}
		c->parked[i] = c->parked[--c->nparked];
		slow_read_finish(pc.read, NULL);
		if (notifier_id_valid(&c->notifier, pc.req->id))
			serve(c, pc.req);	/* may park it again, at the end */
		free(pc.req);
	}
}

void calls_watchdog(struct calls *c)
{
	uint64_t now = clock_now_ns(), addr;
	struct entry_call call;
	size_t len;

	for (unsigned int i = 0; i < c->nparked; i++) {
		struct parked_call *pc = &c->parked[i];

		if (pc->reported || now - pc->since_ns < CALLS_WATCHDOG_NS)
			continue;
		pc->reported = true;
		slow_read_what(pc->read, &addr, &len);
		if (entries_decode(&c->numbers, pc->req, &call))
			call.entry = EMU_ENTRY_CODECTL;
		log_line(c->log, "pid %d: a %s call has waited %.0f s for %zu bytes of its "
				 "memory at 0x%llx, a page that does not come in (userfaultfd or a "
				 "FUSE file?); only it waits", (int)pc->req->pid,
			 emu_entry_name(call.entry), (double)(now - pc->since_ns) / 1e9, len,
			 (unsigned long long)addr);
	}
}

void calls_free(struct calls *c)
{
	for (unsigned int i = 0; i < c->nparked; i++)
		free(c->parked[i].req);
	c->nparked = 0;
	if (c->slow_fd >= 0)
		close(c->slow_fd);
	c->slow_fd = -1;
}
