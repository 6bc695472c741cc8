// SPDX-License-Identifier: GPL-2.0
/*
 * %rbp clobbered in code nothing describes (progs/clobbered_rbp.c): while
 * clobber_spin counts down at +0x19..+0x21, %rbp points at two counters on
 * its stack, { 0x4d2, 0x3e8 }. The page is not registered, so our walk
 * leaves frame 0 by the frame-pointer fallback, outside the covered prefix
 * (frame 0 alone, which is right): frame 1 is 0x3e8, no code, and the sample
 * is astray, why not-code, never a match (libunwind guesses the same frame,
 * equally wrong). No SFrame or JIT data is wrong: every sample is verified
 * and --check passes (exit 0).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

#include "verdict_run.h"

#define CLOBBER_START 0x19	/* %rbp points at the counters */
#define CLOBBER_END 0x22	/* the pop %rbp: the counters are below %rsp */

/* Is @s's frame 0 where %rbp points at the counters? */
static bool clobbered_at(json_t *s, const void *ctx)
{
	long long off = verdict_frame0_offset(s, "clobber_spin");

	(void)ctx;
	return off >= CLOBBER_START && off < CLOBBER_END;
}

static void check_clobbered(json_t *s)
{
	json_t *ours = verdict_frame(s, false, 1);

	cr_assert(verdict_class_is(s, "astray"), "%s: %s", verdict_symbol(s, 0),
		  verdict_str(s, "class"));
	cr_assert_str_eq(verdict_str(s, "why"), "not-code");
	cr_assert_str_eq(verdict_str(s, "outcome"), "verified");
	cr_assert_eq(json_integer_value(json_object_get(s, "covered")), 1);
	cr_assert_eq(json_integer_value(json_object_get(s, "wrong_frame")), 1);
	cr_assert_eq(verdict_ip(ours), 0x3e8);
	cr_assert_str_eq(verdict_str(ours, "source"), "fp");
	cr_assert_str_eq(verdict_str(ours, "why"), "not-code");
}

Test(verdict, clobbered_rbp)
{
	const struct verdict_place place = {
		clobbered_at, NULL, 21, "samples with %rbp clobbered"
	};
	struct verdict_run v;
	size_t i, clobbered = 0, astray_elsewhere = 0;
	json_t *s;

	verdict_run_until(&v, "clobbered_rbp", NULL, NULL, &place, 1);
	verdict_remove_perf_map(&v);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "clobbered_rbp: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (clobbered_at(s, NULL)) {
			clobbered++;
			check_clobbered(s);
			continue;
		}
		astray_elsewhere += verdict_class_is(s, "astray");
	}
	cr_assert_gt(clobbered, 20, "%zu samples with %%rbp clobbered", clobbered);
	cr_assert_eq(verdict_count(&v, "astray"), (long long)(clobbered + astray_elsewhere));
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v),
	             verdict_count(&v, "total"));
	cr_assert_eq(json_integer_value(json_object_get(v.j, "check_failures")), 0);
	verdict_free(&v);
}
