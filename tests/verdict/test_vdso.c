// SPDX-License-Identifier: GPL-2.0
/*
 * The vDSO: our walk leaves it by the frame-pointer fallback (it has no
 * SFrame), so a sample stopped there is covered by frame 0 alone and every
 * one is verified; where libunwind walks on into frames that are no code or
 * follow no call, the plausibility oracle names its walk the wrong one.
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

TestSuite(verdict, .timeout = 120);

Test(verdict, vdso)
{
	struct verdict_run v;
	size_t i, in_vdso = 0, ours_bad = 0;
	json_t *s;

	verdict_run(&v, "vdso_spin", NULL, NULL);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "vdso_spin: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (!verdict_frame0_in(s, "__vdso_clock_gettime") &&
		    !verdict_frame0_in(s, "clock_gettime"))
			continue;
		in_vdso++;
		ours_bad += verdict_class_is(s, "ours-wrong") || verdict_class_is(s, "both-wrong");
	}
	cr_assert_gt(in_vdso, 10, "%zu samples in the vDSO", in_vdso);
	cr_assert_eq(ours_bad, 0);
	cr_assert_eq(verdict_count(&v, "verified"), verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "match") + verdict_count(&v, "ended") +
		     verdict_count(&v, "astray") + verdict_count(&v, "libunwind_failed"),
		     verdict_count(&v, "total"));
	verdict_free(&v);
}
