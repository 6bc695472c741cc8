// SPDX-License-Identifier: GPL-2.0
/*
 * SIGPROF sources. A CPU-clock software perf event per thread, owned by the
 * supervisor, with O_ASYNC, F_SETSIG SIGPROF and F_SETOWN_EX naming the
 * thread: each overflow (every period_ns of the thread's CPU time) the kernel
 * queues SIGPROF to that thread, as a profiling timer would. The signal's
 * siginfo carries si_code POLL_IN and si_fd, the descriptor in our table.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "trigger.h"

static int perf_open(const struct sample_trigger *t, pid_t tid)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = t->period_ns,
		.wakeup_events = 1,
		/*
		 * User time only: the signal's own delivery and the ptrace stop run
		 * in the kernel on the thread's account, and must not bring the
		 * next period closer (at short periods the thread would do nothing
		 * but take signals).
		 */
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Route the event's overflow signal to thread @tid as SIGPROF. */
static int perf_route(int fd, pid_t tid)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };

	if (fcntl(fd, F_SETSIG, SIGPROF) || fcntl(fd, F_SETOWN_EX, &owner) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC))
		return -errno;
	return 0;
}

/* Can we open events at all? Try on ourselves. */
static int perf_probe(struct sample_trigger *t)
{
	int fd = perf_open(t, 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int timer_open(struct sample_trigger *t)
{
	struct itimerspec its = {
		.it_interval = { .tv_sec = (time_t)(t->period_ns / 1000000000),
				 .tv_nsec = (long)(t->period_ns % 1000000000) },
	};

	its.it_value = its.it_interval;
	t->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (t->timer_fd < 0 || timerfd_settime(t->timer_fd, 0, &its, NULL))
		return -errno;
	return 0;
}

int trigger_init(struct sample_trigger *t, unsigned int freq, bool wall_clock)
{
	int err;

	*t = (struct sample_trigger){ .timer_fd = -1, .self = getpid() };
	if (!freq)
		return 0;
	t->period_ns = 1000000000ull / freq;
	if (!t->period_ns)
		t->period_ns = 1;
	if (!wall_clock) {
		err = perf_probe(t);
		if (!err) {
			t->kind = TRIGGER_PERF;
			return 0;
		}
		t->fallback_errno = -err;
	}
	t->kind = TRIGGER_TIMER;
	return timer_open(t);
}

void trigger_free(struct sample_trigger *t)
{
	if (t->timer_fd >= 0)
		close(t->timer_fd);
	t->timer_fd = -1;
}

int trigger_thread_start(struct sample_trigger *t, struct thread_sampling *ts, pid_t tid)
{
	int fd, err;

	ts->on = t->kind != TRIGGER_OFF;
	if (t->kind != TRIGGER_PERF || ts->perf_fd >= 0)
		return 0;
	fd = perf_open(t, tid);
	if (fd < 0)
		return -errno;
	err = perf_route(fd, tid);
	if (err) {
		close(fd);
		return err;
	}
	ts->perf_fd = fd;
	ts->perf_count = 0;
	return 0;
}

void trigger_thread_exec(struct sample_trigger *t, struct thread_sampling *ts, pid_t tid)
{
	/*
	 * The event counts the task, which exec keeps; only its TID may have
	 * changed (to the TGID). Keep the descriptor: a SIGPROF still pending
	 * across exec names it in si_fd, and must still be recognized as ours.
	 */
	if (ts->perf_fd >= 0)
		perf_route(ts->perf_fd, tid);
	else
		trigger_thread_start(t, ts, tid);
}

void trigger_tick_one(struct sample_trigger *t, struct thread_sampling *ts, pid_t tgid, pid_t tid,
		      uint64_t now_ns)
{
	if (!ts->on || ts->sent_ns)
		return;
	if (!syscall(SYS_tgkill, tgid, tid, SIGPROF))
		ts->sent_ns = now_ns;
	(void)t;
}

bool trigger_is_ours(const struct sample_trigger *t, const struct thread_sampling *ts,
		     const siginfo_t *si)
{
	if (si->si_signo != SIGPROF)
		return false;
	if (si->si_code == POLL_IN)
		return ts->perf_fd >= 0 && si->si_fd == ts->perf_fd;
	return si->si_code == SI_TKILL && si->si_pid == t->self;
}

static uint64_t perf_waited(const struct sample_trigger *t, struct thread_sampling *ts)
{
	uint64_t count = 0, overflow, prev = ts->perf_count;

	if (read(ts->perf_fd, &count, sizeof(count)) != sizeof(count))
		return 0;
	ts->perf_count = count;
	/* the first overflow after the previous sample raised this signal */
	overflow = (prev / t->period_ns + 1) * t->period_ns;
	return count > overflow ? count - overflow : 0;
}

uint64_t trigger_waited_ns(const struct sample_trigger *t, struct thread_sampling *ts,
			   uint64_t now_ns)
{
	uint64_t sent = ts->sent_ns;

	if (sent) {
		ts->sent_ns = 0;
		return now_ns > sent ? now_ns - sent : 0;
	}
	if (ts->perf_fd >= 0)
		return perf_waited(t, ts);
	return 0;
}

unsigned long trigger_missed(const struct sample_trigger *t, const struct thread_sampling *ts)
{
	uint64_t count = 0, periods;

	if (ts->perf_fd < 0 || read(ts->perf_fd, &count, sizeof(count)) != sizeof(count))
		return 0;
	periods = count / t->period_ns;
	return periods > ts->samples ? (unsigned long)(periods - ts->samples) : 0;
}

struct thread_sampling *thread_sampling_new(void)
{
	struct thread_sampling *ts = calloc(1, sizeof(*ts));

	if (ts)
		ts->perf_fd = -1;
	return ts;
}

void thread_sampling_free(void *arg)
{
	struct thread_sampling *ts = arg;

	if (ts && ts->perf_fd >= 0)
		close(ts->perf_fd);
	free(ts);
}
