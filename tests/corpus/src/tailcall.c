// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: sibling calls (tail calls compiled to jmp).
 *
 * Call graph: run -> tail_entry -> ping(8) -> pong(7) -> ping(6) -> ... ->
 * ping(0) -> tail_a -> tail_b -> tail_c -> leaf_spin, where every call after
 * tail_entry's is in tail position (tail_b also makes one short ordinary
 * call to tail_note first).  leaf_spin spins for the whole round.
 *
 * At -O2 each of those is a sibcall (the caller tears down its own frame,
 * then jmps), so the stack while spinning is only
 *	main -> run -> tail_entry -> leaf_spin
 * and leaf_spin's return address is in tail_entry.  At -O0 there are no
 * sibcalls and the stack is the whole chain (main -> run -> tail_entry ->
 * ping -> pong -> ... -> ping -> tail_a -> tail_b -> tail_c -> leaf_spin).
 * SFrame expresses both; the -O2 frames torn down just before a jmp (SP
 * back at the return address mid-function) need an FRE per epilogue step.
 */
#include <time.h>

#include "corpus.h"

/* Round lengths are off any tick multiple, so tick-driven samples do not phase-lock. */
#define RUN_NS		500000000LL	/* total run time */
#define SLICE_NS	9700000LL	/* one trip down the chain */
#define PING_PONG	8

/* Never inlined, cloned or merged: the tests match these names. */

static noipa unsigned long leaf_spin(unsigned long x, long long end)
{
	SPIN_UNTIL(end);
	return x + sink;
}

static noipa unsigned long tail_c(unsigned long x, long long end)
{
	sink += x;
	return leaf_spin(x * 3, end);
}

static noipa unsigned long tail_note(unsigned long x)
{
	return x * 7 + sink;
}

/*
 * A frame of its own, torn down before the jmp: @x and @end are live
 * across the ordinary call to tail_note, so at -O2 they sit in callee-saved
 * registers pushed in the prologue and popped just before the jmp.
 */
static noipa unsigned long tail_b(unsigned long x, long long end)
{
	unsigned long y = tail_note(x);

	return tail_c(x + y, end);
}

static noipa unsigned long tail_a(unsigned long x, long long end)
{
	sink += x;
	return tail_b(x + 1, end);
}

static noipa unsigned long pong(int n, unsigned long x, long long end);

static noipa unsigned long ping(int n, unsigned long x, long long end)
{
	if (n <= 0)
		return tail_a(x, end);
	return pong(n - 1, x + 1, end);
}

static noipa unsigned long pong(int n, unsigned long x, long long end)
{
	sink += (unsigned long)n;
	return ping(n - 1, x ^ 5, end);
}

/* Not a tail call: tail_entry stays on the stack. */
static noipa unsigned long tail_entry(long long end)
{
	unsigned long r = ping(PING_PONG, 1, end);

	return r + 1;
}

static noipa void run(void)
{
	long long t, end;

	while ((t = now_ns()) < RUN_NS) {
		end = t + SLICE_NS < RUN_NS ? t + SLICE_NS : RUN_NS;
		sink += tail_entry(end);
	}
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
