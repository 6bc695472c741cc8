/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What makes a thread stop for a sample: SIGPROF, sent either by the kernel
 * from a per-thread CPU-clock perf event (profiler semantics: in proportion
 * to the CPU time the thread uses), or by the supervisor's own timer with
 * tgkill(2) (--clock wall, or when perf events are unavailable).
 */
#ifndef SUPERVISOR_SAMPLE_TRIGGER_H
#define SUPERVISOR_SAMPLE_TRIGGER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>


enum trigger_kind {
	TRIGGER_OFF = 0,
	TRIGGER_PERF,		/* per-thread perf event, F_SETSIG SIGPROF */
	TRIGGER_TIMER,		/* the supervisor's timerfd, tgkill to every thread */
};

/**
 * struct sample_trigger - the sampling clock
 * @period_ns: sampling period, ns of CPU time (perf) or wall time (timer)
 * @timer_fd: the timerfd (TRIGGER_TIMER), else -1
 * @fallback_errno: why perf events could not be used (0 when they were)
 * @self: the supervisor's pid, as tgkill's si_pid shows it
 */
struct sample_trigger {
	enum trigger_kind kind;
	uint64_t period_ns;
	int timer_fd;
	int fallback_errno;
	pid_t self;
};

/**
 * struct thread_sampling - how one thread is sampled (kept in its tracee slot)
 * @on: the thread is sampled (from the program's execve on)
 * @perf_fd: its CPU-clock perf event that sends it SIGPROF, or -1
 * @perf_count: the event's count (ns of CPU time) at the last sample
 * @sent_ns: when the supervisor last sent it SIGPROF or asked it to stop
 *	(CLOCK_MONOTONIC), 0 when nothing of ours is pending
 * @interrupting: what is pending is a PTRACE_INTERRUPT
 * @samples: samples taken at our SIGPROF
 */
struct thread_sampling {
	bool on;
	bool interrupting;
	int perf_fd;
	uint64_t perf_count;
	uint64_t sent_ns;
	unsigned long samples;
};

/** thread_sampling_new() - a thread not sampled yet (no event); NULL on ENOMEM. */
struct thread_sampling *thread_sampling_new(void);

/** thread_sampling_free() - close its event and free it (NULL is fine; a tracees_free_fn). */
void thread_sampling_free(void *ts);

/**
 * trigger_init() - choose the clock: perf events unless @wall_clock (tried on
 * the supervisor itself first), else a timerfd; @freq 0 turns sampling off
 * Return: 0, or a negative errno when not even a timerfd can be made.
 */
int trigger_init(struct sample_trigger *t, unsigned int freq, bool wall_clock);

/** trigger_free() - close the timer (threads' events are closed with their thread_sampling). */
void trigger_free(struct sample_trigger *t);

/**
 * trigger_thread_start() - start sampling thread @tid (perf: open its event)
 * Return: 0, or a negative errno from perf_event_open or fcntl.
 */
int trigger_thread_start(struct sample_trigger *t, struct thread_sampling *ts, pid_t tid);

/**
 * trigger_thread_exec() - the thread exec'd (and perhaps took over the TGID,
 * @tid now): its event's signal goes to its new TID
 */
void trigger_thread_exec(struct sample_trigger *t, struct thread_sampling *ts, pid_t tid);

/**
 * trigger_tick_one() - on a timer tick, send thread @tid of @tgid SIGPROF
 * unless one of ours is pending (the caller skips stopped threads)
 */
void trigger_tick_one(struct sample_trigger *t, struct thread_sampling *ts, pid_t tgid, pid_t tid,
		      uint64_t now_ns);

/**
 * trigger_is_ours() - was the SIGPROF described by @si sent by us to the thread?
 * Ours: si_code POLL_IN with @th's perf event's descriptor, or SI_TKILL from
 * the supervisor. Everything else (setitimer, timer_create, the program's own
 * kill) belongs to the program.
 */
bool trigger_is_ours(const struct sample_trigger *t, const struct thread_sampling *ts,
		     const siginfo_t *si);

/**
 * trigger_waited_ns() - how long the sample at this stop waited for the
 * thread to take SIGPROF (it may block the signal): wall ns since tgkill,
 * or ns of CPU time since the event's first overflow after the previous
 * sample; updates the thread's bookkeeping for the next one
 */
uint64_t trigger_waited_ns(const struct sample_trigger *t, struct thread_sampling *ts,
			   uint64_t now_ns);

/**
 * trigger_missed() - the periods of CPU time @ts's thread ran (its event's
 * count) for which no sample of ours was taken: SIGPROF never came through
 * (blocked, or lost while one was pending); 0 without a perf event
 */
unsigned long trigger_missed(const struct sample_trigger *t, const struct thread_sampling *ts);

#endif /* SUPERVISOR_SAMPLE_TRIGGER_H */
