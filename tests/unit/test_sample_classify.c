// SPDX-License-Identifier: GPL-2.0
/* Classification of a sample's walks (supervisor/sample_classify.c). */
#include <criterion/criterion.h>

#include "supervisor/sample_classify.h"

#define F(ip, src) { (ip), EMU_SRC_##src }

static const struct emu_frame covered3_fp2[] = {
	F(0x100, REGS), F(0x200, SFRAME), F(0x300, SFRAME), F(0x400, FP), F(0x500, FP),
};

Test(sample_classify, equal_walks_match_and_agree)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500 };
	struct sample_verdict v;

	sample_classify(covered3_fp2, 5, ref, 5, 0, true, &v);
	cr_assert_eq(v.cls, SC_MATCH);
	cr_assert_eq(v.covered, 3);
	cr_assert(v.has_step && v.agrees);
	cr_assert_not(sample_needs_third_opinion(&v));
	cr_assert_not(sample_check_failed(&v));
}

Test(sample_classify, difference_after_the_covered_prefix_is_sframe_shorter)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x999, 0x500, 0x600 };
	struct sample_verdict v;

	sample_classify(covered3_fp2, 5, ref, 6, 0, true, &v);
	cr_assert_eq(v.cls, SC_SFRAME_SHORTER);
	cr_assert_eq(v.first_difference, 3);
	cr_assert(v.agrees);
	cr_assert_not(sample_check_failed(&v));
}

Test(sample_classify, our_walk_ending_early_is_sframe_shorter)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500, 0x600, 0x700 };
	struct sample_verdict v;

	sample_classify(covered3_fp2, 5, ref, 7, 0, true, &v);
	cr_assert_eq(v.cls, SC_SFRAME_SHORTER);
	cr_assert_eq(v.first_difference, 5);
}

Test(sample_classify, difference_inside_the_covered_prefix_diverges)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x333, 0x400, 0x500 };
	const uint64_t elf_us[] = { 0x100, 0x200, 0x300, 0x401 };
	const uint64_t elf_lu[] = { 0x100, 0x200, 0x333 };
	const uint64_t elf_none[] = { 0x100, 0x200, 0x777 };
	struct sample_verdict v;

	sample_classify(covered3_fp2, 5, ref, 5, 0, true, &v);
	cr_assert_eq(v.cls, SC_DIVERGED);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(v.agrees);
	cr_assert(sample_needs_third_opinion(&v));
	sample_side(&v, covered3_fp2, 5, ref, 5, elf_us, 4);
	cr_assert_eq(v.side, SIDE_US);
	cr_assert_not(sample_check_failed(&v));
	sample_side(&v, covered3_fp2, 5, ref, 5, elf_lu, 3);
	cr_assert_eq(v.side, SIDE_LIBUNWIND);
	cr_assert(sample_check_failed(&v));
	sample_side(&v, covered3_fp2, 5, ref, 5, elf_none, 3);
	cr_assert_eq(v.side, SIDE_NEITHER);
	cr_assert(sample_check_failed(&v));
}

Test(sample_classify, libunwind_failing_at_its_first_step)
{
	const uint64_t ref[] = { 0x100 };
	struct sample_verdict v;

	sample_classify(covered3_fp2, 5, ref, 1, -1, true, &v);
	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
	cr_assert_eq(v.first_difference, 1);
	cr_assert_not(v.agrees);
}

Test(sample_classify, libunwind_ending_inside_the_prefix_failed)
{
	const uint64_t ref[] = { 0x100, 0x200 };
	struct sample_verdict v;

	/* a static binary: libunwind ends at main, our SFrame step goes on */
	sample_classify(covered3_fp2, 5, ref, 2, 0, true, &v);
	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(v.agrees);
	cr_assert(sample_needs_third_opinion(&v));
}

Test(sample_classify, no_sframe_step_counts_neither_way)
{
	static const struct emu_frame fp_only[] = { F(0x100, REGS), F(0x200, FP) };
	const uint64_t ref[] = { 0x100, 0x999 };
	struct sample_verdict v;

	sample_classify(fp_only, 2, ref, 2, 0, true, &v);
	cr_assert_eq(v.covered, 1);
	cr_assert_not(v.has_step);
	cr_assert_not(v.agrees);
	cr_assert_eq(v.cls, SC_SFRAME_SHORTER);
	cr_assert_not(sample_needs_third_opinion(&v));
	cr_assert_not(sample_check_failed(&v));
}

Test(sample_classify, jit_steps_cover_too)
{
	static const struct emu_frame jit[] = { F(0x100, REGS), F(0x200, JIT), F(0x300, SFRAME) };
	const uint64_t ref[] = { 0x100, 0x200, 0x300 };
	struct sample_verdict v;

	sample_classify(jit, 3, ref, 3, 0, true, &v);
	cr_assert_eq(v.covered, 3);
	cr_assert_eq(v.cls, SC_MATCH);
}

Test(sample_classify, without_crosscheck_unchecked)
{
	struct sample_verdict v;

	sample_classify(covered3_fp2, 5, NULL, 0, 0, false, &v);
	cr_assert_eq(v.cls, SC_UNCHECKED);
	cr_assert(v.has_step);
	cr_assert_not(v.agrees);
	cr_assert_not(sample_needs_third_opinion(&v));
	cr_assert_not(sample_check_failed(&v));
	cr_assert_str_eq(sample_class_name(SC_SFRAME_SHORTER), "sframe-shorter");
	cr_assert_str_eq(elfutils_side_name(SIDE_US), "codectl-run");
}
