// SPDX-License-Identifier: GPL-2.0
/*
 * A fake frame-pointer chain under an FP-based CFA (progs/fake_fp_chain.c):
 * while spin_fake_chain counts down at +0x2f..+0x38, %rbp points at
 * A { &B, 0x1234 } -> B { 0, 0x5678 } on its stack, and its SFrame FDE (from
 * true-looking CFI) says CFA = %rbp + 16. Our SFrame step reads RA 0x1234,
 * no code, in the covered prefix; libunwind reads the same CFI from
 * .eh_frame and has the same frame 1: both-wrong, wrong frame 1, not-code.
 * Our frame-pointer fallback then follows the fake chain to 0x5678. Every
 * other sample (the prologue, main) is verified; --check fails (exit 3).
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

#define FAKE_START 0x2f		/* %rbp -> A (fake_fp_chain-asm.S) */
#define FAKE_END 0x39		/* the leave, %rbp back at the frame record */

/* Is @s's frame 0 where %rbp points at the fake chain? */
static bool faked_at(json_t *s, const void *ctx)
{
	long long off = verdict_frame0_offset(s, "spin_fake_chain");

	(void)ctx;
	return off >= FAKE_START && off < FAKE_END;
}

static void check_fake(json_t *s)
{
	json_t *ours = verdict_frame(s, false, 1), *ref = verdict_frame(s, true, 1);

	cr_assert(verdict_class_is(s, "both-wrong"), "%s: %s", verdict_symbol(s, 0),
		  verdict_str(s, "class"));
	cr_assert_str_eq(verdict_str(s, "why"), "not-code");
	cr_assert_eq(json_integer_value(json_object_get(s, "wrong_frame")), 1);
	cr_assert_eq(verdict_ip(ours), 0x1234);
	cr_assert_str_eq(verdict_str(ours, "source"), "sframe");
	cr_assert_str_eq(verdict_str(ours, "why"), "not-code");
	cr_assert_eq(verdict_ip(ref), 0x1234);
	/* past the covered prefix, the fallback follows the chain: A -> B */
	cr_assert_eq(verdict_ip(verdict_frame(s, false, 2)), 0x5678);
	cr_assert_str_eq(verdict_str(verdict_frame(s, false, 2), "source"), "fp");
	cr_assert_eq(verdict_frames(s, false), 3);
}

Test(verdict, fake_fp_chain)
{
	const struct verdict_place place = { faked_at, NULL, 21, "samples on the fake chain" };
	struct verdict_run v;
	size_t i, faked = 0;
	json_t *s;

	verdict_run_until(&v, "fake_fp_chain", NULL, NULL, &place, 1);
	cr_assert_eq(v.r.status, 3, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "fake_fp_chain: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (faked_at(s, NULL)) {
			faked++;
			check_fake(s);
		} else {
			cr_assert(verdict_system_skip(s) || verdict_is(s, "outcome", "verified"),
				  "%s", json_dumps(s, 0));
		}
	}
	cr_assert_gt(faked, 20, "%zu samples on the fake chain", faked);
	cr_assert_eq(verdict_count(&v, "both_wrong"), (long long)faked);
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v) + (long long)faked,
		     verdict_count(&v, "total"));
	cr_assert_eq(json_integer_value(json_object_get(v.j, "check_failures")), (long long)faked);
	verdict_free(&v);
}
