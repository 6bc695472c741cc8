// SPDX-License-Identifier: GPL-2.0
/*
 * A program that is hard to sample, for codectl-run's sampling tests:
 *   chaos       a garbage frame pointer under a spinning frame, code run from
 *               an anonymous page that is then unmapped, threads that exit as
 *               fast as they start, recursion 3000 deep
 *   own-prof    its own ITIMER_PROF profiler (10 ms) over 1 s of CPU time:
 *               every SIGPROF it gets must be the kernel's (SI_KERNEL), none
 *               of codectl-run's; prints its ticks and CPU time
 *   own-timer   its own POSIX timer on the process CPU clock (10 ms, SIGPROF)
 *               over 1 s of CPU time; prints the signals delivered, the
 *               expiries merged into them (si_overrun) and the CPU time
 *               from the arming to the last delivery: one expiry per 10 ms
 *               of it, whatever the load, unless one was lost
 *   blocked     SIGPROF blocked while it spins for 300 ms of CPU time
 *   masked      two worker threads started with every signal blocked (as
 *               xz -T2 starts its workers) spinning 400 ms of CPU time each;
 *               prints each one's tid and CPU time
 *   torn        two phases, each a recursion TORN_DEPTH frames of ~1 KiB deep
 *               (rec_a / rec_b, ~160 KiB, deeper than any stack copy and than
 *               the stack mapping at exec) with a spin at the bottom (spin_a /
 *               spin_b), alternated every ~0.2 ms for 1 s of CPU time (or
 *               the seconds given after it): a walk
 *               of a copy that reads the rest of the stack live later finds
 *               the other phase's frames there
 *   coroutine   a coroutine made with makecontext(3), run by swapcontext:
 *               co_entry -> co_work spinning 0.5 s of CPU time, co_entry
 *               returning into __start_context (makecontext stores it as the
 *               return address), which resumes main
 *   sleep       300 ms in nanosleep, next to no CPU time, through syscall(2)
 *               (nanosleep()'s own frames changed between glibc releases)
 *   sleep-masked  the same with every signal blocked; fails if a nanosleep
 *               ever returns early (EINTR): a stop must restart it unseen
 *   exec-chain N  spins 5 ms of CPU time and execs itself with N - 1, 100
 *               times, then spins 0.3 s: samples fall inside execve, where
 *               the exec's own ptrace stop overtakes a stop asked for
 *   spin        spins until killed
 *   bad-sframe  registers a copy of its own .sframe whose header puts the
 *               return address at CFA-16 (x86-64 has it at CFA-8), then spins:
 *               every SFrame step finds a wrong caller (run it with
 *               --no-exec-registration --no-loader-module)
 *   jit         two functions generated into an anonymous page, registered
 *               with CODE_REGISTER_JIT and named in /tmp/perf-PID.map (left
 *               for the caller to remove), run for 0.6 s of CPU time:
 *               run_jit -> jit_outer (JIT, frameless) -> jit_middle (C)
 *               -> count_down (C) and -> jit_loop (JIT, frame pointer)
 * Each mode prints what it checked and exits 0, or 1 when a check failed.
 */
#include <codectl.h>
#include <codectl_jit.h>
#include <link.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "self_sframe.h"

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noipa)) static void spin(double seconds)
{
	double end = cpu_seconds() + seconds;

	while (cpu_seconds() < end)
		;
}

/* Count down @iters with RBP holding garbage (restored after). */
__attribute__((noipa)) static void spin_bad_fp(unsigned long iters)
{
	__asm__ volatile("mov %%rbp, %%r12\n\t"
			 "movabs $0xdeadbeefdeadbeef, %%rbp\n\t"
			 "1: dec %0\n\t"
			 "jnz 1b\n\t"
			 "mov %%r12, %%rbp"
			 : "+r"(iters) : : "r12", "memory");
}

/* Run a countdown loop from an anonymous executable page, then unmap it. */
static int run_anonymous_code(unsigned long iters, int rounds)
{
	static const unsigned char code[] = {
		0x48, 0xff, 0xcf,	/* 1: dec %rdi */
		0x75, 0xfb,		/* jnz 1b */
		0xc3,			/* ret */
	};
	void (*fn)(unsigned long);
	void *page;

	for (int r = 0; r < rounds; r++) {
		page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED)
			return -1;
		memcpy(page, code, sizeof(code));
		if (mprotect(page, 4096, PROT_READ | PROT_EXEC))
			return -1;
		fn = (void (*)(unsigned long))page;
		fn(iters);
		munmap(page, 4096);
	}
	return 0;
}

/* A loop with no call in it: samples land in this frame, not in the vDSO. */
__attribute__((noipa)) static unsigned long count_down(unsigned long n)
{
	volatile unsigned long v = n;

	while (v)
		v--;
	return 1;
}

__attribute__((noipa)) static unsigned long recurse(int depth)
{
	unsigned long r;

	if (!depth)
		return count_down(100000000ul);
	r = recurse(depth - 1);
	__asm__ volatile("" : "+r"(r));	/* a real call, not a loop */
	return r + 1;
}

static void *short_thread(void *arg)
{
	spin(0.001);
	return arg;
}

static int churn_threads(int n)
{
	pthread_t t;

	for (int i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, short_thread, NULL))
			return -1;
		pthread_join(t, NULL);
	}
	return 0;
}

static int chaos(void)
{
	spin_bad_fp(300000000ul);
	if (run_anonymous_code(50000000ul, 6) || churn_threads(200))
		return 1;
	printf("chaos: recursion %lu deep\n", recurse(3000));
	return 0;
}

static volatile sig_atomic_t own, overruns, foreign;
/* The process's CPU time at the last own SIGPROF, ns (own-timer). */
static volatile long own_cpu_ns;

static long process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000l + ts.tv_nsec;
}

/* Counts SIGPROFs of si_code @own_code (SI_KERNEL or SI_TIMER) as own. */
static volatile sig_atomic_t own_code;

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (si->si_code != own_code) {
		foreign++;
		return;
	}
	own++;
	if (si->si_code == SI_TIMER)
		overruns += si->si_overrun;
	own_cpu_ns = process_cpu_ns();
}

static int count_sigprof(int code)
{
	struct sigaction sa = { .sa_sigaction = on_sigprof, .sa_flags = SA_SIGINFO | SA_RESTART };

	own_code = code;
	return sigaction(SIGPROF, &sa, NULL);
}

static int own_profiler(void)
{
	struct itimerval it = { .it_interval = { 0, 10000 }, .it_value = { 0, 10000 } };
	struct itimerval off = { 0 };

	if (count_sigprof(SI_KERNEL) || setitimer(ITIMER_PROF, &it, NULL))
		return 1;
	spin(1.0);
	setitimer(ITIMER_PROF, &off, NULL);
	printf("own-prof: %d own SIGPROFs, %d foreign, cpu %.6f\n", (int)own, (int)foreign,
	       cpu_seconds());
	return foreign || !own;
}

/* @argv0 exec'd with "exec-chain" @n - 1 after 5 ms of CPU time, or 0.3 s spun at 0. */
static int exec_chain(const char *argv0, int n)
{
	char next[16];

	if (n <= 0) {
		spin(0.3);
		printf("exec-chain: done\n");
		return 0;
	}
	spin(0.005);
	snprintf(next, sizeof(next), "%d", n - 1);
	execl(argv0, argv0, "exec-chain", next, (char *)NULL);
	return 1;
}

static int own_timer(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGPROF };
	struct itimerspec it = { .it_interval = { 0, 10000000 }, .it_value = { 0, 10000000 } };
	struct itimerspec off = { 0 };
	timer_t timer;
	long start;

	if (count_sigprof(SI_TIMER) || timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &timer))
		return 1;
	start = process_cpu_ns();
	if (timer_settime(timer, 0, &it, NULL))
		return 1;
	spin(1.0);
	timer_settime(timer, 0, &off, NULL);
	/* expiries after the last delivery are lost with the disarm: not counted */
	printf("own-timer: %d delivered, %d overruns, %d foreign, cpu %.6f\n", (int)own,
	       (int)overruns, (int)foreign, (double)(own_cpu_ns - start) / 1e9);
	return foreign || !own;
}

#define TORN_DEPTH 160

__attribute__((noipa)) static unsigned long spin_a(unsigned long n)
{
	volatile unsigned long x = 0;

	while (n--)
		x += n;
	return x;
}

__attribute__((noipa)) static unsigned long spin_b(unsigned long n)
{
	volatile unsigned long x = 0;

	while (n--)
		x ^= n;
	return x;
}

/* Each frame holds 1 KiB: TORN_DEPTH of them reach far past the copy. */
__attribute__((noipa)) static unsigned long rec_a(int depth)
{
	volatile char pad[1000];

	pad[0] = (char)depth;
	if (!depth)
		return spin_a(500000) + pad[0];
	return rec_a(depth - 1) + pad[0];
}

__attribute__((noipa)) static unsigned long rec_b(int depth)
{
	volatile char pad[1000];

	pad[0] = (char)depth;
	if (!depth)
		return spin_b(500000) + pad[0];
	return rec_b(depth - 1) + pad[0];
}

__attribute__((noipa)) static unsigned long phase_a(void)
{
	return rec_a(TORN_DEPTH);
}

__attribute__((noipa)) static unsigned long phase_b(void)
{
	return rec_b(TORN_DEPTH);
}

static int torn(double seconds)
{
	double end = cpu_seconds() + seconds;
	unsigned long sum = 0, rounds = 0;

	while (cpu_seconds() < end) {
		sum += phase_a() + phase_b();
		rounds++;
	}
	printf("torn: %lu rounds (%lu)\n", rounds, sum & 1);
	return 0;
}

static ucontext_t co_main, co_ctx;

__attribute__((noipa)) static unsigned long co_work(double seconds)
{
	double end = cpu_seconds() + seconds;
	unsigned long n = 0;

	while (cpu_seconds() < end)
		n += count_down(20000);
	return n;
}

__attribute__((noipa)) static void co_entry(void)
{
	co_work(0.5);
}

static int coroutine(void)
{
	static char stack[256 << 10] __attribute__((aligned(16)));

	if (getcontext(&co_ctx))
		return 1;
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = sizeof(stack);
	co_ctx.uc_link = &co_main;
	makecontext(&co_ctx, co_entry, 0);
	if (swapcontext(&co_main, &co_ctx))
		return 1;
	printf("coroutine: done\n");
	return 0;
}

static int blocked(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPROF);
	sigprocmask(SIG_BLOCK, &set, NULL);
	spin(0.3);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	spin(0.1);
	printf("blocked: done\n");
	return 0;
}

/* A worker of masked(): its CPU time, and its user time, into @arg. */
static void *masked_worker(void *arg)
{
	struct rusage ru;

	spin(0.4);
	*(double *)arg = cpu_seconds();
	getrusage(RUSAGE_THREAD, &ru);
	printf("masked: tid %d cpu %.6f user %.6f\n", (int)gettid(), *(double *)arg,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6);
	return NULL;
}

static int masked(void)
{
	sigset_t all, old;
	pthread_t t[2];
	double cpu[2];

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);	/* the workers inherit the mask */
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, masked_worker, &cpu[i]))
			return 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}

__attribute__((noipa)) static int sleep_a_while(bool masked)
{
	unsigned int early = 0;
	struct timespec ts;
	sigset_t all;

	sigfillset(&all);
	if (masked)
		pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (int i = 0; i < 10; i++) {
		ts = (struct timespec){ 0, 30 * 1000 * 1000 };
		while (syscall(SYS_nanosleep, &ts, &ts))
			early++;
	}
	if (masked)
		printf("sleep-masked: %u early returns\n", early);
	return masked && early;
}

#define SF_HEADER 28		/* SFrame header size (v1-v3), before the aux header */

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Adds @delta to the signed @width-byte integer at @p. */
static void add_at(uint8_t *p, size_t width, int64_t delta)
{
	int32_t v32;
	int64_t v64;

	if (width == 4) {
		memcpy(&v32, p, 4);
		v32 = (int32_t)(v32 + delta);
		memcpy(p, &v32, 4);
		return;
	}
	memcpy(&v64, p, 8);
	v64 += delta;
	memcpy(p, &v64, 8);
}

/*
 * A copy of our .sframe at another address: each FDE's function start
 * (relative to the section in v1 and v2, to the FDE's own field with PCREL
 * and in v3: either way it moves with the section) is moved back by the
 * distance; then the fixed RA offset (header byte 6) becomes -16. FDE entries
 * are 17 bytes in v1, 20 in v2, 16 in v3 (a 64-bit start); the start is first.
 */
static uint8_t *corrupt_copy(const struct code_sframe_info *s)
{
	static const size_t fde_size[4] = { 0, 17, 20, 16 }, start_width[4] = { 0, 4, 4, 8 };
	size_t len = s->sframe_end - s->sframe_start;
	uint8_t *c = malloc(len), *orig = (uint8_t *)(uintptr_t)s->sframe_start;
	uint8_t v = len >= SF_HEADER ? orig[2] : 0;
	size_t fdes;
	int64_t delta;

	if (!c || v < 1 || v > 3)
		return NULL;
	memcpy(c, orig, len);
	delta = (int64_t)(uintptr_t)orig - (int64_t)(uintptr_t)c;
	fdes = SF_HEADER + c[7] + u32_at(c + 20);
	for (uint32_t i = 0; i < u32_at(c + 8); i++)
		add_at(c + fdes + (size_t)i * fde_size[v], start_width[v], delta);
	c[6] = (uint8_t)-16;
	return c;
}

static int bad_sframe(void)
{
	struct code_sframe_info s = { 0 };
	uint8_t *copy;

	self_sframe(&s);
	copy = s.sframe_start ? corrupt_copy(&s) : NULL;
	if (!copy)
		return 1;
	s.sframe_end = (uintptr_t)copy + (s.sframe_end - s.sframe_start);
	s.sframe_start = (uintptr_t)copy;
	if (codectl(CODE_REGISTER_SFRAME, &s, sizeof(s), 0)) {
		perror("codectl");
		return 1;
	}
	printf("bad-sframe: %lu\n", recurse(5));
	return 0;
}

/* What jit_outer hands to jit_middle (in %rdi, untouched). */
struct jit_job {
	unsigned long n;
	void (*loop)(unsigned long n);
};

#define JIT_OUTER 0		/* offsets in the code page */
#define JIT_LOOP 16
#define JIT_FN_SIZE 11

static const unsigned char jit_code[] = {
	/* jit_outer(job, fn): sub $24,%rsp; call *%rsi; add $24,%rsp; ret */
	0x48, 0x83, 0xec, 0x18, 0xff, 0xd6, 0x48, 0x83, 0xc4, 0x18, 0xc3,
	0x90, 0x90, 0x90, 0x90, 0x90,
	/* jit_loop(n): push %rbp; mov %rsp,%rbp; 1: dec %rdi; jnz 1b; leave; ret */
	0x55, 0x48, 0x89, 0xe5, 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc9, 0xc3,
};

__attribute__((noipa)) static void jit_middle(struct jit_job *job)
{
	count_down(job->n);
	job->loop(job->n);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

__attribute__((noipa)) static void run_jit(void (*outer)(struct jit_job *, void *),
					   struct jit_job *job)
{
	outer(job, (void *)jit_middle);
	__asm__ volatile("" ::: "memory");
}

/* The code page's two functions: unwind tables, then the perf map. */
static int describe_jit(struct codectl_jit_tables *t, uint8_t *page)
{
	struct code_jit_unwind_fre fre[CODECTL_JIT_FP_FRES];
	char path[64];
	FILE *f;

	if (codectl_jit_add(t, fre, codectl_jit_fres_frameless(JIT_OUTER, 4, 24, 10, fre)) ||
	    codectl_jit_add(t, fre, codectl_jit_fres_fp(JIT_LOOP, 9, fre)))
		return -1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%lx %x jit_outer\nnot a perf map line\n%lx %x jit_loop\n",
		(unsigned long)(uintptr_t)page + JIT_OUTER, JIT_FN_SIZE,
		(unsigned long)(uintptr_t)page + JIT_LOOP, JIT_FN_SIZE);
	return fclose(f);
}

static int jit(void)
{
	struct jit_job job = { .n = 2000000 };
	struct codectl_jit_tables t;
	uint8_t *page;
	double end;
	int err;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	memcpy(page, jit_code, sizeof(jit_code));
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) ||
	    codectl_jit_init(&t, page, 4096, 16, 2))
		return 1;
	err = codectl_jit_register(&t);
	if (err || describe_jit(&t, page)) {
		fprintf(stderr, "jit: registration failed: %s\n", strerror(-err));
		return 1;
	}
	job.loop = (void (*)(unsigned long))(page + JIT_LOOP);
	end = cpu_seconds() + 0.6;
	while (cpu_seconds() < end)
		run_jit((void (*)(struct jit_job *, void *))(page + JIT_OUTER), &job);
	codectl_jit_destroy(&t);
	printf("jit: done\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "chaos"))
		return chaos();
	if (!strcmp(argv[1], "exec-chain"))
		return exec_chain(argv[0], argc > 2 ? atoi(argv[2]) : 100);
	if (!strcmp(argv[1], "own-prof"))
		return own_profiler();
	if (!strcmp(argv[1], "own-timer"))
		return own_timer();
	if (!strcmp(argv[1], "blocked"))
		return blocked();
	if (!strcmp(argv[1], "masked"))
		return masked();
	if (!strcmp(argv[1], "torn"))
		return torn(argc > 2 ? atof(argv[2]) : 1.0);
	if (!strcmp(argv[1], "coroutine"))
		return coroutine();
	if (!strcmp(argv[1], "sleep"))
		return sleep_a_while(false);
	if (!strcmp(argv[1], "sleep-masked"))
		return sleep_a_while(true);
	if (!strcmp(argv[1], "bad-sframe"))
		return bad_sframe();
	if (!strcmp(argv[1], "jit"))
		return jit();
	if (!strcmp(argv[1], "spin"))
		for (;;)
			count_down(1000000000ul);
	return 2;
}
