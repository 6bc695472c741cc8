// SPDX-License-Identifier: GPL-2.0
/*
 * A thread made with the raw clone system call, no glibc pthread.
 *
 * Stack shape, in the thread: thread_spin -> raw_clone (the return address
 * is in raw_clone's inline assembly, right after the child's "call") and
 * nothing else: the thread's stack is a fresh anonymous mapping, all
 * zeroes above the return address. raw_clone's SFrame row there is the
 * parent's (the CFI knows nothing of the child), so a walk through it reads
 * its return address from the zeroed stack: 0, where the walk ends. The
 * thread spins 0.4 s of CPU time, then leaves with the exit system call;
 * the parent waits on the tid the kernel clears (CLONE_CHILD_CLEARTID).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "verdict_prog.h"

#define STACK_SIZE	(64 * 1024)
#define STACK_GAP	512		/* zeroes above the child's first return address */
#define SPIN_NS		400000000LL

static volatile unsigned long sink;
static volatile int spun;

/*
 * The thread: no glibc state of its own (it shares the parent's TLS), so no
 * libc call but clock_gettime, which touches no TLS unless it fails.
 */
__attribute__((noipa, noreturn)) static void thread_spin(void *arg)
{
	long long start = now_ns();

	do {
		for (int i = 0; i < 4096; i++)
			sink += (unsigned long)arg;
	} while (now_ns() - start < SPIN_NS);
	spun = 1;
	raw_clone_exit();
}

int main(void)
{
	char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	long ret;

	if (stack == MAP_FAILED) {
		perror("raw_clone: mmap");
		return 1;
	}
	ret = raw_clone(stack + STACK_SIZE - STACK_GAP, thread_spin, (void *)1);
	if (ret < 0) {
		fprintf(stderr, "raw_clone: clone: %s\n", strerror(-ret));
		return 1;
	}
	raw_clone_wait();
	printf("raw_clone: %s\n", spun ? "done" : "thread did not spin");
	return 0;
}
