// SPDX-License-Identifier: GPL-2.0
/* The verdict on a sample's walks: plausibility first, then libunwind, then elfutils. */
#include "classify.h"

static unsigned int covered_prefix(const struct emu_frame *f, unsigned int n)
{
	unsigned int i = 1;

	while (i < n && (emu_source_by_data(f[i].source) || f[i].source == EMU_SRC_SIGNAL))
		i++;
	return n ? i : 0;
}

static unsigned int first_difference(const struct emu_frame *ours, unsigned int n,
				     const uint64_t *ref, unsigned int n_ref)
{
	unsigned int i;

	for (i = 0; i < n && i < n_ref; i++)
		if (ours[i].ip != ref[i])
			break;
	return i;
}

/* Frames of the covered prefix a reference unwinder can check (not past the first JIT frame). */
static unsigned int checkable_prefix(const struct sample_verdict *v)
{
	if (v->jit_frame != SAMPLE_NO_JIT_FRAME && v->jit_frame < v->covered)
		return v->jit_frame + 1;
	return v->covered;
}

static bool bad(const uint8_t *plaus, unsigned int i)
{
	return plaus && plausible_bad(plaus[i]);
}

/* Does libunwind's frame @i count: not a guess, or a plausible one? */
static bool ref_counts(const struct sample_walks_in *in, unsigned int i)
{
	bool guess = in->ref_flags && (in->ref_flags[i] & ORACLE_FRAME_GUESS);

	return !guess || (in->ref_plaus && in->ref_plaus[i] == PLAUSIBLE_YES);
}

/* The first frame in [@from, @to) that plausibility says is wrong; @to when none. */
static unsigned int first_bad(const uint8_t *plaus, unsigned int from, unsigned int to)
{
	while (from < to && !bad(plaus, from))
		from++;
	return from;
}

static void wrong(struct sample_verdict *v, enum sample_class cls, unsigned int frame,
		  uint8_t why)
{
	v->cls = cls;
	v->wrong_frame = frame;
	v->why = why;
}

/*
 * A step by an SFrame or JIT row that read RA 0 (the row was not marked
 * outermost) or faulted (a read, a CFA not above SP or misaligned) ends a
 * walk libunwind goes on with, trustworthily and plausibly: the row was
 * wrong. The finding's why, or 0.
 */
static uint8_t row_finding(const struct sample_walks_in *in, const struct sample_verdict *v,
			   unsigned int d)
{
	bool ref_goes_on = in->n_ref > in->n && in->ref_plaus &&
			   in->ref_plaus[in->n] == PLAUSIBLE_YES && ref_counts(in, in->n);

	if (d != in->n || v->covered != in->n || !ref_goes_on || in->past_copy ||
	    !emu_source_by_data(in->stop_source))
		return 0;
	switch (in->stop) {
	case EMU_STOP_RA_ZERO:
		return WHY_RA_ZERO_NOT_OUTERMOST;
	case EMU_STOP_READ_FAULT:
	case EMU_STOP_CFA_NOT_ABOVE_SP:
	case EMU_STOP_CFA_MISALIGNED:
	case EMU_STOP_RA_RETAINED:
	case EMU_STOP_RULE_INVALID:
		return WHY_ROW_FAULT;
	default:
		return 0;
	}
}

/*
 * Past the covered prefix, at the first difference @d, libunwind has a frame
 * by unwind data (not a guess, not implausible, not past a JIT frame, where
 * it has none), and our frame-pointer fallback another: one not known wrong,
 * or one libunwind reaches later. Either way the fallback left out frames.
 * (An implausible frame libunwind never reaches, such as what %rbp gives
 * past __libc_start_call_main, is a wrong frame named, not frames left out;
 * frames either walk read past the stack copy are not judged.)
 */
static bool fallback_skipped(const struct sample_walks_in *in, unsigned int d)
{
	unsigned int k;

	if (d >= in->n || d >= in->n_ref || bad(in->ref_plaus, d) ||
	    (in->past_copy && in->past_copy <= d) || (in->ref_past_copy && in->ref_past_copy <= d) ||
	    (in->ref_flags && (in->ref_flags[d] & ORACLE_FRAME_GUESS)) ||
	    (in->jit_frame < in->n && d > in->jit_frame))
		return false;
	if (!bad(in->plaus, d))
		return true;
	for (k = d + 1; k < in->n_ref; k++)
		if (in->ref[k] == in->ours[d].ip)
			return true;
	return false;
}

/*
 * The covered prefix agreed with (or past the last frame libunwind can
 * check): what happened after it, at the first difference @d.
 */
static void after_covered(const struct sample_walks_in *in, struct sample_verdict *v,
			  unsigned int d)
{
	unsigned int ours_bad = first_bad(in->plaus, v->covered, in->n);
	unsigned int ref_bad = first_bad(in->ref_plaus, d, in->n_ref);
	uint8_t finding = row_finding(in, v, d);

	/* only an astray walk can have it (d < both walks' lengths, libunwind's frame not bad) */
	v->fallback_skipped = ours_bad >= d && fallback_skipped(in, d);
	if (finding) {
		v->has_step = true;	/* the row's step ended the walk */
		return wrong(v, SC_OURS_WRONG, in->n, finding);
	}
	if (ours_bad < in->n && ours_bad <= d)	/* our fallback went wrong first */
		return wrong(v, SC_ASTRAY, ours_bad, in->plaus[ours_bad]);
	if (ref_bad < in->n_ref && (ref_bad == d || d == in->n))
		return wrong(v, SC_LIBUNWIND_FAILED, ref_bad, in->ref_plaus[ref_bad]);
	if (d == in->n_ref && d < in->n && in->plaus && in->plaus[d] == PLAUSIBLE_YES)
		return wrong(v, SC_LIBUNWIND_FAILED, d, 0);	/* it stopped short */
	if (ours_bad < in->n)
		return wrong(v, SC_ASTRAY, ours_bad, in->plaus[ours_bad]);
	if (d < in->n)
		v->cls = SC_ASTRAY;	/* not libunwind's, which is not known wrong */
	else if (d < in->n_ref)
		v->cls = SC_ENDED;	/* ours stopped; libunwind's plausible walk goes on */
	else
		v->cls = SC_MATCH;
}

/*
 * The walks part inside the covered prefix, at @d; ours is not implausible
 * there. A libunwind frame that is implausible, or missing where ours is
 * plausible, is libunwind's error; one it only guessed is no opinion.
 */
static void inside_covered(const struct sample_walks_in *in, struct sample_verdict *v,
			   unsigned int d)
{
	bool ours_yes = in->plaus && in->plaus[d] == PLAUSIBLE_YES;

	if (d < in->n_ref && bad(in->ref_plaus, d))
		return wrong(v, SC_LIBUNWIND_FAILED, d, in->ref_plaus[d]);
	if (d == in->n_ref && ours_yes)
		return wrong(v, SC_LIBUNWIND_FAILED, d, 0);	/* it stopped where we go on */
	if (d < in->n_ref && !ref_counts(in, d)) {
		v->cls = SC_BLIND;
		v->plausible_there = ours_yes;
		return;
	}
	v->cls = SC_DIVERGED;	/* plausibility cannot tell: elfutils will */
}

void classify_sample(const struct sample_walks_in *in, struct sample_verdict *v)
{
	unsigned int checkable = in->jit_frame < in->n ? in->jit_frame + 1 : UINT_MAX, d, k;

	*v = (struct sample_verdict){
		.covered = covered_prefix(in->ours, in->n),
		.jit_frame = in->jit_frame < in->n ? in->jit_frame : SAMPLE_NO_JIT_FRAME,
		.past_copy = in->past_copy,
	};
	v->has_step = v->covered >= 2;
	if (in->after_syscall) {
		v->cls = SC_AFTER_SYSCALL;	/* every walk stepped by the wrong rule */
		return;
	}
	/* frames read past the stack copy are not judged */
	k = first_bad(in->plaus, 1, in->past_copy && in->past_copy < v->covered ? in->past_copy :
			v->covered);
	if (k == in->past_copy)
		k = v->covered;
	d = in->have_ref ? first_difference(in->ours, in->n, in->ref, in->n_ref) : 0;
	v->first_difference = d;
	if (k < v->covered) {
		bool libunwind_too = in->have_ref && k < in->n_ref && in->ref[k] == in->ours[k].ip;

		return wrong(v, libunwind_too ? SC_BOTH_WRONG : SC_OURS_WRONG, k, in->plaus[k]);
	}
	if (!in->have_ref) {
		v->cls = SC_UNCHECKED;
		return;
	}
	v->agrees = v->has_step && d >= checkable_prefix(v);
	if (d >= checkable && d < v->covered)
		v->cls = SC_JIT_UNCHECKED;	/* past the JIT frame: only our coverage counts */
	else if (d >= v->covered || d >= checkable)
		after_covered(in, v, d);
	else
		inside_covered(in, v, d);
	if (v->cls == SC_OURS_WRONG)
		v->agrees = false;
}

bool classify_disagrees(const struct sample_verdict *v)
{
	return v->cls != SC_MATCH && v->cls != SC_UNCHECKED && v->cls != SC_JIT_UNCHECKED &&
	       v->cls != SC_AFTER_SYSCALL;
}

bool classify_needs_third_opinion(const struct sample_verdict *v)
{
	/* a difference among frames read past the copy compares two moments */
	return v->cls == SC_DIVERGED && classify_outcome(v) != OUTCOME_PAST_COPY;
}

void classify_side(struct sample_verdict *v, const struct sample_walks_in *in,
		   const uint64_t *elf, const uint8_t *elf_plaus, const uint8_t *elf_flags,
		   unsigned int n_elf)
{
	unsigned int d = v->first_difference, i, elf_bad = first_bad(elf_plaus, 1, n_elf);
	bool ours_ok = true, guessed;

	/* elfutils with us: it has our covered prefix exactly, as far as it can check it */
	for (i = 0; i < checkable_prefix(v) && i < in->n; i++)
		if (i >= n_elf || elf[i] != in->ours[i].ip)
			ours_ok = false;
	guessed = d < n_elf && elf_flags && (elf_flags[d] & ORACLE_FRAME_GUESS) &&
		  !(elf_plaus && elf_plaus[d] == PLAUSIBLE_YES);
	if (ours_ok)
		v->side = SIDE_US;
	else if (elf_bad < n_elf && elf_bad <= d)
		v->side = SIDE_NEITHER;	/* its own walk is wrong by then */
	else if (guessed)
		v->side = SIDE_BLIND;	/* a guess from the frame chain: no opinion */
	else if (d < n_elf && d < in->n_ref && elf[d] == in->ref[d])
		v->side = SIDE_LIBUNWIND;
	else if (d >= in->n_ref && n_elf == in->n_ref)
		v->side = SIDE_LIBUNWIND;	/* it ends where libunwind ends */
	else
		v->side = SIDE_NEITHER;
}

static enum sample_outcome outcome_of_class(const struct sample_verdict *v)
{
	switch (v->cls) {
	case SC_OURS_WRONG:
		return OUTCOME_OURS_WRONG;
	case SC_BOTH_WRONG:
		return OUTCOME_BOTH_WRONG;
	case SC_UNCHECKED:
	case SC_AFTER_SYSCALL:
		return OUTCOME_UNVERIFIABLE;
	case SC_BLIND:
		return v->plausible_there ? OUTCOME_VERIFIED : OUTCOME_UNVERIFIABLE;
	case SC_DIVERGED:
		return v->side == SIDE_US ? OUTCOME_VERIFIED : v->side == SIDE_LIBUNWIND ?
		       OUTCOME_OURS_WRONG : OUTCOME_UNVERIFIABLE;
	case SC_ASTRAY:
		return v->fallback_skipped ? OUTCOME_UNVERIFIABLE : OUTCOME_VERIFIED;
	default:
		return OUTCOME_VERIFIED;
	}
}

/*
 * A covered prefix with frames read past the stack copy is not judged
 * (OUTCOME_PAST_COPY), unless it went wrong before them.
 */
enum sample_outcome classify_outcome(const struct sample_verdict *v)
{
	enum sample_outcome o = outcome_of_class(v);
	unsigned int at = v->cls == SC_DIVERGED ? v->first_difference : v->wrong_frame;

	if (!v->past_copy || v->past_copy >= v->covered)
		return o;
	if ((o == OUTCOME_OURS_WRONG || o == OUTCOME_BOTH_WRONG) && at < v->past_copy)
		return o;
	return OUTCOME_PAST_COPY;
}

bool classify_libunwind_wrong(const struct sample_verdict *v)
{
	return v->cls == SC_LIBUNWIND_FAILED || (v->cls == SC_DIVERGED && v->side == SIDE_US);
}

bool classify_check_failed(const struct sample_verdict *v)
{
	if (classify_outcome(v) == OUTCOME_PAST_COPY)
		return false;
	if (v->cls == SC_OURS_WRONG || v->cls == SC_BOTH_WRONG)
		return true;
	return v->cls == SC_DIVERGED && v->side != SIDE_US && v->side != SIDE_BLIND;
}

const char *classify_class_name(enum sample_class c)
{
	static const char *const names[SC_COUNT] = {
#define SAMPLE_CLASS_NAME(id, name, what) [SC_##id] = name,
		SAMPLE_CLASSES(SAMPLE_CLASS_NAME)
#undef SAMPLE_CLASS_NAME
	};

	return c < SC_COUNT ? names[c] : "?";
}

const char *classify_outcome_name(enum sample_outcome o)
{
	static const char *const names[OUTCOME_COUNT] = {
		[OUTCOME_VERIFIED] = "verified",
		[OUTCOME_OURS_WRONG] = "ours-wrong",
		[OUTCOME_BOTH_WRONG] = "both-wrong",
		[OUTCOME_UNVERIFIABLE] = "unverifiable",
		[OUTCOME_PAST_COPY] = "past-copy",
	};

	return o < OUTCOME_COUNT ? names[o] : "?";
}

const char *classify_side_name(enum elfutils_side s)
{
	switch (s) {
	case SIDE_US:
		return "codectl-run";
	case SIDE_LIBUNWIND:
		return "libunwind";
	case SIDE_NEITHER:
		return "neither";
	case SIDE_BLIND:
		return "blind";
	default:
		return "";
	}
}

const char *classify_why_name(uint8_t why)
{
	if (why == WHY_RA_ZERO_NOT_OUTERMOST)
		return "ra-zero-not-outermost";
	if (why == WHY_ROW_FAULT)
		return "row-fault";
	if (why == WHY_RA_BELOW_SP)
		return "ra-below-sp";
	return why ? plausible_name(why) : "";
}
