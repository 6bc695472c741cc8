// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes as an SFrame section, validated in both
 * profiles for both architectures; accepted sections are then looked up at
 * every function's edges and walked with a stack made of the same bytes. The
 * v16 kernel's reader takes the same bytes with and without validation and
 * looks them up at the first addresses of the text: every failure must come
 * with a rule whose errno it is. The same bytes as a file (CODE_REGISTER_SFRAME_FILE):
 * plain, where every lookup must answer as the copy's when the copy was
 * accepted, and as zlib and zstd block data (header, index, blocks).
 */
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"

#define SEC 0x500000ull
#define TEXT 0x400000ull
#define TEXT_END 0x500000ull

static void lookups(const struct emu_sframe_section *s)
{
	const struct emu_sframe_hdr *h = emu_sframe_header(s);
	struct emu_unwind_rule rule;
	struct emu_sframe_fde fde;

	for (uint32_t i = 0; i < h->num_fdes && i < 4096; i++) {
		if (emu_sframe_fde_at(s, i, &fde))
			abort();	/* validated: decoding cannot fail */
		for (uint64_t d = 0; d < 3; d++) {
			int err = emu_sframe_find_rule(s, fde.func_start + d * fde.func_size / 2, &rule);

			if (err && err != -ENOENT)
				abort();
		}
	}
}

static void walk(const struct emu_sframe_section *s, const uint8_t *data, size_t size,
		 enum emu_arch arch)
{
	struct emu_registry *r = emu_registry_new(4);
	struct emu_registration *reg = calloc(1, sizeof(*reg));
	struct emu_mem_image img = { 0 };
	struct emu_accessor mem;
	struct emu_regs regs = { .ip = TEXT + (size & 0xffff), .sp = 0x7f0000000000ull,
				 .fp = 0x7f0000000000ull + (size & 0xff8) };
	struct emu_unwind_opts o = { .arch = arch, .max_frames = 64 };
	struct emu_frame frames[64];
	struct emu_unwind_result res;
	struct emu_verdict v;

	*reg = (struct emu_registration){ .text_start = TEXT, .text_end = TEXT_END,
					  .aspects = EMU_ASPECT_UNWIND,
					  .unwind_kind = EMU_UNWIND_SFRAME,
					  .sframe = emu_sframe_get((struct emu_sframe_section *)s) };
	if (emu_registry_insert(r, reg, &v))
		abort();
	emu_mem_image_add(&img, regs.sp, data, size);
	mem = emu_mem_image_accessor(&img);
	if (emu_unwind(r, &mem, &regs, &o, frames, &res) || res.nframes > 64)
		abort();
	emu_registry_free(r);
}

static void expect_rule(int err, const struct emu_verdict *v)
{
	if (err && err != -ENOENT && (err != -emu_rule_errno(v->rule) || !v->reason[0]))
		abort();
}

/* Where FDE @i's function starts, by the kernel's arithmetic (0 when unreadable). */
static uint64_t fde_start(const struct emu_ksframe *k, const struct emu_accessor *mem, uint32_t i)
{
	uint64_t at = k->fdes_start + 16ull * i;
	int64_t off;

	return emu_read(mem, at, &off, sizeof(off)) ? 0 : at + (uint64_t)off;
}

/* The text: TEXT..TEXT_END, or all of memory (every FDE's function in it). */
static void kernel_reader(const uint8_t *data, size_t size, bool all_text)
{
	const struct emu_arch_info *arch = emu_arch_get(EMU_ARCH_X86_64);
	struct emu_mem_image img = { 0 };
	struct emu_accessor mem;
	struct emu_unwind_rule rule;
	struct emu_verdict v;
	struct emu_ksframe k;
	uint64_t base;
	int err;

	emu_mem_image_add(&img, SEC, data, size);
	mem = emu_mem_image_accessor(&img);
	for (int validate = 0; validate < 2; validate++) {
		k = (struct emu_ksframe){ .sframe_start = SEC, .sframe_end = SEC + size,
					  .text_start = all_text ? 0 : TEXT,
					  .text_end = all_text ? UINT64_MAX : TEXT_END };
		emu_verdict_init(&v);
		err = emu_ksframe_add(&k, &mem, arch, validate, &v);
		expect_rule(err, &v);
		base = all_text && !err ? fde_start(&k, &mem, k.num_fdes / 2) : TEXT;
		for (uint64_t ip = base; !err && ip < base + 64; ip++) {
			emu_verdict_init(&v);
			expect_rule(emu_ksframe_find(&k, &mem, arch, ip, &rule, &v), &v);
		}
	}
}

struct fuzz_file {
	const uint8_t *data;
	size_t len;
};

static int file_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct fuzz_file *f = ctx;

	if (off > f->len || f->len - off < len)
		return -EIO;
	memcpy(buf, f->data + off, len);
	return 0;
}

static void file_release(void *ctx)
{
	(void)ctx;
}

/* @data as a file of @compression: loaded, then looked up over the text's start. */
static void file_backed(const uint8_t *data, size_t size, unsigned int compression,
			const struct emu_sframe_section *copy)
{
	const struct emu_sframe_params p = { .sframe_addr = SEC, .text_start = TEXT,
					     .text_end = TEXT_END, .arch = EMU_ARCH_X86_64 };
	struct fuzz_file ff = { data, size };
	struct emu_file f = { .read = file_read, .release = file_release, .ctx = &ff,
			      .size = size, .regular = true, .readable = true };
	struct emu_sframe_file_params fp = { .length = size, .size = size,
					     .compression = compression,
					     .cache = emu_block_cache_new(3 * 4096),
					     .room = 16u << 20 };
	struct emu_unwind_rule a, b;
	struct emu_sframe_section *s = NULL;
	struct emu_verdict v;
	int err;

	if (compression && size >= 24)
		memcpy(&fp.size, data + 16, sizeof(fp.size));	/* the blocks' header's size */
	if (fp.size > (64u << 20))
		fp.size = 64u << 20;
	emu_verdict_init(&v);
	err = emu_sframe_load_file(&f, &fp, &p, &s, &v);
	if (err && (err != -emu_rule_errno(v.rule) || !v.reason[0]))
		abort();
	if (!err && copy && !compression)
		for (uint64_t ip = TEXT; ip < TEXT + 4096; ip += 3) {
			int ea = emu_sframe_find_rule(copy, ip, &a);
			int eb = emu_sframe_find_rule(s, ip, &b);

			if (ea != eb || (!ea && (a.cfa_off != b.cfa_off || a.ra.off != b.ra.off)))
				abort();	/* a valid section answers as its copy */
		}
	for (uint64_t ip = TEXT; !err && ip < TEXT + 4096; ip += 5)
		if (emu_sframe_find_rule(s, ip, &b) == -EFAULT && !emu_sframe_file_fault(s))
			abort();	/* a failed lookup says why */
	emu_sframe_put(s);
	emu_block_cache_put(fp.cache);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct emu_sframe_section *x86 = NULL;

	static const enum emu_arch arches[2] = { EMU_ARCH_X86_64, EMU_ARCH_AARCH64 };

	for (int a = 0; a < 2; a++) {
		for (int prof = 0; prof < 2; prof++) {
			struct emu_sframe_params p = { .sframe_addr = SEC, .text_start = TEXT,
						       .text_end = TEXT_END, .arch = arches[a],
						       .profile = prof };
			struct emu_sframe_section *s = NULL;
			struct emu_verdict v;
			uint8_t *copy = malloc(size ? size : 1);

			memcpy(copy, data, size);
			emu_verdict_init(&v);
			if (emu_sframe_load(copy, size, &p, &s, &v)) {
				if (v.rule == EMU_R_OK || !v.reason[0])
					abort();
				continue;
			}
			lookups(s);
			walk(s, data, size, arches[a]);
			if (a == 0 && prof == 0)
				x86 = emu_sframe_get(s);
			emu_sframe_put(s);
		}
	}
	for (unsigned int c = 0; c <= CODE_SFRAME_COMPRESS_ZSTD; c++)
		file_backed(data, size, c, x86);
	emu_sframe_put(x86);
	kernel_reader(data, size, false);
	kernel_reader(data, size, true);
	return 0;
}
