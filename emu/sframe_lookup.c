// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame lookup by address (spec "SFrame lookup"): binary search over the
 * sorted FDEs, then the function's FREs: a linear scan, or for functions with
 * many FREs a binary search over the FRE index (the byte offset of each FRE,
 * built once per loaded section; its size is bounded by the section's
 * num_fres, itself bounded by the section length: the format allows millions
 * of FREs in one function). Sections were validated when loaded; the checks
 * kept here turn corruption into -EFAULT.
 */
#include <errno.h>
#include <stdlib.h>

#include "sframe_internal.h"

uint32_t emu_sf_fre_start_at(const struct emu_sframe_section *s, const struct emu_sframe_fde *fde,
			     size_t pos)
{
	return emu_sf_read_uint(s->data + pos, fde->addr_size);
}

static int index_fde(struct emu_sframe_section *s, uint32_t i, uint32_t *next)
{
	struct emu_sframe_fde fde;
	struct emu_sframe_fre fre;
	size_t pos;

	if (emu_sf_decode_fde(s, i, &fde))
		return -EFAULT;
	if (fde.num_fres <= EMU_SF_INDEX_MIN)
		return 0;
	s->big[s->nbig++] = (struct emu_sf_big_fde){ .fde = i, .first = *next };
	pos = fde.fres_pos;
	for (uint32_t j = 0; j < fde.num_fres; j++) {
		s->fre_pos[(*next)++] = (uint32_t)pos;
		if (emu_sf_decode_fre(s, &fde, &pos, &fre))
			return -EFAULT;
	}
	return 0;
}

int emu_sf_build_index(struct emu_sframe_section *s)
{
	uint32_t next = 0;
	int err = 0;

	if (!s->index_fdes)
		return 0;
	s->big = calloc(s->index_fdes, sizeof(*s->big));
	s->fre_pos = calloc(s->index_fres, sizeof(*s->fre_pos));
	if (!s->big || !s->fre_pos)
		return -ENOMEM;
	for (uint32_t i = 0; !err && i < s->hdr.num_fdes; i++)
		err = index_fde(s, i, &next);
	return err;
}

int emu_sf_find_fde_index(const struct emu_sframe_section *s, uint64_t ip, uint32_t *idx)
{
	uint32_t lo = 0, hi = s->hdr.num_fdes;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (emu_sf_fde_func_start(s, mid) <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -ENOENT;
	*idx = lo - 1;
	return 0;
}

int emu_sframe_fde_at(const struct emu_sframe_section *s, uint32_t idx,
		      struct emu_sframe_fde *fde)
{
	if (idx >= s->hdr.num_fdes)
		return -ENOENT;
	if (s->store)
		return emu_sf_store_fetch(s, idx, fde);
	return emu_sf_decode_fde(s, idx, fde) ? -EFAULT : 0;
}

/* The index entry of FDE @idx when it has one, else NULL. */
static const struct emu_sf_big_fde *big_fde(const struct emu_sframe_section *s, uint32_t idx)
{
	uint32_t lo = 0, hi = s->nbig;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->big[mid].fde < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nbig && s->big[lo].fde == idx ? &s->big[lo] : NULL;
}

/* Indexed FDE: binary search over the FRE starts (validated: strictly increasing). */
static int find_fre_indexed(const struct emu_sframe_section *s, const struct emu_sframe_fde *fde,
			    const uint32_t *pos, uint32_t ip_off, struct emu_sframe_fre *out)
{
	uint32_t lo = 0, hi = fde->num_fres;
	size_t at;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (emu_sf_fre_start_at(s, fde, pos[mid]) <= ip_off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	at = pos[lo - 1];
	return emu_sf_decode_fre(s, fde, &at, out) ? -EFAULT : 0;
}

/* The last FRE of FDE @idx whose start is <= @ip_off; -ENOENT if none. */
static int find_fre(const struct emu_sframe_section *s, uint32_t idx,
		    const struct emu_sframe_fde *fde, uint32_t ip_off, struct emu_sframe_fre *out)
{
	const struct emu_sf_big_fde *big = fde->num_fres > EMU_SF_INDEX_MIN ? big_fde(s, idx) : NULL;
	struct emu_sframe_fre fre;
	size_t pos = fde->fres_pos;
	uint32_t j;
	bool found = false;

	if (big)
		return find_fre_indexed(s, fde, s->fre_pos + big->first, ip_off, out);
	for (j = 0; j < fde->num_fres; j++) {
		if (emu_sf_decode_fre(s, fde, &pos, &fre))
			return -EFAULT;
		if (fre.start > ip_off)
			break;
		if (found && fre.start <= out->start)
			return -EFAULT;
		*out = fre;
		found = true;
	}
	return found ? 0 : -ENOENT;
}

int emu_sframe_find(const struct emu_sframe_section *s, uint64_t ip, uint32_t *fde_idx,
		    struct emu_sframe_fde *fde, struct emu_sframe_fre *fre)
{
	uint64_t ip_off;
	uint32_t idx;
	int err;

	err = emu_sf_find_fde_index(s, ip, &idx);
	if (err)
		return err;
	err = emu_sframe_fde_at(s, idx, fde);
	if (err)
		return err;
	ip_off = ip - fde->func_start;
	if (ip_off >= fde->func_size)
		return -ENOENT;
	if (fde_idx)
		*fde_idx = idx;
	if (fde->pcmask)
		ip_off %= fde->rep_size;
	return find_fre(s, idx, fde, (uint32_t)ip_off, fre);
}

int emu_sframe_find_rule(const struct emu_sframe_section *s, uint64_t ip,
			 struct emu_unwind_rule *rule)
{
	struct emu_sframe_fde fde = { 0 };
	struct emu_sframe_fre fre;
	int err;

	err = emu_sframe_find(s, ip, NULL, &fde, &fre);
	if (err == -ENOENT && fde.signal && ip - fde.func_start < fde.func_size) {
		*rule = (struct emu_unwind_rule){ .signal_frame = true };
		err = 0;
	} else if (!err) {
		err = emu_sframe_rule(s, &fde, &fre, rule);
	}
	if (!err) {
		rule->code_start = fde.func_start;
		rule->code_end = fde.func_start + fde.func_size;
	}
	return err;
}
