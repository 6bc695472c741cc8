// SPDX-License-Identifier: GPL-2.0
/* SFrame v3 from rows (sframe_encode.h); layout constants: sframe_format.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sframe_encode.h"
#include "sframe_format.h"

static void put(uint8_t *at, uint64_t val, unsigned int size)
{
	for (unsigned int i = 0; i < size; i++)
		at[i] = (uint8_t)(val >> (8 * i));
}

/* Room for @more bytes of FREs; 0 or -ENOMEM. */
static int fres_room(struct emu_sframe_encoder *enc, size_t more)
{
	size_t cap = enc->fres_cap ? enc->fres_cap : 4096;
	uint8_t *p;

	if (enc->fres_len + more <= enc->fres_cap)
		return 0;
	while (cap < enc->fres_len + more)
		cap *= 2;
	p = realloc(enc->fres, cap);
	if (!p)
		return -ENOMEM;
	enc->fres = p;
	enc->fres_cap = cap;
	return 0;
}

static int fde_room(struct emu_sframe_encoder *enc)
{
	size_t cap = enc->fdes_cap ? 2 * enc->fdes_cap : 256;
	struct emu_sframe_enc_fde *p;

	if (enc->nfdes < enc->fdes_cap)
		return 0;
	p = realloc(enc->fdes, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	enc->fdes = p;
	enc->fdes_cap = cap;
	return 0;
}

/* The size code (0, 1, 2: 1, 2, 4 bytes) of the smallest word holding @v signed. */
static unsigned int size_code(int32_t v)
{
	return v >= INT8_MIN && v <= INT8_MAX ? 0 : v >= INT16_MIN && v <= INT16_MAX ? 1 : 2;
}

/* One FRE: its start (@asize bytes), info, then CFA [and FP] offsets. */
static void put_fre(struct emu_sframe_encoder *enc, const struct emu_sframe_row *r,
		    unsigned int asize)
{
	int32_t w[2] = { r->cfa_off, r->fp_off };
	unsigned int count = r->outermost ? 0 : r->fp_saved ? 2 : 1, code = 0, size;
	uint8_t *at = enc->fres + enc->fres_len;

	for (unsigned int i = 0; i < count; i++)
		if (size_code(w[i]) > code)
			code = size_code(w[i]);
	size = 1u << code;
	put(at, r->start, asize);
	at[asize] = (uint8_t)((r->sp_base ? 1 : 0) | count << 1 | code << 5);
	for (unsigned int i = 0; i < count; i++)
		put(at + asize + 1 + i * size, (uint32_t)w[i], size);
	enc->fres_len += asize + 1 + count * size;
}

int emu_sframe_encode_fde(struct emu_sframe_encoder *enc, uint64_t func, uint32_t size,
			  const struct emu_sframe_row *rows, unsigned int n)
{
	unsigned int type = size <= 0x100 ? 0 : size <= 0x10000 ? 1 : 2, asize = 1u << type;
	struct emu_sframe_enc_fde *f;

	if (n > UINT16_MAX || (enc->nfdes && func < enc->last_end) || func + size < func)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		if (rows[i].start >= size || (i && rows[i].start <= rows[i - 1].start))
			return -EINVAL;
	if (fde_room(enc) || fres_room(enc, EMU_SF_V3_ATTR_SIZE + n * (asize + 1 + 2 * 4)))
		return -ENOMEM;
	if (enc->fres_len > UINT32_MAX)
		return -EINVAL;
	f = &enc->fdes[enc->nfdes++];
	*f = (struct emu_sframe_enc_fde){ func, size, (uint32_t)enc->fres_len };
	put(enc->fres + enc->fres_len + EMU_SF_V3_ATTR_NUM_FRES, n, 2);
	enc->fres[enc->fres_len + EMU_SF_V3_ATTR_INFO] = (uint8_t)type;
	enc->fres[enc->fres_len + EMU_SF_V3_ATTR_INFO2] = EMU_SF_V3_FDE_TYPE_DEFAULT;
	enc->fres[enc->fres_len + EMU_SF_V3_ATTR_REP_SIZE] = 0;
	enc->fres_len += EMU_SF_V3_ATTR_SIZE;
	for (unsigned int i = 0; i < n; i++)
		put_fre(enc, &rows[i], asize);
	enc->nfres += n;
	enc->last_end = func + size;
	return 0;
}

static void put_header(uint8_t *h, const struct emu_sframe_encoder *enc)
{
	put(h + EMU_SF_HDR_MAGIC, EMU_SF_MAGIC, 2);
	h[EMU_SF_HDR_VERSION] = 3;
	h[EMU_SF_HDR_FLAGS] = EMU_SF_F_FDE_SORTED | EMU_SF_F_FDE_FUNC_START_PCREL;
	h[EMU_SF_HDR_ABI] = EMU_SF_ABI_AMD64_LE;
	h[EMU_SF_HDR_FIXED_FP] = 0;
	h[EMU_SF_HDR_FIXED_RA] = (uint8_t)-8;
	h[EMU_SF_HDR_AUXHDR_LEN] = 0;
	put(h + EMU_SF_HDR_NUM_FDES, enc->nfdes, 4);
	put(h + EMU_SF_HDR_NUM_FRES, enc->nfres, 4);
	put(h + EMU_SF_HDR_FRE_LEN, enc->fres_len, 4);
	put(h + EMU_SF_HDR_FDEOFF, 0, 4);
	put(h + EMU_SF_HDR_FREOFF, (uint64_t)enc->nfdes * EMU_SF_V3_IDX_ENTRY_SIZE, 4);
}

int emu_sframe_encode_finish(struct emu_sframe_encoder *enc, uint64_t addr, uint8_t **out,
			     size_t *len)
{
	size_t idx = (size_t)enc->nfdes * EMU_SF_V3_IDX_ENTRY_SIZE;
	size_t n = EMU_SF_HDR_SIZE + idx + enc->fres_len;
	uint8_t *b = malloc(n);

	if (!b) {
		emu_sframe_encode_free(enc);
		return -ENOMEM;
	}
	put_header(b, enc);
	for (uint32_t i = 0; i < enc->nfdes; i++) {
		uint8_t *e = b + EMU_SF_HDR_SIZE + (size_t)i * EMU_SF_V3_IDX_ENTRY_SIZE;
		const struct emu_sframe_enc_fde *f = &enc->fdes[i];

		/* PC-relative: from the entry's own address */
		put(e + EMU_SF_V3_IDX_START, f->func - (addr + (uint64_t)(e - b)), 8);
		put(e + EMU_SF_V3_IDX_SIZE, f->size, 4);
		put(e + EMU_SF_V3_IDX_FRE_OFF, f->fre_off, 4);
	}
	if (enc->fres_len)
		memcpy(b + EMU_SF_HDR_SIZE + idx, enc->fres, enc->fres_len);
	emu_sframe_encode_free(enc);
	*out = b;
	*len = n;
	return 0;
}

void emu_sframe_encode_free(struct emu_sframe_encoder *enc)
{
	free(enc->fdes);
	free(enc->fres);
	*enc = (struct emu_sframe_encoder){ 0 };
}
