// SPDX-License-Identifier: GPL-2.0
/* SFrame v1/v2/v3 writer for tests (spec "SFrame Section"), little-endian. */
#include <string.h>

#include "sframe_writer.h"

struct out {
	uint8_t *buf;
	size_t cap;
	size_t len;
	bool overflow;
};

static void put(struct out *o, size_t pos, uint64_t val, unsigned int size)
{
	unsigned int i;

	if (pos + size > o->cap) {
		o->overflow = true;
		return;
	}
	for (i = 0; i < size; i++)
		o->buf[pos + i] = (uint8_t)(val >> (8 * i));
	if (pos + size > o->len)
		o->len = pos + size;
}

static unsigned int fits(int32_t w)
{
	if (w >= -128 && w <= 127)
		return 1;
	return w >= -32768 && w <= 32767 ? 2 : 4;
}

static unsigned int word_size(const struct sfw_fre *f)
{
	unsigned int i, size = 1;

	if (f->word_size)
		return f->word_size;
	for (i = 0; i < f->count; i++)
		if (fits(f->words[i]) > size)
			size = fits(f->words[i]);
	return size;
}

static unsigned int fre_type(const struct sfw_fde *d)
{
	if (d->fre_type >= 0)
		return (unsigned int)d->fre_type;
	if (d->func_size < 0x100)
		return 0;
	return d->func_size < 0x10000 ? 1 : 2;
}

static uint8_t fde_info(const struct sfw_fde *d)
{
	if (d->info)
		return d->info;
	return (uint8_t)(fre_type(d) | (d->pcmask ? 0x10 : 0) | (d->signal ? 0x80 : 0));
}

/* One FRE at @pos; returns the position after it. */
static size_t put_fre(struct out *o, size_t pos, const struct sfw_fde *d, const struct sfw_fre *f)
{
	unsigned int asize = 1u << (fre_type(d) > 2 ? 0 : fre_type(d));
	unsigned int wsize = word_size(f), i;
	unsigned int senum = wsize == 1 ? 0 : wsize == 2 ? 1 : 2;
	uint8_t info = f->info ? f->info :
		(uint8_t)((f->sp_base ? 1 : 0) | (f->count << 1) | (senum << 5) |
			  (f->mangled_ra ? 0x80 : 0));

	put(o, pos, f->start, asize);
	put(o, pos + asize, info, 1);
	pos += asize + 1;
	for (i = 0; i < f->count; i++, pos += wsize)
		put(o, pos, (uint32_t)f->words[i], wsize);
	return pos;
}

static size_t fde_size(uint8_t version)
{
	return version == 1 ? 17 : version == 2 ? 20 : 16;
}

static void put_fde(struct out *o, const struct sfw_section *s, size_t pos,
		    const struct sfw_fde *d, uint32_t fre_off)
{
	uint64_t anchor = s->addr + (s->pcrel ? pos : 0);
	uint64_t start = d->func_start - anchor;

	if (s->version == 3) {
		put(o, pos, start, 8);
		put(o, pos + 8, d->func_size, 4);
		put(o, pos + 12, fre_off, 4);
		return;
	}
	put(o, pos, (uint32_t)start, 4);
	put(o, pos + 4, d->func_size, 4);
	put(o, pos + 8, fre_off, 4);
	put(o, pos + 12, d->nfres, 4);
	put(o, pos + 16, fde_info(d), 1);
	if (s->version == 2)
		put(o, pos + 17, d->rep_size, 1);
}

static void put_header(struct out *o, const struct sfw_section *s, uint32_t num_fres,
		       uint32_t fre_len, uint32_t freoff)
{
	uint8_t flags = s->raw_flags ? s->flags : (uint8_t)(0x1 | (s->pcrel ? 0x4 : 0));

	put(o, 0, 0xdee2, 2);
	put(o, 2, s->version, 1);
	put(o, 3, flags, 1);
	put(o, 4, s->abi, 1);
	put(o, 5, (uint8_t)s->fixed_fp, 1);
	put(o, 6, (uint8_t)s->fixed_ra, 1);
	put(o, 7, s->auxhdr_len, 1);
	put(o, 8, s->nfdes, 4);
	put(o, 12, num_fres, 4);
	put(o, 16, fre_len, 4);
	put(o, 20, 0, 4);
	put(o, 24, freoff, 4);
}

size_t sfw_write(const struct sfw_section *s, uint8_t *buf, size_t cap, struct sfw_layout *lay)
{
	struct out o = { .buf = buf, .cap = cap };
	size_t hdr_end = 28 + s->auxhdr_len, fsize = fde_size(s->version);
	size_t fres = hdr_end + s->nfdes * fsize, pos = fres;
	uint32_t num_fres = 0;
	unsigned int i, j;

	if (s->nfdes > SFW_MAX_FDES)
		return 0;
	memset(buf, 0, cap);
	lay->fdes_pos = hdr_end;
	lay->fres_pos = fres;
	for (i = 0; i < s->nfdes; i++) {
		const struct sfw_fde *d = &s->fdes[i];

		lay->fde_pos[i] = hdr_end + i * fsize;
		lay->fre_block_pos[i] = pos;
		put_fde(&o, s, lay->fde_pos[i], d, (uint32_t)(pos - fres));
		if (s->version == 3) {
			put(&o, pos, d->nfres, 2);
			put(&o, pos + 2, fde_info(d), 1);
			put(&o, pos + 3, d->info2 ? d->info2 : d->fde_type, 1);
			put(&o, pos + 4, d->rep_size, 1);
			pos += 5;
		}
		for (j = 0; j < d->nfres; j++)
			pos = put_fre(&o, pos, d, &d->fres[j]);
		num_fres += d->nfres;
	}
	put_header(&o, s, num_fres, (uint32_t)(pos - fres), (uint32_t)(fres - hdr_end));
	if (o.len < pos)
		o.len = pos;
	if (o.overflow)
		return 0;
	lay->len = o.len;
	return o.len;
}

struct sfw_section sfw_amd64(uint8_t version, bool pcrel, uint64_t addr)
{
	return (struct sfw_section){
		.version = version, .pcrel = pcrel || version == 3, .abi = 3, .fixed_ra = -8,
		.addr = addr,
	};
}
