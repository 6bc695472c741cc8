// SPDX-License-Identifier: GPL-2.0
/*
 * A thread blocked in a system call that ends its function: main calls
 * block_in_pause() (exit_syscall-asm.S), which never returns, while a
 * second thread spins for 0.3 s of CPU time, prints and ends the process.
 * Under --clock wall, main is sampled in pause(2) with its IP at
 * after_pause+0x0: the class after-syscall.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

__attribute__((noreturn)) void block_in_pause(void);

static long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000l + t.tv_nsec;
}

static void *spin_then_exit(void *arg)
{
	long end = cpu_ns() + 300000000l;
	volatile unsigned long n = 0;

	(void)arg;
	while (cpu_ns() < end)
		n++;
	(void)n;	/* spun for the samples, not the count */
	printf("exit_syscall: done\n");
	fflush(stdout);
	_exit(0);
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, spin_then_exit, NULL))
		return 1;
	block_in_pause();
}
