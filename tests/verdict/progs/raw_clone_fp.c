// SPDX-License-Identifier: GPL-2.0
/*
 * A thread made by the raw clone system call that inherits its parent's
 * %rbp: main keeps a frame pointer (-fno-omit-frame-pointer;
 * raw_clone_keep_fp, a leaf to gcc, sets up none), so at the clone %rbp
 * points at main's frame record on the main thread's stack, and the child,
 * which calls spin_nocfi straight from raw_clone_keep_fp's inline
 * assembly, keeps it:
 * spin_nocfi (raw_clone_fp-spin.S) has no unwind data at all (no CFI, no
 * SFrame) and builds no frame.
 *
 *	thread:	spin_nocfi (no SFrame; %rbp -> main's frame in the parent)
 *		  -> keep_spinning (C) -> clock_gettime (vDSO), now and then
 *	parent:	main -> raw_clone_keep_fp, then waits for the thread to exit
 *
 * Our walk leaves spin_nocfi by the frame-pointer fallback: the frame %rbp
 * points at is on the main thread's stack, not the thread's own (an
 * anonymous mapping of its own), so the walk stops there ("left-stack")
 * and never reports __libc_start_call_main (main's caller) as the
 * thread's.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "verdict_prog.h"

#define STACK_SIZE	(64 * 1024)
#define STACK_GAP	512		/* zeroes above the child's first return address */
#define SPIN_NS		400000000LL

void spin_nocfi(void);
int keep_spinning(void);
void thread_exit(void);

static volatile int spun;
static long long start_ns;

/* Called by spin_nocfi: go on while the thread has used less than SPIN_NS of CPU time. */
__attribute__((noipa)) int keep_spinning(void)
{
	if (!start_ns)
		start_ns = now_ns();
	return now_ns() - start_ns < SPIN_NS;
}

__attribute__((noipa, noreturn)) void thread_exit(void)
{
	spun = 1;
	raw_clone_exit();
}

/*
 * raw_clone() (verdict_prog.h) but for %rbp: the child, on @stack, calls
 * @fn with the parent's.
 */
__attribute__((noipa)) static long raw_clone_keep_fp(void *stack, void (*fn)(void))
{
	register void *ctid asm("r10") = (void *)&raw_clone_tid;
	register void *tls asm("r8") = NULL;
	long ret;

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "call *%[fn]\n\t"
		     "hlt\n"
		     "1:"
		     : "=a"(ret)
		     : "a"(SYS_clone), "D"(RAW_CLONE_FLAGS), "S"(stack), "d"(&raw_clone_tid),
		       "r"(ctid), "r"(tls), [fn] "r"(fn)
		     : "rcx", "r11", "memory");
	return ret;
}

int main(void)
{
	char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	long ret;

	if (stack == MAP_FAILED) {
		perror("raw_clone_fp: mmap");
		return 1;
	}
	ret = raw_clone_keep_fp(stack + STACK_SIZE - STACK_GAP, spin_nocfi);
	if (ret < 0) {
		fprintf(stderr, "raw_clone_fp: clone: %s\n", strerror(-ret));
		return 1;
	}
	raw_clone_wait();
	printf("raw_clone_fp: %s\n", spun ? "done" : "thread did not spin");
	return 0;
}
