// SPDX-License-Identifier: GPL-2.0
/*
 * Nested signal handlers, glibc's restorer (__restore_rt), and a
 * siglongjmp out of both:
 *
 *	main -> run_signals -> outer_spin			(sends itself SIGUSR1)
 *	  [signal frame] -> outer_handler			(sends itself SIGUSR2)
 *	  [signal frame] -> inner_handler			(spins, then siglongjmps)
 *	main -> run_signals -> spin_after			(after the siglongjmp)
 *
 * outer_handler runs on the thread's stack, inner_handler on an alternate
 * signal stack (SA_ONSTACK, a static array): its walk crosses back to the
 * thread's stack through the signal frame.
 *
 * Each signal is sent with the tgkill system call made right in the
 * function (inline assembly), so the kernel delivers it on the system
 * call's return and the interrupted frame is that function, which has
 * SFrame: a walk from inner_handler goes through both trampolines to the
 * interrupted outer_handler and outer_spin, then by SFrame to
 * run_signals and main. inner_handler spins 0.4 s of CPU time, then
 * siglongjmps to run_signals, which spins in spin_after for 0.2 s: no
 * handler or trampoline frame is left on that stack.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "verdict_prog.h"

static sigjmp_buf env;
static char alt_stack[64 * 1024];
static volatile unsigned long sink;
static volatile int in_inner;

/* tgkill(getpid(), gettid(), @sig) from the calling function itself. */
static inline __attribute__((always_inline)) void signal_self(int sig)
{
	long pid = getpid(), tid = syscall(SYS_gettid), ret;

	asm volatile("syscall" : "=a"(ret) : "a"(SYS_tgkill), "D"(pid), "S"(tid), "d"(sig)
		     : "rcx", "r11", "memory");
}

__attribute__((noipa)) static void spin_for(double seconds)
{
	double end = cpu_seconds() + seconds;

	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
	} while (cpu_seconds() < end);
}

__attribute__((noipa)) static void inner_handler(int sig)
{
	double end = cpu_seconds() + 0.4;

	in_inner = sig;
	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
	} while (cpu_seconds() < end);
	siglongjmp(env, 1);
}

__attribute__((noipa)) static void outer_handler(int sig)
{
	signal_self(SIGUSR2);
	sink += sig;	/* never reached: inner_handler leaves by siglongjmp */
}

__attribute__((noipa)) static void outer_spin(void)
{
	signal_self(SIGUSR1);
	sink++;
}

__attribute__((noipa)) static void spin_after(void)
{
	spin_for(0.2);
}

__attribute__((noipa)) static int run_signals(void)
{
	struct sigaction sa = { .sa_handler = outer_handler };
	stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) || sigaltstack(&ss, NULL))
		return -1;
	sa.sa_handler = inner_handler;
	sa.sa_flags = SA_ONSTACK;
	if (sigaction(SIGUSR2, &sa, NULL))
		return -1;
	if (!sigsetjmp(env, 1)) {
		outer_spin();
		return -1;	/* the handlers never return */
	}
	spin_after();
	__asm__ volatile("" ::: "memory");	/* not a tail call */
	return in_inner == SIGUSR2 ? 0 : -1;
}

int main(void)
{
	printf("signal_trampoline_named: %s\n", run_signals() ? "failed" : "done");
	return 0;
}
