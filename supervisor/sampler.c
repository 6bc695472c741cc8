// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling lifecycle and the stop itself. The freeze is kept short: at the
 * stop only PTRACE_GETSIGINFO, PTRACE_GETREGS and one process_vm_readv of the
 * stack; the walks run after the thread was resumed (sample_walk.c).
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include "proc_unwinders.h"
#include "sample_walk.h"
#include "sampler.h"
#include "supervisor.h"

static int alloc_buffers(struct sampler *sm, const struct run_opts *o)
{
	unsigned int max = o->max_frames;

	sm->ours = calloc(max, sizeof(*sm->ours));
	sm->ours_alt = calloc(max, sizeof(*sm->ours_alt));
	sm->ref = calloc(max, sizeof(*sm->ref));
	sm->elf = calloc(max, sizeof(*sm->elf));
	if (!sm->ours || !sm->ours_alt || !sm->ref || !sm->elf)
		return -ENOMEM;
	for (unsigned int i = 0; i < SAMPLER_QUEUE; i++) {
		sm->queue[i].stack = malloc(o->stack_bytes + SAMPLE_RED_ZONE);
		if (!sm->queue[i].stack)
			return -ENOMEM;
		/* fault the pages in now, not during a thread's freeze */
		memset(sm->queue[i].stack, 0, o->stack_bytes + SAMPLE_RED_ZONE);
	}
	return 0;
}

int sampler_new(struct supervisor *s)
{
	struct sampler *sm;
	int err;

	s->sampler = NULL;
	if (!s->opts.freq)
		return 0;
	sm = calloc(1, sizeof(*sm));
	if (!sm)
		return -ENOMEM;
	sm->trig.timer_fd = -1;
	sm->uopts = (struct emu_unwind_opts){ .arch = EMU_ARCH_X86_64,
					      .max_frames = s->opts.max_frames,
					      .lookup_ra = s->opts.strict };
	err = alloc_buffers(sm, &s->opts);
	if (!err)
		err = trigger_init(&sm->trig, s->opts.freq, s->opts.wall_clock);
	if (!err)
		err = stats_init(&sm->stats, s->opts.json_all, sm->trig.period_ns);
	if (err) {
		sampler_free(sm);
		return err;
	}
	s->sampler = sm;
	return 0;
}

void sampler_free(struct sampler *sm)
{
	if (!sm)
		return;
	trigger_free(&sm->trig);
	stats_free(&sm->stats);
	for (unsigned int i = 0; i < SAMPLER_QUEUE; i++)
		free(sm->queue[i].stack);
	free(sm->ours);
	free(sm->ours_alt);
	free(sm->ref);
	free(sm->elf);
	free(sm);
}

void sampler_thread_started(struct supervisor *s, struct thread *th)
{
	int err;

	if (!s->sampler)
		return;
	err = trigger_thread_start(&s->sampler->trig, th);
	if (err)
		sv_log(s, "tid %d: cannot start its CPU-clock perf event: %s (not sampled)",
		       (int)th->tid, strerror(-err));
}

void sampler_thread_exec(struct supervisor *s, struct thread *th)
{
	if (!s->sampler)
		return;
	trigger_thread_exec(&s->sampler->trig, th);
	if (th->proc) {
		proc_unwinders_free(th->proc->unwinders);
		th->proc->unwinders = NULL;
	}
}

/*
 * Copy the stack from the red zone below SP up: @bytes at most, never past
 * the end of the mapping holding SP when the cached maps know it. A read that
 * runs into unmapped memory returns what it got.
 */
static void copy_stack(struct supervisor *s, struct proc *p, struct sample *smp)
{
	uint64_t sp = smp->regs.rsp, start = sp - SAMPLE_RED_ZONE;
	uint64_t end = sp + s->opts.stack_bytes;
	const struct emu_vma *vma = p->as->maps_valid ? emu_mappings_find(&p->as->maps, sp) : NULL;
	struct iovec local, remote;
	ssize_t n;

	if (vma && end > vma->end)
		end = vma->end;
	if (vma && start < vma->start)
		start = vma->start;
	smp->stack_start = start;
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
static bool capture(struct supervisor *s, struct thread *th, struct sample *smp)
{
	smp->tid = th->tid;
	smp->tgid = th->proc->tgid;
	if (ptrace(PTRACE_GETREGS, th->tid, 0, &smp->regs))
		return false;
	copy_stack(s, th->proc, smp);
	return true;
}

void sampler_on_sigprof(struct supervisor *s, pid_t tid)
{
	struct sampler *sm = s->sampler;
	struct thread *th = tracees_thread(&s->tree, tid);
	uint64_t t0 = sv_now_ns();
	struct sample *smp;
	siginfo_t si;
	bool ours, ok = false;

	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si)) {
		stats_drop(&sm->stats);	/* gone between the signal and the stop */
		return;
	}
	ours = th && trigger_is_ours(&sm->trig, th, &si);
	if (sm->nqueued == SAMPLER_QUEUE) {
		/* never make the thread wait for us */
		ptrace(PTRACE_CONT, tid, 0, ours ? 0L : (long)SIGPROF);
		sm->stats.dropped_busy++;
		if (ours)
			trigger_waited_ns(&sm->trig, th, t0);	/* keep its bookkeeping */
		return;
	}
	smp = &sm->queue[(sm->qhead + sm->nqueued) % SAMPLER_QUEUE];
	smp->tgid = 0;
	if (th && th->proc && th->proc->as)
		ok = capture(s, th, smp);
	smp->programs_own = !ours;
	ptrace(PTRACE_CONT, tid, 0, ours ? 0L : (long)SIGPROF);
	smp->freeze_ns = sv_now_ns() - t0;
	sample_set_dwarf_regs(smp);
	/* after resuming: the count moved by at most the freeze */
	smp->waited_ns = ours ? trigger_waited_ns(&sm->trig, th, t0) : 0;
	if (ok)
		sm->nqueued++;
	else if (ours)
		stats_drop(&sm->stats);
}

void sampler_walk_one(struct supervisor *s)
{
	struct sampler *sm = s->sampler;
	struct sample *smp;

	if (!sm || !sm->nqueued)
		return;
	smp = &sm->queue[sm->qhead];
	if (smp->tgid)	/* 0: already walked by sampler_flush_proc() */
		sample_walk(s, smp);
	sm->qhead = (sm->qhead + 1) % SAMPLER_QUEUE;
	sm->nqueued--;
}

void sampler_flush_proc(struct supervisor *s, pid_t tgid)
{
	struct sampler *sm = s->sampler;
	struct sample *smp;

	for (unsigned int i = 0; sm && i < sm->nqueued; i++) {
		smp = &sm->queue[(sm->qhead + i) % SAMPLER_QUEUE];
		if (smp->tgid != tgid)
			continue;
		sample_walk(s, smp);
		smp->tgid = 0;
	}
}

unsigned int sampler_pending(const struct supervisor *s)
{
	return s->sampler ? s->sampler->nqueued : 0;
}

void sampler_flush(struct supervisor *s)
{
	while (sampler_pending(s))
		sampler_walk_one(s);
}


struct tick_ctx {
	struct sampler *sm;
	uint64_t now;
};

static void tick_thread(const void *node, VISIT which, void *arg)
{
	struct thread *th = *(struct thread *const *)node;
	struct tick_ctx *c = arg;

	if ((which == postorder || which == leaf) && th->proc)
		trigger_tick_one(&c->sm->trig, th, th->proc->tgid, c->now);
}

void sampler_on_timer(struct supervisor *s)
{
	struct tick_ctx c = { .sm = s->sampler, .now = sv_now_ns() };
	uint64_t expirations;

	if (!c.sm || read(c.sm->trig.timer_fd, &expirations, sizeof(expirations)) < 0)
		return;
	c.sm->stats.missed_ticks += expirations - 1;
	twalk_r(s->tree.threads, tick_thread, &c);
}

void sampler_progress(struct supervisor *s)
{
	struct sampler *sm = s->sampler;
	uint64_t now = sv_now_ns();
	double a;

	if (!sm || now - sm->status_ns < 2000000000ull || s->opts.quiet || !isatty(STDERR_FILENO))
		return;
	if (!sm->status_ns) {	/* not in the first 2 s */
		sm->status_ns = now;
		return;
	}
	sm->status_ns = now;
	sm->status_shown = true;
	a = stats_agreement(&sm->stats);
	fprintf(stderr, "\rcodectl-run: %lu samples, %lu dropped, agreement ", sm->stats.total,
		sm->stats.dropped + sm->stats.dropped_busy);
	if (a < 0)
		fprintf(stderr, "n/a   ");
	else
		fprintf(stderr, "%.1f%%   ", a * 100);
	fflush(stderr);
}
