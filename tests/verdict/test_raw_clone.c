// SPDX-License-Identifier: GPL-2.0
/*
 * A thread made by the raw clone system call on a zeroed stack:
 * thread_spin -> raw_clone, then a return address of 0.
 *
 * Our walk steps out of thread_spin by SFrame to raw_clone (the return
 * address after the child's "call" in its inline assembly), whose row,
 * the parent's, reads the next return address from the zeroed stack: 0,
 * and the walk ends there (stop "ra-zero"). The row is not marked outermost,
 * but that is no finding unless libunwind goes on with a plausible frame,
 * and it does not:
 *  - libunwind 1.6 (Debian 12) gives one more frame, IP 0, which is no code:
 *    libunwind-failed, "why": "not-code";
 *  - libunwind 1.8 (Debian 13, sid) ends at raw_clone too: match.
 * Which one applies is told by the libunwind codectl-run is built with (its
 * header's version). Either way every sample in thread_spin is verified,
 * never ours-wrong, and --check passes.
 */
#include <criterion/criterion.h>
#include <libunwind.h>

#include "verdict_run.h"

#define LIBUNWIND_ENDS_AT_RA_ZERO (UNW_VERSION >= UNW_VERSION_CODE(1, 8))

static void check_thread_sample(json_t *s)
{
	json_t *clone_frame = verdict_frame(s, false, 1);

	cr_assert_eq(verdict_frames(s, false), 2, "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(clone_frame, "raw_clone") && verdict_source_is(clone_frame, "sframe") &&
		  !verdict_implausible(clone_frame), "%s", json_dumps(s, 0));
	cr_assert(verdict_is(s, "stop", "ra-zero") && verdict_covered(s) == 2 &&
		  verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
	if (LIBUNWIND_ENDS_AT_RA_ZERO) {
		cr_assert(verdict_is(s, "class", "match"), "%s", json_dumps(s, 0));
		return;
	}
	cr_assert(verdict_is(s, "class", "libunwind-failed") && verdict_is(s, "why", "not-code") &&
		  verdict_frames(s, true) == 3 && verdict_is(verdict_frame(s, true, 2), "ip", "0x0"),
		  "%s", json_dumps(s, 0));
}

Test(verdict, raw_clone)
{
	const struct verdict_place place = { verdict_in_function, "thread_spin", 21,
					     "samples in thread_spin" };
	struct verdict_run v;
	size_t i, in_thread = 0;
	json_t *s;

	verdict_run_until(&v, "raw_clone", NULL, NULL, &place, 1);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "raw_clone: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (!verdict_frame0_in(s, "thread_spin"))
			continue;
		in_thread++;
		check_thread_sample(s);
	}
	cr_assert_gt(in_thread, 20, "%zu samples in thread_spin", in_thread);
	cr_assert_geq(verdict_count(&v, LIBUNWIND_ENDS_AT_RA_ZERO ? "match" : "libunwind_failed"),
		      (long long)in_thread);
	/* a walk that read another stack (the parent's) did so late: past-copy, not judged */
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v),
		     verdict_count(&v, "total") - verdict_count(&v, "past_copy"));
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	/* a divergence is judged by elfutils: on our side (verified) or past the copy */
	json_array_foreach(verdict_stacks(&v), i, s)
		cr_assert(!verdict_class_is(s, "diverged") || verdict_is(s, "outcome", "past-copy") ||
			  verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
	verdict_free(&v);
}
