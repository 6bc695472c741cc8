// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame decoding and lookup: writer round trips for v1, v2, v2+PCREL and v3
 * (every FRE address and offset size), real toolchain bytes, PCINC/PCMASK
 * lookup, and FRE-to-rule translation (DEFAULT, FLEX, outermost, signal, AArch64).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/sframe_internal.h"
#include "sframe_samples.h"

#define SEC 0x7f0000100000ull
#define TEXT 0x7f0000000000ull

static struct emu_sframe_section *load(const uint8_t *bytes, size_t len, uint64_t addr,
				       uint64_t text, uint64_t text_len, enum emu_arch arch)
{
	struct emu_sframe_params p = { .sframe_addr = addr, .text_start = text,
				       .text_end = text + text_len, .arch = arch };
	struct emu_sframe_section *s = NULL;
	struct emu_verdict v;
	uint8_t *copy = malloc(len);

	memcpy(copy, bytes, len);
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load(copy, len, &p, &s, &v), 0, "%s", v.reason);
	return s;
}

/* An AMD64 section of @version (PCREL from v2 on) with @fdes, loaded for TEXT. */
static struct emu_sframe_section *load_fdes(uint8_t version, const struct sfw_fde *fdes,
					    unsigned int n)
{
	struct sfw_section sec = sfw_amd64(version, version >= 2, SEC);
	struct sfw_layout lay;
	uint8_t buf[1024];

	sec.fdes = fdes;
	sec.nfdes = n;
	return load(buf, sfw_write(&sec, buf, sizeof(buf), &lay), SEC, TEXT, 0x1000,
		    EMU_ARCH_X86_64);
}

/* FDEs with 1-, 2- and 4-byte FRE starts and 1-, 2- and 4-byte offsets. */
static struct sfw_fre fre_small[2] = {
	{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
	{ .start = 0x7f, .sp_base = false, .count = 2, .words = { 16, -16 } },
};
static struct sfw_fre fre_mid[2] = {
	{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
	{ .start = 0x1234, .sp_base = true, .count = 2, .words = { 0x1008, -16 } },
};
static struct sfw_fre fre_big[3] = {
	{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
	{ .start = 0x1ffff, .sp_base = true, .count = 1, .words = { 0x12345678 } },
	{ .start = 0x20000, .sp_base = false, .count = 2, .words = { 16, -0x10000 }, .word_size = 4 },
};

static const struct sfw_fde roundtrip_fdes[3] = {
	{ .func_start = TEXT, .func_size = 0x80, .fre_type = -1, .nfres = 2, .fres = fre_small },
	{ .func_start = TEXT + 0x1000, .func_size = 0x2000, .fre_type = -1, .nfres = 2,
	  .fres = fre_mid },
	{ .func_start = TEXT + 0x10000, .func_size = 0x30000, .fre_type = -1, .nfres = 3,
	  .fres = fre_big },
};

static void check_roundtrip(uint8_t version, bool pcrel)
{
	struct sfw_section sec = sfw_amd64(version, pcrel, SEC);
	uint8_t buf[1024];
	struct sfw_layout lay;
	struct emu_sframe_section *s;
	size_t len;

	sec.fdes = roundtrip_fdes;
	sec.nfdes = 3;
	len = sfw_write(&sec, buf, sizeof(buf), &lay);
	s = load(buf, len, SEC, TEXT, 0x100000, EMU_ARCH_X86_64);
	cr_assert_eq(emu_sframe_header(s)->version, version);
	cr_assert_eq(emu_sframe_header(s)->num_fdes, 3);
	cr_assert_eq(emu_sframe_header(s)->num_fres, 7);
	for (uint32_t i = 0; i < 3; i++) {
		const struct sfw_fde *want = &roundtrip_fdes[i];
		struct emu_sframe_fde fde;
		struct emu_sframe_fre fre;
		size_t pos;

		cr_assert_eq(emu_sframe_fde_at(s, i, &fde), 0);
		cr_assert_eq(fde.func_start, want->func_start, "v%u FDE %u start", version, i);
		cr_assert_eq(fde.func_size, want->func_size);
		cr_assert_eq(fde.num_fres, want->nfres);
		cr_assert_eq(fde.addr_size, 1u << i, "FDE %u address size", i);
		pos = fde.fres_pos;
		for (uint32_t j = 0; j < fde.num_fres; j++) {
			uint64_t ip = fde.func_start + want->fres[j].start;
			uint32_t idx;

			cr_assert_eq(emu_sframe_find(s, ip, &idx, &fde, &fre), 0);
			cr_assert_eq(idx, i);
			cr_assert_eq(fre.start, want->fres[j].start);
			cr_assert_eq(fre.count, want->fres[j].count);
			cr_assert_eq((fre.info & 1) != 0, want->fres[j].sp_base);
			for (unsigned int k = 0; k < fre.count; k++)
				cr_assert_eq(fre.word[k], want->fres[j].words[k]);
		}
		(void)pos;
	}
	emu_sframe_put(s);
}

Test(sframe_decode, roundtrip_v1)
{
	check_roundtrip(1, false);
}

Test(sframe_decode, roundtrip_v2)
{
	check_roundtrip(2, false);
}

Test(sframe_decode, roundtrip_v2_pcrel)
{
	check_roundtrip(2, true);
}

Test(sframe_decode, roundtrip_v3)
{
	check_roundtrip(3, true);
}

/* binutils 2.40 `as --gsframe` + `ld -e f` output: f at 0x401000, .sframe at 0x402038. */
static const uint8_t v1_real[60] = {
	0xe2, 0xde, 0x01, 0x01, 0x03, 0x00, 0xf8, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x11, 0x00, 0x00, 0x00, 0xc8, 0xef, 0xff, 0xff, 0x07, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x08,
	0x01, 0x05, 0x10, 0xf0, 0x04, 0x04, 0x10, 0xf0, 0x06, 0x05, 0x08, 0xf0,
};

/* binutils 2.47 linked v3 bytes: leaf at 0x401000, f at 0x401002, .sframe at 0x402000. */
static const uint8_t v3_real[] = {
	0xe2, 0xde, 0x03, 0x05, 0x03, 0x00, 0xf8, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x20, 0x00, 0x00, 0x00,
	0xe4, 0xef, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
	0xd6, 0xef, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x08,
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x08, 0x01, 0x05, 0x10, 0xf0,
	0x04, 0x04, 0x10, 0xf0, 0x06, 0x05, 0x08, 0xf0,
};

static void check_fp_function_rules(struct emu_sframe_section *s, uint64_t f)
{
	struct emu_unwind_rule r;

	cr_assert_eq(emu_sframe_find_rule(s, f + 0, &r), 0);
	cr_assert_eq(r.cfa_base, EMU_CFA_SP);
	cr_assert_eq(r.cfa_off, 8);
	cr_assert_eq(r.ra.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.ra.off, -8);
	cr_assert_eq(r.fp.kind, EMU_LOC_SAME);
	cr_assert_eq(emu_sframe_find_rule(s, f + 3, &r), 0);
	cr_assert_eq(r.cfa_base, EMU_CFA_SP);
	cr_assert_eq(r.cfa_off, 16);
	cr_assert_eq(r.fp.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.fp.off, -16);
	cr_assert_eq(emu_sframe_find_rule(s, f + 5, &r), 0);
	cr_assert_eq(r.cfa_base, EMU_CFA_FP);
	cr_assert_eq(r.cfa_off, 16);
	cr_assert_eq(emu_sframe_find_rule(s, f + 6, &r), 0);
	cr_assert_eq(r.cfa_base, EMU_CFA_SP);
	cr_assert_eq(r.cfa_off, 8);
	cr_assert_eq(emu_sframe_find_rule(s, f + 7, &r), -ENOENT, "past the function");
}

Test(sframe_decode, real_v1_bytes)
{
	struct emu_sframe_section *s = load(v1_real, sizeof(v1_real), 0x402038, 0x401000, 0x1000,
					    EMU_ARCH_X86_64);

	check_fp_function_rules(s, 0x401000);
	emu_sframe_put(s);
}

Test(sframe_decode, real_v3_bytes)
{
	struct emu_sframe_section *s = load(v3_real, sizeof(v3_real), 0x402000, 0x401000, 0x1000,
					    EMU_ARCH_X86_64);
	struct emu_sframe_fde fde;

	cr_assert_eq(emu_sframe_fde_at(s, 0, &fde), 0);
	cr_assert_eq(fde.func_start, 0x401000);
	cr_assert_eq(fde.func_size, 2);
	cr_assert_eq(emu_sframe_fde_at(s, 1, &fde), 0);
	cr_assert_eq(fde.func_start, 0x401002);
	cr_assert_eq(fde.num_fres, 4);
	check_fp_function_rules(s, 0x401002);
	emu_sframe_put(s);
}

Test(sframe_decode, gaps_and_edges)
{
	struct sfw_fde fdes[2];
	struct emu_unwind_rule r;
	struct emu_sframe_section *s;

	sample_functions(fdes, 2, TEXT + 0x100, 0x40);
	fdes[1].func_start = TEXT + 0x200;	/* gap 0x140..0x200 */
	s = load_fdes(2, fdes, 2);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 0xff, &r), -ENOENT, "before the first FDE");
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 0x100, &r), 0);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 0x13f, &r), 0);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 0x140, &r), -ENOENT, "in the gap");
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 0x1ff, &r), -ENOENT, "in the gap");
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 0x200, &r), 0);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 0x240, &r), -ENOENT, "past the last");
	emu_sframe_put(s);
}

Test(sframe_decode, first_fre_after_function_start_is_a_miss)
{
	static const struct sfw_fre late[1] = { { .start = 4, .sp_base = true, .count = 1,
						   .words = { 16 } } };
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 16, .nfres = 1, .fres = late };
	struct emu_unwind_rule r;
	struct emu_sframe_section *s = load_fdes(3, &fde, 1);

	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 3, &r), -ENOENT);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 4, &r), 0);
	emu_sframe_put(s);
}

static const struct sfw_fre plt_fres[2] = {
	{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
	{ .start = 11, .sp_base = true, .count = 1, .words = { 16 } },
};

static void check_pcmask(uint8_t version)
{
	struct sfw_fde fde = { .func_start = TEXT + 0x30, .func_size = 64, .pcmask = true,
			       .rep_size = 16, .nfres = 2, .fres = plt_fres };
	struct emu_unwind_rule r;
	struct emu_sframe_section *s = load_fdes(version, &fde, 1);

	for (uint64_t off = 0; off < 64; off++) {
		cr_assert_eq(emu_sframe_find_rule(s, TEXT + 0x30 + off, &r), 0);
		cr_assert_eq(r.cfa_off, off % 16 < 11 ? 8 : 16, "v%u offset %llu", version,
			     (unsigned long long)off);
	}
	emu_sframe_put(s);
}

Test(sframe_decode, pcmask_repeats_every_block)
{
	check_pcmask(1);	/* no repetition size in v1: 16 */
	check_pcmask(2);
	check_pcmask(3);
}

static struct emu_unwind_rule flex_rule(const struct sfw_fre *fre)
{
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 64, .fde_type = 1, .nfres = 1,
			       .fres = fre };
	struct emu_unwind_rule r;
	struct emu_sframe_section *s = load_fdes(3, &fde, 1);

	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 1, &r), 0);
	emu_sframe_put(s);
	return r;
}

Test(sframe_decode, flex_drap_rules)
{
	/* CFA = r10 + 0 */
	struct sfw_fre f = { .count = 2, .words = { 0x51, 0 } };
	struct emu_unwind_rule r = flex_rule(&f);

	cr_assert_eq(r.cfa_base, EMU_CFA_REG);
	cr_assert_eq(r.cfa_reg, 10);
	cr_assert_not(r.cfa_deref);
	cr_assert_eq(r.ra.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.ra.off, -8);
	/* CFA = *(FP - 8), RA default (padding), FP = *(FP + 0) */
	f = (struct sfw_fre){ .count = 5, .words = { 0x33, -8, 0, 0x33, 0 } };
	r = flex_rule(&f);
	cr_assert_eq(r.cfa_base, EMU_CFA_FP);
	cr_assert(r.cfa_deref);
	cr_assert_eq(r.cfa_off, -8);
	cr_assert_eq(r.ra.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.ra.off, -8);
	cr_assert_eq(r.fp.kind, EMU_LOC_REG_DEREF);
	cr_assert_eq(r.fp.reg, 6);
	cr_assert_eq(r.fp.off, 0);
	/* RA in rcx (register + 0), FP at CFA - 16 */
	f = (struct sfw_fre){ .count = 6, .words = { 0x39, 16, 0x11, 0, 0x02, -16 } };
	r = flex_rule(&f);
	cr_assert_eq(r.cfa_base, EMU_CFA_SP);
	cr_assert_eq(r.ra.kind, EMU_LOC_REG);
	cr_assert_eq(r.ra.reg, 2);
	cr_assert_eq(r.fp.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.fp.off, -16);
}

Test(sframe_decode, outermost_and_signal)
{
	static const struct sfw_fre outer[1] = { { .start = 0, .count = 0 } };
	struct sfw_fde fdes[2] = {
		{ .func_start = TEXT, .func_size = 16, .nfres = 1, .fres = outer },
		{ .func_start = TEXT + 16, .func_size = 16, .signal = true, .nfres = 0 },
	};
	struct emu_unwind_rule r;
	struct emu_sframe_section *s = load_fdes(3, fdes, 2);

	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 5, &r), 0);
	cr_assert(r.outermost);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 20, &r), 0);
	cr_assert(r.signal_frame);
	emu_sframe_put(s);
}

/* AArch64: RA tracked in FREs (no fixed offset); words CFA, RA, FP. */
Test(sframe_decode, aarch64_rules)
{
	static const struct sfw_fre fres[3] = {
		{ .start = 0, .sp_base = true, .count = 1, .words = { 0 } },
		{ .start = 4, .sp_base = true, .count = 3, .words = { 16, -8, -16 }, .mangled_ra = true },
		{ .start = 8, .sp_base = false, .count = 2, .words = { 16, -8 } },
	};
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 32, .nfres = 3, .fres = fres };
	struct sfw_section sec = { .version = 2, .pcrel = true, .abi = 2, .addr = SEC,
				   .nfdes = 1, .fdes = &fde };
	uint8_t buf[256];
	struct sfw_layout lay;
	struct emu_unwind_rule r;
	struct emu_sframe_section *s;
	size_t len = sfw_write(&sec, buf, sizeof(buf), &lay);
	struct emu_sframe_params p = { .sframe_addr = SEC, .text_start = TEXT,
				       .text_end = TEXT + 0x1000, .arch = EMU_ARCH_X86_64 };
	struct emu_verdict v;

	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_validate(buf, len, &p, &v), -EINVAL, "AArch64 data, x86_64 caller");
	cr_assert_eq(v.rule, EMU_R_SF_ABI);
	s = load(buf, len, SEC, TEXT, 0x1000, EMU_ARCH_AARCH64);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT, &r), 0);
	cr_assert_eq(r.cfa_off, 0);
	cr_assert_eq(r.ra.kind, EMU_LOC_SAME, "RA still in LR");
	cr_assert_eq(r.ra.reg, 30);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 4, &r), 0);
	cr_assert_eq(r.ra.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.ra.off, -8);
	cr_assert_eq(r.fp.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.fp.off, -16);
	cr_assert(r.ra_mangled);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 8, &r), 0);
	cr_assert_eq(r.cfa_base, EMU_CFA_FP);
	cr_assert_eq(r.fp.kind, EMU_LOC_SAME);
	emu_sframe_put(s);
}

Test(sframe_decode, aarch64_four_words_invalid)
{
	static const struct sfw_fre fres[1] = {
		{ .start = 0, .sp_base = true, .count = 4, .words = { 16, -8, -16, 0 } },
	};
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 32, .nfres = 1, .fres = fres };
	struct sfw_section sec = { .version = 3, .pcrel = true, .abi = 2, .addr = SEC,
				   .nfdes = 1, .fdes = &fde };
	uint8_t buf[256];
	struct sfw_layout lay;
	size_t len = sfw_write(&sec, buf, sizeof(buf), &lay);
	struct emu_sframe_params p = { .sframe_addr = SEC, .text_start = TEXT,
				       .text_end = TEXT + 0x1000, .arch = EMU_ARCH_AARCH64 };
	struct emu_verdict v;

	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_validate(buf, len, &p, &v), -EINVAL);
	cr_assert_eq(v.rule, EMU_R_SF_FRE_OFFSET_COUNT);
}

/* A function with many FREs is looked up through the FRE index: same answers. */
Test(sframe_decode, indexed_function_with_many_fres)
{
	static struct sfw_fre fres[300];
	static uint8_t buf[8192];
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 3000, .fre_type = -1,
			       .nfres = 300, .fres = fres };
	struct sfw_section sec = sfw_amd64(3, true, SEC);
	struct sfw_layout lay;
	struct emu_unwind_rule r;
	struct emu_sframe_section *s;

	for (int i = 0; i < 300; i++)
		fres[i] = (struct sfw_fre){ .start = (uint32_t)(i * 10), .sp_base = true, .count = 1,
					    .words = { 8 + 8 * (i % 100) } };
	sec.fdes = &fde;
	sec.nfdes = 1;
	s = load(buf, sfw_write(&sec, buf, sizeof(buf), &lay), SEC, TEXT, 0x10000, EMU_ARCH_X86_64);
	cr_assert_eq(s->nbig, 1, "indexed");
	for (uint32_t off = 0; off < 3000; off++) {
		cr_assert_eq(emu_sframe_find_rule(s, TEXT + off, &r), 0);
		cr_assert_eq(r.cfa_off, 8 + 8 * ((off / 10) % 100), "offset %u", off);
	}
	emu_sframe_put(s);
}
