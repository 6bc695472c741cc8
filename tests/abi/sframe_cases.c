// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance: the ABI page's "invalid SFrame section" rules, on sections of
 * versions 1, 2 and 3 written in memory, each registered for text in the RX
 * area; and valid sections of every version.
 */
#include <string.h>

#include "abi.h"
#include "sframe_samples.h"

#define SEC_MAX 2048

/* A section of 4 functions of 64 bytes over a fresh text chunk. */
struct sec {
	uint8_t *buf;
	size_t len;
	uint64_t text;
	struct sfw_layout lay;
};

static void make(struct abi_ctx *ctx, struct sec *s, uint8_t version, bool pcrel)
{
	s->buf = abi_data(ctx, SEC_MAX);
	s->text = abi_text(ctx, 256);
	s->len = sample_section(version, pcrel, (uintptr_t)s->buf, s->text, 4, 64, s->buf,
				SEC_MAX, &s->lay);
}

/* Write @fdes (absolute starts) as a section of @version over @text. */
static void make_fdes(struct abi_ctx *ctx, struct sec *s, uint8_t version, uint64_t text,
		      const struct sfw_fde *fdes, unsigned int n)
{
	struct sfw_section d;

	s->buf = abi_data(ctx, SEC_MAX);
	d = sfw_amd64(version, version > 1, (uintptr_t)s->buf);
	d.fdes = fdes;
	d.nfdes = n;
	s->text = text;
	s->len = sfw_write(&d, s->buf, SEC_MAX, &s->lay);
}

static long reg(const struct sec *s)
{
	return abi_reg_sframe(s->text, s->text + 256, s->buf, s->len);
}

static void put32(struct sec *s, size_t pos, uint32_t v)
{
	memcpy(s->buf + pos, &v, 4);
}

static enum abi_result expect_invalid(struct abi_ctx *ctx, struct sec *s)
{
	EXPECT(ctx, reg(s), EINVAL);
	return ABI_PASS;
}

static enum abi_result valid_every_version(struct abi_ctx *ctx)
{
	static const struct { uint8_t v; bool pcrel; } all[] = { { 1, false }, { 2, false },
								  { 2, true }, { 3, true } };
	struct sec s;

	for (unsigned int i = 0; i < 4; i++) {
		make(ctx, &s, all[i].v, all[i].pcrel);
		EXPECT(ctx, reg(&s), 0);
		EXPECT(ctx, abi_unreg(s.text), 0);
	}
	return ABI_PASS;
}

static enum abi_result valid_v3_flex(struct abi_ctx *ctx)
{
	static const struct sfw_fre fres[1] = {
		{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
	};
	static const struct sfw_fre flex[3] = {
		{ .start = 0, .count = 2, .words = { 0x39, 8 } },		/* CFA = SP + 8 */
		{ .start = 5, .count = 2, .words = { 0x51, 0 } },		/* CFA = r10 */
		{ .start = 9, .count = 5, .words = { 0x33, -8, 0, 0x33, 0 } },	/* DRAP */
	};
	struct sec s;
	uint64_t t = abi_text(ctx, 256);
	struct sfw_fde fdes[2] = {
		{ .func_start = t, .func_size = 64, .fre_type = -1, .nfres = 1, .fres = fres },
		{ .func_start = t + 64, .func_size = 64, .fre_type = -1, .fde_type = 1, .nfres = 3,
		  .fres = flex },
	};

	make_fdes(ctx, &s, 3, t, fdes, 2);
	EXPECT(ctx, reg(&s), 0);
	EXPECT(ctx, abi_unreg(s.text), 0);
	return ABI_PASS;
}

static enum abi_result bad_magic(struct abi_ctx *ctx)
{
	struct sec s;

	make(ctx, &s, 3, true);
	s.buf[0] = 0xe3;
	if (expect_invalid(ctx, &s))
		return ABI_FAIL;
	s.buf[0] = 0xde;
	s.buf[1] = 0xe2;	/* byte-swapped: foreign endian */
	return expect_invalid(ctx, &s);
}

static enum abi_result bad_version(struct abi_ctx *ctx)
{
	struct sec s;

	make(ctx, &s, 2, true);
	s.buf[2] = 4;
	if (expect_invalid(ctx, &s))
		return ABI_FAIL;
	s.buf[2] = 0;
	return expect_invalid(ctx, &s);
}

static enum abi_result abi_arch_mismatch(struct abi_ctx *ctx)
{
	struct sec s;

	make(ctx, &s, 2, true);
	s.buf[4] = 2;		/* AArch64 little-endian on x86_64 */
	return expect_invalid(ctx, &s);
}

static enum abi_result undefined_flags(struct abi_ctx *ctx)
{
	struct sec s;

	make(ctx, &s, 1, false);
	s.buf[3] |= 0x4;	/* PCREL does not exist in v1 */
	if (expect_invalid(ctx, &s))
		return ABI_FAIL;
	make(ctx, &s, 3, true);
	s.buf[3] |= 0x2;	/* FRAME_POINTER was removed in v3 */
	return expect_invalid(ctx, &s);
}

static enum abi_result header_offsets_outside(struct abi_ctx *ctx)
{
	struct sec s;

	make(ctx, &s, 2, true);
	put32(&s, 8, 1000);			/* num_fdes */
	if (expect_invalid(ctx, &s))
		return ABI_FAIL;
	make(ctx, &s, 1, false);
	put32(&s, 16, 100000);			/* fre_len */
	if (expect_invalid(ctx, &s))
		return ABI_FAIL;
	make(ctx, &s, 3, true);
	s.len = 20;				/* shorter than the header */
	return expect_invalid(ctx, &s);
}

static enum abi_result not_sorted_flag(struct abi_ctx *ctx)
{
	struct sec s;

	make(ctx, &s, 2, true);
	s.buf[3] &= (uint8_t)~0x1;
	return expect_invalid(ctx, &s);
}

static enum abi_result fdes_unsorted(struct abi_ctx *ctx)
{
	struct sfw_fde fdes[2];
	struct sec s;
	uint64_t t = abi_text(ctx, 256);

	sample_functions(fdes, 2, t, 64);
	fdes[0].func_start = t + 128;
	make_fdes(ctx, &s, 3, t, fdes, 2);
	return expect_invalid(ctx, &s);
}

static enum abi_result fde_fres_outside(struct abi_ctx *ctx)
{
	struct sec s;

	make(ctx, &s, 2, true);
	put32(&s, s.lay.fde_pos[1] + 8, 5000);	/* fre_off */
	return expect_invalid(ctx, &s);
}

static enum abi_result function_outside_text(struct abi_ctx *ctx)
{
	struct sfw_fde fdes[1];
	struct sec s;
	uint64_t t = abi_text(ctx, 256);

	/* registered text [t, t + 256); the function runs past its end */
	sample_functions(fdes, 1, t + 224, 64);
	make_fdes(ctx, &s, 2, t, fdes, 1);
	return expect_invalid(ctx, &s);
}

static enum abi_result fre_starts_not_increasing(struct abi_ctx *ctx)
{
	struct sfw_fre fres[3] = { sample_fp_fres[0], sample_fp_fres[1], sample_fp_fres[2] };
	struct sec s;
	uint64_t t = abi_text(ctx, 256);
	struct sfw_fde fde = { .func_start = t, .func_size = 64, .nfres = 3, .fres = fres };

	fres[2].start = 1;
	make_fdes(ctx, &s, 1, t, &fde, 1);
	return expect_invalid(ctx, &s);
}

static enum abi_result fre_outside_function(struct abi_ctx *ctx)
{
	struct sfw_fre fres[2] = { sample_fp_fres[0], sample_fp_fres[1] };
	struct sec s;
	uint64_t t = abi_text(ctx, 256);
	struct sfw_fde fde = { .func_start = t, .func_size = 64, .nfres = 2, .fres = fres };

	fres[1].start = 65;
	make_fdes(ctx, &s, 3, t, &fde, 1);
	return expect_invalid(ctx, &s);
}

static enum abi_result fre_address_size(struct abi_ctx *ctx)
{
	struct sec s;

	make(ctx, &s, 1, false);
	s.buf[s.lay.fde_pos[2] + 16] = 0x03;	/* FDE info: FRE type 3 */
	return expect_invalid(ctx, &s);
}

static enum abi_result fre_offset_size(struct abi_ctx *ctx)
{
	struct sfw_fre fres[1] = { { .sp_base = true, .count = 1, .words = { 8 }, .info = 0x63 } };
	struct sec s;
	uint64_t t = abi_text(ctx, 256);
	struct sfw_fde fde = { .func_start = t, .func_size = 64, .nfres = 1, .fres = fres };

	make_fdes(ctx, &s, 2, t, &fde, 1);
	return expect_invalid(ctx, &s);
}

static enum abi_result fre_offset_count(struct abi_ctx *ctx)
{
	struct sfw_fre fres[1] = { { .sp_base = true, .count = 3, .words = { 16, -16, -24 } } };
	struct sec s;
	uint64_t t = abi_text(ctx, 256);
	struct sfw_fde fde = { .func_start = t, .func_size = 64, .nfres = 1, .fres = fres };

	make_fdes(ctx, &s, 2, t, &fde, 1);		/* AMD64, fixed RA: at most CFA and FP */
	return expect_invalid(ctx, &s);
}

static enum abi_result pcmask_rep_size_zero(struct abi_ctx *ctx)
{
	static const struct sfw_fre fres[2] = {
		{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
		{ .start = 11, .sp_base = true, .count = 1, .words = { 16 } },
	};
	struct sec s;
	uint64_t t = abi_text(ctx, 256);
	struct sfw_fde fde = { .func_start = t, .func_size = 64, .pcmask = true, .nfres = 2,
			       .fres = fres };

	make_fdes(ctx, &s, 2, t, &fde, 1);
	if (expect_invalid(ctx, &s))
		return ABI_FAIL;
	fde.rep_size = 16;
	make_fdes(ctx, &s, 2, t, &fde, 1);
	EXPECT(ctx, reg(&s), 0);
	EXPECT(ctx, abi_unreg(t), 0);
	return ABI_PASS;
}

static enum abi_result v3_unknown_fde_type(struct abi_ctx *ctx)
{
	struct sec s;

	make(ctx, &s, 3, true);
	s.buf[s.lay.fre_block_pos[1] + 3] = 2;	/* attribute info2: type 2 */
	return expect_invalid(ctx, &s);
}

static enum abi_result elf_with_invalid_section(struct abi_ctx *ctx)
{
	struct sec s;
	struct code_elf_info i;

	make(ctx, &s, 2, true);
	s.buf[0] = 0;
	i = (struct code_elf_info){ .text_start = s.text, .text_end = s.text + 256,
				    .sframe_start = (uintptr_t)s.buf,
				    .sframe_end = (uintptr_t)s.buf + s.len,
				    .pathname = (uintptr_t)"/lib/bad.so" };
	EXPECT(ctx, abi_reg_elf(&i), EINVAL);
	EXPECT(ctx, abi_unreg(s.text), ENOENT);	/* nothing of it was registered */
	return ABI_PASS;
}

const struct abi_case abi_sframe_cases[] = {
	{ "sframe-valid-v1-v2-v2pcrel-v3", valid_every_version },
	{ "sframe-valid-v3-flex", valid_v3_flex },
	{ "sframe-magic", bad_magic },
	{ "sframe-version", bad_version },
	{ "sframe-abi-arch", abi_arch_mismatch },
	{ "sframe-undefined-flags", undefined_flags },
	{ "sframe-header-offsets-outside", header_offsets_outside },
	{ "sframe-not-sorted-flag", not_sorted_flag },
	{ "sframe-fdes-unsorted", fdes_unsorted },
	{ "sframe-fde-fres-outside", fde_fres_outside },
	{ "sframe-function-outside-text", function_outside_text },
	{ "sframe-fre-starts-not-increasing", fre_starts_not_increasing },
	{ "sframe-fre-outside-function", fre_outside_function },
	{ "sframe-fre-address-size", fre_address_size },
	{ "sframe-fre-offset-size", fre_offset_size },
	{ "sframe-fre-offset-count", fre_offset_count },
	{ "sframe-pcmask-rep-size-zero", pcmask_rep_size_zero },
	{ "sframe-v3-unknown-fde-type", v3_unknown_fde_type },
	{ "sframe-elf-invalid-section", elf_with_invalid_section },
	{ NULL, NULL },
};
