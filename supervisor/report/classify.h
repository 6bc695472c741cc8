/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict on one sample: is our walk right, as far as it can be told?
 *
 * A walk's covered prefix is frame 0 and every following frame reached by an
 * SFrame or JIT step (or through a signal frame), up to (not including) the
 * first frame reached any other way (frame-pointer fallback). Three things
 * judge it:
 *
 *  - the frame-plausibility oracle (oracle/plausible.h), on every frame of
 *    every walk: a frame that is not code, not after a call, or after a call
 *    to another function is wrong, whoever found it and whatever the others
 *    say. A covered prefix holding such a frame makes the sample ours-wrong
 *    (both-wrong when libunwind has the same frame); where the walks part,
 *    the side with such a frame is the wrong one;
 *  - libunwind's walk (DWARF CFI): the covered prefix must equal its frames,
 *    as far as it can check them;
 *  - elfutils' walk, asked only when the walks part and plausibility cannot
 *    tell which is right.
 *
 * libunwind cannot read JIT unwind tables (nor, remotely on x86-64, any
 * dynamic unwind info registered with _U_dyn_register: see oracle/libunwind.c): it
 * reaches the first frame whose IP is in JIT code from that frame's callee,
 * whose unwind info it has, but a step out of JIT code is its own guess. So
 * frames up to and including the first JIT frame are compared, and a
 * difference after it is not a disagreement (SC_JIT_UNCHECKED); plausibility
 * still judges every frame.
 */
#ifndef SUPERVISOR_REPORT_CLASSIFY_H
#define SUPERVISOR_REPORT_CLASSIFY_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/unwind.h"
#include "supervisor/oracle/oracle.h"
#include "supervisor/oracle/plausible.h"

/* X(ID, name, what): enum sample_class (SC_<ID>) and its names from one table. */
#define SAMPLE_CLASSES(X) \
	X(MATCH, "match", "the same frames, none implausible") \
	X(ENDED, "ended", "the covered prefix is right; our walk ended where libunwind's goes on") \
	X(ASTRAY, "astray", "the covered prefix is right; the frame-pointer fallback after it " \
	  "found a frame that is implausible or not libunwind's") \
	X(DIVERGED, "diverged", "a frame of the covered prefix differs from libunwind's, " \
	  "and neither is implausible (elfutils decides)") \
	X(LIBUNWIND_FAILED, "libunwind-failed", "libunwind's walk is the wrong one: an " \
	  "implausible frame, or it ended inside our plausible covered prefix") \
	X(OURS_WRONG, "ours-wrong", "our covered prefix holds an implausible frame libunwind " \
	  "does not have, or RA 0 through a row that is not outermost") \
	X(BOTH_WRONG, "both-wrong", "our covered prefix holds an implausible frame, and " \
	  "libunwind's walk has it too") \
	X(BLIND, "blind-reference", "a frame of the covered prefix differs from libunwind's, " \
	  "which only guessed it (no unwind information where it stepped from)") \
	X(UNCHECKED, "unchecked", "no cross-check (--no-crosscheck, or no libunwind)") \
	X(JIT_UNCHECKED, "jit-unchecked", "equal up to the first JIT frame; they part after " \
	  "it, where libunwind has no unwind info") \
	X(AFTER_SYSCALL, "after-syscall", "taken in a system call made by a function's last " \
	  "instruction: the IP, the next function's first byte, was looked up there (as the " \
	  "kernel does), the walk by another function's rule; no witness can judge it")

enum sample_class {
#define SAMPLE_CLASS_ID(id, name, what) SC_##id,
	SAMPLE_CLASSES(SAMPLE_CLASS_ID)
#undef SAMPLE_CLASS_ID
	SC_COUNT
};

/*
 * elfutils' side in a disagreement (SIDE_NOT_ASKED when there was none;
 * SIDE_BLIND: it only guessed the frame, and its guess is no opinion).
 */
enum elfutils_side {
	SIDE_NOT_ASKED = 0,
	SIDE_US,
	SIDE_LIBUNWIND,
	SIDE_NEITHER,
	SIDE_BLIND,
	SIDE_COUNT
};

/* What the sample says of our walk's covered prefix, for the headline. */
enum sample_outcome {
	OUTCOME_VERIFIED,	/* right: plausible and agreed with, or libunwind the wrong one */
	OUTCOME_OURS_WRONG,
	OUTCOME_BOTH_WRONG,
	OUTCOME_UNVERIFIABLE,	/* not cross-checked, no witness could decide, or the
				 * frame-pointer fallback left out frames (@fallback_skipped) */
	OUTCOME_PAST_COPY,	/* frames of the covered prefix were read past the stack copy,
				 * after the thread ran on: not judged */
	OUTCOME_COUNT
};

/*
 * Why a walk is wrong (struct sample_verdict's @why): 0 for nothing, an
 * implausible frame's enum plausible, or a finding that is not about one frame.
 */
#define WHY_RA_ZERO_NOT_OUTERMOST PLAUSIBLE_COUNT	/* RA 0 through a row not marked outermost */
#define WHY_ROW_FAULT (PLAUSIBLE_COUNT + 1)	/* a step by a row faulted (read, CFA) */
#define WHY_RA_BELOW_SP (PLAUSIBLE_COUNT + 2)	/* its rule read the RA below SP */
#define WHY_COUNT (PLAUSIBLE_COUNT + 3)

/* No frame of the walk is in JIT code. */
#define SAMPLE_NO_JIT_FRAME UINT_MAX

/**
 * struct sample_walks_in - one sample's walks, as the classification reads them
 * @ours, @n: our frames; @plaus: their plausibility (enum plausible; NULL: all unknown)
 * @stop, @stop_source: why our walk ended, and the step that did (EMU_SRC_*)
 * @jit_frame: index of our first frame whose IP is in JIT code, or
 *	SAMPLE_NO_JIT_FRAME; frames after it are not compared with libunwind
 * @ref, @n_ref, @ref_plaus: libunwind's IPs and their plausibility
 * @ref_flags: their EMU_FRAME_* and ORACLE_FRAME_GUESS flags (NULL: none
 *	known); a guessed frame counts only where it is plausible
 * @ref_err: libunwind's result (0: it reached the end; < 0: it failed at
 *	frame @n_ref); @have_ref: libunwind ran at all
 * @after_syscall: the sample was taken in a system call whose instruction
 *	ends a function (a noreturn exit): frame 0's IP is the first byte of
 *	the next function, and its rule that function's
 * @past_copy: our first frame whose step read the stack past the copy taken
 *	at the sample (read after the thread ran on: maybe torn), 0 when none;
 *	it and the frames after it are not judged (their plausibility unknown);
 *	@ref_past_copy: libunwind's, likewise
 */
struct sample_walks_in {
	const struct emu_frame *ours;
	const uint8_t *plaus;
	unsigned int n;
	uint8_t stop;
	uint8_t stop_source;
	unsigned int jit_frame;
	const uint64_t *ref;
	const uint8_t *ref_plaus;
	const uint8_t *ref_flags;
	unsigned int n_ref;
	int ref_err;
	bool have_ref;
	bool after_syscall;
	unsigned int past_copy;
	unsigned int ref_past_copy;
};

/**
 * struct sample_verdict - what the comparison found
 * @covered: frames in our covered prefix (>= 1)
 * @jit_frame: index of the first frame whose IP is in JIT code, the last
 *	frame libunwind can check (SAMPLE_NO_JIT_FRAME: none)
 * @has_step: the walk took at least one SFrame/JIT step (@covered >= 2, or
 *	a row's step ended it wrongly: RA 0, a fault)
 * @agrees: the covered prefix equals libunwind's frames (as far as they can
 *	be checked), with a step, and none of it implausible
 * @first_difference: index of the first frame that differs (or the shorter
 *	walk's length); meaningful unless @cls is SC_MATCH
 * @wrong_frame, @why: the frame a verdict of a wrong walk is about, and why
 *	(enum plausible, or WHY_RA_ZERO_NOT_OUTERMOST); @why 0 for none
 * @side: elfutils' (SC_DIVERGED only)
 * @past_copy: @in's (0: none)
 * @plausible_there: SC_BLIND: our frame at the first difference is
 *	plausible, which decides for us
 * @fallback_skipped: SC_ASTRAY: past the covered prefix, where libunwind
 *	has a frame by unwind data (not a guess), the frame-pointer fallback
 *	found another, not known wrong or one libunwind reaches later: it left
 *	out frames it cannot account for (a callee without unwind data whose
 *	%rbp is not its caller's frame). The covered prefix is right, the
 *	stack is not: unverifiable, never verified.
 */
struct sample_verdict {
	enum sample_class cls;
	unsigned int covered;
	unsigned int jit_frame;
	bool has_step;
	bool agrees;
	unsigned int first_difference;
	unsigned int wrong_frame;
	uint8_t why;
	enum elfutils_side side;
	unsigned int past_copy;
	bool plausible_there;
	bool fallback_skipped;
};

/** classify_sample() - the verdict on @in's walks (elfutils' side comes later). */
void classify_sample(const struct sample_walks_in *in, struct sample_verdict *v);

/**
 * classify_needs_third_opinion() - should elfutils be asked about @v's sample?
 * Only about a divergence it can decide: not one among frames read past the
 * stack copy (OUTCOME_PAST_COPY), which compares two moments of the stack.
 */
bool classify_needs_third_opinion(const struct sample_verdict *v);

/**
 * classify_side() - set @v->side from elfutils' @n_elf PCs: whose frame it has
 * at the first difference (only up to the covered prefix matters, and not
 * past the first JIT frame: elfutils has no JIT unwind info either); a walk
 * of its own that is implausible by then sides with nobody, and a frame it
 * only guessed (not plausible) is no opinion (SIDE_BLIND)
 * @elf_plaus, @elf_flags: plausibility and flags of @elf's frames (NULL:
 *	unknown, none)
 */
void classify_side(struct sample_verdict *v, const struct sample_walks_in *in,
		   const uint64_t *elf, const uint8_t *elf_plaus, const uint8_t *elf_flags,
		   unsigned int n_elf);

/** classify_outcome() - what @v says of our covered prefix (the report's headline). */
enum sample_outcome classify_outcome(const struct sample_verdict *v);

/**
 * classify_libunwind_wrong() - @v's sample shows libunwind's walk wrong and
 * ours right (both wrong is OUTCOME_BOTH_WRONG: the report's three counts
 * of wrong walks are apart)
 */
bool classify_libunwind_wrong(const struct sample_verdict *v);

/**
 * classify_check_failed() - does @v fail --check: our covered prefix is
 * wrong, or the walks part and elfutils does not side with us?
 */
bool classify_check_failed(const struct sample_verdict *v);

/**
 * classify_disagrees() - is @v's sample kept as an example and counted at its
 * place: neither a match nor left unchecked (nor JIT-unchecked)?
 */
bool classify_disagrees(const struct sample_verdict *v);

/** classify_class_name() - "match", "ended", "astray", "diverged", ... */
const char *classify_class_name(enum sample_class c);

/** classify_outcome_name() - "verified", "ours-wrong", "both-wrong", "unverifiable", "past-copy". */
const char *classify_outcome_name(enum sample_outcome o);

/** classify_side_name() - "", "codectl-run", "libunwind", "neither", "blind". */
const char *classify_side_name(enum elfutils_side s);

/** classify_why_name() - "not-code", ..., "ra-zero-not-outermost"; "" for none. */
const char *classify_why_name(uint8_t why);

#endif /* SUPERVISOR_REPORT_CLASSIFY_H */
