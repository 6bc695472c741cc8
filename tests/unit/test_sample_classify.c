// SPDX-License-Identifier: GPL-2.0
/* Classification of a sample's walks (supervisor/report/classify.c). */
#include <criterion/criterion.h>

#include "supervisor/report/classify.h"

#define F(addr, src) { .ip = (addr), .source = EMU_SRC_##src }
#define NO_JIT SAMPLE_NO_JIT_FRAME
#define N(a) (sizeof(a) / sizeof((a)[0]))

enum { U = PLAUSIBLE_UNKNOWN, Y = PLAUSIBLE_YES, NC = PLAUSIBLE_NOT_CODE,
       NAC = PLAUSIBLE_NOT_AFTER_CALL, CTM = PLAUSIBLE_CALL_TARGET_MISMATCH };

/* Frames 0-2 covered (two SFrame steps), 3-4 by the frame-pointer fallback. */
static const struct emu_frame covered3_fp2[] = {
	F(0x100, REGS), F(0x200, SFRAME), F(0x300, SFRAME), F(0x400, FP), F(0x500, FP),
};

/* Our walk @ours (@plaus: NULL for all unknown) against libunwind's @ref. */
static struct sample_walks_in walks(const struct emu_frame *ours, unsigned int n,
				    const uint8_t *plaus, unsigned int jit_frame,
				    const uint64_t *ref, unsigned int n_ref, const uint8_t *ref_plaus)
{
	return (struct sample_walks_in){ .ours = ours, .n = n, .plaus = plaus,
					 .stop = EMU_STOP_OUTERMOST, .stop_source = EMU_SRC_SFRAME,
					 .jit_frame = jit_frame, .ref = ref, .n_ref = n_ref,
					 .ref_plaus = ref_plaus, .have_ref = true };
}

static struct sample_verdict classify(const struct sample_walks_in *in)
{
	struct sample_verdict v;

	classify_sample(in, &v);
	return v;
}

Test(sample_classify, equal_plausible_walks_match_and_are_verified)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500 };
	const uint8_t all_yes[] = { Y, Y, Y, Y, Y };
	struct sample_walks_in in = walks(covered3_fp2, 5, all_yes, NO_JIT, ref, 5, all_yes);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_MATCH);
	cr_assert_eq(v.covered, 3);
	cr_assert(v.has_step && v.agrees);
	cr_assert_eq(v.why, 0);
	cr_assert_eq(classify_outcome(&v), OUTCOME_VERIFIED);
	cr_assert_not(classify_needs_third_opinion(&v));
	cr_assert_not(classify_check_failed(&v));
	cr_assert_not(classify_disagrees(&v));
}

Test(sample_classify, equal_walks_with_a_non_code_frame_are_both_wrong_not_a_match)
{
	static const struct emu_frame jit_lie[] = { F(0x100, REGS), F(0x200, JIT), F(0x1, JIT) };
	const uint64_t ref[] = { 0x100, 0x200, 0x1 };
	const uint8_t plaus[] = { Y, Y, NC };
	struct sample_walks_in in = walks(jit_lie, 3, plaus, 0, ref, 3, plaus);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_BOTH_WRONG);
	cr_assert_eq(v.wrong_frame, 2);
	cr_assert_eq(v.why, PLAUSIBLE_NOT_CODE);
	cr_assert_not(v.agrees);
	cr_assert_eq(classify_outcome(&v), OUTCOME_BOTH_WRONG);
	cr_assert(classify_check_failed(&v));
	/* counted as both wrong, not also as libunwind's alone */
	cr_assert_not(classify_libunwind_wrong(&v));
	cr_assert_str_eq(classify_why_name(v.why), "not-code");
}

Test(sample_classify, an_implausible_covered_frame_libunwind_lacks_is_ours_wrong)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x333, 0x400 };
	const uint8_t plaus[] = { Y, Y, NAC, Y, Y }, ref_plaus[] = { Y, Y, Y, Y };
	struct sample_walks_in in = walks(covered3_fp2, 5, plaus, NO_JIT, ref, 4, ref_plaus);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_OURS_WRONG);
	cr_assert_eq(v.wrong_frame, 2);
	cr_assert_eq(v.why, PLAUSIBLE_NOT_AFTER_CALL);
	cr_assert_eq(classify_outcome(&v), OUTCOME_OURS_WRONG);
	cr_assert(classify_check_failed(&v));
	cr_assert_not(classify_libunwind_wrong(&v));
	cr_assert_not(classify_needs_third_opinion(&v));
}

Test(sample_classify, an_implausible_frame_is_wrong_even_without_a_reference)
{
	const uint8_t plaus[] = { Y, CTM, Y, Y, Y };
	struct sample_walks_in in = walks(covered3_fp2, 5, plaus, NO_JIT, NULL, 0, NULL);
	struct sample_verdict v;

	in.have_ref = false;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_OURS_WRONG);
	cr_assert_eq(v.wrong_frame, 1);
	cr_assert_eq(v.why, PLAUSIBLE_CALL_TARGET_MISMATCH);
	cr_assert(classify_check_failed(&v));
}

Test(sample_classify, equal_walks_with_an_implausible_fallback_frame_are_astray)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500 };
	const uint8_t plaus[] = { Y, Y, Y, NC, U };
	struct sample_walks_in in = walks(covered3_fp2, 5, plaus, NO_JIT, ref, 5, plaus);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_ASTRAY);
	cr_assert_eq(v.wrong_frame, 3);
	cr_assert_eq(v.why, PLAUSIBLE_NOT_CODE);
	cr_assert(v.agrees);
	cr_assert_eq(classify_outcome(&v), OUTCOME_VERIFIED);
	cr_assert_not(classify_check_failed(&v));
	cr_assert(classify_disagrees(&v));
}

Test(sample_classify, a_fallback_frame_other_than_libunwinds_is_astray)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x999, 0x500, 0x600 };
	struct sample_walks_in in = walks(covered3_fp2, 5, NULL, NO_JIT, ref, 6, NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_ASTRAY);
	cr_assert_eq(v.first_difference, 3);
	cr_assert_eq(v.why, 0);
	cr_assert(v.agrees);
	cr_assert(v.fallback_skipped);
	cr_assert_eq(classify_outcome(&v), OUTCOME_UNVERIFIABLE);
	cr_assert_not(classify_check_failed(&v));
}

/*
 * A JIT's C callback without unwind data (docs/jit-integration.md): frame 0
 * in c_work, whose %rbp is main's frame; the fallback lands in main, past
 * the two JIT frames libunwind reaches by c_work's CFI. Right in its covered
 * part (frame 0), wrong as a stack: unverifiable, never verified, never a
 * --check failure. Where libunwind only guessed its frame, or its frame is
 * not code, nothing says the fallback left anything out.
 */
Test(sample_classify, a_fallback_leaving_out_frames_libunwind_has_is_unverifiable)
{
	static const struct emu_frame c_work[] = {
		F(0x401100, REGS), F(0x401200, FP), F(0x7f0000001000, FP),
	};
	const uint64_t ref[] = { 0x401100, 0x7f1000000040, 0x7f1000000100, 0x401200 };
	const uint8_t ref_flags[] = { 0, 0, ORACLE_FRAME_GUESS, ORACLE_FRAME_GUESS };
	struct sample_walks_in in = walks(c_work, 3, (const uint8_t[]){ Y, Y, Y }, NO_JIT, ref, 4,
					  (const uint8_t[]){ Y, U, U, Y });
	struct sample_verdict v;

	in.ref_flags = ref_flags;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_ASTRAY);
	cr_assert_eq(v.covered, 1);
	cr_assert_eq(v.first_difference, 1);
	cr_assert(v.fallback_skipped);
	cr_assert_eq(classify_outcome(&v), OUTCOME_UNVERIFIABLE);
	cr_assert_not(classify_check_failed(&v));
	in.ref_flags = (const uint8_t[]){ 0, ORACLE_FRAME_GUESS, ORACLE_FRAME_GUESS, 0 };
	v = classify(&in);
	cr_assert_eq(v.cls, SC_ASTRAY);
	cr_assert_not(v.fallback_skipped);
	cr_assert_eq(classify_outcome(&v), OUTCOME_VERIFIED);
	in.ref_flags = ref_flags;
	/* main did not call c_work: our frame 1 is implausible, and libunwind's frame 3 */
	in.plaus = (const uint8_t[]){ Y, CTM, U };
	v = classify(&in);
	cr_assert_eq(v.cls, SC_ASTRAY);
	cr_assert_eq(v.wrong_frame, 1);
	cr_assert_eq(v.why, PLAUSIBLE_CALL_TARGET_MISMATCH);
	cr_assert(v.fallback_skipped);
	cr_assert_eq(classify_outcome(&v), OUTCOME_UNVERIFIABLE);
	/* an implausible frame libunwind never reaches: a wrong frame named, nothing left out */
	in.n_ref = 3;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_ASTRAY);
	cr_assert_not(v.fallback_skipped);
	cr_assert_eq(classify_outcome(&v), OUTCOME_VERIFIED);
	in.n_ref = 4;
	/* our frame 1 read past the stack copy: not judged */
	in.past_copy = 1;
	v = classify(&in);
	cr_assert_not(v.fallback_skipped);
	in.past_copy = 0;
	in.plaus = (const uint8_t[]){ Y, Y, Y };
	in.ref_plaus = (const uint8_t[]){ Y, NC, U, Y };
	v = classify(&in);
	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
	cr_assert_not(v.fallback_skipped);
	cr_assert_eq(classify_outcome(&v), OUTCOME_VERIFIED);
}

Test(sample_classify, our_walk_ending_where_libunwinds_goes_on_plausibly_ended)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500, 0x600, 0x700 };
	const uint8_t ref_plaus[] = { Y, Y, Y, Y, Y, Y, Y };
	struct sample_walks_in in = walks(covered3_fp2, 5, NULL, NO_JIT, ref, 7, ref_plaus);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_ENDED);
	cr_assert_eq(v.first_difference, 5);
	cr_assert_not(classify_check_failed(&v));
	cr_assert_str_eq(classify_class_name(v.cls), "ended");
}

Test(sample_classify, libunwind_walking_on_into_garbage_where_ours_ended_failed)
{
	/* a raw clone: ours stops at RA 0, libunwind goes on to non-code words */
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500, 0x7ffd0000, 0x2 };
	const uint8_t ref_plaus[] = { Y, Y, Y, Y, Y, U, NC };
	struct sample_walks_in in = walks(covered3_fp2, 5, NULL, NO_JIT, ref, 7, ref_plaus);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
	cr_assert_eq(v.wrong_frame, 6);
	cr_assert_eq(v.why, PLAUSIBLE_NOT_CODE);
	cr_assert(classify_libunwind_wrong(&v));
	cr_assert_not(classify_check_failed(&v));
	cr_assert_eq(classify_outcome(&v), OUTCOME_VERIFIED);
}

Test(sample_classify, ra_zero_through_a_row_not_outermost_is_a_finding)
{
	static const struct emu_frame plt[] = { F(0x100, REGS), F(0x200, SFRAME) };
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400 };
	const uint8_t plaus[] = { Y, Y }, ref_plaus[] = { Y, Y, Y, Y };
	struct sample_walks_in in = walks(plt, 2, plaus, NO_JIT, ref, 4, ref_plaus);
	struct sample_verdict v;

	in.stop = EMU_STOP_RA_ZERO;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_OURS_WRONG);
	cr_assert_eq(v.why, WHY_RA_ZERO_NOT_OUTERMOST);
	cr_assert_eq(v.wrong_frame, 2);
	cr_assert_not(v.agrees);
	cr_assert(classify_check_failed(&v));
	cr_assert_str_eq(classify_why_name(v.why), "ra-zero-not-outermost");
	cr_assert(v.has_step);
	/* the first step already: a walk of frame 0 alone took that step too */
	in = walks(plt, 1, plaus, NO_JIT, ref, 4, ref_plaus);
	in.stop = EMU_STOP_RA_ZERO;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_OURS_WRONG);
	cr_assert_eq(v.wrong_frame, 1);
	cr_assert(v.has_step, "counted in with_sframe_step");
	in = walks(plt, 2, plaus, NO_JIT, ref, 4, ref_plaus);
	in.stop = EMU_STOP_RA_ZERO;
	/* the same end by the frame-pointer fallback is no finding about a row */
	in.stop_source = EMU_SRC_FP;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_ENDED);
	/* nor when libunwind's next frame is not known plausible */
	in.stop_source = EMU_SRC_SFRAME;
	in.ref_plaus = (const uint8_t[]){ Y, Y, U, Y };
	v = classify(&in);
	cr_assert_eq(v.cls, SC_ENDED);
}

Test(sample_classify, a_difference_inside_the_covered_prefix_goes_to_elfutils)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x333, 0x400, 0x500 };
	const uint64_t elf_us[] = { 0x100, 0x200, 0x300, 0x401 };
	const uint64_t elf_lu[] = { 0x100, 0x200, 0x333 };
	const uint64_t elf_none[] = { 0x100, 0x200, 0x777 };
	const uint8_t ref_plaus[] = { Y, Y, Y, Y, Y }, plaus[] = { Y, Y, Y, U, U };
	struct sample_walks_in in = walks(covered3_fp2, 5, plaus, NO_JIT, ref, 5, ref_plaus);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_DIVERGED);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(v.agrees);
	cr_assert(classify_needs_third_opinion(&v));
	classify_side(&v, &in, elf_us, NULL, NULL, N(elf_us));
	cr_assert_eq(v.side, SIDE_US);
	cr_assert_not(classify_check_failed(&v));
	cr_assert_eq(classify_outcome(&v), OUTCOME_VERIFIED);
	cr_assert(classify_libunwind_wrong(&v));
	classify_side(&v, &in, elf_lu, NULL, NULL, N(elf_lu));
	cr_assert_eq(v.side, SIDE_LIBUNWIND);
	cr_assert(classify_check_failed(&v));
	cr_assert_eq(classify_outcome(&v), OUTCOME_OURS_WRONG);
	classify_side(&v, &in, elf_none, NULL, NULL, N(elf_none));
	cr_assert_eq(v.side, SIDE_NEITHER);
	cr_assert(classify_check_failed(&v));
	cr_assert_eq(classify_outcome(&v), OUTCOME_UNVERIFIABLE);
	/* elfutils with libunwind, through an implausible frame of its own: with nobody */
	classify_side(&v, &in, elf_lu, (const uint8_t[]){ Y, NAC, Y }, NULL, N(elf_lu));
	cr_assert_eq(v.side, SIDE_NEITHER);
}

Test(sample_classify, an_implausible_libunwind_frame_decides_without_elfutils)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x3e8, 0x400, 0x500 };
	const uint8_t plaus[] = { Y, Y, U, U, U }, ref_plaus[] = { Y, Y, NC, U, U };
	struct sample_walks_in in = walks(covered3_fp2, 5, plaus, NO_JIT, ref, 5, ref_plaus);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
	cr_assert_eq(v.wrong_frame, 2);
	cr_assert_eq(v.why, PLAUSIBLE_NOT_CODE);
	cr_assert_not(classify_needs_third_opinion(&v));
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, libunwind_failing_at_its_first_step)
{
	const uint64_t ref[] = { 0x100 };
	const uint8_t plaus[] = { Y, Y, Y, U, U };
	struct sample_walks_in in = walks(covered3_fp2, 5, plaus, NO_JIT, ref, 1, NULL);
	struct sample_verdict v;

	in.ref_err = -1;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
	cr_assert_eq(v.first_difference, 1);
	cr_assert_eq(v.why, 0);
	cr_assert_not(v.agrees);
}

Test(sample_classify, libunwind_ending_inside_the_prefix_before_a_frame_not_known_plausible)
{
	const uint64_t ref[] = { 0x100, 0x200 };
	struct sample_walks_in in = walks(covered3_fp2, 5, NULL, NO_JIT, ref, 2, NULL);
	struct sample_verdict v = classify(&in);

	/* a static binary: libunwind ends at main, our SFrame step goes on: elfutils decides */
	cr_assert_eq(v.cls, SC_DIVERGED);
	cr_assert_eq(v.first_difference, 2);
	cr_assert(classify_needs_third_opinion(&v));
	classify_side(&v, &in, (const uint64_t[]){ 0x100, 0x200 }, NULL, NULL, 2);
	cr_assert_eq(v.side, SIDE_LIBUNWIND);
	cr_assert(classify_check_failed(&v));
}

Test(sample_classify, libunwind_stopping_short_of_our_plausible_fallback_failed)
{
	static const struct emu_frame fp_out[] = { F(0x100, REGS), F(0x200, FP), F(0x300, SFRAME) };
	const uint64_t ref[] = { 0x100 };
	struct sample_walks_in in = walks(fp_out, 3, (const uint8_t[]){ Y, Y, Y }, NO_JIT, ref, 1,
					  NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
	cr_assert_eq(v.covered, 1);
	cr_assert_not(v.has_step);
	/* not known plausible: our fallback went where libunwind did not */
	in.plaus = (const uint8_t[]){ Y, U, U };
	v = classify(&in);
	cr_assert_eq(v.cls, SC_ASTRAY);
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, no_sframe_step_counts_neither_way)
{
	static const struct emu_frame fp_only[] = { F(0x100, REGS), F(0x200, FP) };
	const uint64_t ref[] = { 0x100, 0x999 };
	struct sample_walks_in in = walks(fp_only, 2, NULL, NO_JIT, ref, 2, NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.covered, 1);
	cr_assert_not(v.has_step);
	cr_assert_not(v.agrees);
	cr_assert_eq(v.cls, SC_ASTRAY);
	cr_assert_not(classify_needs_third_opinion(&v));
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, a_signal_step_is_covered)
{
	static const struct emu_frame sig[] = {
		F(0x100, REGS), F(0x7f00, SFRAME), F(0x300, SIGNAL), F(0x400, SFRAME),
	};
	const uint64_t ref[] = { 0x100, 0x7f00, 0x300, 0x400 };
	struct sample_walks_in in = walks(sig, 4, (const uint8_t[]){ Y, Y, Y, Y }, NO_JIT, ref, 4,
					  NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.covered, 4);
	cr_assert_eq(v.cls, SC_MATCH);
}

Test(sample_classify, jit_steps_cover_too)
{
	static const struct emu_frame jit[] = { F(0x100, REGS), F(0x200, JIT), F(0x300, SFRAME) };
	const uint64_t ref[] = { 0x100, 0x200, 0x300 };
	struct sample_walks_in in = walks(jit, 3, NULL, 0, ref, 3, NULL);
	struct sample_verdict v = classify(&in);

	/* frame 0 in JIT code; libunwind's guess out of it happens to be right */
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
	struct sample_walks_in in = walks(through_jit, 5, NULL, 2, ref, 5, NULL);
	struct sample_verdict v = classify(&in);

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

Test(sample_classify, a_jit_step_to_a_non_code_address_is_ours_wrong_whatever_libunwind_says)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x777, 0x888 };
	struct sample_walks_in in = walks(through_jit, 5, (const uint8_t[]){ Y, Y, Y, U, NC }, 2,
					  ref, 5, NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_OURS_WRONG);
	cr_assert_eq(v.wrong_frame, 4);
	cr_assert(classify_check_failed(&v));
}

Test(sample_classify, libunwind_ending_in_jit_code_is_not_a_failure)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300 };
	struct sample_walks_in in = walks(through_jit, 5, NULL, 2, ref, 3, NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_JIT_UNCHECKED);
	cr_assert_eq(v.first_difference, 3);
	cr_assert(v.agrees);
	in.ref_err = -1;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_JIT_UNCHECKED);
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, the_first_jit_frame_itself_is_checked)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x333, 0x400, 0x500 };
	const uint64_t elf_lu[] = { 0x100, 0x200, 0x333 };
	struct sample_walks_in in = walks(through_jit, 5, NULL, 2, ref, 5, NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_DIVERGED);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(v.agrees);
	cr_assert(classify_disagrees(&v));
	cr_assert(classify_needs_third_opinion(&v));
	classify_side(&v, &in, elf_lu, NULL, NULL, N(elf_lu));
	cr_assert_eq(v.side, SIDE_LIBUNWIND);
	cr_assert(classify_check_failed(&v));
}

Test(sample_classify, elfutils_sides_with_us_up_to_the_first_jit_frame)
{
	const uint64_t ref[] = { 0x100, 0x222, 0x300, 0x400, 0x500 };
	const uint64_t elf_us[] = { 0x100, 0x200, 0x300, 0x999 };	/* its own guess after */
	const uint64_t elf_short[] = { 0x100, 0x200 };
	struct sample_walks_in in = walks(through_jit, 5, NULL, 2, ref, 5, NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_DIVERGED);
	cr_assert_eq(v.first_difference, 1);
	classify_side(&v, &in, elf_us, NULL, NULL, N(elf_us));
	cr_assert_eq(v.side, SIDE_US);
	cr_assert_not(classify_check_failed(&v));
	classify_side(&v, &in, elf_short, NULL, NULL, N(elf_short));
	cr_assert_eq(v.side, SIDE_NEITHER);
	cr_assert(classify_check_failed(&v));
}

Test(sample_classify, equal_through_jit_frames_is_a_match)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500 };
	struct sample_walks_in in = walks(through_jit, 5, NULL, 2, ref, 5, NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_MATCH);
	cr_assert_eq(v.first_difference, 5);
	cr_assert(v.agrees);
}

Test(sample_classify, frame_0_in_jit_code_libunwind_failing_at_once)
{
	const uint64_t ref[] = { 0x100 };
	struct sample_walks_in in = walks(through_jit, 5, NULL, 0, ref, 1, NULL);
	struct sample_verdict v;

	/* a JIT step out of frame 0: our coverage goes on, libunwind cannot */
	in.ref_err = -1;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_JIT_UNCHECKED);
	cr_assert_eq(v.first_difference, 1);
	cr_assert(v.agrees);
}

Test(sample_classify, a_frame_pointer_step_into_jit_code_then_other_frames_is_astray)
{
	static const struct emu_frame fp_in[] = {
		F(0x100, REGS), F(0x200, FP), F(0x300, JIT), F(0x400, SFRAME),
	};
	const uint64_t ref[] = { 0x100, 0x200, 0x999, 0x400 };
	struct sample_walks_in in = walks(fp_in, 4, NULL, 1, ref, 4, NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_ASTRAY);
	cr_assert_eq(v.covered, 1);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(v.agrees);
	cr_assert_not(classify_check_failed(&v));
}

Test(sample_classify, without_crosscheck_unchecked_and_unverifiable)
{
	struct sample_walks_in in = walks(through_jit, 5, NULL, 2, NULL, 0, NULL);
	struct sample_verdict v;

	in.have_ref = false;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_UNCHECKED);
	cr_assert_eq(v.jit_frame, 2);
	cr_assert(v.has_step);
	cr_assert_not(v.agrees);
	cr_assert_not(classify_disagrees(&v));
	cr_assert_not(classify_needs_third_opinion(&v));
	cr_assert_not(classify_check_failed(&v));
	cr_assert_eq(classify_outcome(&v), OUTCOME_UNVERIFIABLE);
	in.jit_frame = NO_JIT;
	v = classify(&in);
	cr_assert_eq(v.jit_frame, SAMPLE_NO_JIT_FRAME);
}

Test(sample_classify, names)
{
	cr_assert_str_eq(classify_class_name(SC_ASTRAY), "astray");
	cr_assert_str_eq(classify_class_name(SC_BOTH_WRONG), "both-wrong");
	cr_assert_str_eq(classify_side_name(SIDE_US), "codectl-run");
	cr_assert_str_eq(classify_outcome_name(OUTCOME_UNVERIFIABLE), "unverifiable");
	cr_assert_str_eq(classify_why_name(0), "");
	cr_assert_str_eq(classify_why_name(PLAUSIBLE_CALL_TARGET_MISMATCH), "call-target-mismatch");
}

Test(sample_classify, a_fault_through_a_row_while_libunwind_goes_on_is_a_finding)
{
	static const struct emu_frame probe[] = { F(0x100, REGS), F(0x200, SFRAME) };
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400 };
	const uint8_t plaus[] = { Y, Y }, ref_plaus[] = { Y, Y, Y, Y };
	struct sample_walks_in in = walks(probe, 2, plaus, NO_JIT, ref, 4, ref_plaus);
	static const uint8_t faults[] = { EMU_STOP_READ_FAULT, EMU_STOP_CFA_NOT_ABOVE_SP,
					  EMU_STOP_CFA_MISALIGNED };
	struct sample_verdict v;

	for (size_t i = 0; i < N(faults); i++) {
		in.stop = faults[i];
		v = classify(&in);
		cr_assert_eq(v.cls, SC_OURS_WRONG, "stop %s", emu_stop_name(faults[i]));
		cr_assert_eq(v.why, WHY_ROW_FAULT);
		cr_assert_eq(v.wrong_frame, 2);
		cr_assert(classify_check_failed(&v));
	}
	cr_assert_str_eq(classify_why_name(WHY_ROW_FAULT), "row-fault");
	/* libunwind only guessed its next frame: no finding, our walk just ended */
	in.ref_flags = (const uint8_t[]){ 0, 0, ORACLE_FRAME_GUESS, 0 };
	in.ref_plaus = (const uint8_t[]){ Y, Y, U, Y };
	v = classify(&in);
	cr_assert_eq(v.cls, SC_ENDED);
	/* a guessed frame that is plausible is trustworthy enough */
	in.ref_plaus = ref_plaus;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_OURS_WRONG);
	/* the frame-pointer fallback faulting is no finding about a row */
	in.stop_source = EMU_SRC_FP;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_ENDED);
}

Test(sample_classify, a_frame_libunwind_only_guessed_is_no_disagreement)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x3333, 0x400, 0x500 };
	const uint8_t ref_flags[] = { 0, 0, ORACLE_FRAME_GUESS, ORACLE_FRAME_GUESS,
				      ORACLE_FRAME_GUESS };
	struct sample_walks_in in = walks(covered3_fp2, 5, (const uint8_t[]){ Y, Y, Y, U, U },
					  NO_JIT, ref, 5, (const uint8_t[]){ Y, Y, U, U, U });
	struct sample_verdict v;

	in.ref_flags = ref_flags;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_BLIND);
	cr_assert(v.plausible_there);
	cr_assert_eq(classify_outcome(&v), OUTCOME_VERIFIED);
	cr_assert_not(classify_check_failed(&v));
	cr_assert_not(classify_needs_third_opinion(&v));
	cr_assert_str_eq(classify_class_name(v.cls), "blind-reference");
	/* ours not known plausible either: unverifiable there, never a failure */
	in.plaus = (const uint8_t[]){ Y, Y, U, U, U };
	v = classify(&in);
	cr_assert_eq(v.cls, SC_BLIND);
	cr_assert_eq(classify_outcome(&v), OUTCOME_UNVERIFIABLE);
	cr_assert_not(classify_check_failed(&v));
	/* the guess is not code: libunwind's walk is the wrong one */
	in.ref_plaus = (const uint8_t[]){ Y, Y, NC, U, U };
	v = classify(&in);
	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);
}

Test(sample_classify, elfutils_guessing_sides_with_nobody_and_fails_nothing)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x333, 0x400, 0x500 };
	const uint64_t elf_lu[] = { 0x100, 0x200, 0x333 };
	struct sample_walks_in in = walks(covered3_fp2, 5, NULL, NO_JIT, ref, 5, NULL);
	struct sample_verdict v = classify(&in);

	cr_assert_eq(v.cls, SC_DIVERGED);
	classify_side(&v, &in, elf_lu, NULL, (const uint8_t[]){ 0, 0, ORACLE_FRAME_GUESS },
		      N(elf_lu));
	cr_assert_eq(v.side, SIDE_BLIND);
	cr_assert_not(classify_check_failed(&v));
	cr_assert_eq(classify_outcome(&v), OUTCOME_UNVERIFIABLE);
	cr_assert_str_eq(classify_side_name(SIDE_BLIND), "blind");
	/* the same frame found through CFI: elfutils with libunwind */
	classify_side(&v, &in, elf_lu, NULL, (const uint8_t[]){ 0, 0, 0 }, N(elf_lu));
	cr_assert_eq(v.side, SIDE_LIBUNWIND);
	cr_assert(classify_check_failed(&v));
}

/*
 * Frame 2 read past the stack copy (a torn stack: both walks read a later
 * call's return address there): not judged, neither wrong nor verified.
 */
Test(sample_classify, frames_read_past_the_copy_are_not_judged)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x300, 0x400, 0x500 };
	const uint8_t plaus[] = { Y, Y, CTM, Y, Y };
	struct sample_walks_in in = walks(covered3_fp2, 5, plaus, NO_JIT, ref, 5, plaus);
	struct sample_verdict v;

	in.past_copy = 2;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_MATCH);
	cr_assert_eq(classify_outcome(&v), OUTCOME_PAST_COPY);
	cr_assert_not(classify_check_failed(&v));
	cr_assert_str_eq(classify_outcome_name(classify_outcome(&v)), "past-copy");
	in.past_copy = 3;	/* past the covered prefix: it is judged, and wrong */
	v = classify(&in);
	cr_assert_eq(v.cls, SC_BOTH_WRONG);
	cr_assert_eq(classify_outcome(&v), OUTCOME_BOTH_WRONG);
	cr_assert(classify_check_failed(&v));
}

/*
 * The walks part at a frame read past the copy (each read the live stack at
 * its own moment): not put to elfutils, not judged.
 */
Test(sample_classify, a_difference_past_the_copy_is_not_put_to_elfutils)
{
	const uint64_t ref[] = { 0x100, 0x200, 0x333, 0x400, 0x500 };
	const uint8_t ref_plaus[] = { Y, Y, Y, Y, Y }, plaus[] = { Y, Y, Y, U, U };
	struct sample_walks_in in = walks(covered3_fp2, 5, plaus, NO_JIT, ref, 5, ref_plaus);
	struct sample_verdict v;

	in.past_copy = 2;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_DIVERGED);
	cr_assert_eq(v.first_difference, 2);
	cr_assert_not(classify_needs_third_opinion(&v));
	cr_assert_eq(classify_outcome(&v), OUTCOME_PAST_COPY);
	cr_assert_not(classify_check_failed(&v));
}

/* A frame wrong before the first one read past the copy stays wrong. */
Test(sample_classify, a_wrong_frame_before_the_copy_ends_stays_wrong)
{
	const uint64_t ref[] = { 0x100, 0x222, 0x300, 0x400 };
	const uint8_t plaus[] = { Y, NAC, Y, Y, Y }, ref_plaus[] = { Y, Y, Y, Y };
	struct sample_walks_in in = walks(covered3_fp2, 5, plaus, NO_JIT, ref, 4, ref_plaus);
	struct sample_verdict v;

	in.past_copy = 2;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_OURS_WRONG);
	cr_assert_eq(v.wrong_frame, 1);
	cr_assert_eq(classify_outcome(&v), OUTCOME_OURS_WRONG);
	cr_assert(classify_check_failed(&v));
}

Test(sample_classify, a_walk_from_after_a_function_ending_syscall_is_unverifiable)
{
	static const struct emu_frame after[] = { F(0x100, REGS) };
	const uint64_t ref[] = { 0x100, 0x0 };
	const uint8_t plaus[] = { Y }, ref_plaus[] = { Y, NC };
	struct sample_walks_in in = walks(after, 1, plaus, NO_JIT, ref, 2, ref_plaus);
	struct sample_verdict v;

	in.stop = EMU_STOP_RA_ZERO;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_LIBUNWIND_FAILED);	/* as if frame 0's rule were its own */
	in.after_syscall = true;
	v = classify(&in);
	cr_assert_eq(v.cls, SC_AFTER_SYSCALL);
	cr_assert_eq(classify_outcome(&v), OUTCOME_UNVERIFIABLE);
	cr_assert_not(classify_check_failed(&v));
	cr_assert_not(classify_disagrees(&v));
	cr_assert_not(classify_libunwind_wrong(&v));
	cr_assert_str_eq(classify_class_name(v.cls), "after-syscall");
}
