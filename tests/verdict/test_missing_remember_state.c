// SPDX-License-Identifier: GPL-2.0
/*
 * An early return without .cfi_remember_state/.cfi_restore_state
 * (progs/missing_remember_state.c): while spin_early_return counts down at
 * +0x8..+0xd, %rbx (0xb2d05e00) is pushed but the rows, left over from the
 * early return's epilogue, say CFA = %rsp + 8. Our SFrame step reads RA
 * 0xb2d05e00, the saved %rbx, no code, in the covered prefix; libunwind reads
 * the same rows from .eh_frame: both-wrong, wrong frame 1, not-code. Every
 * other sample (the rows before the early return are true, and so is the
 * last ret's) is verified; --check fails (exit 3).
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

#define STALE_START 0x8		/* after the early return (missing_remember_state-asm.S) */
#define STALE_END 0xe		/* the last ret: %rbx popped, CFA = %rsp + 8 is true */

/* Is @s's frame 0 under the stale rows? */
static bool stale_at(json_t *s, const void *ctx)
{
	long long off = verdict_frame0_offset(s, "spin_early_return");

	(void)ctx;
	return off >= STALE_START && off < STALE_END;
}

static void check_stale(json_t *s)
{
	json_t *ours = verdict_frame(s, false, 1), *ref = verdict_frame(s, true, 1);

	cr_assert(verdict_class_is(s, "both-wrong"), "%s: %s", verdict_symbol(s, 0),
		  verdict_str(s, "class"));
	cr_assert_str_eq(verdict_str(s, "why"), "not-code");
	cr_assert_eq(json_integer_value(json_object_get(s, "wrong_frame")), 1);
	cr_assert_eq(verdict_ip(ours), 0xb2d05e00);
	cr_assert_str_eq(verdict_str(ours, "source"), "sframe");
	cr_assert_str_eq(verdict_str(ours, "why"), "not-code");
	cr_assert_eq(verdict_ip(ref), 0xb2d05e00);
}

Test(verdict, missing_remember_state)
{
	const struct verdict_place place = { stale_at, NULL, 21, "samples under the stale rows" };
	struct verdict_run v;
	size_t i, stale = 0;
	json_t *s;

	verdict_run_until(&v, "missing_remember_state", NULL, NULL, &place, 1);
	cr_assert_eq(v.r.status, 3, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "missing_remember_state: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (stale_at(s, NULL)) {
			stale++;
			check_stale(s);
		} else {
			cr_assert(verdict_system_skip(s) || verdict_is(s, "outcome", "verified"),
				  "%s", json_dumps(s, 0));
		}
	}
	cr_assert_gt(stale, 20, "%zu samples under the stale rows", stale);
	cr_assert_eq(verdict_count(&v, "both_wrong"), (long long)stale);
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v) + (long long)stale,
		     verdict_count(&v, "total"));
	cr_assert_eq(json_integer_value(json_object_get(v.j, "check_failures")), (long long)stale);
	verdict_free(&v);
}
