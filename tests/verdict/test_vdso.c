// SPDX-License-Identifier: GPL-2.0
/*
 * The vDSO: our walk leaves it by the frame-pointer fallback (it has no
 * SFrame), so a sample stopped there is covered by frame 0 alone and every
 * one is verified; where libunwind walks on into frames that are no code or
 * follow no call, the plausibility oracle names its walk the wrong one.
 *
 * A sample is in the vDSO by its frame 0's object, "[vdso]": the names of
 * the vDSO's functions are the host kernel's (__vdso_clock_gettime, or an
 * unnamed local function, "[vdso+0x7fc]", on 6.18).
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

TestSuite(verdict, .timeout = 120);

/* Is @s's frame 0 in the vDSO? */
static bool in_vdso_at(json_t *s, const void *ctx)
{
	(void)ctx;
	return verdict_object_is(verdict_frame(s, false, 0), "[vdso]");
}

Test(verdict, vdso)
{
	const struct verdict_place place = { in_vdso_at, NULL, 11, "samples in the vDSO" };
	struct verdict_run v;
	size_t i, in_vdso = 0, ours_bad = 0;
	json_t *s;

	verdict_run_until(&v, "vdso_spin", NULL, NULL, &place, 1);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "vdso_spin: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (!in_vdso_at(s, NULL))
			continue;
		in_vdso++;
		ours_bad += verdict_class_is(s, "ours-wrong") || verdict_class_is(s, "both-wrong");
	}
	cr_assert_gt(in_vdso, 10, "%zu samples in the vDSO", in_vdso);
	cr_assert_eq(ours_bad, 0);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v),
	             verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "match") + verdict_count(&v, "ended") +
		     verdict_count(&v, "astray") + verdict_count(&v, "libunwind_failed"),
		     verdict_count(&v, "total"));
	verdict_free(&v);
}
