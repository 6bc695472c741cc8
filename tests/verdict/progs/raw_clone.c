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
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STACK_SIZE	(64 * 1024)
#define STACK_GAP	512		/* zeroes above the child's first return address */
#define SPIN_NS		400000000LL

static volatile pid_t child_tid;
static volatile unsigned long sink;
static volatile int spun;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

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
	for (;;)
		asm volatile("syscall" : : "a"(SYS_exit), "D"(0) : "rcx", "r11", "memory");
}

/*
 * clone(flags, stack, &parent_tid, &child_tid, 0): the parent gets the tid;
 * the child, on @stack, calls @fn(@arg) (which never returns).
 */
__attribute__((noipa)) static long raw_clone(unsigned long flags, void *stack,
					     void (*fn)(void *), void *arg)
{
	register void *ctid asm("r10") = (void *)&child_tid;
	register void *tls asm("r8") = NULL;
	long ret;

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "xor %%ebp, %%ebp\n\t"
		     "mov %[arg], %%rdi\n\t"
		     "call *%[fn]\n\t"
		     "hlt\n"
		     "1:"
		     : "=a"(ret)
		     : "a"(SYS_clone), "D"(flags), "S"(stack), "d"(&child_tid), "r"(ctid),
		       "r"(tls), [fn] "r"(fn), [arg] "r"(arg)
		     : "rcx", "r11", "memory");
	return ret;
}

int main(void)
{
	unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			      CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pid_t tid;
	long ret;

	if (stack == MAP_FAILED) {
		perror("raw_clone: mmap");
		return 1;
	}
	ret = raw_clone(flags, stack + STACK_SIZE - STACK_GAP, thread_spin, (void *)1);
	if (ret < 0) {
		fprintf(stderr, "raw_clone: clone: %s\n", strerror(-ret));
		return 1;
	}
	while ((tid = child_tid))
		syscall(SYS_futex, &child_tid, FUTEX_WAIT, tid, NULL, NULL, 0);
	printf("raw_clone: %s\n", spun ? "done" : "thread did not spin");
	return 0;
}
