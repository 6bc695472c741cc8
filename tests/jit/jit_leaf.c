// SPDX-License-Identifier: GPL-2.0
/*
 * The C ends of the example JIT's chains, compiled with .sframe
 * (-Wa,--gsframe, -O2, no frame pointer unless asked): the entries call a
 * chain's outermost JIT function, the innermost JIT function calls a leaf.
 * jit-check matches these by name: none of them may be inlined, cloned
 * (renamed) or end in a tail call, and the leaves call nothing but
 * themselves, so that a sample inside a leaf has only leaf frames above the
 * innermost JIT frame.
 */
#include <time.h>

#include "jit_gen.h"

/* The spin: no call, so frame 0 stays in the leaf. */
static inline __attribute__((always_inline)) void spin(struct jit_run *r)
{
	uint64_t x = r->sink | 1;

	for (uint64_t i = 0; i < r->spin; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	r->sink = x;
}

/*
 * A run that is held: say so (a plain store) and spin until released. Lets
 * another thread act while this one is certainly inside a chain.
 */
static inline __attribute__((always_inline)) void hold(struct jit_run *r)
{
	if (!__atomic_load_n(&r->hold, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&r->in_leaf, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&r->hold, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

/* Leaf: spins. */
__attribute__((noipa)) void jit_leaf_spin(struct jit_run *r)
{
	hold(r);
	spin(r);
}

/* Leaf: recurses r->depth_left deep, then spins (not a tail call: it restores the count). */
__attribute__((noipa)) void jit_leaf_recurse(struct jit_run *r)
{
	if (r->depth_left) {
		r->depth_left--;
		jit_leaf_recurse(r);
		__asm__ volatile("" ::: "memory");
		r->depth_left++;
		return;
	}
	hold(r);
	spin(r);
}

/* Entry: calls the chain, counts the run after it returns. */
__attribute__((noipa)) void jit_entry_plain(struct jit_run *r)
{
	r->fn(r);
	__asm__ volatile("" ::: "memory");
	r->runs++;
}

/* Entry with a frame of its own (a local array the chain cannot see). */
__attribute__((noipa)) void jit_entry_frame(struct jit_run *r)
{
	volatile uint64_t pad[24];

	pad[0] = r->runs;
	pad[23] = 1;
	r->fn(r);
	r->runs = pad[0] + pad[23];
}

/* Entry with a frame pointer. */
__attribute__((noipa, optimize("no-omit-frame-pointer"))) void jit_entry_fp(struct jit_run *r)
{
	r->fn(r);
	__asm__ volatile("" ::: "memory");
	r->runs++;
}

const struct jit_callee jit_entries[JIT_NENTRIES] = {
	{ "jit_entry_plain", jit_entry_plain },
	{ "jit_entry_frame", jit_entry_frame },
	{ "jit_entry_fp", jit_entry_fp },
};

const struct jit_callee jit_leaves[JIT_NLEAVES] = {
	{ "jit_leaf_spin", jit_leaf_spin },
	{ "jit_leaf_recurse", jit_leaf_recurse },
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

double jit_spin_per_us(void)
{
	struct jit_run r = { .spin = 2000000 };
	double best = 0;

	/* the fastest of three: another process may have had the CPU */
	for (int i = 0; i < 3; i++) {
		double t0 = now_us(), dt;

		spin(&r);
		dt = now_us() - t0;
		if (dt > 0 && (double)r.spin / dt > best)
			best = (double)r.spin / dt;
	}
	return best > 0 ? best : 1000;
}
