// SPDX-License-Identifier: GPL-2.0
/*
 * A signal handler installed with the program's own restorer.
 *
 * Stack shape, in the handler: handler_spin -> custom_restore (the
 * trampoline, "mov $15,%eax; syscall", from custom_restorer-tramp.S) ->
 * [signal frame] -> spin_main (interrupted anywhere in its loop) -> main.
 * The handler is installed with the raw rt_sigaction system call,
 * SA_RESTORER and custom_restore, so no glibc __restore_rt is involved;
 * custom_restore follows prev_fn's last byte, so the RA - 1 lookup for the
 * trampoline frame finds prev_fn's FDE, whose rows, applied to the signal
 * frame, read the ucontext's uc_flags as a return address ("prev_fn ->
 * 0x2", or 0x7, by kernel). SIGALRM comes from a POSIX timer on the
 * process's CPU clock (setitimer's ITIMER_PROF would send SIGPROF, which
 * codectl-run samples with), about every 5 ms of CPU time whatever the
 * machine's load; the handler spins 3 ms of each, 0.4 s in all, while the
 * main thread spins in spin_main.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "verdict_prog.h"

#define SA_RESTORER_FLAG	0x04000000	/* SA_RESTORER: <asm/signal.h> clashes with <signal.h> */
#define TIMER_PERIOD_NS		5000000L
#define HANDLER_SLICE_NS	3000000LL
#define HANDLER_TOTAL_NS	400000000LL

/* The kernel's struct sigaction on x86-64. */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

unsigned long prev_fn(unsigned long x);
void custom_restore(void);

static timer_t timer;
static volatile long long handler_ns;
static volatile unsigned long signals;
static volatile unsigned long sink;

/* SIGALRM every @period_ns of the process's CPU time (the kernel checks on its tick). */
static int start_timer(long period_ns)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
	struct itimerspec its = { { 0, period_ns }, { 0, period_ns } };

	return timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &timer) ||
	       timer_settime(timer, 0, &its, NULL);
}

__attribute__((noipa)) static void handler_spin(int sig)
{
	long long start = now_ns(), t;

	do {
		for (int i = 0; i < 16384; i++)
			sink += (unsigned long)sig;
		t = now_ns();
	} while (t - start < HANDLER_SLICE_NS);
	handler_ns += t - start;
	signals++;
}

__attribute__((noipa)) static unsigned long spin_main(void)
{
	unsigned long n = 0;

	while (handler_ns < HANDLER_TOTAL_NS)
		n++;
	return n;
}

int main(void)
{
	struct kernel_sigaction sa = {
		.handler = handler_spin,
		.flags = SA_RESTORER_FLAG,
		.restorer = custom_restore,
	};
	struct itimerspec off = { { 0, 0 }, { 0, 0 } };

	if (syscall(SYS_rt_sigaction, SIGALRM, &sa, NULL, sizeof(sa.mask)) ||
	    start_timer(TIMER_PERIOD_NS)) {
		perror("custom_restorer");
		return 1;
	}
	sink = spin_main();
	timer_settime(timer, 0, &off, NULL);
	printf("custom_restorer: %s\n", prev_fn(signals) > 50 ? "done" : "too few signals");
	return 0;
}
