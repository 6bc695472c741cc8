// SPDX-License-Identifier: GPL-2.0
/*
 * A code cache with its own SFrame section (progs/anon_sframe_cache.c):
 * anonymous executable code registered with CODE_REGISTER_SFRAME, which
 * libunwind and elfutils have no unwind information for.
 *
 *  - cache_fp_spin's loop (+0x4..+0x9, %rbp its own frame): libunwind's
 *    frame-chain guess gives run_cache, as our SFrame step does; the walks
 *    agree up to libc, where ours ends (libc has no .sframe): ended (or
 *    astray past __libc_start_call_main, where the fallback finds what
 *    %rbp holds there: verdict_ended_in_libc()).
 *  - cache_leaf (no frame pointer; %rbp is still cache_outer's frame):
 *    libunwind's guess skips cache_outer and gives run_cache as frame 1;
 *    ours is cache_outer+0x9 (SFrame), plausible (a direct call to
 *    cache_leaf, the function the perf map names). libunwind's frame is a
 *    guess and only "unknown" (run_cache calls through a pointer), so it is
 *    no opinion: blind-reference, verified, and --check passes. Before blind
 *    references were told apart, elfutils guessed the same frame, sided with
 *    libunwind, and such samples made --check fail.
 *  - a cache function's entry or exit (%rbp still its caller's; rare):
 *    the guess skips a frame our SFrame step has, blind-reference too.
 * Every sample is verified, none diverged, --check exits 0, with libunwind
 * 1.6 (Debian 12) and 1.8 (Debian 13, sid) alike.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

#include "verdict_run.h"

#define FP_LOOP_START 0x4	/* after mov %rsp,%rbp */
#define FP_LOOP_END 0xa		/* the ret, after pop %rbp */

/* Is @s's frame 0 in cache_fp_spin's loop? */
static bool in_fp_loop(json_t *s, const void *ctx)
{
	long long off = verdict_frame0_offset(s, "cache_fp_spin");

	(void)ctx;
	return off >= FP_LOOP_START && off < FP_LOOP_END;
}

/* In cache_fp_spin's body: the guess is right; the walks part in libc. */
static void check_fp_loop(json_t *s)
{
	json_t *ours = verdict_frame(s, false, 1), *ref = verdict_frame(s, true, 1);

	cr_assert(verdict_ended_in_libc(s) && verdict_is(s, "outcome", "verified"),
		  "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(ours, "run_cache") && verdict_source_is(ours, "sframe") &&
		  verdict_ip(ours) == verdict_ip(ref), "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(verdict_frame(s, false, verdict_covered(s) - 1),
				 "__libc_start_call_main") &&
		  json_integer_value(json_object_get(s, "first_difference")) == verdict_covered(s),
		  "%s", json_dumps(s, 0));
}

/* In cache_leaf: libunwind guessed run_cache where ours has cache_outer. */
static void check_leaf(json_t *s)
{
	json_t *outer = verdict_frame(s, false, 1), *caller = verdict_frame(s, false, 2);
	json_t *guess = verdict_frame(s, true, 1);

	cr_assert(verdict_class_is(s, "blind-reference") && verdict_is(s, "outcome", "verified"),
		  "%s", json_dumps(s, 0));
	cr_assert_eq(json_integer_value(json_object_get(s, "first_difference")), 1,
		     "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_is(outer, "cache_outer+0x9") && verdict_source_is(outer, "sframe") &&
		  verdict_plausible(outer), "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(caller, "run_cache") && verdict_source_is(caller, "sframe") &&
		  verdict_ip(guess) == verdict_ip(caller) && !verdict_implausible(guess),
		  "%s", json_dumps(s, 0));
	cr_assert_geq(verdict_covered(s), 3, "%s", json_dumps(s, 0));
}

Test(verdict, anon_sframe_cache)
{
	static const struct verdict_place places[] = {
		{ in_fp_loop, NULL, 21, "samples in cache_fp_spin's loop" },
		{ verdict_in_function, "cache_leaf", 21, "samples in cache_leaf" },
	};
	struct verdict_run v;
	size_t i, fp_loop = 0, leaf = 0, edge_blind = 0;
	json_t *s;

	verdict_run_until(&v, "anon_sframe_cache", NULL, NULL, places, 2);
	verdict_remove_perf_map(&v);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "anon_sframe_cache: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (verdict_system_skip(s))
			continue;
		cr_assert(verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
		if (in_fp_loop(s, NULL)) {
			fp_loop++;
			check_fp_loop(s);
		} else if (verdict_frame0_in(s, "cache_leaf")) {
			leaf++;
			check_leaf(s);
		} else if (verdict_frame0_offset(s, "cache_fp_spin") >= 0 ||
			   verdict_frame0_in(s, "cache_outer")) {
			/*
			 * the entry or exit of a cache function with a frame
			 * pointer (a few cycles of a call that spins a million
			 * iterations): %rbp is still its caller's, the guess
			 * skips a frame that our SFrame step has
			 */
			edge_blind += verdict_class_is(s, "blind-reference");
		} else {
			cr_assert(!verdict_class_is(s, "blind-reference"), "%s", json_dumps(s, 0));
		}
	}
	cr_assert_gt(fp_loop, 20, "%zu samples in cache_fp_spin's loop", fp_loop);
	cr_assert_gt(leaf, 20, "%zu samples in cache_leaf", leaf);
	cr_assert_leq(edge_blind, leaf / 20, "%zu blind at the cache functions' edges", edge_blind);
	cr_assert_eq(verdict_count(&v, "blind_reference"), (long long)(leaf + edge_blind));
	cr_assert_geq(verdict_count(&v, "ended") + verdict_count(&v, "astray"), (long long)fp_loop);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v),
		     verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "diverged"), 0);
	cr_assert_eq(json_integer_value(json_object_get(v.j, "check_failures")), 0);
	verdict_free(&v);
}
