// SPDX-License-Identifier: GPL-2.0
/*
 * Two libraries of one file name from two directories, without SFrame
 * (progs/same_name_libs.c: same-a/libsame.so and same-b/libsame.so). A
 * sample in either has frame 0 alone covered; its reason names the file by
 * its path, "no .sframe in VERDICT_DIR/same-a/libsame.so: frame-pointer
 * fallback" (before: "no .sframe in libsame.so" for both), and so does
 * the place list; frame 0's "object" in the JSON is that path.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "verdict_run.h"

#define LIB_A VERDICT_DIR "/same-a/libsame.so"
#define LIB_B VERDICT_DIR "/same-b/libsame.so"
#define REASON(lib) "no .sframe in " lib ": frame-pointer fallback"

/* @s, in the library run_a or run_b called, holds the path @lib. */
static void check_in(json_t *s, const char *lib, const char *reason)
{
	cr_assert_str_eq(verdict_str(verdict_frame(s, false, 0), "object"), lib, "%s",
			 json_dumps(s, 0));
	cr_assert_eq(verdict_covered(s), 1, "%s", json_dumps(s, 0));
	cr_assert_str_eq(verdict_str(s, "reason"), reason, "%s", json_dumps(s, 0));
}

Test(verdict, same_name_libs)
{
	const struct verdict_place places[] = {
		{ verdict_through, "run_a", 10, "samples under run_a" },
		{ verdict_through, "run_b", 10, "samples under run_b" },
	};
	struct verdict_run v;
	size_t i, n_a = 0, n_b = 0, places_a = 0, places_b = 0;
	json_t *s;

	verdict_run_until(&v, "same_name_libs", NULL, NULL, places, 2);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "same_name_libs: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		bool spin = verdict_frame0_in(s, "reason_inner") || verdict_frame0_in(s, "reason_spin");

		if (spin && verdict_through(s, "run_a")) {
			check_in(s, LIB_A, REASON(LIB_A));
			n_a++;
		} else if (spin && verdict_through(s, "run_b")) {
			check_in(s, LIB_B, REASON(LIB_B));
			n_b++;
		}
		/* each sample of either reason (in a constructor too) is its place's */
		places_a += verdict_is(s, "reason", REASON(LIB_A));
		places_b += verdict_is(s, "reason", REASON(LIB_B));
	}
	cr_assert_geq(n_a, 10, "%zu samples in same-a/libsame.so", n_a);
	cr_assert_geq(n_b, 10, "%zu samples in same-b/libsame.so", n_b);
	cr_assert_eq(verdict_place_samples(&v, REASON(LIB_A)), (long long)places_a);
	cr_assert_eq(verdict_place_samples(&v, REASON(LIB_B)), (long long)places_b);
	verdict_free(&v);
}
