/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Comparing one sample's walks: ours (emu/ unwinder) against libunwind's,
 * and, when they disagree, elfutils' as the third opinion.
 *
 * A walk's covered prefix is frame 0 and every following frame reached by an
 * SFrame or JIT step, up to (not including) the first frame reached any other
 * way (frame-pointer fallback). The sample agrees when it has at least one
 * SFrame/JIT step and its covered prefix equals libunwind's frames at the
 * same depths, as far as libunwind can check them.
 *
 * libunwind cannot read JIT unwind tables (nor, remotely on x86-64, any
 * dynamic unwind info registered with _U_dyn_register: see oracle/libunwind.c): it
 * reaches the first frame whose IP is in JIT code from that frame's callee,
 * whose unwind info it has, but a step out of JIT code is its own guess. So
 * frames up to and including the first JIT frame are compared, and a
 * difference after it is not a disagreement (SC_JIT_UNCHECKED).
 */
#ifndef SUPERVISOR_REPORT_CLASSIFY_H
#define SUPERVISOR_REPORT_CLASSIFY_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/unwind.h"

enum sample_class {
	SC_MATCH = 0,		/* the same frames */
	SC_SFRAME_SHORTER,	/* equal over the covered prefix; ours ended or
				 * went astray (FP fallback) after it */
	SC_DIVERGED,		/* a frame of the covered prefix differs */
	SC_LIBUNWIND_FAILED,	/* libunwind stopped (or failed) inside our
				 * covered prefix, or failed at its first step */
	SC_UNCHECKED,		/* no cross-check (--no-crosscheck, or no libunwind) */
	SC_JIT_UNCHECKED,	/* equal up to the first JIT frame; they part (or
				 * libunwind ends) after it, inside our covered
				 * prefix, where libunwind has no unwind info */
	SC_COUNT
};

/* elfutils' side in a disagreement (SIDE_NOT_ASKED when there was none). */
enum elfutils_side {
	SIDE_NOT_ASKED = 0,
	SIDE_US,
	SIDE_LIBUNWIND,
	SIDE_NEITHER,
};

/* No frame of the walk is in JIT code. */
#define SAMPLE_NO_JIT_FRAME UINT_MAX

/**
 * struct sample_verdict - what the comparison found
 * @covered: frames in our covered prefix (>= 1)
 * @jit_frame: index of the first frame whose IP is in JIT code, the last
 *	frame libunwind can check (SAMPLE_NO_JIT_FRAME: none)
 * @has_step: the walk took at least one SFrame/JIT step (@covered >= 2)
 * @agrees: see the file comment; false without a cross-check
 * @first_difference: index of the first frame that differs (or the shorter
 *	walk's length); meaningful unless @cls is SC_MATCH
 */
struct sample_verdict {
	enum sample_class cls;
	unsigned int covered;
	unsigned int jit_frame;
	bool has_step;
	bool agrees;
	unsigned int first_difference;
	enum elfutils_side side;
};

/**
 * classify_sample() - compare our @n frames with libunwind's @n_ref IPs
 * @jit_frame: index of our first frame whose IP is in JIT code, or
 *	SAMPLE_NO_JIT_FRAME; frames after it are not compared
 * @ref_err: libunwind's result (0: it reached the end; < 0: it failed at
 *	frame @n_ref); @have_ref: libunwind ran at all
 */
void classify_sample(const struct emu_frame *ours, unsigned int n, unsigned int jit_frame,
		     const uint64_t *ref, unsigned int n_ref, int ref_err, bool have_ref,
		     struct sample_verdict *v);

/** classify_needs_third_opinion() - should elfutils be asked about @v's sample? */
bool classify_needs_third_opinion(const struct sample_verdict *v);

/**
 * classify_side() - set @v->side from elfutils' @n_elf PCs: whose frame it has
 * at the first difference (only up to the covered prefix matters, and not
 * past the first JIT frame: elfutils has no JIT unwind info either)
 */
void classify_side(struct sample_verdict *v, const struct emu_frame *ours, unsigned int n,
		 const uint64_t *ref, unsigned int n_ref, const uint64_t *elf, unsigned int n_elf);

/** classify_check_failed() - does @v fail --check (disagreement not sided with us)? */
bool classify_check_failed(const struct sample_verdict *v);

/**
 * classify_disagrees() - is @v's sample a disagreement (kept as an example,
 * counted at its place): neither a match nor left unchecked?
 */
bool classify_disagrees(const struct sample_verdict *v);

/**
 * classify_class_name() - "match", "sframe-shorter", "diverged", "libunwind-failed",
 * "unchecked", "jit-unchecked"
 */
const char *classify_class_name(enum sample_class c);

/** classify_side_name() - "", "codectl-run", "libunwind", "neither". */
const char *classify_side_name(enum elfutils_side s);

#endif /* SUPERVISOR_REPORT_CLASSIFY_H */
