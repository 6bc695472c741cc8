// SPDX-License-Identifier: GPL-2.0
/*
 * What the process tree's events mean to the other parts: the one place
 * that knows them all. A thread's first stop starts its sampling clock; an
 * exec walks the samples still taken with the old registry, starts the
 * clock over and registers the new program's .sframe; a process's end walks
 * its samples while its registry is there, and dumps its registry.
 */
#include "run.h"
#include "supervisor/calls/exec_sframe.h"
#include "supervisor/calls/registry_dump.h"
#include "supervisor/calls/synth_sframe.h"

static void thread_started(void *ctx, struct thread *th)
{
	struct run *r = ctx;

	if (r->sampler)
		sampler_thread_started(r->sampler, th);
}

static bool signal_stop(void *ctx, struct thread *th, int sig)
{
	struct run *r = ctx;

	/* the ring sampler sends no signal: a SIGPROF is the program's, passed on */
	if (sig != SIGPROF || !r->sampler || r->sampler->ring_on)
		return false;
	sampler_on_sigprof(r->sampler, th);
	return true;
}

static void thread_exiting(void *ctx, struct thread *th)
{
	struct run *r = ctx;

	if (r->sampler)
		sampler_thread_exiting(r->sampler, th);
}

static bool interrupted(void *ctx, struct thread *th)
{
	struct run *r = ctx;

	return r->sampler && sampler_on_interrupt(r->sampler, th);
}

static void other_stop(void *ctx, struct thread *th)
{
	struct run *r = ctx;

	sampler_on_other_stop(r->sampler, th);
}

/* Samples taken before the exec need the old registry. */
static void before_exec(void *ctx, struct proc *p)
{
	struct run *r = ctx;

	sampler_drain(r->sampler);
	sampler_flush_proc(r->sampler, p->tgid);
}

/*
 * Samples taken before a call's answer are walked against the registrations
 * before it: ours at once (the drain), and before a removal the references
 * too, which name JIT frames and tell which frames libunwind cannot check
 * by the registrations (a JIT's unregistered code would be no JIT's).
 */
static void registrations_changing(void *ctx, struct proc *p, bool removing)
{
	struct run *r = ctx;

	sampler_drain(r->sampler);
	if (removing)
		sampler_flush_proc(r->sampler, p->tgid);
}

static void on_exec(void *ctx, struct proc *p, struct thread *th)
{
	struct run *r = ctx;

	if (r->sampler)
		sampler_thread_exec(r->sampler, th);
	sampler_call_seen(r->sampler);	/* its loader's calls come next */
	exec_trace(&r->calls, p);
	if (r->opts.exec_registration)
		exec_sframe_register(&r->calls, p, th->tid);
}

/* The leader exits: its samples are walked while its memory is readable. */
static void exit_event(void *ctx, struct proc *p)
{
	struct run *r = ctx;

	sampler_drain(r->sampler);
	sampler_flush_proc(r->sampler, p->tgid);
}

static void exited(void *ctx, struct proc *p)
{
	struct run *r = ctx;

	sampler_flush_proc(r->sampler, p->tgid);
	sampler_proc_exited(r->sampler, p);
	if (r->opts.registry_dump && p->as && p->as->refs == 1)
		registry_dump(r->log.f, p);
}

static void mappings_changed(void *ctx, struct proc *p)
{
	struct run *r = ctx;

	if (r->opts.synthesize_sframe && p->as)
		synth_sframe_scan(&r->calls, p);
	sampler_mappings_changed(r->sampler, p);
}

struct trace_hooks run_hooks(struct run *r)
{
	return (struct trace_hooks){
		.ctx = r,
		.thread_started = thread_started,
		.signal_stop = signal_stop,
		.interrupted = interrupted,
		.other_stop = other_stop,
		.before_exec = before_exec,
		.thread_exiting = thread_exiting,
		.registrations_changing = registrations_changing,
		.exec = on_exec,
		.exit_event = exit_event,
		.exited = exited,
		.mappings_changed = mappings_changed,
	};
}
