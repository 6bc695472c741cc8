// SPDX-License-Identifier: GPL-2.0
/* Classification of a sample's walks (supervisor/report/classify.c). */
#include <criterion/criterion.h>

#include "supervisor/report/classify.h"

#define F(addr, src) { .ip = (addr), .source = EMU_SRC_##src }
#define NO_JIT SAMPLE_NO_JIT_FRAME

static const struct emu_frame covered3_fp2[] = {
	F(0x100, REGS), F(0x200, SFRAME), F(0x300, SFRAME), F(0x400, FP), F(0x500, FP),
};

Test(sample_classify, equal_walks_match_and_agree)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500 };
	struct sample_verdict v;

	classify_sample(covered3_fp2, 5, NO_JIT, ref, 5, 0, true, &v);
	cr_assert_eq(v.cls, SC_MATCH);
	cr_assert_eq(v.covered, 3);
	cr_assert(v.has_step && v.agrees);
	cr_assert_not(classify_needs_third_opinion(&v));
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, difference_after_the_covered_prefix_is_sframe_shorter)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x999, 0x500, 0x600 };
	struct sample_verdict v;

	classify_sample(covered3_fp2, 5, NO_JIT, ref, 6, 0, true, &v);
	cr_assert_eq(v.cls, SC_SFRAME_SHORTER);
	cr_assert_eq(v.first_difference, 3);
	cr_assert(v.agrees);
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, our_walk_ending_early_is_sframe_shorter)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500, 0x600, 0x700 };
	struct sample_verdict v;

	classify_sample(covered3_fp2, 5, NO_JIT, ref, 7, 0, true, &v);
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

	classify_sample(covered3_fp2, 5, NO_JIT, ref, 5, 0, true, &v);
	cr_assert_eq(v.cls, SC_DIVERGED);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(v.agrees);
	cr_assert(classify_needs_third_opinion(&v));
	classify_side(&v, covered3_fp2, 5, ref, 5, elf_us, 4);
	cr_assert_eq(v.side, SIDE_US);
	cr_assert_not(classify_check_failed(&v));
	classify_side(&v, covered3_fp2, 5, ref, 5, elf_lu, 3);
	cr_assert_eq(v.side, SIDE_LIBUNWIND);
	cr_assert(classify_check_failed(&v));
	classify_side(&v, covered3_fp2, 5, ref, 5, elf_none, 3);
	cr_assert_eq(v.side, SIDE_NEITHER);
	cr_assert(classify_check_failed(&v));
}

Test(sample_classify, libunwind_failing_at_its_first_step)
{
	const uint64_t ref[] = { 0x100 };
	struct sample_verdict v;

	classify_sample(covered3_fp2, 5, NO_JIT, ref, 1, -1, true, &v);
	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
	cr_assert_eq(v.first_difference, 1);
	cr_assert_not(v.agrees);
}

Test(sample_classify, libunwind_ending_inside_the_prefix_failed)
{
	const uint64_t ref[] = { 0x100, 0x200 };
	struct sample_verdict v;

	/* a static binary: libunwind ends at main, our SFrame step goes on */
	classify_sample(covered3_fp2, 5, NO_JIT, ref, 2, 0, true, &v);
	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(v.agrees);
	cr_assert(classify_needs_third_opinion(&v));
}

Test(sample_classify, no_sframe_step_counts_neither_way)
{
	static const struct emu_frame fp_only[] = { F(0x100, REGS), F(0x200, FP) };
	const uint64_t ref[] = { 0x100, 0x999 };
	struct sample_verdict v;

	classify_sample(fp_only, 2, NO_JIT, ref, 2, 0, true, &v);
	cr_assert_eq(v.covered, 1);
	cr_assert_not(v.has_step);
	cr_assert_not(v.agrees);
	cr_assert_eq(v.cls, SC_SFRAME_SHORTER);
	cr_assert_not(classify_needs_third_opinion(&v));
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, jit_steps_cover_too)
{
	static const struct emu_frame jit[] = { F(0x100, REGS), F(0x200, JIT), F(0x300, SFRAME) };
	const uint64_t ref[] = { 0x100, 0x200, 0x300 };
	struct sample_verdict v;

	/* frame 0 in JIT code; libunwind's guess out of it happens to be right */
	classify_sample(jit, 3, 0, ref, 3, 0, true, &v);
	cr_assert_eq(v.covered, 3);
	cr_assert_eq(v.jit_frame, 0);
	cr_assert_eq(v.cls, SC_MATCH);
	cr_assert(v.agrees);
}

/*
 * A C leaf (0x100) called by C (0x200), called by JIT code (0x300, frame 2,
 * the first JIT frame), called by JIT code (0x400), called by C (0x500).
 */
static const struct emu_frame through_jit[] = {
	F(0x100, REGS), F(0x200, SFRAME), F(0x300, SFRAME), F(0x400, JIT), F(0x500, JIT),
};

Test(sample_classify, a_difference_past_the_first_jit_frame_is_not_a_disagreement)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x777, 0x888 };
	struct sample_verdict v;

	classify_sample(through_jit, 5, 2, ref, 5, 0, true, &v);
	cr_assert_eq(v.cls, SC_JIT_UNCHECKED);
	cr_assert_eq(v.covered, 5);
	cr_assert_eq(v.jit_frame, 2);
	cr_assert_eq(v.first_difference, 3);
	cr_assert(v.has_step && v.agrees);
	cr_assert_not(classify_disagrees(&v));
	cr_assert_not(classify_needs_third_opinion(&v));
	cr_assert_not(classify_check_failed(&v));
	cr_assert_str_eq(classify_class_name(v.cls), "jit-unchecked");
}

Test(sample_classify, libunwind_ending_in_jit_code_is_not_a_failure)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300 };
	struct sample_verdict v;

	classify_sample(through_jit, 5, 2, ref, 3, 0, true, &v);
	cr_assert_eq(v.cls, SC_JIT_UNCHECKED);
	cr_assert_eq(v.first_difference, 3);
	cr_assert(v.agrees);
	classify_sample(through_jit, 5, 2, ref, 3, -1, true, &v);
	cr_assert_eq(v.cls, SC_JIT_UNCHECKED);
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, the_first_jit_frame_itself_is_checked)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x333, 0x400, 0x500 };
	const uint64_t elf_lu[] = { 0x100, 0x200, 0x333 };
	struct sample_verdict v;

	classify_sample(through_jit, 5, 2, ref, 5, 0, true, &v);
	cr_assert_eq(v.cls, SC_DIVERGED);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(v.agrees);
	cr_assert(classify_disagrees(&v));
	cr_assert(classify_needs_third_opinion(&v));
	classify_side(&v, through_jit, 5, ref, 5, elf_lu, 3);
	cr_assert_eq(v.side, SIDE_LIBUNWIND);
	cr_assert(classify_check_failed(&v));
}

Test(sample_classify, elfutils_sides_with_us_up_to_the_first_jit_frame)
{
	const uint64_t ref[] = { 0x100, 0x222, 0x300, 0x400, 0x500 };
	const uint64_t elf_us[] = { 0x100, 0x200, 0x300, 0x999 };	/* its own guess after */
	const uint64_t elf_short[] = { 0x100, 0x200 };
	struct sample_verdict v;

	classify_sample(through_jit, 5, 2, ref, 5, 0, true, &v);
	cr_assert_eq(v.cls, SC_DIVERGED);
	cr_assert_eq(v.first_difference, 1);
	classify_side(&v, through_jit, 5, ref, 5, elf_us, 4);
	cr_assert_eq(v.side, SIDE_US);
	cr_assert_not(classify_check_failed(&v));
	classify_side(&v, through_jit, 5, ref, 5, elf_short, 2);
	cr_assert_eq(v.side, SIDE_NEITHER);
	cr_assert(classify_check_failed(&v));
}

Test(sample_classify, libunwind_ending_before_the_jit_frame_failed)
{
	const uint64_t ref[] = { 0x100, 0x200 };
	struct sample_verdict v;

	classify_sample(through_jit, 5, 2, ref, 2, 0, true, &v);
	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(v.agrees);
}

Test(sample_classify, equal_through_jit_frames_is_a_match)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500 };
	struct sample_verdict v;

	classify_sample(through_jit, 5, 2, ref, 5, 0, true, &v);
	cr_assert_eq(v.cls, SC_MATCH);
	cr_assert_eq(v.first_difference, 5);
	cr_assert(v.agrees);
}

Test(sample_classify, frame_0_in_jit_code_libunwind_failing_at_once)
{
	static const struct emu_frame fp_out[] = { F(0x100, REGS), F(0x200, FP), F(0x300, SFRAME) };
	const uint64_t ref[] = { 0x100 };
	struct sample_verdict v;

	/* a JIT step out of frame 0: our coverage goes on, libunwind cannot */
	classify_sample(through_jit, 5, 0, ref, 1, -1, true, &v);
	cr_assert_eq(v.cls, SC_JIT_UNCHECKED);
	cr_assert_eq(v.first_difference, 1);
	cr_assert(v.agrees);
	/* no JIT entry for frame 0: a frame-pointer step, coverage ends at once */
	classify_sample(fp_out, 3, 0, ref, 1, -1, true, &v);
	cr_assert_eq(v.cls, SC_SFRAME_SHORTER);
	cr_assert_eq(v.covered, 1);
	cr_assert_not(v.has_step);
	cr_assert_not(v.agrees);
	cr_assert(classify_disagrees(&v));
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, a_frame_pointer_step_into_jit_code_then_astray_is_sframe_shorter)
{
	static const struct emu_frame fp_in[] = {
		F(0x100, REGS), F(0x200, FP), F(0x300, JIT), F(0x400, SFRAME),
	};
	const uint64_t ref[] = { 0x100, 0x200, 0x999, 0x400 };
	struct sample_verdict v;

	classify_sample(fp_in, 4, 1, ref, 4, 0, true, &v);
	cr_assert_eq(v.cls, SC_SFRAME_SHORTER);
	cr_assert_eq(v.covered, 1);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(v.agrees);
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, unchecked_keeps_the_jit_frame)
{
	struct sample_verdict v;

	classify_sample(through_jit, 5, 2, NULL, 0, 0, false, &v);
	cr_assert_eq(v.cls, SC_UNCHECKED);
	cr_assert_eq(v.jit_frame, 2);
	cr_assert_not(classify_disagrees(&v));
	classify_sample(through_jit, 5, NO_JIT, NULL, 0, 0, false, &v);
	cr_assert_eq(v.jit_frame, SAMPLE_NO_JIT_FRAME);
}

Test(sample_classify, without_crosscheck_unchecked)
{
	struct sample_verdict v;

	classify_sample(covered3_fp2, 5, NO_JIT, NULL, 0, 0, false, &v);
	cr_assert_eq(v.cls, SC_UNCHECKED);
	cr_assert(v.has_step);
	cr_assert_not(v.agrees);
	cr_assert_not(classify_needs_third_opinion(&v));
	cr_assert_not(classify_check_failed(&v));
	cr_assert_str_eq(classify_class_name(SC_SFRAME_SHORTER), "sframe-shorter");
	cr_assert_str_eq(classify_side_name(SIDE_US), "codectl-run");
}
