/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the verdict programs share: CPU clocks to spin by, the runner that
 * calls a spinning function until enough CPU time has gone, the
 * /tmp/perf-PID.map that names code in anonymous memory, and a thread
 * started by the raw clone system call on a stack of the program's own.
 * Header-only: each program is one translation unit (and its .S files).
 */
#ifndef VERDICT_PROG_H
#define VERDICT_PROG_H

#include <libgen.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The process's CPU time in seconds. */
static inline double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The calling thread's CPU time in nanoseconds (a raw clone's thread may call it: no TLS). */
static inline long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/*
 * DEFINE_RUNNER(name, ret): "static void name(ret (*fn)(unsigned long),
 * double seconds)", a frame of its own that calls fn(1000000) until the
 * process has used @seconds more of CPU time. A test tells a program's
 * phases apart by the runner a stack goes through.
 */
#define DEFINE_RUNNER(name, ret)						\
__attribute__((noipa)) static void name(ret (*fn)(unsigned long), double seconds) \
{										\
	double end = cpu_seconds() + seconds;					\
										\
	do									\
		fn(1000000);							\
	while (cpu_seconds() < end);						\
	__asm__ volatile("" ::: "memory");	/* not a tail call */		\
}

/* /tmp/perf-PID.map opened for writing (the test removes it), or NULL. */
static inline FILE *perf_map_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	return fopen(path, "w");
}

/* Name @fn, @size bytes at @start, in /tmp/perf-PID.map (the test removes the file); -1 on failure. */
static inline int perf_map_name(const void *start, unsigned int size, const char *fn)
{
	FILE *f = perf_map_open();

	if (!f)
		return -1;
	fprintf(f, "%lx %x %s\n", (unsigned long)(uintptr_t)start, size, fn);
	return fclose(f);
}

/* @out gets the path of file @name beside the program (its libraries); -1 when too long. */
static inline int beside_prog(char *out, size_t size, const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -1;
	self[n] = '\0';
	return (size_t)snprintf(out, size, "%s/%s", dirname(self), name) < size ? 0 : -1;
}

/* A raw clone's thread: the flags of a pthread, its tid cleared by the kernel at its exit. */
#define RAW_CLONE_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
			 CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

static volatile pid_t raw_clone_tid __attribute__((unused));

/*
 * clone(RAW_CLONE_FLAGS, @stack, &tid, &tid, 0): the parent gets the tid;
 * the child, on @stack, calls @fn(@arg) with %rbp 0 (@fn never returns).
 * Its return address is in raw_clone's inline assembly, right after the
 * child's "call", where raw_clone's CFI are the parent's.
 */
__attribute__((noipa, unused)) static long raw_clone(void *stack, void (*fn)(void *), void *arg)
{
	register void *ctid asm("r10") = (void *)&raw_clone_tid;
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
		     : "a"(SYS_clone), "D"(RAW_CLONE_FLAGS), "S"(stack), "d"(&raw_clone_tid),
		       "r"(ctid), "r"(tls), [fn] "r"(fn), [arg] "r"(arg)
		     : "rcx", "r11", "memory");
	return ret;
}

/* Wait for the raw clone's thread to exit (the kernel clears its tid and wakes us). */
static inline void raw_clone_wait(void)
{
	pid_t tid;

	while ((tid = raw_clone_tid))
		syscall(SYS_futex, &raw_clone_tid, FUTEX_WAIT, tid, NULL, NULL, 0);
}

/* The raw clone's thread leaves: the exit system call (its stack is not libc's to free). */
__attribute__((noreturn)) static inline void raw_clone_exit(void)
{
	for (;;)
		asm volatile("syscall" : : "a"(SYS_exit), "D"(0) : "rcx", "r11", "memory");
}

#endif /* VERDICT_PROG_H */
