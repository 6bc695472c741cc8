// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame validation at registration: every rule of codectl-abi.md's "invalid
 * SFrame section" list, each refusal worded with the FDE/FRE it concerns.
 * Work is bounded by the section length: FRE counts are checked against the
 * header's num_fres, which must fit in fre_len.
 */
#include "sframe_internal.h"

#define MIN_FRE_BYTES 2		/* 1-byte start + info byte */

int emu_sf_fde_fail(struct emu_verdict *v, enum emu_rule r, uint32_t i,
		    const struct emu_sframe_fde *fde)
{
	switch (r) {
	case EMU_R_SF_FDE_FRES:
		return emu_reject(v, r, "FDE %u: FREs outside the FRE sub-section", i);
	case EMU_R_SF_FRE_ADDR_SIZE:
		return emu_reject(v, r, "FDE %u: invalid FRE type %u", i,
				  EMU_SF_INFO_FRE_TYPE(fde->info));
	case EMU_R_SF_REP_SIZE:
		return emu_reject(v, r, "FDE %u: PCMASK with repetition size 0", i);
	case EMU_R_SF_FDE_TYPE:
		return emu_reject(v, r, "FDE %u: unknown FDE type %u", i, fde->type);
	default:
		return emu_reject(v, r, "FDE %u: invalid", i);
	}
}

int emu_sf_fre_fail(struct emu_verdict *v, enum emu_rule r, uint32_t i, uint32_t j,
		    const struct emu_sframe_fre *fre)
{
	switch (r) {
	case EMU_R_SF_FDE_FRES:
		return emu_reject(v, r, "FDE %u: FRE %u beyond the FRE sub-section", i, j);
	case EMU_R_SF_FRE_OFFSET_SIZE:
		return emu_reject(v, r, "FDE %u: FRE %u: invalid offset size (info 0x%02x)", i, j,
				  fre->info);
	case EMU_R_SF_FRE_OFFSET_COUNT:
		return emu_reject(v, r, "FDE %u: FRE %u: invalid offset count %u", i, j, fre->count);
	case EMU_R_SF_FLEX_CONTROL:
		return emu_reject(v, r, "FDE %u: FRE %u: invalid FLEX control word", i, j);
	default:
		return emu_reject(v, r, "FDE %u: FRE %u invalid", i, j);
	}
}

int emu_sf_check_fre_start(struct emu_verdict *v, uint32_t i, uint32_t j,
			   const struct emu_sframe_fde *fde,
			   const struct emu_sframe_fre *fre, uint32_t prev)
{
	if (j > 0 && fre->start <= prev)
		return emu_reject(v, EMU_R_SF_FRE_ORDER, "FDE %u: FRE %u start 0x%x not above FRE %u start 0x%x",
				  i, j, fre->start, j - 1, prev);
	if (fde->pcmask && fre->start >= fde->rep_size)
		return emu_reject(v, EMU_R_SF_FRE_OUTSIDE,
				  "FDE %u: FRE %u start 0x%x beyond repetition size %u", i, j,
				  fre->start, fde->rep_size);
	/*
	 * start == size is accepted, as libsframe and the v13 series do (PR
	 * libsframe/33131); v16's reader refuses it (sframe_kernel.c).
	 */
	if (!fde->pcmask && fre->start > fde->func_size)
		return emu_reject(v, EMU_R_SF_FRE_OUTSIDE,
				  "FDE %u: FRE %u start 0x%x %s function size 0x%x", i, j,
				  fre->start, fre->start == fde->func_size ? "at" : "beyond",
				  fde->func_size);
	return 0;
}

int emu_sf_validate_fres(const struct emu_sframe_section *s, uint32_t i,
			 const struct emu_sframe_fde *fde, struct emu_verdict *v)
{
	struct emu_sframe_fre fre;
	struct emu_unwind_rule rule;
	size_t pos = fde->fres_pos;
	uint32_t j, prev = 0;
	unsigned int max_words = emu_sf_default_max_words(s);
	enum emu_rule r;
	int err;

	for (j = 0; j < fde->num_fres; j++) {
		/* DEFAULT FDEs: only the count can be wrong, the words need no reading */
		if (fde->type == EMU_SF_V3_FDE_TYPE_DEFAULT)
			r = emu_sf_decode_fre_head(s, fde, &pos, &fre);
		else
			r = emu_sf_decode_fre(s, fde, &pos, &fre);
		if (r)
			return emu_sf_fre_fail(v, r, i, j, &fre);
		err = emu_sf_check_fre_start(v, i, j, fde, &fre, prev);
		if (err)
			return err;
		if (fde->type == EMU_SF_V3_FDE_TYPE_DEFAULT)
			r = fre.count > max_words ? EMU_R_SF_FRE_OFFSET_COUNT : EMU_R_OK;
		else
			r = emu_sf_fre_rule(s, fde, &fre, &rule);
		if (r)
			return emu_sf_fre_fail(v, r, i, j, &fre);
		prev = fre.start;
	}
	return 0;
}

/*
 * Inside the text; or wholly inside executable mappings that hold no byte of
 * the text: another PF_X segment of the same object, registered separately.
 */
int emu_sf_check_fde_text(struct emu_sframe_section *s, const struct emu_sframe_params *p,
			  uint32_t i, const struct emu_sframe_fde *fde, struct emu_verdict *v)
{
	uint64_t start = fde->func_start, end = start + fde->func_size;

	if (end < start)
		goto fail;
	if (start >= p->text_start && start < p->text_end && end <= p->text_end)
		return 0;
	if (p->maps && emu_mappings_covers_apart(p->maps, start, end > start ? end : start + 1,
						 EMU_PROT_EXEC, p->text_start, p->text_end)) {
		s->used_maps = true;
		return 0;
	}
fail:
	return emu_reject(v, EMU_R_SF_FDE_TEXT,
			  "FDE %u: function 0x%llx..0x%llx outside text range 0x%llx..0x%llx", i,
			  (unsigned long long)start, (unsigned long long)end,
			  (unsigned long long)p->text_start, (unsigned long long)p->text_end);
}

static int validate_fdes(struct emu_sframe_section *s, const struct emu_sframe_params *p,
			 struct emu_verdict *v)
{
	struct emu_sframe_fde fde;
	uint64_t prev = 0, prev_end = 0, fres = 0;
	enum emu_rule r;
	uint32_t i;
	int err;

	for (i = 0; i < s->hdr.num_fdes; i++) {
		r = s->store ? emu_sf_decode_fde_entry(s, i, &fde) : emu_sf_decode_fde(s, i, &fde);
		if (r)
			return emu_sf_fde_fail(v, r, i, &fde);
		if (i > 0 && fde.func_start <= prev)
			return emu_reject(v, EMU_R_SF_FDE_ORDER,
					  "FDE %u: start 0x%llx not above FDE %u start 0x%llx", i,
					  (unsigned long long)fde.func_start, i - 1,
					  (unsigned long long)prev);
		/* sorted functions do not overlap: the binary search depends on it */
		if (i > 0 && fde.func_start < prev_end)
			return emu_reject(v, EMU_R_SF_FDE_ORDER,
					  "FDE %u: function at 0x%llx overlaps FDE %u ending at 0x%llx",
					  i, (unsigned long long)fde.func_start, i - 1,
					  (unsigned long long)prev_end);
		fres += fde.num_fres;
		if (fde.num_fres > EMU_SF_INDEX_MIN && !s->store) {
			s->index_fdes++;
			s->index_fres += fde.num_fres;
		}
		if (fres > s->hdr.num_fres)
			return emu_reject(v, EMU_R_SF_BOUNDS,
					  "FDE %u: FRE counts add up beyond the header's %u FREs", i,
					  s->hdr.num_fres);
		err = emu_sf_check_fde_text(s, p, i, &fde, v);
		if (!err && !s->store)	/* a file's FREs: at first use */
			err = emu_sf_validate_fres(s, i, &fde, v);
		if (err)
			return err;
		prev = fde.func_start;
		prev_end = fde.func_start + fde.func_size;
	}
	return 0;
}

/*
 * Header and layout, a kernel profile's header rules (before any FDE, in the
 * kernel's order: codectl-abi.md, "Order of checks"), then every FDE and FRE.
 */
int emu_sf_validate(struct emu_sframe_section *s, const struct emu_sframe_params *p,
		    struct emu_verdict *v)
{
	const struct emu_arch_info *arch = emu_arch_get(p->arch);
	enum emu_rule r;
	int err;

	if (!arch)
		return emu_reject(v, EMU_R_SF_ABI, "unknown architecture %d", p->arch);
	r = emu_sf_parse_header(s, arch, v);
	if (r)
		return -emu_rule_errno(r);
	err = emu_kernel_rules_apply(v, p->profile);
	if (err)
		return err;
	if (s->hdr.num_fres > s->hdr.fre_len / MIN_FRE_BYTES)
		return emu_reject(v, EMU_R_SF_BOUNDS, "%u FREs cannot fit in %u bytes of FRE sub-section",
				  s->hdr.num_fres, s->hdr.fre_len);
	return validate_fdes(s, p, v);
}

int emu_sframe_validate(const uint8_t *data, size_t len, const struct emu_sframe_params *p,
			struct emu_verdict *v)
{
	struct emu_sframe_section s = {
		.data = (uint8_t *)data, .len = len, .addr = p->sframe_addr,
	};

	return emu_sf_validate(&s, p, v);
}
