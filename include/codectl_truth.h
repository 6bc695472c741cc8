/* SPDX-License-Identifier: MIT */
/*
 * A program that knows its own stack: each thread's chain of return
 * addresses, kept by -finstrument-functions hooks in a table at a known
 * symbol, codectl_truth. codectl-run reads the stopped thread's chain at
 * every sample (see codectl-run(1), "Truth") and reports it beside the
 * walks, so tests can hold every walk to the truth frame by frame instead of
 * to another unwinder.
 *
 * Build the program with -finstrument-functions -fno-inline (the hooks of a
 * function inlined into another would count a frame that does not exist)
 * and define the runtime in exactly one of the files of its executable
 * (codectl-run looks for the table in the executable's symbols only; the
 * hooks are not instrumented themselves):
 *
 *	#define CODECTL_TRUTH_RUNTIME
 *	#include <codectl_truth.h>
 *
 * What the chain holds: for every instrumented function running on the
 * thread, outermost first, the return address into its caller (the
 * call_site the hooks are given), pushed when the function's entry hook has
 * run and popped by its exit hook. A function in its prologue (before the
 * entry hook) or epilogue (after the exit hook) is not in it, nor is code
 * that was not instrumented (libc, the vDSO). A signal handler's entry is
 * the signal trampoline's address: the kernel's return address.
 *
 * Frames abandoned without their exit hook (longjmp, an exception, a thread
 * cancelled) are dropped at the next hook: an entry hook drops the entries
 * made at or below its own place on the stack (each entry keeps where it was
 * made), an exit hook the entries above the exiting function's. So the chain
 * assumes one stack per thread (a handler on a sigaltstack above the
 * thread's stack would drop the frames it interrupted).
 *
 * A reader stopping the thread at any instruction sees a consistent chain:
 * an address is stored before @depth counts it, and @depth is lowered
 * before its slot is reused.
 */
#ifndef CODECTL_TRUTH_H
#define CODECTL_TRUTH_H

#include <stdint.h>

#define CODECTL_TRUTH_MAGIC	0x68747572u	/* "ruth" */
#define CODECTL_TRUTH_THREADS	64	/* threads with a chain at once */
#define CODECTL_TRUTH_DEPTH	1024	/* return addresses kept per thread */

/**
 * struct codectl_truth_chain - one thread's chain
 * @depth: instrumented functions running (may exceed CODECTL_TRUTH_DEPTH:
 *	the deeper ones are counted, not kept)
 * @site: their return addresses, outermost first; entries below
 *	min(@depth, CODECTL_TRUTH_DEPTH) are valid
 * @frame: the runtime's own: where on the stack each entry was made
 */
struct codectl_truth_chain {
	uint32_t depth;
	uint32_t pad;
	uint64_t site[CODECTL_TRUTH_DEPTH];
	uint64_t frame[CODECTL_TRUTH_DEPTH];
};

/**
 * struct codectl_truth - the table, at symbol "codectl_truth"
 * @magic: CODECTL_TRUTH_MAGIC once the first hook ran
 * @tid: the thread owning each chain (0: free); a thread takes, at its first
 *	hook, the slot of an exited thread with its id, else a free slot, else
 *	the slot of a thread that has exited
 * @chain: the chains
 */
struct codectl_truth {
	uint32_t magic;
	int32_t tid[CODECTL_TRUTH_THREADS];
	struct codectl_truth_chain chain[CODECTL_TRUTH_THREADS];
};

#ifdef CODECTL_TRUTH_RUNTIME
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

/* syscall() in strict ISO C: as in codectl.h */
#if !defined(__cplusplus) && !defined(__USE_MISC) && !defined(CODECTL_SYSCALL_DECLARED)
#define CODECTL_SYSCALL_DECLARED
extern long syscall(long number, ...);
#endif

#define CODECTL_TRUTH_NOINST __attribute__((no_instrument_function))

#ifdef __cplusplus
extern "C" {	/* the hooks' names are the compiler's */
#endif

struct codectl_truth codectl_truth __attribute__((visibility("default"), used));
static __thread struct codectl_truth_chain *codectl_truth_self;

/* Take slot @i from its owner @old (0: free) for @tid. */
CODECTL_TRUTH_NOINST static int codectl_truth_take(int i, int32_t old, int32_t tid)
{
	return __atomic_compare_exchange_n(&codectl_truth.tid[i], &old, tid, 0, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}

/* A slot for @tid: its own (an exited thread's with its id), a free one, a dead thread's. */
CODECTL_TRUTH_NOINST static int codectl_truth_slot(int32_t tid)
{
	int32_t t;
	int i;

	for (i = 0; i < CODECTL_TRUTH_THREADS; i++)
		if (__atomic_load_n(&codectl_truth.tid[i], __ATOMIC_RELAXED) == tid)
			return i;
	for (i = 0; i < CODECTL_TRUTH_THREADS; i++)
		if (codectl_truth_take(i, 0, tid))
			return i;
	for (i = 0; i < CODECTL_TRUTH_THREADS; i++) {
		t = __atomic_load_n(&codectl_truth.tid[i], __ATOMIC_RELAXED);
		if (syscall(SYS_tgkill, getpid(), t, 0) && codectl_truth_take(i, t, tid))
			return i;
	}
	return -1;
}

/* This thread's chain, or NULL when every slot is taken by a live thread. */
CODECTL_TRUTH_NOINST static struct codectl_truth_chain *codectl_truth_chain(void)
{
	int i;

	if (codectl_truth_self)
		return codectl_truth_self;
	i = codectl_truth_slot((int32_t)syscall(SYS_gettid));
	if (i < 0)
		return NULL;
	codectl_truth.chain[i].depth = 0;
	__atomic_store_n(&codectl_truth.magic, CODECTL_TRUTH_MAGIC, __ATOMIC_RELEASE);
	codectl_truth_self = &codectl_truth.chain[i];
	return codectl_truth_self;
}

/*
 * Drop the entries made at or below stack address @here: their frames are
 * gone (entries deeper than CODECTL_TRUTH_DEPTH, not kept, cannot be told).
 */
CODECTL_TRUTH_NOINST static void codectl_truth_drop(struct codectl_truth_chain *c, uint64_t here)
{
	uint32_t d = c->depth;

	while (d && d <= CODECTL_TRUTH_DEPTH && c->frame[d - 1] <= here)
		d--;
	c->depth = d;
}

CODECTL_TRUTH_NOINST __attribute__((visibility("default")))
void __cyg_profile_func_enter(void *fn, void *call_site)
{
	struct codectl_truth_chain *c = codectl_truth_chain();
	uint64_t here = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	uint32_t d;

	(void)fn;
	if (!c)
		return;
	codectl_truth_drop(c, here);
	d = c->depth;
	if (d < CODECTL_TRUTH_DEPTH) {
		c->site[d] = (uint64_t)(uintptr_t)call_site;
		c->frame[d] = here;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* the address, then the count */
	c->depth = d + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* a signal handler between the two stores used the slot: ours again */
	if (d < CODECTL_TRUTH_DEPTH) {
		c->site[d] = (uint64_t)(uintptr_t)call_site;
		c->frame[d] = here;
	}
}

/*
 * The exiting function's entry is the innermost with its return address:
 * it goes, with every entry above it (frames abandoned since).
 */
CODECTL_TRUTH_NOINST __attribute__((visibility("default")))
void __cyg_profile_func_exit(void *fn, void *call_site)
{
	struct codectl_truth_chain *c = codectl_truth_self;
	uint32_t d;

	(void)fn;
	if (!c || !c->depth)
		return;
	if (c->depth > CODECTL_TRUTH_DEPTH) {
		c->depth--;
		return;
	}
	for (d = c->depth; d && c->site[d - 1] != (uint64_t)(uintptr_t)call_site; d--)
		;
	if (d)
		c->depth = d - 1;
}
#ifdef __cplusplus
}
#endif
#endif /* CODECTL_TRUTH_RUNTIME */

#endif /* CODECTL_TRUTH_H */
