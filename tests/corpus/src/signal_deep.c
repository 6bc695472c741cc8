// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: a signal handler that runs on top of a deep stack.
 *
 * Stack shape: main -> run -> deep_chain x48 -> deep_spin most of the time;
 * every 3.7 ms SIGALRM (setitimer(ITIMER_REAL)) interrupts deep_spin, and for
 * 0.9 ms the stack is ... -> deep_spin -> [signal frame] -> handler ->
 * handler_nested x4 -> handler_spin.
 *
 * What SFrame cannot express: the signal frame.  The handler returns into
 * glibc's __restore_rt (sa_restorer), which has hand-written DWARF CFI
 * (a signal frame with register rules that are expressions on the saved
 * ucontext) and no SFrame, since libc is not built with --gsframe.  The
 * walk has to recognise the rt_sigreturn trampoline and take the
 * interrupted registers from the ucontext to carry on into deep_spin.
 */
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "corpus.h"

/* Round lengths are off any tick multiple, so tick-driven samples do not phase-lock. */
#define RUN_NS		500000000LL	/* total run time */
#define HANDLER_NS	900000LL	/* time spent in each handler run */
#define ALARM_US	3700		/* SIGALRM period */
#define CHAIN_DEPTH	48		/* deep_chain frames, about 50 with main and run */
#define HANDLER_DEPTH	4		/* handler_nested frames */

/* Never inlined, cloned or merged: the tests match these names. */

static volatile sig_atomic_t alarms;

static noipa void handler_spin(long long end)
{
	SPIN_UNTIL(end);
}

static noipa void handler_nested(int n, long long end)
{
	volatile int frame[2];

	frame[0] = n;
	if (n > 1)
		handler_nested(n - 1, end);
	else
		handler_spin(end);
	sink += frame[0];
}

static noipa void handler(int sig)
{
	long long end = now_ns() + HANDLER_NS;

	alarms = alarms + 1;
	handler_nested(HANDLER_DEPTH, end < RUN_NS ? end : RUN_NS);
	sink += (unsigned long)sig;
}

static noipa void deep_spin(void)
{
	SPIN_UNTIL(RUN_NS);
}

static noipa void deep_chain(int n)
{
	volatile int frame[2];

	frame[0] = n;
	if (n > 1)
		deep_chain(n - 1);
	else
		deep_spin();
	sink += frame[0];
}

static noipa void run(void)
{
	struct itimerval it = {
		.it_interval = { .tv_sec = 0, .tv_usec = ALARM_US },
		.it_value = { .tv_sec = 0, .tv_usec = ALARM_US },
	};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);

	deep_chain(CHAIN_DEPTH);

	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
