// SPDX-License-Identifier: GPL-2.0
/*
 * A signal delivered while the thread is at a function's first instruction.
 *
 * Stack shape, in the handler: handler_spin -> __restore_rt (glibc's
 * trampoline) -> [signal frame] -> spin_at_entry+0x0 -> entry_caller ->
 * main. spin_at_entry (signal_first_insn-entry.S) is the one instruction
 * "loop spin_at_entry", so every signal interrupts it at its entry, where
 * the return address is at RSP and no frame is set up. The step out of it
 * must look the interrupted IP up as is: IP - 1 is in die_now, whose last
 * row is CFA = RBP + 16, and entry_caller keeps a frame pointer
 * (-fno-omit-frame-pointer), so that row would land in main, skipping
 * entry_caller (a call-target mismatch: main calls entry_caller, not
 * spin_at_entry). SIGALRM comes from a POSIX timer on the process's CPU
 * clock (not SIGPROF, which codectl-run samples with), about every 5 ms of
 * CPU time; the handler spins 3 ms of each, 0.4 s in all, then stops the
 * timer and sets the interrupted %rcx to 1 so the loop ends.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "verdict_prog.h"

#define TIMER_PERIOD_NS		5000000L
#define HANDLER_SLICE_NS	3000000LL
#define HANDLER_TOTAL_NS	400000000LL

void die_now(void) __attribute__((noreturn));
void spin_at_entry(long a, long b, long c, unsigned long count);

static timer_t timer;
static volatile long long handler_ns;
static volatile unsigned long signals, at_entry;
static volatile unsigned long sink;

/* SIGALRM every @period_ns of the process's CPU time (the kernel checks on its tick). */
static int start_timer(long period_ns)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
	struct itimerspec its = { { 0, period_ns }, { 0, period_ns } };

	return timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &timer) ||
	       timer_settime(timer, 0, &its, NULL);
}

__attribute__((noipa)) static void handler_spin(int sig, siginfo_t *si, void *uc_v)
{
	ucontext_t *uc = uc_v;
	long long start = now_ns(), t;
	greg_t rip = uc->uc_mcontext.gregs[REG_RIP];

	(void)si;
	do {
		for (int i = 0; i < 16384; i++)
			sink += (unsigned long)sig;
		t = now_ns();
	} while (t - start < HANDLER_SLICE_NS);
	handler_ns += t - start;
	signals++;
	if (rip == (greg_t)spin_at_entry) {
		at_entry++;
		if (handler_ns >= HANDLER_TOTAL_NS) {
			struct itimerspec off = { { 0, 0 }, { 0, 0 } };

			timer_settime(timer, 0, &off, NULL);
			uc->uc_mcontext.gregs[REG_RCX] = 1;	/* the loop's last round */
		}
	}
}

__attribute__((noipa)) static void entry_caller(void)
{
	spin_at_entry(0, 0, 0, ~0UL);
	sink++;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler_spin;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGALRM, &sa, NULL) || start_timer(TIMER_PERIOD_NS)) {
		perror("signal_first_insn");
		die_now();
	}
	entry_caller();
	printf("signal_first_insn: %s\n", at_entry == signals ? "done" : "interrupted elsewhere");
	return 0;
}
