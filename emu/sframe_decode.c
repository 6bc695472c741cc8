// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame decoding: header, FDE (v1 17 bytes, v2 20 bytes, v3 index entry plus
 * attribute record), FRE, and the translation of an FRE into the neutral rule.
 * Every read is bounds-checked against the section; nothing here allocates.
 */
#include <stdarg.h>
#include <stdio.h>

#include "sframe_internal.h"

static enum emu_rule header_fail(struct emu_verdict *v, enum emu_rule rule, const char *fmt,
				 ...) __attribute__((format(printf, 3, 4)));

static enum emu_rule header_fail(struct emu_verdict *v, enum emu_rule rule, const char *fmt, ...)
{
	va_list ap;

	v->rule = rule;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
	return rule;
}

static uint8_t version_flag_mask(uint8_t version)
{
	if (version == 1)
		return EMU_SF_V1_F_ALL;
	return version == 2 ? EMU_SF_V2_F_ALL : EMU_SF_V3_F_ALL;
}

static size_t version_fde_size(uint8_t version)
{
	if (version == 1)
		return EMU_SF_V1_FDE_SIZE;
	return version == 2 ? EMU_SF_V2_FDE_SIZE : EMU_SF_V3_IDX_ENTRY_SIZE;
}

static void read_header(struct emu_sframe_hdr *h, const uint8_t *d)
{
	h->version = d[EMU_SF_HDR_VERSION];
	h->flags = d[EMU_SF_HDR_FLAGS];
	h->abi = d[EMU_SF_HDR_ABI];
	h->fixed_fp = (int8_t)d[EMU_SF_HDR_FIXED_FP];
	h->fixed_ra = (int8_t)d[EMU_SF_HDR_FIXED_RA];
	h->auxhdr_len = d[EMU_SF_HDR_AUXHDR_LEN];
	h->num_fdes = sf_u32(d + EMU_SF_HDR_NUM_FDES);
	h->num_fres = sf_u32(d + EMU_SF_HDR_NUM_FRES);
	h->fre_len = sf_u32(d + EMU_SF_HDR_FRE_LEN);
	h->fdeoff = sf_u32(d + EMU_SF_HDR_FDEOFF);
	h->freoff = sf_u32(d + EMU_SF_HDR_FREOFF);
}

/*
 * Rules the kernel patch series apply on top of the ABI's (codectl-abi.md,
 * "SFrame versions": v3 only from v15/v16 on).
 */
static uint32_t kernel_refusals(const struct emu_sframe_hdr *h)
{
	uint32_t kr = 0;

	if (h->version != 3)
		kr |= EMU_KR_V3_ONLY;
	if (h->version == 1)
		kr |= EMU_KR_VERSION;
	else if (!(h->flags & EMU_SF_F_FDE_FUNC_START_PCREL))
		kr |= EMU_KR_PCREL;
	if (h->auxhdr_len)
		kr |= EMU_KR_AUXHDR;
	if (!h->num_fdes)
		kr |= EMU_KR_NO_FDES;
	if (!h->num_fres)
		kr |= EMU_KR_NO_FRES;
	return kr;
}

/* Sub-section bounds: FDEs, then FREs, both inside the section (spec 2.2). */
static enum emu_rule check_layout(struct emu_sframe_section *s, struct emu_verdict *v)
{
	const struct emu_sframe_hdr *h = &s->hdr;
	uint64_t hdr_end = EMU_SF_HDR_SIZE + (uint64_t)h->auxhdr_len;
	uint64_t fdes = hdr_end + h->fdeoff, fdes_end = fdes + (uint64_t)h->num_fdes * s->fde_size;
	uint64_t fres = hdr_end + h->freoff, fres_end = fres + h->fre_len;

	if (hdr_end > s->len)
		return header_fail(v, EMU_R_SF_BOUNDS, "auxiliary header (%u bytes) beyond section end",
				   h->auxhdr_len);
	if (fdes_end > s->len)
		return header_fail(v, EMU_R_SF_BOUNDS,
				   "%u FDEs at offset %llu end beyond section end (%zu bytes)",
				   h->num_fdes, (unsigned long long)fdes, s->len);
	if (fres_end > s->len)
		return header_fail(v, EMU_R_SF_BOUNDS,
				   "FRE sub-section [%llu, %llu) beyond section end (%zu bytes)",
				   (unsigned long long)fres, (unsigned long long)fres_end, s->len);
	if (fdes_end > fres)
		return header_fail(v, EMU_R_SF_BOUNDS,
				   "FDE sub-section [%llu, %llu) overlaps FRE sub-section at %llu",
				   (unsigned long long)fdes, (unsigned long long)fdes_end,
				   (unsigned long long)fres);
	s->fdes_pos = (size_t)fdes;
	s->fres_pos = (size_t)fres;
	s->fres_end = (size_t)fres_end;
	return EMU_R_OK;
}

enum emu_rule emu_sf_parse_header(struct emu_sframe_section *s, const struct emu_arch_info *arch,
				  struct emu_verdict *v)
{
	struct emu_sframe_hdr *h = &s->hdr;
	uint16_t magic;

	if (s->len < EMU_SF_HDR_SIZE)
		return header_fail(v, EMU_R_SF_SHORT, "section of %zu bytes shorter than the %d-byte header",
				   s->len, EMU_SF_HDR_SIZE);
	magic = sf_u16(s->data);
	if (magic == EMU_SF_MAGIC_SWAPPED)
		return header_fail(v, EMU_R_SF_MAGIC, "magic 0xe2de: byte-swapped (foreign-endian) section");
	if (magic != EMU_SF_MAGIC)
		return header_fail(v, EMU_R_SF_MAGIC, "magic 0x%04x, not 0xdee2", magic);
	read_header(h, s->data);
	if (h->version < 1 || h->version > 3)
		return header_fail(v, EMU_R_SF_VERSION, "version %u (decoded: 1, 2, 3)", h->version);
	if (h->flags & ~version_flag_mask(h->version))
		return header_fail(v, EMU_R_SF_FLAGS, "flags 0x%02x: bits 0x%02x undefined in version %u",
				   h->flags, h->flags & ~version_flag_mask(h->version), h->version);
	if (h->abi != arch->sframe_abi)
		return header_fail(v, EMU_R_SF_ABI, "ABI/arch %u, caller is %s (%u)", h->abi, arch->name,
				   arch->sframe_abi);
	s->fde_size = version_fde_size(h->version);
	s->arch = arch;
	if (check_layout(s, v))
		return v->rule;
	if (!(h->flags & EMU_SF_F_FDE_SORTED))
		return header_fail(v, EMU_R_SF_NOT_SORTED, "flag FDE_SORTED missing (required)");
	v->kernel_refusals |= kernel_refusals(h);
	return EMU_R_OK;
}

uint64_t emu_sf_fde_func_start(const struct emu_sframe_section *s, uint32_t idx)
{
	size_t pos = s->fdes_pos + (size_t)idx * s->fde_size;
	uint64_t anchor = s->addr;
	int64_t off;

	if (s->hdr.flags & EMU_SF_F_FDE_FUNC_START_PCREL)
		anchor += pos;
	if (s->hdr.version == 3)
		off = (int64_t)sf_u64(s->data + pos + EMU_SF_V3_IDX_START);
	else
		off = (int32_t)sf_u32(s->data + pos + EMU_SF_FDE_START);
	return anchor + (uint64_t)off;
}

/* v3: the attribute record at fres_pos + fre_off, the FREs right after it. */
static enum emu_rule decode_v3_attr(const struct emu_sframe_section *s, uint32_t fre_off,
				    struct emu_sframe_fde *fde)
{
	const uint8_t *a;

	if (fre_off > s->hdr.fre_len || s->hdr.fre_len - fre_off < EMU_SF_V3_ATTR_SIZE)
		return EMU_R_SF_FDE_FRES;
	a = s->data + s->fres_pos + fre_off;
	fde->num_fres = sf_u16(a + EMU_SF_V3_ATTR_NUM_FRES);
	fde->info = a[EMU_SF_V3_ATTR_INFO];
	fde->info2 = a[EMU_SF_V3_ATTR_INFO2];
	fde->rep_size = a[EMU_SF_V3_ATTR_REP_SIZE];
	fde->fres_pos = s->fres_pos + fre_off + EMU_SF_V3_ATTR_SIZE;
	fde->type = EMU_SF_V3_FDE_TYPE(fde->info2);
	fde->signal = EMU_SF_INFO_SIGNAL(fde->info);
	if (fde->type > EMU_SF_V3_FDE_TYPE_FLEX)
		return EMU_R_SF_FDE_TYPE;
	return EMU_R_OK;
}

static enum emu_rule decode_v12_fde(const struct emu_sframe_section *s, const uint8_t *e,
				    struct emu_sframe_fde *fde)
{
	uint32_t fre_off = sf_u32(e + EMU_SF_FDE_FRE_OFF);

	fde->func_size = sf_u32(e + EMU_SF_FDE_SIZE);
	fde->num_fres = sf_u32(e + EMU_SF_FDE_NUM_FRES);
	fde->info = e[EMU_SF_FDE_INFO];
	fde->rep_size = s->hdr.version == 2 ? e[EMU_SF_FDE_REP_SIZE] : 0;
	if (fre_off > s->hdr.fre_len)
		return EMU_R_SF_FDE_FRES;
	fde->fres_pos = s->fres_pos + fre_off;
	return EMU_R_OK;
}

enum emu_rule emu_sf_decode_fde(const struct emu_sframe_section *s, uint32_t idx,
				struct emu_sframe_fde *fde)
{
	const uint8_t *e = s->data + s->fdes_pos + (size_t)idx * s->fde_size;
	enum emu_rule rule;
	unsigned int fre_type;

	*fde = (struct emu_sframe_fde){ .func_start = emu_sf_fde_func_start(s, idx) };
	if (s->hdr.version == 3) {
		fde->func_size = sf_u32(e + EMU_SF_V3_IDX_SIZE);
		rule = decode_v3_attr(s, sf_u32(e + EMU_SF_V3_IDX_FRE_OFF), fde);
	} else {
		rule = decode_v12_fde(s, e, fde);
	}
	if (rule)
		return rule;
	fre_type = EMU_SF_INFO_FRE_TYPE(fde->info);
	if (fre_type > EMU_SF_FRE_TYPE_ADDR4)
		return EMU_R_SF_FRE_ADDR_SIZE;
	fde->addr_size = (uint8_t)(1u << fre_type);
	fde->pcmask = EMU_SF_INFO_PCMASK(fde->info);
	if (fde->pcmask && s->hdr.version == 1)
		fde->rep_size = EMU_SF_V1_PCMASK_REP_SIZE;
	if (fde->pcmask && !fde->rep_size)
		return EMU_R_SF_REP_SIZE;
	return EMU_R_OK;
}

enum emu_rule emu_sf_decode_fde_entry(const struct emu_sframe_section *s, uint32_t idx,
				      struct emu_sframe_fde *fde)
{
	const uint8_t *e = s->data + s->fdes_pos + (size_t)idx * s->fde_size;
	uint32_t fre_off;

	if (s->hdr.version != 3)
		return emu_sf_decode_fde(s, idx, fde);
	*fde = (struct emu_sframe_fde){
		.func_start = emu_sf_fde_func_start(s, idx),
		.func_size = sf_u32(e + EMU_SF_V3_IDX_SIZE),
	};
	fre_off = sf_u32(e + EMU_SF_V3_IDX_FRE_OFF);
	if (fre_off > s->hdr.fre_len || s->hdr.fre_len - fre_off < EMU_SF_V3_ATTR_SIZE)
		return EMU_R_SF_FDE_FRES;
	return EMU_R_OK;
}

static void read_words(int32_t *w, const uint8_t *p, unsigned int n, unsigned int size)
{
	unsigned int i;

	if (size == 1)
		for (i = 0; i < n; i++)
			w[i] = (int8_t)p[i];
	else if (size == 2)
		for (i = 0; i < n; i++)
			w[i] = (int16_t)sf_u16(p + 2 * i);
	else
		for (i = 0; i < n; i++)
			w[i] = (int32_t)sf_u32(p + 4 * i);
}

enum emu_rule emu_sf_decode_fre(const struct emu_sframe_section *s,
				const struct emu_sframe_fde *fde, size_t *pos,
				struct emu_sframe_fre *fre)
{
	size_t at = *pos;
	enum emu_rule r = emu_sf_decode_fre_head(s, fde, pos, fre);

	if (!r)
		read_words(fre->word, s->data + at + fde->addr_size + 1, fre->count, fre->word_size);
	return r;
}

uint32_t emu_sframe_fre_uword(const struct emu_sframe_fre *fre, unsigned int i)
{
	if (fre->word_size == 1)
		return (uint8_t)fre->word[i];
	return fre->word_size == 2 ? (uint16_t)fre->word[i] : (uint32_t)fre->word[i];
}
