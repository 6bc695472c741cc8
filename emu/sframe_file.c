// SPDX-License-Identifier: GPL-2.0
/*
 * File-backed SFrame sections (sframe_file.h). The section's bytes live in a
 * mapping of its full size that is filled block by block: block 0 (header
 * and FDE table) at registration, FRE blocks when a lookup needs them, given
 * back under the address space's budget (madvise: the pages go, the mapping
 * stays). The decoders read the mapping as they read a copy.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <linux/codectl.h>

#include "sframe_file.h"
#include "sframe_internal.h"

/* The longest FRE: a 4-byte start, the info byte, 15 words of 4 bytes. */
#define FRE_MAX_BYTES (4 + 1 + 15 * 4)

/**
 * struct emu_sframe_store - where a file-backed section's bytes come from
 * @file: the caller's file; @base: the data's offset in it
 * @compression: CODE_SFRAME_COMPRESS_*
 * @blocks, @nblocks: the block index (a plain file's is made up: its
 *	blocks' offsets are their own); @start: each block's first byte in
 *	the section
 * @block_size: bytes of each FRE block
 * @map, @map_len: the section-sized mapping the blocks are read into
 * @stamp: each block's last use (block_cache.h), 0 when not resident
 * @checked: a bit per FDE, set once its FREs were checked
 * @zbuf, @zbuf_len: room for the compressed bytes of an FRE block being read
 * @fault: why the last lookup failed
 */
struct emu_sframe_store {
	struct emu_file file;
	uint64_t base;
	unsigned int compression;
	struct code_sframe_block *blocks;
	uint64_t *start;
	uint32_t nblocks;
	uint32_t block_size;
	uint8_t *map;
	size_t map_len;
	uint64_t *stamp;
	uint8_t *checked;
	uint8_t *zbuf;
	size_t zbuf_len;
	struct emu_block_cache *cache;
	struct emu_verdict fault;
};

static const char *const codec_names[] = {
	[CODE_SFRAME_COMPRESS_NONE] = "file",
	[CODE_SFRAME_COMPRESS_ZLIB] = "file,zlib",
	[CODE_SFRAME_COMPRESS_ZSTD] = "file,zstd",
};

void emu_sf_store_free(struct emu_sframe_store *st)
{
	if (!st)
		return;
	if (st->cache) {
		emu_block_cache_forget(st->cache, st);
		emu_block_cache_put(st->cache);
	}
	if (st->file.release)
		st->file.release(st->file.ctx);
	if (st->map)
		munmap(st->map, st->map_len);
	free(st->blocks);
	free(st->start);
	free(st->stamp);
	free(st->checked);
	free(st->zbuf);
	free(st);
}

/* Give block @b's whole pages back; the pages it shares with a neighbour keep their bytes. */
static void evict(void *owner, uint32_t b)
{
	struct emu_sframe_store *st = owner;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t from = (st->start[b] + page - 1) & ~(uint64_t)(page - 1);
	uint64_t to = (st->start[b] + st->blocks[b].size) & ~(uint64_t)(page - 1);

	if (to > from)
		madvise(st->map + from, to - from, MADV_DONTNEED);
	st->stamp[b] = 0;
}

/* Decompress @len bytes at @src into @dst, which they must fill exactly (@size bytes). */
static int decompress(unsigned int codec, const uint8_t *src, size_t len, uint8_t *dst,
		      uint32_t size)
{
	uLongf out = size;
	size_t n;

	if (codec == CODE_SFRAME_COMPRESS_ZLIB)
		return uncompress(dst, &out, src, len) == Z_OK && out == size ? 0 : -EINVAL;
	n = ZSTD_decompress(dst, size, src, len);
	return !ZSTD_isError(n) && n == size ? 0 : -EINVAL;
}

/* Block @b's bytes into the mapping; 0, or the rule's errno with @v set. */
static int read_block(struct emu_sframe_store *st, uint32_t b, struct emu_verdict *v)
{
	const struct code_sframe_block *e = &st->blocks[b];
	uint8_t *dst = st->map + st->start[b], *src;
	int err = 0;

	if (st->compression == CODE_SFRAME_COMPRESS_NONE) {
		if (st->file.read(st->file.ctx, st->base + e->offset, dst, e->size))
			return emu_reject(v, EMU_R_FILE_READ, "block %u: %u bytes at file offset "
					  "%llu unreadable", b, e->size,
					  (unsigned long long)(st->base + e->offset));
		return 0;
	}
	/* block 0 is read once: its compressed bytes are not kept */
	src = b ? st->zbuf : malloc(e->length);
	if (!src)
		return emu_reject(v, EMU_R_NOMEM, "out of memory");
	if (st->file.read(st->file.ctx, st->base + e->offset, src, e->length))
		err = emu_reject(v, EMU_R_FILE_READ, "block %u: %u compressed bytes at file "
				 "offset %llu unreadable", b, e->length,
				 (unsigned long long)(st->base + e->offset));
	else if (decompress(st->compression, src, e->length, dst, e->size))
		err = emu_reject(v, EMU_R_FILE_BLOCKS, "block %u: %u bytes do not decompress (%s) "
				 "to its %u bytes", b, e->length, codec_names[st->compression],
				 e->size);
	if (!b)
		free(src);
	return err;
}

static uint32_t block_of(const struct emu_sframe_store *st, uint64_t pos)
{
	if (pos < st->blocks[0].size)
		return 0;
	return 1 + (uint32_t)((pos - st->blocks[0].size) / st->block_size);
}

/*
 * Every block holding a byte of [from, to) resident, for the lookup stamped
 * @pin. Return: the blocks read (or decompressed), or the rule's negative errno.
 */
static int ensure(struct emu_sframe_store *st, uint64_t pin, uint64_t from, uint64_t to)
{
	uint32_t last;
	int err, read = 0;

	if (to <= from)
		return 0;
	last = block_of(st, to - 1);
	for (uint32_t b = block_of(st, from); b <= last && b < st->nblocks; b++) {
		if (st->stamp[b]) {
			emu_block_cache_hit(st->cache);
			st->stamp[b] = pin;
			continue;
		}
		err = read_block(st, b, &st->fault);
		if (err)
			return err;
		read++;
		if (emu_block_cache_charge(st->cache, st, b, st->blocks[b].size, &st->stamp[b],
					   evict))
			st->stamp[b] = pin;	/* uncharged, resident until the section goes */
	}
	return read;
}

/* Where FDE @idx's FREs (v3: its attribute record) start, as its entry says. */
static uint64_t fde_fres_at(const struct emu_sframe_section *s, uint32_t idx)
{
	const uint8_t *e = s->data + s->fdes_pos + (size_t)idx * s->fde_size;

	return s->fres_pos + sf_u32(e + (s->hdr.version == 3 ? EMU_SF_V3_IDX_FRE_OFF :
							    EMU_SF_FDE_FRE_OFF));
}

/* The most bytes @fde's FREs can take, within the FRE sub-section. */
static uint64_t fres_most(const struct emu_sframe_section *s, const struct emu_sframe_fde *fde)
{
	uint64_t most = fde->fres_pos + (uint64_t)fde->num_fres * FRE_MAX_BYTES;

	return most < s->fres_end ? most : s->fres_end;
}

/*
 * Where FDE @idx's FREs are expected to end: where the next function's FREs
 * start, when they come after these (as assemblers lay them out), else
 * fres_most().
 */
static uint64_t fres_expected(const struct emu_sframe_section *s, uint32_t idx,
			      const struct emu_sframe_fde *fde)
{
	uint64_t most = fres_most(s, fde);
	uint64_t next = idx + 1 < s->hdr.num_fdes ? fde_fres_at(s, idx + 1) : most;

	return next > fde->fres_pos && next < most ? next : most;
}

/* Do @fde's FREs end by @end? Reads only bytes below @end (false: read on). */
static bool fres_within(const struct emu_sframe_section *s, const struct emu_sframe_fde *fde,
			uint64_t end)
{
	struct emu_sframe_fre fre;
	size_t pos = fde->fres_pos;

	for (uint32_t j = 0; j < fde->num_fres; j++) {
		if (pos + fde->addr_size + 1 > end)
			return false;
		if (emu_sf_decode_fre_head(s, fde, &pos, &fre))
			return true;	/* broken: the check that follows says so */
		if (pos > end)
			return false;
	}
	return true;
}

int emu_sf_store_fetch(const struct emu_sframe_section *s, uint32_t idx,
		       struct emu_sframe_fde *fde)
{
	struct emu_sframe_store *st = s->store;
	uint64_t pin = emu_block_cache_begin(st->cache), at = fde_fres_at(s, idx), end;
	enum emu_rule r;
	int read = 0, n, m;

	emu_verdict_init(&st->fault);
	if (s->hdr.version == 3 && (read = ensure(st, pin, at, at + EMU_SF_V3_ATTR_SIZE)) < 0)
		return -EFAULT;
	r = emu_sf_decode_fde(s, idx, fde);
	if (r) {
		emu_sf_fde_fail(&st->fault, r, idx, fde);
		return -EFAULT;
	}
	end = fres_expected(s, idx, fde);
	n = ensure(st, pin, fde->fres_pos, end);
	if (n >= 0 && !fres_within(s, fde, end)) {
		m = ensure(st, pin, end, fres_most(s, fde));
		n = m < 0 ? m : n + m;
	}
	if (n < 0)
		return -EFAULT;
	/* bytes read again may have changed in the file since they were checked */
	if (!read && !n && (st->checked[idx / 8] & (1u << (idx % 8))))
		return 0;
	if (emu_sf_validate_fres(s, idx, fde, &st->fault))
		return -EFAULT;
	st->checked[idx / 8] |= (uint8_t)(1u << (idx % 8));
	return 0;
}

/* A plain file's made-up index: block 0 up to the FREs, then FRE blocks of EMU_SF_FILE_BLOCK. */
static int plain_index(struct emu_sframe_store *st, uint64_t size, uint64_t fres_pos)
{
	uint64_t rest = size - fres_pos;

	st->block_size = EMU_SF_FILE_BLOCK;
	st->nblocks = 1 + (uint32_t)((rest + EMU_SF_FILE_BLOCK - 1) / EMU_SF_FILE_BLOCK);
	st->blocks = calloc(st->nblocks, sizeof(*st->blocks));
	if (!st->blocks)
		return -ENOMEM;
	for (uint32_t b = 0; b < st->nblocks; b++) {
		uint64_t at = b ? fres_pos + (uint64_t)(b - 1) * EMU_SF_FILE_BLOCK : 0;
		uint64_t end = b ? at + EMU_SF_FILE_BLOCK : fres_pos;

		st->blocks[b] = (struct code_sframe_block){
			.offset = at, .size = (uint32_t)((end < size ? end : size) - at),
		};
	}
	return 0;
}

static int blocks_fail(struct emu_verdict *v, const char *what, uint64_t a, uint64_t b)
{
	return emu_reject(v, EMU_R_FILE_BLOCKS, "compressed data: %s (%llu, %llu)", what,
			  (unsigned long long)a, (unsigned long long)b);
}

/* What a registration keeps for good: block 0, the index, the compressed block's room. */
static uint64_t kept_bytes(const struct emu_sframe_store *st)
{
	return (uint64_t)st->blocks[0].size + st->zbuf_len +
	       (uint64_t)st->nblocks * (sizeof(*st->blocks) + sizeof(*st->start) +
					sizeof(*st->stamp));
}

static int budget_fail(const struct emu_sframe_store *st, const struct emu_sframe_file_params *fp,
		       struct emu_verdict *v)
{
	return emu_reject(v, EMU_R_SFRAME_BUDGET, "its header, FDE table and index would keep "
			  "%llu bytes, above the %llu left of this process's budget",
			  (unsigned long long)kept_bytes(st), (unsigned long long)fp->room);
}

/* One index entry against the data's length and the section's size. */
static int check_entry(const struct code_sframe_blocks *h, const struct code_sframe_block *e,
		       uint32_t b, uint64_t index_end, uint64_t length, uint64_t *covered,
		       struct emu_verdict *v)
{
	if (e->offset < index_end || e->offset > length || length - e->offset < e->length)
		return blocks_fail(v, "a block outside the data: block, offset", b, e->offset);
	if (!e->size || (b && e->size > h->block_size))
		return blocks_fail(v, "a block's size: block, size", b, e->size);
	/* no codec makes data this much larger */
	if (!e->length || e->length > (uint64_t)e->size + e->size / 8 + 4096)
		return blocks_fail(v, "a block's compressed length: block, length", b, e->length);
	if (b && b + 1 < h->nblocks && e->size != h->block_size)
		return blocks_fail(v, "an inner FRE block not of block_size: block, size", b, e->size);
	*covered += e->size;
	return 0;
}

/* The header and index of compressed data; 0 or the rule's errno. */
static int read_index(struct emu_sframe_store *st, const struct emu_sframe_file_params *fp,
		      struct emu_verdict *v)
{
	struct code_sframe_blocks h;
	uint64_t index_end, covered = 0, max_blocks;
	size_t zmax = 0;
	int err;

	if (fp->length < sizeof(h) || st->file.read(st->file.ctx, st->base, &h, sizeof(h)))
		return fp->length < sizeof(h) ?
		       blocks_fail(v, "shorter than its header: length, header", fp->length, sizeof(h)) :
		       emu_reject(v, EMU_R_FILE_READ, "the blocks' header unreadable");
	if (h.magic != CODE_SFRAME_BLOCKS_MAGIC || h.version != CODE_SFRAME_BLOCKS_VERSION ||
	    h.reserved)
		return blocks_fail(v, "magic, version", h.magic, h.version);
	if (h.size != fp->size)
		return blocks_fail(v, "its size is not the call's: size, call's size", h.size, fp->size);
	if (h.block_size < CODE_SFRAME_BLOCK_SIZE_MIN || h.block_size > CODE_SFRAME_BLOCK_SIZE_MAX)
		return blocks_fail(v, "block_size outside [4096, 1 MiB]: block_size, 0", h.block_size, 0);
	max_blocks = 1 + (h.size + h.block_size - 1) / h.block_size;
	if (!h.nblocks || h.nblocks > max_blocks)
		return blocks_fail(v, "nblocks, most the size allows", h.nblocks, max_blocks);
	index_end = sizeof(h) + (uint64_t)h.nblocks * sizeof(*st->blocks);
	if (index_end > fp->length)
		return blocks_fail(v, "the index runs past the data: index end, length", index_end,
				   fp->length);
	st->blocks = calloc(h.nblocks, sizeof(*st->blocks));
	if (!st->blocks)
		return emu_reject(v, EMU_R_NOMEM, "out of memory");
	if (st->file.read(st->file.ctx, st->base + sizeof(h), st->blocks,
			  h.nblocks * sizeof(*st->blocks)))
		return emu_reject(v, EMU_R_FILE_READ, "the block index unreadable");
	st->nblocks = h.nblocks;
	st->block_size = h.block_size;
	for (uint32_t b = 0; b < h.nblocks; b++) {
		err = check_entry(&h, &st->blocks[b], b, index_end, fp->length, &covered, v);
		if (err)
			return err;
		if (b && st->blocks[b].length > zmax)
			zmax = st->blocks[b].length;
	}
	if (covered != h.size)
		return blocks_fail(v, "the blocks do not add up to the size: sum, size", covered, h.size);
	st->zbuf_len = zmax;
	if (kept_bytes(st) > fp->room)
		return budget_fail(st, fp, v);
	st->zbuf = malloc(zmax ? zmax : 1);
	return st->zbuf ? 0 : emu_reject(v, EMU_R_NOMEM, "out of memory");
}

/* Each block's place in the section and its stamp (block 0 resident for good); 0 or -ENOMEM. */
static int index_blocks(struct emu_sframe_store *st)
{
	st->start = calloc(st->nblocks, sizeof(*st->start));
	st->stamp = calloc(st->nblocks, sizeof(*st->stamp));
	if (!st->start || !st->stamp)
		return -ENOMEM;
	for (uint32_t b = 1; b < st->nblocks; b++)
		st->start[b] = st->start[b - 1] + st->blocks[b - 1].size;
	st->stamp[0] = UINT64_MAX;
	return 0;
}

/* Block 0 (header and FDE table) read and the index complete; 0 or the rule's errno. */
static int read_first(struct emu_sframe_section *s, const struct emu_sframe_file_params *fp,
		      const struct emu_sframe_params *p, struct emu_verdict *v)
{
	struct emu_sframe_store *st = s->store;
	size_t head = fp->size < EMU_SF_HDR_SIZE ? fp->size : EMU_SF_HDR_SIZE;
	const struct emu_arch_info *arch = emu_arch_get(p->arch);
	enum emu_rule r;
	int err;

	if (!arch)
		return emu_reject(v, EMU_R_SF_ABI, "unknown architecture %d", p->arch);
	if (st->compression) {
		err = read_index(st, fp, v);
		if (!err && index_blocks(st))
			err = emu_reject(v, EMU_R_NOMEM, "out of memory");
		if (!err)
			err = read_block(st, 0, v);
	} else {
		err = st->file.read(st->file.ctx, st->base, st->map, head) ?
		      emu_reject(v, EMU_R_FILE_READ, "the section's header unreadable") : 0;
	}
	if (err)
		return err;
	r = emu_sf_parse_header(s, arch, v);
	if (r)
		return -emu_rule_errno(r);
	if (st->compression && st->blocks[0].size != s->fres_pos)
		return blocks_fail(v, "block 0 does not end where the FREs start: its size, FREs at",
				   st->blocks[0].size, s->fres_pos);
	if (!st->compression) {
		if (plain_index(st, fp->size, s->fres_pos))
			return emu_reject(v, EMU_R_NOMEM, "out of memory");
		if (kept_bytes(st) > fp->room)
			return budget_fail(st, fp, v);
		if (index_blocks(st))
			return emu_reject(v, EMU_R_NOMEM, "out of memory");
		if (st->file.read(st->file.ctx, st->base + head, st->map + head, s->fres_pos - head))
			return emu_reject(v, EMU_R_FILE_READ, "the FDE table unreadable");
	}
	return 0;
}

int emu_sframe_load_file(const struct emu_file *file, const struct emu_sframe_file_params *fp,
			 const struct emu_sframe_params *p, struct emu_sframe_section **out,
			 struct emu_verdict *v)
{
	struct emu_sframe_store *st = calloc(1, sizeof(*st));
	struct emu_sframe_section *s = st ? calloc(1, sizeof(*s)) : NULL;
	int err;

	if (!s) {
		free(st);
		file->release(file->ctx);
		return emu_reject(v, EMU_R_NOMEM, "out of memory");
	}
	*st = (struct emu_sframe_store){
		.file = *file, .base = fp->offset, .compression = fp->compression,
		.cache = emu_block_cache_get(fp->cache), .map_len = fp->size,
	};
	*s = (struct emu_sframe_section){ .refs = 1, .len = fp->size, .addr = p->sframe_addr,
					  .store = st };
	st->map = mmap(NULL, fp->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (st->map == MAP_FAILED) {
		st->map = NULL;
		err = emu_reject(v, EMU_R_NOMEM, "no room for a mapping of %llu bytes",
				 (unsigned long long)fp->size);
		goto err;
	}
	s->data = st->map;
	err = read_first(s, fp, p, v);
	st->checked = err ? NULL : calloc(s->hdr.num_fdes / 8 + 1, 1);
	if (!err && !st->checked)
		err = emu_reject(v, EMU_R_NOMEM, "out of memory");
	if (!err)
		err = emu_sf_validate(s, p, v);
	if (err)
		goto err;
	*out = s;
	return 0;
err:
	emu_sframe_put(s);
	return err;
}

bool emu_sframe_is_file(const struct emu_sframe_section *s)
{
	return s->store;
}

const struct emu_verdict *emu_sframe_file_fault(const struct emu_sframe_section *s)
{
	return s->store && s->store->fault.rule ? &s->store->fault : NULL;
}

const char *emu_sframe_source(const struct emu_sframe_section *s)
{
	return s->store ? codec_names[s->store->compression] : "memory";
}

size_t emu_sframe_kept(const struct emu_sframe_section *s)
{
	return s->store ? kept_bytes(s->store) : s->len;
}

size_t emu_sframe_resident(const struct emu_sframe_section *s)
{
	const struct emu_sframe_store *st = s->store;
	size_t n = 0;

	if (!st)
		return s->len;
	for (uint32_t b = 0; b < st->nblocks; b++)
		n += st->stamp[b] ? st->blocks[b].size : 0;
	return n;
}
