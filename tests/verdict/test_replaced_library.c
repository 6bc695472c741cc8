// SPDX-License-Identifier: GPL-2.0
/*
 * A library replaced at the same base (progs/replaced_library.c): A is
 * dlclosed and B, of the same layout but with another lib_loop frame,
 * dlopened where A was (the program says so). Run with the loader module,
 * which registers B's .sframe at the dlopen.
 *
 *	main -> run_a -> lib_spin (A) -> lib_loop (A)
 *	main -> run_b -> lib_spin (B) -> lib_loop (B)
 *
 * libunwind starts over when the mappings change, so it reads B's CFI for
 * B's code: every sample in either library is the same walk for both
 * unwinders up to libc, where ours ends (no .sframe): ended (or astray past
 * __libc_start_call_main: verdict_ended_in_libc()), never diverged
 * nor libunwind-failed, and --check passes (exit 0). With the image kept
 * from A (before the fix), A's CFI over B's lib_loop found the copies of
 * its return address B keeps in its frame: lib_spin five times, diverged,
 * elfutils (stale too) on libunwind's side, and --check failed.
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

/* A sample in a library: lib_loop -> lib_spin -> run_X -> main, the same for libunwind. */
static void check_lib_sample(json_t *s, const char *runner)
{
	size_t k, spin = verdict_frame0_in(s, "lib_loop") ? 1 : 0;

	cr_assert(verdict_ended_in_libc(s) && verdict_is(s, "outcome", "verified"),
		  "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(verdict_frame(s, false, spin + 1), runner) &&
		  verdict_sym_in(verdict_frame(s, false, spin + 2), "main"), "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(verdict_frame(s, false, verdict_covered(s) - 1),
				 "__libc_start_call_main") &&
		  verdict_frames(s, true) > (size_t)verdict_covered(s), "%s", json_dumps(s, 0));
	for (k = 0; k < (size_t)verdict_covered(s); k++)
		cr_assert_eq(verdict_ip(verdict_frame(s, false, k)),
			     verdict_ip(verdict_frame(s, true, k)), "frame %zu: %s", k, json_dumps(s, 0));
}

/* Is @s's frame 0 in a library, lib_loop or lib_spin? */
static bool in_library(json_t *s)
{
	return verdict_frame0_in(s, "lib_loop") || verdict_frame0_in(s, "lib_spin");
}

/* Was @s's library called by run_a? */
static bool from_run_a(json_t *s)
{
	return verdict_sym_in(verdict_frame(s, false, 2), "run_a") ||
	       verdict_sym_in(verdict_frame(s, false, 1), "run_a");
}

/* Is @s a sample in A? */
static bool in_lib_a(json_t *s, const void *ctx)
{
	(void)ctx;
	return in_library(s) && from_run_a(s);
}

/* Is @s a sample in B? */
static bool in_lib_b(json_t *s, const void *ctx)
{
	(void)ctx;
	return in_library(s) && !from_run_a(s);
}

Test(verdict, replaced_library)
{
	static const struct verdict_place places[] = {
		{ in_lib_a, NULL, 21, "samples in A" },
		{ in_lib_b, NULL, 21, "samples in B" },
	};
	struct verdict_run v;
	size_t i, in_a = 0, in_b = 0;
	json_t *s;

	verdict_run_until(&v, "replaced_library", NULL, NULL, places, 2);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "replaced_library: B loaded at A's base\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (verdict_system_skip(s))
			continue;
		cr_assert(verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
		if (in_lib_a(s, NULL)) {
			in_a++;
			check_lib_sample(s, "run_a");
		} else if (in_lib_b(s, NULL)) {
			in_b++;
			check_lib_sample(s, "run_b");
		}
	}
	cr_assert_gt(in_a, 20, "%zu samples in A", in_a);
	cr_assert_gt(in_b, 20, "%zu samples in B", in_b);
	cr_assert_geq(verdict_count(&v, "ended") + verdict_count(&v, "astray"),
		      (long long)(in_a + in_b));
	cr_assert_eq(verdict_count(&v, "diverged"), 0);
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v),
		     verdict_count(&v, "total"));
	cr_assert_eq(json_integer_value(json_object_get(v.j, "check_failures")), 0);
	verdict_free(&v);
}
