// SPDX-License-Identifier: GPL-2.0
/* SFrame sections into CODE_REGISTER_SFRAME_FILE's data, plain or block-compressed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "emu/sframe_format.h"
#include "sframe_pack.h"

static uint32_t u32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Compress @len bytes of @src at @dst (@cap bytes); the compressed size, or 0 on failure. */
static size_t compress_block(unsigned int compression, const uint8_t *src, size_t len,
			     uint8_t *dst, size_t cap)
{
	uLongf n = cap;
	size_t z;

	if (compression == CODE_SFRAME_COMPRESS_ZLIB)
		return compress2(dst, &n, src, len, Z_BEST_COMPRESSION) == Z_OK ? n : 0;
	z = ZSTD_compress(dst, cap, src, len, 19);
	return ZSTD_isError(z) ? 0 : z;
}

/* The blocks of a section whose FREs start at @fres: sizes into @size (nblocks entries). */
static uint32_t split(size_t len, size_t fres, uint32_t block_size, uint32_t *size)
{
	uint32_t n = 0;

	size[n++] = (uint32_t)fres;
	for (size_t at = fres; at < len; at += block_size)
		size[n++] = (uint32_t)(len - at < block_size ? len - at : block_size);
	return n;
}

static int pack_blocks(const uint8_t *sec, size_t len, size_t fres, unsigned int compression,
		       uint32_t block_size, uint8_t **out, size_t *out_len)
{
	uint32_t max = 2 + (uint32_t)((len - fres) / block_size), n, *size;
	size_t bound = ZSTD_compressBound(fres > block_size ? fres : block_size) + 1024;
	size_t at, index_end, cap;
	struct code_sframe_blocks h;
	struct code_sframe_block *e;
	uint8_t *buf;

	size = calloc(max, sizeof(*size));
	if (!size)
		return -ENOMEM;
	n = split(len, fres, block_size, size);
	index_end = sizeof(h) + (size_t)n * sizeof(*e);
	cap = index_end + (size_t)n * bound;
	buf = malloc(cap);
	if (!buf) {
		free(size);
		return -ENOMEM;
	}
	h = (struct code_sframe_blocks){
		.magic = CODE_SFRAME_BLOCKS_MAGIC, .version = CODE_SFRAME_BLOCKS_VERSION,
		.nblocks = n, .block_size = block_size, .size = len,
	};
	memcpy(buf, &h, sizeof(h));
	e = (struct code_sframe_block *)(buf + sizeof(h));
	at = index_end;
	for (uint32_t b = 0, from = 0; b < n; from += size[b++]) {
		size_t z = compress_block(compression, sec + from, size[b], buf + at, cap - at);

		if (!z) {
			free(size);
			free(buf);
			return -EIO;
		}
		e[b] = (struct code_sframe_block){ .offset = at, .length = (uint32_t)z,
						   .size = size[b] };
		at += z;
	}
	free(size);
	*out = buf;
	*out_len = at;
	return 0;
}

int sframe_pack(const uint8_t *sec, size_t len, unsigned int compression, uint32_t block_size,
		uint8_t **out, size_t *out_len)
{
	size_t fres;

	if (len < EMU_SF_HDR_SIZE || compression > CODE_SFRAME_COMPRESS_ZSTD ||
	    block_size < CODE_SFRAME_BLOCK_SIZE_MIN || block_size > CODE_SFRAME_BLOCK_SIZE_MAX)
		return -EINVAL;
	fres = EMU_SF_HDR_SIZE + (size_t)sec[EMU_SF_HDR_AUXHDR_LEN] +
	       u32_at(sec + EMU_SF_HDR_FREOFF);
	if (fres > len)
		return -EINVAL;
	if (compression != CODE_SFRAME_COMPRESS_NONE)
		return pack_blocks(sec, len, fres, compression, block_size, out, out_len);
	*out = malloc(len);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, sec, len);
	*out_len = len;
	return 0;
}

struct codectl_sframe_file sframe_file_header(unsigned int compression, uint64_t sframe_vaddr,
					      uint64_t size, uint64_t data_len,
					      const uint8_t *id, size_t id_len)
{
	struct codectl_sframe_file h = {
		.version = CODECTL_SFRAME_FILE_VERSION, .compression = compression,
		.sframe_vaddr = sframe_vaddr, .offset = CODECTL_SFRAME_FILE_HDR_SIZE,
		.length = data_len, .size = size,
		.build_id_len = (uint32_t)(id_len < CODE_BUILD_ID_MAX ? id_len : CODE_BUILD_ID_MAX),
	};

	memcpy(h.magic, CODECTL_SFRAME_FILE_MAGIC, sizeof(h.magic));
	memcpy(h.build_id, id, h.build_id_len);
	return h;
}
