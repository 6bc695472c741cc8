// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling lifecycle and the stop itself. The freeze is kept short: at the
 * stop only PTRACE_GETSIGINFO, PTRACE_GETREGS and one process_vm_readv of the
 * stack; the walks run after the thread was resumed (walk.c).
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sampler.h"
#include "supervisor/core/clock.h"
#include "supervisor/core/procfs.h"
#include "supervisor/core/x86_decoder.h"
#include "supervisor/trace/maps.h"
#include "supervisor/report/report.h"
#include "truth.h"

/* How many formats --compare-formats walks each sample with (formats.h). */
static unsigned int formats_compared(const struct run_opts *opts)
{
	return !opts->compare_formats ? 0 : opts->synthesize_sframe ? 3 : 2;
}

/*
 * @smp's frame arrays: its own walk's, and with --compare-formats one per
 * format (freed by sample_frames_free()).
 */
static int sample_frames_alloc(struct sample *smp, const struct run_opts *opts)
{
	unsigned int n = formats_compared(opts);

	smp->ours.frames = calloc(opts->max_frames, sizeof(struct emu_frame));
	if (!smp->ours.frames)
		return -ENOMEM;
	for (unsigned int f = 0; f < n; f++) {
		smp->formats[f].frames = calloc(opts->max_frames, sizeof(struct emu_frame));
		if (!smp->formats[f].frames)
			return -ENOMEM;
	}
	return 0;
}

static void sample_frames_free(struct sample *smp)
{
	free(smp->ours.frames);
	for (int f = 0; f < SAMPLE_FORMATS; f++)
		free(smp->formats[f].frames);
}

/*
 * The sample queue, its stack copies in one mapping. Where a thread is
 * frozen while its stack is copied (a stop: --sampler stop or sigprof,
 * --clock wall), their pages are faulted in now (MAP_POPULATE), not during
 * a freeze; the ring's records are copied with no thread waiting, so their
 * pages come in as samples arrive (a short run does not pay for copies it
 * never fills).
 */
static int alloc_queue(struct sampler *sm)
{
	size_t bytes = sm->opts->stack_bytes + SAMPLE_RED_ZONE;
	bool freezes = sm->opts->sampler != OPTS_SAMPLER_RING || sm->opts->wall_clock;
	void *area;

	sm->queue_bytes = bytes * SAMPLER_QUEUE;
	area = mmap(NULL, sm->queue_bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | (freezes ? MAP_POPULATE : 0), -1, 0);
	if (area == MAP_FAILED)
		return -ENOMEM;
	sm->queue_area = area;
	for (unsigned int i = 0; i < SAMPLER_QUEUE; i++) {
		sm->queue[i].stack = sm->queue_area + i * bytes;
		if (sample_frames_alloc(&sm->queue[i], sm->opts))
			return -ENOMEM;
	}
	return 0;
}

/* The tree's slots for what sampling keeps per process and per thread. */
static int take_keys(struct sampler *sm)
{
	sm->proc_key = tracees_proc_key(&sm->trace->tree, oracles_free);
	sm->code_key = tracees_proc_key(&sm->trace->tree, code_cache_free);
	sm->truth_key = tracees_proc_key(&sm->trace->tree, truth_table_free);
	sm->thread_key = tracees_thread_key(&sm->trace->tree, thread_sampling_free);
	return sm->proc_key < 0 || sm->code_key < 0 || sm->truth_key < 0 || sm->thread_key < 0 ?
	       -ENOSPC : 0;
}

int sampler_new(struct sampler **out, const struct run_opts *opts, struct log *log,
		struct trace *trace)
{
	struct sampler *sm;
	int err;

	*out = NULL;
	if (!opts->freq)
		return 0;
	sm = calloc(1, sizeof(*sm));
	if (!sm)
		return -ENOMEM;
	*sm = (struct sampler){ .opts = opts, .log = log, .trace = trace };
	sm->trig.timer_fd = -1;
	err = walk_buffers_init(&sm->buf, opts->max_frames);
	if (!err)
		err = alloc_queue(sm);
	if (!err)
		err = take_keys(sm);
	if (!err) {
		sm->stop_smp.stack = malloc(opts->stack_bytes + SAMPLE_RED_ZONE);
		if (!sm->stop_smp.stack || sample_frames_alloc(&sm->stop_smp, opts))
			err = -ENOMEM;
	}
	if (!err && opts->sampler != OPTS_SAMPLER_SIGPROF && !opts->wall_clock)
		sm->trig.period_ns = 1000000000ull / opts->freq;	/* sampler_attach() opens */
	else if (!err)
		err = trigger_init(&sm->trig, opts->freq, opts->wall_clock);
	if (!err)
		err = stats_init(&sm->stats, opts->json_all, sm->trig.period_ns);
	sm->stats.keep_folded_all = opts->folded_all_path != NULL;
	sm->stats.keep_disagreements = opts->json_path != NULL;
	sm->stats.folded_no_root = opts->folded_no_root;
	sm->stats.formats.on = opts->compare_formats;
	sm->stats.formats.n = formats_compared(opts);
	if (err) {
		sampler_free(sm);
		return err;
	}
	*out = sm;
	return 0;
}

void sampler_free(struct sampler *sm)
{
	if (!sm)
		return;
	walk_worker_stop(&sm->worker);
	trigger_free(&sm->trig);
	ring_close(&sm->ring);
	stats_free(&sm->stats);
	source_lines_free(&sm->lines);
	if (sm->queue_area)
		munmap(sm->queue_area, sm->queue_bytes);
	for (unsigned int i = 0; i < SAMPLER_QUEUE; i++)
		sample_frames_free(&sm->queue[i]);
	free(sm->stop_smp.stack);
	sample_frames_free(&sm->stop_smp);
	walk_buffers_free(&sm->buf);
	free(sm);
}

/* @th's sampling state, made on first use; NULL on ENOMEM. */
static struct thread_sampling *sampling_of(struct sampler *sm, struct thread *th)
{
	if (!th->slot[sm->thread_key])
		th->slot[sm->thread_key] = thread_sampling_new();
	return th->slot[sm->thread_key];
}

void sampler_thread_started(struct sampler *sm, struct thread *th)
{
	struct thread_sampling *ts = sampling_of(sm, th);
	int err = ts ? trigger_thread_start(&sm->trig, ts, th->tid) : -ENOMEM;

	if (err)
		log_line(sm->log, "tid %d: cannot start its CPU-clock perf event: %s (not sampled)",
			 (int)th->tid, strerror(-err));
}

/*
 * SIGPROF reaches no thread that blocks it: one that ran ten periods or more
 * and got fewer than half its samples, and blocks SIGPROF now, is counted
 * and named, for the report to say so (--sampler ring samples it).
 */
void sampler_thread_exiting(struct sampler *sm, struct thread *th)
{
	struct thread_sampling *ts = th->slot[sm->thread_key];
	struct sample_stats *st = &sm->stats;
	unsigned long missed;
	char comm[20];

	if (!ts || sm->trig.kind != TRIGGER_PERF)
		return;
	missed = trigger_missed(&sm->trig, ts);
	if (missed < 10 || missed < ts->samples || !procfs_blocks(th->tid, SIGPROF))
		return;
	if (st->blocked_threads < STATS_BLOCKED_NAMED) {
		procfs_comm(th->tid, comm, sizeof(comm));
		snprintf(st->blocked_names[st->blocked_threads], sizeof(st->blocked_names[0]),
			 "%s (tid %d)", comm, (int)th->tid);
	}
	st->blocked_threads++;
}

void sampler_thread_exec(struct sampler *sm, struct thread *th)
{
	struct thread_sampling *ts = sampling_of(sm, th);

	if (ts)
		trigger_thread_exec(&sm->trig, ts, th->tid);
	if (!th->proc)
		return;
	stats_thread_exec(&sm->stats, th->proc->tgid, th->tid);	/* named anew */
	tracees_proc_clear(&sm->trace->tree, th->proc, sm->proc_key);	/* a new program: */
	tracees_proc_clear(&sm->trace->tree, th->proc, sm->code_key);	/* its code, */
	tracees_proc_clear(&sm->trace->tree, th->proc, sm->truth_key);	/* its own truth */
}

/*
 * Copy the stack from the red zone below SP up: @bytes at most, never past
 * the end of the mapping holding SP when the cached maps know it. A read that
 * runs into unmapped memory returns what it got.
 */
static void copy_stack(struct proc *p, struct sample *smp, uint64_t bytes)
{
	uint64_t sp = smp->regs.rsp, start = sp - SAMPLE_RED_ZONE;
	uint64_t end = sp + bytes;
	const struct emu_vma *vma = p->as->maps_valid ? emu_mappings_find(&p->as->maps, sp) : NULL;
	struct iovec local, remote;
	ssize_t n;

	if (vma && end > vma->end)
		end = vma->end;
	if (vma && start < vma->start)
		start = vma->start;
	smp->stack_start = start;
	smp->stack_map_start = vma ? vma->start : 0;
	smp->stack_len = 0;
	smp->stack_map_end = vma ? vma->end : 0;
	if (start > sp || end <= start)
		return;
	local = (struct iovec){ .iov_base = smp->stack, .iov_len = (size_t)(end - start) };
	remote = (struct iovec){ .iov_base = (void *)(uintptr_t)start, .iov_len = local.iov_len };
	n = process_vm_readv(smp->tid, &local, 1, &remote, 1, 0);
	smp->stack_len = n > 0 ? (size_t)n : 0;
}

/* Registers and stack of stopped @th; false when it is gone. */
static bool capture(struct sampler *sm, struct thread *th, struct sample *smp)
{
	smp->tid = th->tid;
	smp->tgid = th->proc->tgid;
	if (ptrace(PTRACE_GETREGS, th->tid, 0, &smp->regs))
		return false;
	smp->in_syscall = (long)smp->regs.orig_rax >= 0;
	copy_stack(th->proc, smp, sm->opts->stack_bytes);
	truth_read(th->proc->slot[sm->truth_key], smp);
	smp->stopped = false;
	return true;
}


/* Say once per process why its perf map was refused or read in part. */
static void note_perf_map(struct sampler *sm, struct oracles *o)
{
	struct perf_map *m = &o->sym.perf;

	if (!m->problem || m->problem_noted)
		return;
	m->problem_noted = true;
	log_note(sm->log, "pid %d: perf map %s: %s (JIT symbols from it may be missing)", o->pid,
		 m->path, m->problem);
}

/*
 * Does @p keep its own chain (codectl_truth.h)? Its samples are then taken
 * at a stop, where the chain is read as the registers are.
 */
static bool truth_kept(const struct sampler *sm, const struct proc *p)
{
	const struct truth_table *t = p->slot[sm->truth_key];

	return t && t->addr;
}

/* What walk_env's @fresh_maps and @removed get. */
struct fresh_maps_ctx {
	struct sampler *sm;
	struct proc *p;
};

/* A walk found code where the mappings have none: they are re-read when older than the sample. */
static const struct emu_mappings *fresh_maps(void *arg, uint64_t taken_ns)
{
	struct fresh_maps_ctx *c = arg;
	struct addr_space *as = c->p->as;

	if (as->maps_ns >= taken_ns || maps_refresh(c->sm->trace, c->p, c->p->tgid))
		return NULL;
	return &as->maps;
}

/*
 * The kernel profiles' unwind-time policy: a lookup that found a
 * registration's data broken removes it as the kernel does (every text range
 * registered with its section), and the log says why, with the bytes.
 */
static void remove_broken(void *arg, const struct emu_removal *rm)
{
	struct fresh_maps_ctx *c = arg;
	bool eh = rm->eh_frame_hdr_start;
	uint64_t section = eh ? rm->eh_frame_hdr_start : rm->sframe_start;
	int n = eh ? emu_registry_remove_eh_frame(c->p->as->registry, section) :
		     emu_registry_remove_sframe(c->p->as->registry, section);

	if (n <= 0)
		return;
	c->p->stats.unwind_removed += (unsigned long)n;
	log_note(c->sm->log, "pid %d: unwind (%s): registration removed (%s %#llx, %d text "
			     "range%s; lookup in text %#llx): %s: %s", (int)c->p->tgid,
		 emu_profile_name(c->sm->opts->kernel), eh ? ".eh_frame_hdr" : "sframe",
		 (unsigned long long)section, n,
		 n == 1 ? "" : "s", (unsigned long long)rm->text_start, emu_rule_name(rm->rule),
		 rm->reason);
}

/*
 * @p's oracles and truth table, made at its first sample (NULL:
 * oracles_new()'s), so that a process keeping its own chain is known from
 * then on; the table is looked for in the executable alone (reading every
 * module's symbol table took milliseconds, a call waiting).
 */
static struct oracles *oracles_of(struct sampler *sm, struct proc *p)
{
	struct oracles *o = p->slot[sm->proc_key];

	if (!o && !sm->no_decoder) {
		o = p->slot[sm->proc_key] = oracles_new(p->tgid, sm->opts->crosscheck);
		if (!o) {
			/* without capstone no process's samples can be judged: not tried again */
			sm->no_decoder = errno == ELIBACC;
			log_line(sm->log, "pid %d: its samples cannot be judged: they are dropped (%s%s%s)",
				 (int)p->tgid, strerror(errno), sm->no_decoder ? ": " : "",
				 sm->no_decoder ? x86_decoder_library() : "");
		}
	}
	if (!o)
		return NULL;
	if (!p->slot[sm->truth_key])
		p->slot[sm->truth_key] = truth_table_new();	/* NULL: no truth */
	truth_table_find(p->slot[sm->truth_key], &o->sym, p->exe, sizeof(p->exe));
	if (truth_kept(sm, p))
		sm->truth_polled = true;	/* its records each ask for a stop, in time */
	return o;
}

/*
 * What @p's samples are walked with; false when @p has gone (or its state
 * cannot be made). Mappings change without a codectl call (mmap, munmap):
 * old ones are re-read first, which may drop stale registrations.
 */
static bool env_of(struct sampler *sm, struct proc *p, struct fresh_maps_ctx *fm,
		   struct walk_env *env)
{
	struct oracles *o;

	*fm = (struct fresh_maps_ctx){ sm, p };
	if (!p || !p->as || !(o = oracles_of(sm, p)))
		return false;
	if (!p->slot[sm->code_key])
		p->slot[sm->code_key] = code_cache_new(p->tgid);	/* NULL: read live */
	if (maps_old_for_samples(p))
		maps_refresh(sm->trace, p, p->tgid);
	*env = (struct walk_env){
		.registry = p->as->registry,
		.maps = p->as->maps_valid ? &p->as->maps : NULL,
		.as = p->as,
		.fresh_maps = fresh_maps,
		.fresh_maps_ctx = fm,
		.oracles = o,
		.code = p->slot[sm->code_key],
		.uopts = { .arch = EMU_ARCH_X86_64, .max_frames = sm->opts->max_frames,
			   .profile = sm->opts->kernel, .lookup_ra = sm->opts->strict,
			   .signal_frames = !sm->opts->strict },
		.removed = remove_broken,
		.removed_ctx = fm,
		.crosscheck = sm->opts->crosscheck,
		.folded = sm->opts->folded_path || sm->opts->folded_all_path ||
			  sm->opts->html_path,
		.buf = &sm->buf,
		.stats = &sm->stats,
		.verify = sm->verify,
	};
	note_perf_map(sm, o);
	return true;
}

/* Our walk of @smp, just taken (of a process that may be gone: not walked then). */
static void walk_first(struct sampler *sm, struct sample *smp)
{
	struct proc *p = tracees_proc(&sm->trace->tree, smp->tgid);
	struct fresh_maps_ctx fm;
	struct walk_env env;

	smp->ours.done = false;
	if (env_of(sm, p, &fm, &env))
		walk_ours(smp, &env);
}

/* The rest of @smp's walks and its verdict (of a process that may be gone: dropped then). */
static void walk(struct sampler *sm, const struct sample *smp)
{
	struct proc *p = tracees_proc(&sm->trace->tree, smp->tgid);
	struct fresh_maps_ctx fm;
	struct walk_env env;

	if (!env_of(sm, p, &fm, &env)) {
		stats_drop(&sm->stats);
		return;
	}
	walk_rest(smp, &env);
}

void sampler_on_sigprof(struct sampler *sm, struct thread *th)
{
	struct thread_sampling *ts = th->slot[sm->thread_key];
	uint64_t t0 = clock_now_ns();
	struct sample *smp;
	siginfo_t si;
	bool ours, ok = false;

	if (ptrace(PTRACE_GETSIGINFO, th->tid, 0, &si)) {
		stats_drop(&sm->stats);	/* gone between the signal and the stop */
		return;
	}
	ours = ts && trigger_is_ours(&sm->trig, ts, &si);
	if (ours)
		ts->samples++;
	stats_taken(&sm->stats, th->proc ? th->proc->tgid : th->tid, th->tid);
	if (sm->nqueued == SAMPLER_QUEUE) {
		/* never make the thread wait for us */
		ptrace(PTRACE_CONT, th->tid, 0, ours ? 0L : (long)SIGPROF);
		sm->stats.dropped_busy++;
		if (ours)
			trigger_waited_ns(&sm->trig, ts, t0);	/* keep its bookkeeping */
		return;
	}
	smp = &sm->queue[(sm->qhead + sm->nqueued) % SAMPLER_QUEUE];
	smp->tgid = 0;
	smp->taken_ns = t0;
	if (th->proc && th->proc->as)
		ok = capture(sm, th, smp);
	smp->programs_own = !ours;
	ptrace(PTRACE_CONT, th->tid, 0, ours ? 0L : (long)SIGPROF);
	smp->freeze_ns = clock_now_ns() - t0;
	sample_set_dwarf_regs(smp);
	/* after resuming: the count moved by at most the freeze */
	smp->waited_ns = ours ? trigger_waited_ns(&sm->trig, ts, t0) : 0;
	if (ok)
		walk_first(sm, smp);
	if (ok)
		sm->nqueued++;
	else if (ours)
		stats_drop(&sm->stats);
}

void sampler_attach(struct sampler *sm, pid_t pid)
{
	int err;

	if (sm->trig.kind != TRIGGER_OFF)
		return;		/* SIGPROF: each thread's event opens at its first stop */
	sm->stop_mode = sm->opts->sampler == OPTS_SAMPLER_STOP;
	err = ring_open(&sm->ring, pid, sm->trig.period_ns,
			sm->stop_mode ? 0 : sm->opts->stack_bytes);
	if (!err) {
		sm->ring_on = true;
		if (sm->stop_mode)
			return;
		if (sm->ring.stack_bytes < sm->opts->stack_bytes &&
		    sm->ring.stack_bytes < RING_MAX_STACK)
			log_note(sm->log, "perf ring buffers: %zu bytes of stack per sample (the "
					  "memory-lock limit allows no more)", sm->ring.stack_bytes);
		return;
	}
	log_note(sm->log, "perf ring buffers unavailable (%s): samples are taken at SIGPROF "
			  "stops instead (--sampler sigprof)", strerror(-err));
	sm->stop_mode = false;
	if (trigger_init(&sm->trig, sm->opts->freq, false))
		sm->trig.kind = TRIGGER_OFF;
}

/*
 * --sampler stop, or a process that keeps its own chain: the kernel sampled
 * thread @tid: stop it (no signal), one stop at a time.
 */
static void ask_stop(struct sampler *sm, pid_t tid)
{
	struct thread *th = tracees_thread(&sm->trace->tree, tid);
	struct thread_sampling *ts = th ? sampling_of(sm, th) : NULL;

	if (!ts || !th->attached || th->group_stopped || !th->proc || !th->proc->as) {
		stats_drop(&sm->stats);
		return;
	}
	if (ts->sent_ns) {
		sm->stats.stops_pending++;	/* its last stop is still on its way */
		return;
	}
	if (!ptrace(PTRACE_INTERRUPT, tid, 0, 0)) {
		ts->sent_ns = clock_now_ns();
		ts->interrupting = true;
	}
}

void sampler_on_other_stop(struct sampler *sm, struct thread *th)
{
	struct thread_sampling *ts = sm ? th->slot[sm->thread_key] : NULL;

	if (!ts || !ts->interrupting)
		return;
	ts->interrupting = false;
	ts->sent_ns = 0;
	stats_drop(&sm->stats);	/* the stop asked for is not coming */
}

/*
 * One ring record into the queue, our walk made at once: registers and the
 * stack as the kernel copied them at the overflow (from SP up, no red zone).
 */
static void take_record(void *ctx, const struct ring_record *rec)
{
	struct sampler *sm = ctx;
	struct proc *p = tracees_proc(&sm->trace->tree, rec->pid);
	const struct emu_vma *vma;
	struct sample *smp;

	stats_taken(&sm->stats, rec->pid, rec->tid);
	if (!ring_keeps(sm->drain_seen++, sm->drain_room, sm->drain_pending) ||
	    sm->nqueued == SAMPLER_QUEUE) {
		sm->stats.dropped_busy++;
		return;
	}
	/*
	 * Gone, not known yet, or past its exit event: its memory is going, and
	 * reads that fail then would be taken for broken unwind data.
	 */
	if (!p || !p->as || p->exiting) {
		stats_drop(&sm->stats);
		return;
	}
	if (truth_kept(sm, p)) {
		ask_stop(sm, rec->tid);	/* its own chain is read at a stop */
		return;
	}
	smp = &sm->queue[(sm->qhead + sm->nqueued) % SAMPLER_QUEUE];
	vma = p->as->maps_valid ? emu_mappings_find(&p->as->maps, rec->regs.rsp) : NULL;
	smp->tid = rec->tid;
	smp->tgid = rec->pid;
	smp->regs = rec->regs;
	sample_set_dwarf_regs(smp);
	smp->stack_start = rec->regs.rsp;
	smp->stack_len = rec->stack_len < sm->opts->stack_bytes ? rec->stack_len :
			 sm->opts->stack_bytes;
	memcpy(smp->stack, rec->stack, smp->stack_len);
	smp->stack_map_start = vma ? vma->start : 0;
	smp->stack_map_end = vma ? vma->end : 0;
	smp->taken_ns = rec->time_ns;
	smp->freeze_ns = 0;
	smp->waited_ns = 0;
	smp->programs_own = false;
	smp->in_syscall = rec->in_syscall;
	smp->stopped = false;
	smp->truth_depth = 0;
	smp->n_truth = 0;
	walk_first(sm, smp);
	sm->nqueued++;
}

static void take_record_stop(void *ctx, const struct ring_record *rec)
{
	struct sampler *sm = ctx;

	stats_taken(&sm->stats, rec->pid, rec->tid);
	ask_stop(sm, rec->tid);
}

int sampler_wait_ms(const struct sampler *sm, int fallback)
{
	int ms = fallback, left;

	if (!sm)
		return fallback;
	if (sm->ring_on && sm->ring.stack_bytes)
		ms = sm->truth_polled ? RING_TRUTH_DRAIN_MS : RING_DRAIN_MS;
	/* walks a call held back: the worker is woken when the loop lets the lock go */
	if (sm->worker.running && sm->nqueued &&
	    !sampler_walks_now(sm->nqueued, clock_now_ns(), sm->call_ns)) {
		left = sampler_quiet_left_ms(clock_now_ns(), sm->call_ns);
		if (ms < 0 || left < ms)
			ms = left;
	}
	return ms;
}

void sampler_drain(struct sampler *sm)
{
	if (!sm || !sm->ring_on)
		return;
	if (sm->stop_mode) {
		ring_drain(&sm->ring, take_record_stop, sm);
		return;
	}
	sm->drain_room = SAMPLER_QUEUE - sm->nqueued;
	sm->drain_pending = ring_pending(&sm->ring);
	sm->drain_seen = 0;
	ring_drain(&sm->ring, take_record, sm);
}

bool sampler_on_interrupt(struct sampler *sm, struct thread *th)
{
	struct thread_sampling *ts = th->slot[sm->thread_key];
	struct sample *smp = &sm->stop_smp;
	uint64_t t0 = clock_now_ns();
	bool ok;

	if (!ts || !ts->interrupting)
		return false;	/* not a stop we asked for */
	smp->waited_ns = t0 - ts->sent_ns;
	ts->sent_ns = 0;
	ts->interrupting = false;
	smp->taken_ns = t0;
	smp->programs_own = false;
	ok = capture(sm, th, smp);
	if (ok) {
		sample_set_dwarf_regs(smp);
		smp->stopped = true;
		walk_first(sm, smp);
		smp->freeze_ns = clock_now_ns() - t0;	/* until here: ours; then the rest */
		walk(sm, smp);
	} else {
		stats_drop(&sm->stats);
	}
	ptrace(PTRACE_CONT, th->tid, 0, 0);
	return true;
}

void sampler_walk_one(struct sampler *sm)
{
	struct sample *smp;

	if (!sm || !sm->nqueued)
		return;
	smp = &sm->queue[sm->qhead];
	if (smp->tgid)	/* 0: already walked by sampler_flush_proc() */
		walk(sm, smp);
	sm->qhead = (sm->qhead + 1) % SAMPLER_QUEUE;
	sm->nqueued--;
}

void sampler_flush_proc(struct sampler *sm, pid_t tgid)
{
	struct sample *smp;

	for (unsigned int i = 0; sm && i < sm->nqueued; i++) {
		smp = &sm->queue[(sm->qhead + i) % SAMPLER_QUEUE];
		if (smp->tgid != tgid)
			continue;
		walk(sm, smp);
		smp->tgid = 0;
	}
}

unsigned int sampler_pending(const struct sampler *sm)
{
	return sm ? sm->nqueued : 0;
}

void sampler_call_seen(struct sampler *sm)
{
	if (sm)
		sm->call_ns = clock_now_ns();
}

static bool worker_has_work(void *ctx)
{
	struct sampler *sm = ctx;

	return sampler_walks_now(sm->nqueued, clock_now_ns(), sm->call_ns);
}

static void worker_walk_one(void *ctx)
{
	sampler_walk_one(ctx);
}

void sampler_worker_start(struct sampler *sm)
{
	int err = sm ? walk_worker_start(&sm->worker, worker_has_work, worker_walk_one, sm) : 0;

	if (err)
		log_line(sm->log, "cannot start the walking thread (%s): the event loop walks",
			 strerror(-err));
}

void sampler_worker_stop(struct sampler *sm)
{
	if (sm)
		walk_worker_stop(&sm->worker);
}

void sampler_lock(struct sampler *sm)
{
	if (sm)
		walk_worker_lock(&sm->worker);
}

void sampler_unlock(struct sampler *sm)
{
	if (sm)
		walk_worker_unlock(&sm->worker);
}

unsigned int sampler_loop_walks(const struct sampler *sm)
{
	return sm && !sm->worker.running ? sm->nqueued : 0;
}

void sampler_flush(struct sampler *sm)
{
	while (sampler_pending(sm))
		sampler_walk_one(sm);
}

/*
 * One timer tick (--clock wall): at most @budget threads sampled, round
 * robin from the thread after the one sampled last (@sm->tick_cursor), so
 * that every thread gets its turn when there are more than the budget. Each
 * is stopped (PTRACE_INTERRUPT: no signal, whatever its mask, a system call
 * it is blocked in restarted after), or sent SIGPROF with --sampler sigprof.
 */
struct tick_ctx {
	struct sampler *sm;
	uint64_t now;
	unsigned int budget;
	unsigned long eligible;
	bool wrapped;	/* second pass: the threads up to the cursor */
};

static bool tick_eligible(const struct sampler *sm, const struct thread *th)
{
	const struct thread_sampling *ts = th->slot[sm->thread_key];

	return th->proc && ts && ts->on && !ts->sent_ns && th->attached && !th->group_stopped;
}

static void tick_thread(const void *node, VISIT which, void *arg)
{
	struct thread *th = *(struct thread *const *)node;
	struct tick_ctx *c = arg;
	struct sampler *sm = c->sm;

	if ((which != postorder && which != leaf) || !tick_eligible(sm, th))
		return;
	if ((th->tid > sm->tick_cursor) == c->wrapped)
		return;	/* not this pass's */
	c->eligible++;
	if (!c->budget)
		return;
	if (sm->opts->sampler == OPTS_SAMPLER_SIGPROF) {
		trigger_tick_one(&sm->trig, th->slot[sm->thread_key], th->proc->tgid, th->tid,
				 c->now);
	} else {
		stats_taken(&sm->stats, th->proc->tgid, th->tid);
		ask_stop(sm, th->tid);
	}
	sm->tick_cursor = th->tid;
	c->budget--;
}

/* The stops one tick may make: what the queue can take, and the wall-clock cap. */
static unsigned int tick_budget(const struct sampler *sm)
{
	uint64_t per_tick = SAMPLER_WALL_STOPS_PER_SEC * sm->trig.period_ns / 1000000000ull;

	if (!per_tick)
		per_tick = 1;
	if (per_tick > SAMPLER_QUEUE - sm->nqueued)
		per_tick = SAMPLER_QUEUE - sm->nqueued;
	return (unsigned int)per_tick;
}

void sampler_on_timer(struct sampler *sm)
{
	struct tick_ctx c = { .sm = sm, .now = clock_now_ns() };
	uint64_t expirations;
	unsigned int budget;

	if (!sm || read(sm->trig.timer_fd, &expirations, sizeof(expirations)) < 0)
		return;
	sm->stats.missed_ticks += expirations - 1;
	budget = c.budget = tick_budget(sm);
	twalk_r(sm->trace->tree.threads, tick_thread, &c);
	c.wrapped = true;
	twalk_r(sm->trace->tree.threads, tick_thread, &c);
	sm->stats.shed += c.eligible - (budget - c.budget);
}

void sampler_progress(struct sampler *sm)
{
	uint64_t now = clock_now_ns();
	double a;

	if (!sm || now - sm->status_ns < 2000000000ull || sm->opts->quiet ||
	    !isatty(STDERR_FILENO))
		return;
	if (!sm->status_ns) {	/* not in the first 2 s */
		sm->status_ns = now;
		return;
	}
	sm->status_ns = now;
	sm->status_shown = true;
	a = stats_agreement(&sm->stats);
	/* the line erased first: "\r" alone leaves the end of a longer one */
	fprintf(stderr, "\r\033[Kcodectl-run: %lu samples, %lu dropped, agreement ",
		sm->stats.total, sm->stats.dropped + sm->stats.dropped_busy);
	if (a < 0)
		fprintf(stderr, "n/a");
	else
		fprintf(stderr, "%.1f%%", a * 100);
	fflush(stderr);
}

void sampler_progress_end(struct sampler *sm)
{
	if (!sm || !sm->status_shown)
		return;
	fprintf(stderr, "\r\033[K");	/* gone, before the summary and the report */
	fflush(stderr);
	sm->status_shown = false;
}

void sampler_mappings_changed(struct sampler *sm, struct proc *p)
{
	if (sm && p->slot[sm->proc_key])
		oracles_mappings_changed(p->slot[sm->proc_key]);
	if (sm)
		code_cache_clear(p->slot[sm->code_key]);
}

void sampler_proc_exited(struct sampler *sm, struct proc *p)
{
	struct oracles *o = sm ? p->slot[sm->proc_key] : NULL;

	if (!o)
		return;
	/* the source lines of the examples, for a report or a JSON file that shows them */
	if (!sm->opts->quiet || sm->opts->json_path || sm->opts->html_path)
		report_add_sources(&sm->stats, p->tgid, sampler_source_line, sm);
	source_lines_adopt(&sm->lines, &o->sym);
	tracees_proc_clear(&sm->trace->tree, p, sm->proc_key);
	tracees_proc_clear(&sm->trace->tree, p, sm->code_key);
	tracees_proc_clear(&sm->trace->tree, p, sm->truth_key);
}

/* The newest process with TGID @pid, exited or not (its oracles outlive it). */
static struct proc *proc_by_pid(const struct tracees *t, pid_t pid)
{
	for (struct proc *p = t->procs; p; p = p->next)
		if (p->tgid == pid)
			return p;
	return NULL;
}

int sampler_source_line(void *ctx, pid_t pid, uint64_t ip, bool caller, char *buf, size_t size)
{
	struct sampler *sm = ctx;
	struct proc *p = proc_by_pid(&sm->trace->tree, pid);
	struct oracles *o = p ? p->slot[sm->proc_key] : NULL;

	if (!o)
		return -ENOENT;
	return symbols_source(&sm->lines, &o->sym, ip, caller, buf, size);
}
