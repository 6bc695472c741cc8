/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the SFrame validator and lookup: the section and its decoders. */
#ifndef EMU_SFRAME_INTERNAL_H
#define EMU_SFRAME_INTERNAL_H

#include <string.h>

#include "sframe_section.h"
#include "sframe_format.h"

/**
 * struct emu_sframe_section - a registered section, read-only once loaded
 * @data, @len: the private copy of the section (owned)
 * @addr: tracee address of @data[0]
 * @fdes_pos, @fres_pos, @fres_end: byte offsets in @data of the FDE
 *	sub-section, the FRE sub-section and its end
 * @fde_size: bytes per FDE (v1 17, v2 20, v3 16)
 * @used_maps: validation accepted an FDE because of the caller's mappings
 *	(another executable segment), so its result depends on more than the bytes
 * @big, @nbig, @fre_pos: FRE index of the functions with more than
 *	EMU_SF_INDEX_MIN FREs, so their lookup is a binary search: @big[k] names
 *	such an FDE and where its FREs' byte offsets start in @fre_pos (owned)
 * @index_fdes, @index_fres: how many FDEs and FREs the index needs (counted
 *	during validation)
 * @store: where a file-backed section's bytes come from (sframe_file.c), NULL
 *	for a copy; @data is then a mapping its blocks are read into, which
 *	holds only the header and FDE table until a lookup fetches FREs
 *	(emu_sf_store_fetch())
 */
struct emu_sframe_store;

struct emu_sframe_section {
	unsigned int refs;
	uint8_t *data;
	size_t len;
	uint64_t addr;
	struct emu_sframe_hdr hdr;
	size_t fdes_pos;
	size_t fres_pos;
	size_t fres_end;
	size_t fde_size;
	const struct emu_arch_info *arch;
	bool used_maps;
	struct emu_sf_big_fde *big;
	uint32_t nbig;
	uint32_t *fre_pos;
	uint32_t index_fdes;
	uint32_t index_fres;
	struct emu_sframe_store *store;
};

#define EMU_SF_INDEX_MIN 32

struct emu_sf_big_fde {
	uint32_t fde;
	uint32_t first;
};

/* Data words a DEFAULT FRE may carry: CFA, then RA and FP unless fixed in the header. */
static inline unsigned int emu_sf_default_max_words(const struct emu_sframe_section *s)
{
	return 1 + !s->hdr.fixed_ra + !s->hdr.fixed_fp;
}

/*
 * Check @s against every rule of @p's profile (sframe_validate.c).
 * Return: 0, or -EINVAL with @v naming the rule.
 */
int emu_sf_validate(struct emu_sframe_section *s, const struct emu_sframe_params *p,
		    struct emu_verdict *v);

/*
 * Validation steps the kernel-style lookup (sframe_live.c) repeats on the
 * bytes it reads: each returns 0, or the rule's negative errno with @v worded
 * for FDE @i (FRE @j).
 */
int emu_sf_fde_fail(struct emu_verdict *v, enum emu_rule r, uint32_t i,
		    const struct emu_sframe_fde *fde);
int emu_sf_fre_fail(struct emu_verdict *v, enum emu_rule r, uint32_t i, uint32_t j,
		    const struct emu_sframe_fre *fre);
int emu_sf_check_fde_text(struct emu_sframe_section *s, const struct emu_sframe_params *p,
			  uint32_t i, const struct emu_sframe_fde *fde, struct emu_verdict *v);
int emu_sf_check_fre_start(struct emu_verdict *v, uint32_t i, uint32_t j,
			   const struct emu_sframe_fde *fde,
			   const struct emu_sframe_fre *fre, uint32_t prev);

/*
 * FDE @idx of a file-backed section into @fde, its attribute record (v3)
 * and FREs made resident, its FREs checked the first time (sframe_file.c).
 * Return: 0, or -EFAULT with emu_sframe_file_fault() saying why.
 */
int emu_sf_store_fetch(const struct emu_sframe_section *s, uint32_t idx,
		       struct emu_sframe_fde *fde);

/* Free a file-backed section's store (emu_sframe_put()). */
void emu_sf_store_free(struct emu_sframe_store *st);

/* Every rule of FDE @i's FREs (sframe_validate.c); 0 or the rule's errno with @v set. */
int emu_sf_validate_fres(const struct emu_sframe_section *s, uint32_t i,
			 const struct emu_sframe_fde *fde, struct emu_verdict *v);

/* v3: FDE @idx's index entry only (start, size, where its record is); v1/v2 the whole FDE. */
enum emu_rule emu_sf_decode_fde_entry(const struct emu_sframe_section *s, uint32_t idx,
				      struct emu_sframe_fde *fde);

/* Index of the last FDE starting at or below @ip (sframe_lookup.c); -ENOENT if none. */
int emu_sf_find_fde_index(const struct emu_sframe_section *s, uint64_t ip, uint32_t *idx);

/* Build the FRE index of a validated section (sframe_lookup.c); 0 or -ENOMEM. */
int emu_sf_build_index(struct emu_sframe_section *s);

/* Read the FRE start at byte offset @pos (no bounds check: validated data). */
uint32_t emu_sf_fre_start_at(const struct emu_sframe_section *s, const struct emu_sframe_fde *fde,
			     size_t pos);

static inline uint16_t sf_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t sf_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t sf_u64(const uint8_t *p)
{
	return (uint64_t)sf_u32(p) | (uint64_t)sf_u32(p + 4) << 32;
}

static inline uint32_t emu_sf_read_uint(const uint8_t *p, unsigned int size)
{
	if (size == 1)
		return p[0];
	return size == 2 ? sf_u16(p) : sf_u32(p);
}

/*
 * The FRE at *@pos without its data words (start, info, sizes); *@pos moves
 * past it. Inline: validation runs it for every FRE of every section.
 */
static inline enum emu_rule emu_sf_decode_fre_head(const struct emu_sframe_section *s,
						   const struct emu_sframe_fde *fde,
						   size_t *pos, struct emu_sframe_fre *fre)
{
	const uint8_t *p = s->data + *pos;
	size_t avail = *pos <= s->fres_end ? s->fres_end - *pos : 0;
	unsigned int size_enum, words;

	if (avail < (size_t)fde->addr_size + 1)
		return EMU_R_SF_FDE_FRES;
	fre->start = emu_sf_read_uint(p, fde->addr_size);
	fre->info = p[fde->addr_size];
	size_enum = EMU_SF_FRE_OFFSET_SIZE(fre->info);
	if (size_enum > EMU_SF_FRE_OFFSET_4B)
		return EMU_R_SF_FRE_OFFSET_SIZE;
	fre->word_size = (uint8_t)(1u << size_enum);
	fre->count = EMU_SF_FRE_COUNT(fre->info);
	words = (unsigned int)fre->count * fre->word_size;
	if (avail - fde->addr_size - 1 < words)
		return EMU_R_SF_FDE_FRES;
	*pos += fde->addr_size + 1 + words;
	return EMU_R_OK;
}

/*
 * Decoders over a section view; they never read outside [data, data + len)
 * and return EMU_R_OK or the rule the bytes break (the caller words it).
 */
enum emu_rule emu_sf_parse_header(struct emu_sframe_section *s, const struct emu_arch_info *arch,
				  struct emu_verdict *v);
uint64_t emu_sf_fde_func_start(const struct emu_sframe_section *s, uint32_t idx);
enum emu_rule emu_sf_decode_fde(const struct emu_sframe_section *s, uint32_t idx,
				struct emu_sframe_fde *fde);
enum emu_rule emu_sf_decode_fre(const struct emu_sframe_section *s,
				const struct emu_sframe_fde *fde, size_t *pos,
				struct emu_sframe_fre *fre);
enum emu_rule emu_sf_fre_rule(const struct emu_sframe_section *s,
			      const struct emu_sframe_fde *fde, const struct emu_sframe_fre *fre,
			      struct emu_unwind_rule *rule);

#endif /* EMU_SFRAME_INTERNAL_H */
