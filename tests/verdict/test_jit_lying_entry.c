// SPDX-License-Identifier: GPL-2.0
/*
 * A JIT table entry that lies (progs/jit_lying_entry.c): while jit_spin
 * counts down at +0x0d..+0x12, %rbp points at a JIT frame whose second word
 * is 0x3e8, and the entry says "CFA = FP + 16, RA at CFA - 8". Our JIT step
 * reads RA 0x3e8, and libunwind, which cannot read JIT tables, guesses with
 * the frame pointer and reads the same word: both walks have frame 1 at
 * 0x3e8, no code, so such a sample is both-wrong, its wrong frame 1,
 * not-code, and --check fails (exit 3). Before the plausibility oracle the
 * two walks agreed and these samples were matches. Anywhere else (jit_spin's
 * prologue and epilogue, where the entries are true, and the C caller) every
 * sample is verified.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

#include "verdict_run.h"

#define LIE_START 0x0d		/* %rbp moved to the JIT frame */
#define LIE_END 0x13		/* the leave, %rbp back at the frame record */

/* Is @s's frame 0 where the entry lies? */
static bool lie_at(json_t *s, const void *ctx)
{
	long long off = verdict_frame0_offset(s, "jit_spin");

	(void)ctx;
	return off >= LIE_START && off < LIE_END;
}

static void check_lie(json_t *s)
{
	json_t *ours = verdict_frame(s, false, 1), *ref = verdict_frame(s, true, 1);

	cr_assert(verdict_class_is(s, "both-wrong"), "%s: %s", verdict_symbol(s, 0),
		  verdict_str(s, "class"));
	cr_assert_str_eq(verdict_str(s, "why"), "not-code");
	cr_assert_eq(json_integer_value(json_object_get(s, "wrong_frame")), 1);
	cr_assert_eq(verdict_ip(ours), 0x3e8);
	cr_assert_str_eq(verdict_str(ours, "source"), "jit");
	cr_assert_str_eq(verdict_str(ours, "why"), "not-code");
	cr_assert_eq(verdict_ip(ref), 0x3e8);
	cr_assert_str_eq(verdict_str(ref, "why"), "not-code");
}

Test(verdict, jit_lying_entry)
{
	const struct verdict_place place = { lie_at, NULL, 21, "samples in the lie" };
	struct verdict_run v;
	size_t i, in_lie = 0;
	json_t *s;

	verdict_run_until(&v, "jit_lying_entry", NULL, NULL, &place, 1);
	verdict_remove_perf_map(&v);
	cr_assert_eq(v.r.status, 3, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "jit_lying_entry: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (lie_at(s, NULL)) {
			in_lie++;
			check_lie(s);
		} else {
			cr_assert(verdict_system_skip(s) || verdict_is(s, "outcome", "verified"),
				  "%s", json_dumps(s, 0));
		}
	}
	cr_assert_gt(in_lie, 20, "%zu samples in the lie", in_lie);
	cr_assert_eq(verdict_count(&v, "both_wrong"), (long long)in_lie);
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v) + (long long)in_lie,
		     verdict_count(&v, "total"));
	cr_assert_eq(json_integer_value(json_object_get(v.j, "check_failures")), (long long)in_lie);
	verdict_free(&v);
}
