// SPDX-License-Identifier: GPL-2.0
/*
 * FRE data words to the neutral unwind rule: DEFAULT FDEs (v1, v2, v3 type 0:
 * CFA, then RA and FP offsets unless fixed in the header) and v3 FLEX FDEs
 * ((control, offset) pairs; spec "Flexible FDE Type Interpretation").
 */
#include <errno.h>

#include "sframe_internal.h"

static struct emu_loc_rule loc(uint8_t kind, uint8_t reg, int64_t off)
{
	return (struct emu_loc_rule){ .kind = kind, .reg = reg, .off = off };
}

/* The RA rule when the FRE carries none: the header's fixed offset, else the arch's. */
static struct emu_loc_rule default_ra(const struct emu_sframe_section *s)
{
	if (s->hdr.fixed_ra)
		return loc(EMU_LOC_CFA_DEREF, 0, s->hdr.fixed_ra);
	if (s->arch->ra_cfa_off)
		return loc(EMU_LOC_CFA_DEREF, 0, s->arch->ra_cfa_off);
	return loc(EMU_LOC_SAME, s->arch->ra_reg, 0);
}

static struct emu_loc_rule default_fp(const struct emu_sframe_section *s)
{
	if (s->hdr.fixed_fp)
		return loc(EMU_LOC_CFA_DEREF, 0, s->hdr.fixed_fp);
	return loc(EMU_LOC_SAME, s->arch->fp_reg, 0);
}

/* DEFAULT FDE: words CFA, [RA unless fixed], [FP unless fixed]. */
static enum emu_rule default_rule(const struct emu_sframe_section *s,
				  const struct emu_sframe_fre *fre, struct emu_unwind_rule *rule)
{
	unsigned int max = emu_sf_default_max_words(s), i = 1;

	if (fre->count > max)
		return EMU_R_SF_FRE_OFFSET_COUNT;
	rule->cfa_base = EMU_SF_FRE_BASE_SP(fre->info) ? EMU_CFA_SP : EMU_CFA_FP;
	rule->cfa_off = fre->word[0];
	if (!s->hdr.fixed_ra && i < fre->count)
		rule->ra = loc(EMU_LOC_CFA_DEREF, 0, fre->word[i++]);
	else
		rule->ra = default_ra(s);
	if (!s->hdr.fixed_fp && i < fre->count)
		rule->fp = loc(EMU_LOC_CFA_DEREF, 0, fre->word[i++]);
	else
		rule->fp = default_fp(s);
	return EMU_R_OK;
}

/* One FLEX (control, offset) pair for RA or FP; control 0 is handled by the caller. */
static enum emu_rule flex_loc(const struct emu_sframe_section *s, uint32_t ctl, int32_t off,
			      struct emu_loc_rule *out)
{
	uint32_t reg = EMU_SF_FLEX_REGNUM(ctl);

	if (EMU_SF_FLEX_RESERVED(ctl))
		return EMU_R_SF_FLEX_CONTROL;
	if (EMU_SF_FLEX_REG_P(ctl)) {
		if (reg >= s->arch->nregs)
			return EMU_R_SF_FLEX_CONTROL;
		*out = loc(EMU_SF_FLEX_DEREF_P(ctl) ? EMU_LOC_REG_DEREF : EMU_LOC_REG, (uint8_t)reg, off);
		return EMU_R_OK;
	}
	/* CFA-based: only the stack slot *(CFA + off); a register number makes no sense. */
	if (!EMU_SF_FLEX_DEREF_P(ctl) || reg)
		return EMU_R_SF_FLEX_CONTROL;
	*out = loc(EMU_LOC_CFA_DEREF, 0, off);
	return EMU_R_OK;
}

static enum emu_rule flex_cfa(const struct emu_sframe_section *s, const struct emu_sframe_fre *fre,
			      struct emu_unwind_rule *rule)
{
	uint32_t ctl = emu_sframe_fre_uword(fre, 0), reg = EMU_SF_FLEX_REGNUM(ctl);

	if (!EMU_SF_FLEX_REG_P(ctl) || EMU_SF_FLEX_RESERVED(ctl) || reg >= s->arch->nregs)
		return EMU_R_SF_FLEX_CONTROL;
	if (reg == s->arch->sp_reg)
		rule->cfa_base = EMU_CFA_SP;
	else if (reg == s->arch->fp_reg)
		rule->cfa_base = EMU_CFA_FP;
	else
		rule->cfa_base = EMU_CFA_REG;
	rule->cfa_reg = (uint8_t)reg;
	rule->cfa_deref = EMU_SF_FLEX_DEREF_P(ctl);
	rule->cfa_off = fre->word[1];
	return EMU_R_OK;
}

/*
 * FLEX FDE: CFA pair; then an RA pair, or one padding word 0 when an FP pair
 * follows; then an optional FP pair. Counts 2, 4, 5 and 6 are valid.
 */
static enum emu_rule flex_rule(const struct emu_sframe_section *s, const struct emu_sframe_fre *fre,
			       struct emu_unwind_rule *rule)
{
	unsigned int i = 2, n = fre->count;
	enum emu_rule r;

	if (n < 2)
		return EMU_R_SF_FRE_OFFSET_COUNT;
	r = flex_cfa(s, fre, rule);
	if (r)
		return r;
	rule->ra = default_ra(s);
	rule->fp = default_fp(s);
	if (i < n) {
		if (n - i < 2)
			return EMU_R_SF_FRE_OFFSET_COUNT;
		if (emu_sframe_fre_uword(fre, i) == 0) {
			i++;		/* padding: RA keeps its default, FP follows */
		} else {
			r = flex_loc(s, emu_sframe_fre_uword(fre, i), fre->word[i + 1], &rule->ra);
			i += 2;
		}
	}
	if (!r && i < n) {
		if (n - i != 2 || emu_sframe_fre_uword(fre, i) == 0)
			return EMU_R_SF_FRE_OFFSET_COUNT;
		r = flex_loc(s, emu_sframe_fre_uword(fre, i), fre->word[i + 1], &rule->fp);
		i += 2;
	}
	if (!r && i != n)
		return EMU_R_SF_FRE_OFFSET_COUNT;
	return r;
}

enum emu_rule emu_sf_fre_rule(const struct emu_sframe_section *s,
			      const struct emu_sframe_fde *fde, const struct emu_sframe_fre *fre,
			      struct emu_unwind_rule *rule)
{
	*rule = (struct emu_unwind_rule){
		.signal_frame = fde->signal,
		.ra_mangled = EMU_SF_FRE_MANGLED_RA(fre->info),
	};
	/* No data words: the outermost frame (codectl-abi.md, "Unwinding" step 3) */
	if (fre->count == 0) {
		rule->outermost = true;
		return EMU_R_OK;
	}
	if (fde->type == EMU_SF_V3_FDE_TYPE_FLEX)
		return flex_rule(s, fre, rule);
	return default_rule(s, fre, rule);
}

int emu_sframe_rule(const struct emu_sframe_section *s, const struct emu_sframe_fde *fde,
		    const struct emu_sframe_fre *fre, struct emu_unwind_rule *rule)
{
	return emu_sf_fre_rule(s, fde, fre, rule) ? -EFAULT : 0;
}
