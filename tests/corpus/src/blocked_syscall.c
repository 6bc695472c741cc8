// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: a thread that is mostly blocked in system calls.
 *
 * Stack shape: main -> run -> level x9 -> block_loop, then in turn
 *	-> sleep_leaf -> nanosleep (glibc)	blocked 1 ms
 *	-> read_leaf -> read (glibc)		blocked 1 ms on a timerfd
 *	-> busy_leaf				on the CPU 0.1 ms
 * over and over for 0.5 s wall clock, so about 5% of it on the CPU.
 *
 * A CPU-time profiling timer hardly ever fires here, and when it does the
 * thread is usually in the kernel or in glibc's syscall wrappers, which
 * have no SFrame: the top frame is then unwound by its .eh_frame (libunwind)
 * or by frame pointer/assumptions about the wrapper (SFrame walk), and the
 * rest of the chain by SFrame.  Signals interrupt the blocked calls; both
 * are restarted by hand on EINTR.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "corpus.h"

#define RUN_NS		500000000LL	/* total run time */
#define SLEEP_NS	1000000L	/* one nanosleep */
#define READ_NS		1000000L	/* timerfd expiry */
#define BUSY_NS		100000LL	/* one busy part */
#define LEVELS		9

/* Never inlined, cloned or merged: the tests match these names. */

static noipa void sleep_leaf(void)
{
	struct timespec req = { .tv_sec = 0, .tv_nsec = SLEEP_NS }, rem;

	while (nanosleep(&req, &rem) && errno == EINTR)
		req = rem;
}

static noipa void read_leaf(int tfd)
{
	struct itimerspec its = { .it_value = { .tv_sec = 0, .tv_nsec = READ_NS } };
	uint64_t expirations;
	ssize_t n;

	timerfd_settime(tfd, 0, &its, NULL);
	do
		n = read(tfd, &expirations, sizeof(expirations));
	while (n < 0 && errno == EINTR);
	if (n == sizeof(expirations))
		sink += expirations;
}

static noipa void busy_leaf(void)
{
	long long end = now_ns() + BUSY_NS;

	SPIN_UNTIL(end);
}

static noipa void block_loop(int tfd)
{
	while (now_ns() < RUN_NS) {
		sleep_leaf();
		read_leaf(tfd);
		busy_leaf();
	}
}

static noipa void level(int n, int tfd)
{
	volatile int frame[2];

	frame[0] = n;
	if (n > 1)
		level(n - 1, tfd);
	else
		block_loop(tfd);
	sink += frame[0];
}

static noipa int run(void)
{
	int tfd;

	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (tfd < 0)
		return -1;
	level(LEVELS, tfd);
	close(tfd);
	return 0;
}

int main(void)
{
	corpus_start();
	return run() ? 1 : 0;
}
