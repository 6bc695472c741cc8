// SPDX-License-Identifier: GPL-2.0
/*
 * bench/jit/jit_writer: the JIT of bench/jit, run under codectl-run.
 *
 * Maps a code area and writes FUNCTIONS small x86_64 functions into it (16
 * bytes each, alternately with a frame pointer and frameless), registers the
 * area once (CODE_REGISTER_JIT), adds every function's FREs with
 * codectl_jit_add() (tables of FRES_PER_TABLE entries, chained), calls two of
 * the functions, then unregisters.
 *
 * From just before the registration on, a seccomp filter counts the system
 * calls the writer makes: every call but those issued from one call site
 * (and rt_sigreturn) is trapped with SIGSYS, counted, and issued again from
 * that call site by the handler, with its result put back.
 *
 * Prints one line of key=value pairs on standard output.
 * Usage: jit-writer FUNCTIONS FRES_PER_TABLE [prefault]
 * (prefault: write the whole table area once before the add phase, so that
 * the add phase takes no page faults)
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <ucontext.h>

#include "codectl_jit.h"

#define FUNC_BYTES 16u

/* push %rbp; mov %rsp,%rbp; nopl 0(%rax,%rax); xchg %ax,%ax; leave; ret */
static const uint8_t fp_code[FUNC_BYTES] = {
	0x55, 0x48, 0x89, 0xe5, 0x0f, 0x1f, 0x84, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x66, 0x90, 0xc9, 0xc3,
};
#define FP_LEAVE_OFF 14u

/* sub $0x18,%rsp; nopl 0(%rax); add $0x18,%rsp; ret */
static const uint8_t frameless_code[FUNC_BYTES] = {
	0x48, 0x83, 0xec, 0x18, 0x0f, 0x1f, 0x80, 0x00,
	0x00, 0x00, 0x00, 0x48, 0x83, 0xc4, 0x18, 0xc3,
};
#define FRAMELESS_SUB_LEN 4u
#define FRAMELESS_FRAME 0x18u
#define FRAMELESS_RET_OFF 15u

/* System calls trapped by the filter (each one the writer made). */
static volatile unsigned long trapped;

extern const char jit_writer_syscall_ret[];

/* The one call site the filter lets through: seccomp sees the IP after `syscall`. */
__attribute__((noinline, noclone)) static long counted_syscall(long nr, long a, long b, long c,
							       long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall\n"
			 ".globl jit_writer_syscall_ret\n"
			 "jit_writer_syscall_ret:"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;

	(void)sig;
	trapped++;
	g[REG_RAX] = counted_syscall(si->si_syscall, g[REG_RDI], g[REG_RSI], g[REG_RDX],
				     g[REG_R10], g[REG_R8], g[REG_R9]);
}

/* Trap every x86_64 system call not made from counted_syscall(). */
static int count_syscalls(void)
{
	uint64_t ip = (uintptr_t)jit_writer_syscall_ret;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 6),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigreturn, 4, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, instruction_pointer)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)ip, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, instruction_pointer) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(ip >> 32), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };

	if (sigaction(SIGSYS, &sa, NULL) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void emit_code(uint8_t *code, unsigned long nfuncs)
{
	for (unsigned long i = 0; i < nfuncs; i++)
		memcpy(code + i * FUNC_BYTES, i & 1 ? frameless_code : fp_code, FUNC_BYTES);
}

/* Add the FREs of every function; returns the entries added, 0 on error. */
static unsigned long add_functions(struct codectl_jit_tables *t, unsigned long nfuncs)
{
	struct code_jit_unwind_fre fre[CODECTL_JIT_FP_FRES];
	unsigned long entries = 0;

	for (unsigned long i = 0; i < nfuncs; i++) {
		uint32_t off = (uint32_t)(i * FUNC_BYTES);
		unsigned int n = i & 1 ?
			codectl_jit_fres_frameless(off, FRAMELESS_SUB_LEN, FRAMELESS_FRAME,
						   FRAMELESS_RET_OFF, fre) :
			codectl_jit_fres_fp(off, FP_LEAVE_OFF, fre);

		if (codectl_jit_add(t, fre, n))
			return 0;
		entries += n;
	}
	return entries;
}

static unsigned int count_tables(const struct codectl_jit_tables *t)
{
	const struct code_jit_unwind_table *tab = t->head;
	unsigned int n = 0;

	for (; tab; tab = (const struct code_jit_unwind_table *)(uintptr_t)tab->next)
		n++;
	return n;
}

/* What one run measured. */
struct run {
	unsigned long nfuncs, entries;
	unsigned int ntables;
	int reg, unreg;
	double add_ns;
	long add_faults;
	unsigned long sys_reg, sys_add, sys_unreg;
};

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* The add phase: timed, its page faults and system calls counted. */
static void add_phase(struct run *r, struct codectl_jit_tables *t)
{
	long faults = minor_faults();
	unsigned long sys = trapped;
	double t0 = now_ns();

	r->entries = add_functions(t, r->nfuncs);
	r->add_ns = now_ns() - t0;
	r->sys_add = trapped - sys;
	r->add_faults = minor_faults() - faults;
}

/* Register, add, call two functions, unregister: system calls counted from here. */
static int measure(struct run *r, struct codectl_jit_tables *t, uint8_t *code)
{
	unsigned long sys;

	if (count_syscalls())
		return -1;
	sys = trapped;
	r->reg = codectl_jit_register(t);
	r->sys_reg = trapped - sys;
	add_phase(r, t);
	((void (*)(void))code)();			/* the code is real */
	((void (*)(void))(code + FUNC_BYTES))();
	r->ntables = count_tables(t);
	sys = trapped;
	r->unreg = codectl_jit_destroy(t);
	r->sys_unreg = trapped - sys;
	return 0;
}

static uint8_t *setup(struct codectl_jit_tables *t, unsigned long nfuncs, size_t per_table,
		      int prefault)
{
	size_t fit = per_table - CODECTL_JIT_FP_FRES + 1;	/* entries a table surely takes */
	size_t max_tables = nfuncs * CODECTL_JIT_FP_FRES / fit + 1;
	uint8_t *code = mmap(NULL, nfuncs * FUNC_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (code == MAP_FAILED ||
	    codectl_jit_init(t, code, nfuncs * FUNC_BYTES, per_table, max_tables))
		return NULL;
	if (prefault)	/* everything past the head table's header */
		memset(t->head + 1, 0, t->area_len - sizeof(*t->head));
	emit_code(code, nfuncs);
	return code;
}

int main(int argc, char **argv)
{
	struct run r = { .nfuncs = argc > 2 ? strtoul(argv[1], NULL, 0) : 0 };
	size_t per_table = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	int prefault = argc > 3 && !strcmp(argv[3], "prefault");
	struct codectl_jit_tables t;
	uint8_t *code;

	if (!r.nfuncs || r.nfuncs > UINT32_MAX / FUNC_BYTES || per_table < CODECTL_JIT_FP_FRES) {
		fprintf(stderr, "usage: jit-writer FUNCTIONS FRES_PER_TABLE (>= 4) [prefault]\n");
		return 2;
	}
	code = setup(&t, r.nfuncs, per_table, prefault);
	if (!code || measure(&r, &t, code)) {
		perror("jit-writer");
		return 1;
	}
	printf("jit-writer: functions=%lu entries=%lu tables=%u add_ns=%.0f add_faults=%ld "
	       "register=%d unregister=%d syscalls_register=%lu syscalls_add=%lu "
	       "syscalls_unregister=%lu\n", r.entries ? r.nfuncs : 0, r.entries, r.ntables,
	       r.add_ns, r.add_faults, r.reg, r.unreg, r.sys_reg, r.sys_add, r.sys_unreg);
	return r.entries && !r.reg && !r.unreg ? 0 : 1;
}
