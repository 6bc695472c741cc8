// SPDX-License-Identifier: GPL-2.0
/*
 * FRE index: for functions with many FREs, the byte offset of each FRE, so a
 * lookup binary-searches instead of scanning (the format allows millions of
 * FREs in one function). Built once per loaded section; its size is bounded
 * by the section's num_fres, itself bounded by the section length.
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
