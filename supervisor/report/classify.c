// SPDX-License-Identifier: GPL-2.0
/* Classification of a sample's walks. */
#include "classify.h"

static unsigned int covered_prefix(const struct emu_frame *f, unsigned int n)
{
	unsigned int i = 1;

	while (i < n && (f[i].source == EMU_SRC_SFRAME || f[i].source == EMU_SRC_JIT))
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

void classify_sample(const struct emu_frame *ours, unsigned int n, unsigned int jit_frame,
		     const uint64_t *ref, unsigned int n_ref, int ref_err, bool have_ref,
		     struct sample_verdict *v)
{
	/* frames libunwind can check: up to and including the first JIT frame */
	unsigned int checkable = jit_frame < n ? jit_frame + 1 : UINT_MAX, d;

	*v = (struct sample_verdict){
		.covered = covered_prefix(ours, n),
		.jit_frame = jit_frame < n ? jit_frame : SAMPLE_NO_JIT_FRAME,
	};
	v->has_step = v->covered >= 2;
	if (!have_ref) {
		v->cls = SC_UNCHECKED;
		return;
	}
	d = first_difference(ours, n, ref, n_ref);
	v->first_difference = d;
	v->agrees = v->has_step && d >= checkable_prefix(v);
	if (d == n && d == n_ref)
		v->cls = SC_MATCH;
	else if (d >= checkable)	/* past the JIT frame: only our coverage counts */
		v->cls = d < v->covered ? SC_JIT_UNCHECKED : SC_SFRAME_SHORTER;
	else if (d == n_ref && (d < v->covered || (ref_err < 0 && n_ref <= 1 && n > 1)))
		v->cls = SC_LIBUNWIND_FAILED;	/* it stopped (or failed) where we went on */
	else if (d >= v->covered)
		v->cls = SC_SFRAME_SHORTER;
	else
		v->cls = SC_DIVERGED;
}

bool classify_disagrees(const struct sample_verdict *v)
{
	return v->cls != SC_MATCH && v->cls != SC_UNCHECKED && v->cls != SC_JIT_UNCHECKED;
}

bool classify_needs_third_opinion(const struct sample_verdict *v)
{
	return v->has_step && !v->agrees && v->cls != SC_UNCHECKED;
}

void classify_side(struct sample_verdict *v, const struct emu_frame *ours, unsigned int n,
		 const uint64_t *ref, unsigned int n_ref, const uint64_t *elf, unsigned int n_elf)
{
	unsigned int d = v->first_difference, i;
	bool ours_ok = true;

	/* elfutils with us: it has our covered prefix exactly, as far as it can check it */
	for (i = 0; i < checkable_prefix(v) && i < n; i++)
		if (i >= n_elf || elf[i] != ours[i].ip)
			ours_ok = false;
	if (ours_ok)
		v->side = SIDE_US;
	else if (d < n_elf && d < n_ref && elf[d] == ref[d])
		v->side = SIDE_LIBUNWIND;
	else if (d >= n_ref && n_elf == n_ref)
		v->side = SIDE_LIBUNWIND;	/* it ends where libunwind ends */
	else
		v->side = SIDE_NEITHER;
}

bool classify_check_failed(const struct sample_verdict *v)
{
	return v->has_step && !v->agrees && v->cls != SC_UNCHECKED && v->side != SIDE_US;
}

const char *classify_class_name(enum sample_class c)
{
	static const char *const names[SC_COUNT] = {
		[SC_MATCH] = "match",
		[SC_SFRAME_SHORTER] = "sframe-shorter",
		[SC_DIVERGED] = "diverged",
		[SC_LIBUNWIND_FAILED] = "libunwind-failed",
		[SC_UNCHECKED] = "unchecked",
		[SC_JIT_UNCHECKED] = "jit-unchecked",
	};

	return c < SC_COUNT ? names[c] : "?";
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
	default:
		return "";
	}
}
