// SPDX-License-Identifier: GPL-2.0
/*
 * One test (at least) per rule of the ABI page's "invalid SFrame section" list,
 * on sections built by the test writer (v1, v2, v2+PCREL, v3) and patched.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "emu/emu.h"
#include "sframe_samples.h"

#define SEC 0x402000ull		/* where the section is loaded */
#define TEXT 0x401000ull	/* text range [TEXT, TEXT + 0x400) */
#define TEXT_LEN 0x400u

static uint8_t buf[4096];
static struct sfw_layout lay;
static struct emu_verdict v;

static struct emu_sframe_params params(enum emu_profile profile)
{
	return (struct emu_sframe_params){
		.sframe_addr = SEC, .text_start = TEXT, .text_end = TEXT + TEXT_LEN,
		.arch = EMU_ARCH_X86_64, .profile = profile,
	};
}

static int validate(size_t len)
{
	struct emu_sframe_params p = params(EMU_PROFILE_EMULATOR);

	emu_verdict_init(&v);
	return emu_sframe_validate(buf, len, &p, &v);
}

static void expect_rule(size_t len, enum emu_rule rule, const char *reason)
{
	int err = validate(len);

	cr_assert_eq(err, -EINVAL, "accepted, want %s", emu_rule_name(rule));
	cr_assert_eq(v.rule, rule, "rule %s (%s), want %s", emu_rule_name(v.rule), v.reason,
		     emu_rule_name(rule));
	if (reason)
		cr_assert_str_eq(v.reason, reason);
}

/* Four 64-byte frame-pointer functions from TEXT. */
static size_t sample(uint8_t version, bool pcrel)
{
	return sample_section(version, pcrel, SEC, TEXT, 4, 64, buf, sizeof(buf), &lay);
}

static size_t write_fdes(uint8_t version, const struct sfw_fde *fdes, unsigned int n)
{
	struct sfw_section s = sfw_amd64(version, version == 3, SEC);

	s.fdes = fdes;
	s.nfdes = n;
	return sfw_write(&s, buf, sizeof(buf), &lay);
}

static void put32(size_t pos, uint32_t val)
{
	memcpy(buf + pos, &val, 4);
}

Test(sframe_valid, every_version_accepted)
{
	const struct { uint8_t version; bool pcrel; uint32_t kr; } cases[] = {
		{ 1, false, EMU_KR_VERSION | EMU_KR_V3_ONLY }, { 2, false, EMU_KR_PCREL | EMU_KR_V3_ONLY },
		{ 2, true, EMU_KR_V3_ONLY }, { 3, true, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = sample(cases[i].version, cases[i].pcrel);

		cr_assert_eq(validate(len), 0, "v%u: %s", cases[i].version, v.reason);
		cr_assert_eq(v.kernel_refusals, cases[i].kr, "v%u", cases[i].version);
	}
}

Test(sframe_rules, shorter_than_header)
{
	size_t len = sample(2, true);

	(void)len;
	expect_rule(27, EMU_R_SF_SHORT, "section of 27 bytes shorter than the 28-byte header");
	expect_rule(0, EMU_R_SF_SHORT, NULL);
}

Test(sframe_rules, bad_magic)
{
	size_t len = sample(3, true);

	buf[0] = 0xe3;
	expect_rule(len, EMU_R_SF_MAGIC, "magic 0xdee3, not 0xdee2");
	buf[0] = 0xde;
	buf[1] = 0xe2;
	expect_rule(len, EMU_R_SF_MAGIC, "magic 0xe2de: byte-swapped (foreign-endian) section");
}

Test(sframe_rules, unknown_version)
{
	size_t len = sample(3, true);

	buf[2] = 4;
	expect_rule(len, EMU_R_SF_VERSION, "version 4 (decoded: 1, 2, 3)");
	buf[2] = 0;
	expect_rule(len, EMU_R_SF_VERSION, NULL);
}

Test(sframe_rules, abi_not_the_callers)
{
	size_t len = sample(2, true);

	buf[4] = 2;	/* AArch64 little-endian, caller is x86_64 */
	expect_rule(len, EMU_R_SF_ABI, "ABI/arch 2, caller is x86_64 (3)");
	buf[4] = 4;
	expect_rule(len, EMU_R_SF_ABI, NULL);
}

Test(sframe_rules, undefined_flag_bits)
{
	size_t len = sample(1, false);

	buf[3] |= 0x4;	/* PCREL does not exist in v1 */
	expect_rule(len, EMU_R_SF_FLAGS, "flags 0x05: bits 0x04 undefined in version 1");
	len = sample(3, true);
	buf[3] |= 0x2;	/* FRAME_POINTER was removed in v3 */
	expect_rule(len, EMU_R_SF_FLAGS, "flags 0x07: bits 0x02 undefined in version 3");
	len = sample(2, true);
	buf[3] |= 0x80;
	expect_rule(len, EMU_R_SF_FLAGS, NULL);
}

Test(sframe_rules, fde_subsection_beyond_end)
{
	size_t len = sample(2, true);

	put32(8, 1000);		/* num_fdes */
	expect_rule(len, EMU_R_SF_BOUNDS, "1000 FDEs at offset 28 end beyond section end (168 bytes)");
}

Test(sframe_rules, fre_subsection_beyond_end)
{
	size_t len = sample(1, false);

	put32(16, 1000);	/* fre_len */
	expect_rule(len, EMU_R_SF_BOUNDS, NULL);
	len = sample(3, true);
	put32(24, 4000);	/* freoff */
	expect_rule(len, EMU_R_SF_BOUNDS, NULL);
}

Test(sframe_rules, fde_and_fre_subsections_overlap)
{
	size_t len = sample(2, true);

	put32(24, 20);		/* freoff inside the 4 FDEs */
	put32(16, (uint32_t)(len - 28 - 20));
	expect_rule(len, EMU_R_SF_BOUNDS, "FDE sub-section [28, 108) overlaps FRE sub-section at 48");
}

Test(sframe_rules, auxiliary_header_beyond_end)
{
	size_t len = sample(2, true);

	buf[7] = 255;
	expect_rule(40, EMU_R_SF_BOUNDS, "auxiliary header (255 bytes) beyond section end");
	(void)len;
}

Test(sframe_rules, fre_count_beyond_fre_bytes)
{
	size_t len = sample(2, true);

	put32(12, 100000);	/* num_fres */
	expect_rule(len, EMU_R_SF_BOUNDS, "100000 FREs cannot fit in 60 bytes of FRE sub-section");
}

Test(sframe_rules, fde_fre_counts_beyond_header)
{
	size_t len = sample(1, false);

	put32(12, 15);		/* header says 15, FDEs say 16 */
	expect_rule(len, EMU_R_SF_BOUNDS, "FDE 3: FRE counts add up beyond the header's 15 FREs");
}

Test(sframe_rules, not_sorted_flag)
{
	size_t len = sample(2, true);

	buf[3] &= (uint8_t)~0x1;
	expect_rule(len, EMU_R_SF_NOT_SORTED, "flag FDE_SORTED missing (required)");
}

Test(sframe_rules, fdes_not_in_address_order)
{
	struct sfw_fde fdes[3];

	sample_functions(fdes, 3, TEXT, 64);
	fdes[1].func_start = TEXT + 0x100;
	fdes[2].func_start = TEXT + 0x80;
	expect_rule(write_fdes(2, fdes, 3), EMU_R_SF_FDE_ORDER,
		    "FDE 2: start 0x401080 not above FDE 1 start 0x401100");
	fdes[2].func_start = TEXT + 0x100;	/* equal starts */
	expect_rule(write_fdes(3, fdes, 3), EMU_R_SF_FDE_ORDER, NULL);
}

Test(sframe_rules, overlapping_functions)
{
	struct sfw_fde fdes[2];

	sample_functions(fdes, 2, TEXT, 64);
	fdes[0].func_size = 0x100;		/* covers the second one */
	fdes[0].fre_type = 0;
	expect_rule(write_fdes(2, fdes, 2), EMU_R_SF_FDE_ORDER,
		    "FDE 1: function at 0x401040 overlaps FDE 0 ending at 0x401100");
	fdes[0].func_size = 64;			/* touching is fine */
	cr_assert_eq(validate(write_fdes(2, fdes, 2)), 0, "%s", v.reason);
}

Test(sframe_rules, fde_fres_outside_fre_subsection)
{
	size_t len = sample(2, true);

	put32(lay.fde_pos[2] + 8, 59);	/* fre_off: 1 byte before the end */
	expect_rule(len, EMU_R_SF_FDE_FRES, "FDE 2: FRE 0 beyond the FRE sub-section");
	len = sample(1, false);
	put32(lay.fde_pos[1] + 8, 1000);
	expect_rule(len, EMU_R_SF_FDE_FRES, "FDE 1: FREs outside the FRE sub-section");
	len = sample(3, true);
	put32(lay.fde_pos[3] + 12, (uint32_t)(len - lay.fres_pos - 3));	/* attribute record cut */
	expect_rule(len, EMU_R_SF_FDE_FRES, "FDE 3: FREs outside the FRE sub-section");
}

Test(sframe_rules, function_outside_text)
{
	struct sfw_fde fdes[2];

	sample_functions(fdes, 2, TEXT + TEXT_LEN - 64, 64);	/* second one past the end */
	expect_rule(write_fdes(2, fdes, 2), EMU_R_SF_FDE_TEXT,
		    "FDE 1: function 0x401400..0x401440 outside text range 0x401000..0x401400");
	sample_functions(fdes, 2, TEXT - 64, 64);		/* first one below the start */
	expect_rule(write_fdes(3, fdes, 2), EMU_R_SF_FDE_TEXT, NULL);
	sample_functions(fdes, 1, TEXT - 32, 64);		/* straddles the start */
	expect_rule(write_fdes(1, fdes, 1), EMU_R_SF_FDE_TEXT, NULL);
}

Test(sframe_rules, zero_size_function_at_text_end)
{
	struct sfw_fde fdes[1];

	sample_functions(fdes, 1, TEXT + TEXT_LEN, 64);
	fdes[0].func_size = 0;
	fdes[0].nfres = 0;
	expect_rule(write_fdes(2, fdes, 1), EMU_R_SF_FDE_TEXT, NULL);
}

Test(sframe_rules, function_outside_text_in_the_same_mapping)
{
	struct emu_mappings maps = { 0 };
	struct emu_sframe_params p = params(EMU_PROFILE_EMULATOR);
	struct sfw_fde fdes[2];
	size_t len;

	sample_functions(fdes, 2, TEXT, 64);
	fdes[1].func_start = TEXT + TEXT_LEN + 0x100;	/* past the text, same mapping */
	len = write_fdes(2, fdes, 2);
	cr_assert_eq(emu_mappings_add(&maps, TEXT, TEXT + 0x10000, EMU_PROT_EXEC), 0);
	p.maps = &maps;
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_validate(buf, len, &p, &v), -EINVAL);
	cr_assert_eq(v.rule, EMU_R_SF_FDE_TEXT);
	emu_mappings_free(&maps);
}

Test(sframe_rules, function_in_another_exec_segment_accepted_with_maps)
{
	struct emu_mappings maps = { 0 };
	struct emu_sframe_params p = params(EMU_PROFILE_EMULATOR);
	struct sfw_fde fdes[2];
	size_t len;

	sample_functions(fdes, 2, TEXT, 64);
	fdes[1].func_start = 0x500000;		/* a second PF_X segment of the object */
	len = write_fdes(2, fdes, 2);
	cr_assert_eq(emu_mappings_add(&maps, TEXT, TEXT + TEXT_LEN, EMU_PROT_EXEC), 0);
	cr_assert_eq(emu_mappings_add(&maps, 0x500000, 0x501000, EMU_PROT_READ), 0);
	p.maps = &maps;
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_validate(buf, len, &p, &v), -EINVAL, "not executable: refused");
	cr_assert_eq(v.rule, EMU_R_SF_FDE_TEXT);
	maps.vma[1].prot = EMU_PROT_READ | EMU_PROT_EXEC;
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_validate(buf, len, &p, &v), 0, "%s", v.reason);
	emu_mappings_free(&maps);
}

Test(sframe_rules, unknown_v3_fde_type)
{
	size_t len = sample(3, true);

	buf[lay.fre_block_pos[1] + 3] = 2;	/* info2: type 2 */
	expect_rule(len, EMU_R_SF_FDE_TYPE, "FDE 1: unknown FDE type 2");
	buf[lay.fre_block_pos[1] + 3] = 0x1f;
	expect_rule(len, EMU_R_SF_FDE_TYPE, NULL);
}

static const struct sfw_fre plt_fres[2] = {
	{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
	{ .start = 11, .sp_base = true, .count = 1, .words = { 16 } },
};

Test(sframe_rules, pcmask_with_zero_repetition_size)
{
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 64, .pcmask = true, .rep_size = 0,
			       .nfres = 2, .fres = plt_fres };

	expect_rule(write_fdes(2, &fde, 1), EMU_R_SF_REP_SIZE, "FDE 0: PCMASK with repetition size 0");
	expect_rule(write_fdes(3, &fde, 1), EMU_R_SF_REP_SIZE, NULL);
	cr_assert_eq(validate(write_fdes(1, &fde, 1)), 0, "v1 has no repetition size: %s", v.reason);
	fde.rep_size = 16;
	cr_assert_eq(validate(write_fdes(2, &fde, 1)), 0, "%s", v.reason);
}

Test(sframe_rules, invalid_fre_address_size)
{
	size_t len = sample(2, true);

	buf[lay.fde_pos[0] + 16] = 3;	/* FRE type 3 */
	expect_rule(len, EMU_R_SF_FRE_ADDR_SIZE, "FDE 0: invalid FRE type 3");
	len = sample(3, true);
	buf[lay.fre_block_pos[2] + 2] = 0x0f;
	expect_rule(len, EMU_R_SF_FRE_ADDR_SIZE, NULL);
}

Test(sframe_rules, fre_starts_not_increasing)
{
	struct sfw_fre fres[3] = { sample_fp_fres[0], sample_fp_fres[1], sample_fp_fres[2] };
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 64, .nfres = 3, .fres = fres };

	fres[2].start = 1;	/* equal to the previous */
	expect_rule(write_fdes(2, &fde, 1), EMU_R_SF_FRE_ORDER,
		    "FDE 0: FRE 2 start 0x1 not above FRE 1 start 0x1");
	fres[2].start = 0;
	expect_rule(write_fdes(3, &fde, 1), EMU_R_SF_FRE_ORDER, NULL);
}

Test(sframe_rules, fre_start_outside_function)
{
	struct sfw_fre fres[2] = { sample_fp_fres[0], sample_fp_fres[1] };
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 64, .fre_type = 0, .nfres = 2,
			       .fres = fres };

	fres[1].start = 65;
	expect_rule(write_fdes(1, &fde, 1), EMU_R_SF_FRE_OUTSIDE,
		    "FDE 0: FRE 1 start 0x41 beyond function size 0x40");
	fres[1].start = 64;	/* at the end address: accepted, as libsframe and the kernel do */
	cr_assert_eq(validate(write_fdes(1, &fde, 1)), 0, "%s", v.reason);
}

Test(sframe_rules, pcmask_fre_start_beyond_repetition)
{
	struct sfw_fre fres[2] = { plt_fres[0], plt_fres[1] };
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 64, .pcmask = true, .rep_size = 16,
			       .nfres = 2, .fres = fres };

	fres[1].start = 16;
	expect_rule(write_fdes(2, &fde, 1), EMU_R_SF_FRE_OUTSIDE,
		    "FDE 0: FRE 1 start 0x10 beyond repetition size 16");
	expect_rule(write_fdes(1, &fde, 1), EMU_R_SF_FRE_OUTSIDE, NULL);
}

Test(sframe_rules, invalid_fre_offset_size)
{
	struct sfw_fre fres[1] = { sample_fp_fres[0] };
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 64, .nfres = 1, .fres = fres };

	fres[0].info = 0x63;	/* SP base, 1 word, size enum 3 */
	expect_rule(write_fdes(2, &fde, 1), EMU_R_SF_FRE_OFFSET_SIZE,
		    "FDE 0: FRE 0: invalid offset size (info 0x63)");
}

Test(sframe_rules, invalid_fre_offset_count)
{
	struct sfw_fre fres[1] = { { .sp_base = true, .count = 3, .words = { 16, -16, -8 } } };
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 64, .nfres = 1, .fres = fres };

	/* AMD64 with a fixed RA offset: CFA and FP at most */
	expect_rule(write_fdes(2, &fde, 1), EMU_R_SF_FRE_OFFSET_COUNT,
		    "FDE 0: FRE 0: invalid offset count 3");
	/* no offsets: the outermost frame, in every version */
	fres[0].count = 0;
	for (uint8_t ver = 1; ver <= 3; ver++)
		cr_assert_eq(validate(write_fdes(ver, &fde, 1)), 0, "v%u: %s", ver, v.reason);
}

static size_t write_flex(const struct sfw_fre *fre)
{
	struct sfw_fde fde = { .func_start = TEXT, .func_size = 64, .fde_type = 1, .nfres = 1,
			       .fres = fre };

	return write_fdes(3, &fde, 1);
}

Test(sframe_rules, flex_offset_counts)
{
	struct sfw_fre f = { .count = 3, .words = { 0x39, 8, 0 } };	/* lone padding */

	expect_rule(write_flex(&f), EMU_R_SF_FRE_OFFSET_COUNT, "FDE 0: FRE 0: invalid offset count 3");
	f.count = 1;
	expect_rule(write_flex(&f), EMU_R_SF_FRE_OFFSET_COUNT, NULL);
	f = (struct sfw_fre){ .count = 5, .words = { 0x39, 16, 0x02, -8, 0x02 } };
	expect_rule(write_flex(&f), EMU_R_SF_FRE_OFFSET_COUNT, NULL);	/* RA pair, half an FP pair */
	f = (struct sfw_fre){ .count = 6, .words = { 0x39, 16, 0, 0x02, -16, 0 } };
	expect_rule(write_flex(&f), EMU_R_SF_FRE_OFFSET_COUNT, NULL);	/* padding, then a word too many */
	for (unsigned int n = 2; n <= 6; n += 2) {
		f = (struct sfw_fre){ .count = (uint8_t)n, .words = { 0x39, 16, 0x02, -8, 0x02, -16 } };
		cr_assert_eq(validate(write_flex(&f)), 0, "count %u: %s", n, v.reason);
	}
	f = (struct sfw_fre){ .count = 5, .words = { 0x39, 16, 0, 0x02, -16 } };
	cr_assert_eq(validate(write_flex(&f)), 0, "padding + FP pair: %s", v.reason);
}

Test(sframe_rules, flex_control_words)
{
	struct sfw_fre f = { .count = 2, .words = { 0x38, 8 } };	/* CFA with reg_p 0 */

	expect_rule(write_flex(&f), EMU_R_SF_FLEX_CONTROL, "FDE 0: FRE 0: invalid FLEX control word");
	f.words[0] = 0x3d;	/* reserved bit set */
	expect_rule(write_flex(&f), EMU_R_SF_FLEX_CONTROL, NULL);
	f = (struct sfw_fre){ .count = 2, .words = { (17 << 3) | 1, 8 }, .word_size = 2 };
	expect_rule(write_flex(&f), EMU_R_SF_FLEX_CONTROL, NULL);	/* no DWARF reg 17 on x86_64 */
	f = (struct sfw_fre){ .count = 4, .words = { 0x39, 16, 0x30, -8 } };	/* CFA-based, no deref */
	expect_rule(write_flex(&f), EMU_R_SF_FLEX_CONTROL, NULL);
}

Test(sframe_rules, kernel_refusals_listed)
{
	struct sfw_section s = sfw_amd64(3, true, SEC);
	size_t len;

	s.auxhdr_len = 8;
	len = sfw_write(&s, buf, sizeof(buf), &lay);
	cr_assert_eq(validate(len), 0, "%s", v.reason);
	cr_assert_eq(v.kernel_refusals, EMU_KR_AUXHDR | EMU_KR_NO_FDES | EMU_KR_NO_FRES);
}

Test(sframe_rules, v13_refuses_what_the_january_series_refuses)
{
	struct emu_sframe_params p = params(EMU_PROFILE_V13);
	const struct { uint8_t version; bool pcrel; const char *reason; } cases[] = {
		{ 1, false, "v13: the kernel requires version 2 with "
			    "FDE_FUNC_START_PCREL (v12) or version 3 (v13+)" },
		{ 2, false, "v13: the kernel requires the FDE_FUNC_START_PCREL flag" },
	};

	for (size_t i = 0; i < 2; i++) {
		size_t len = sample(cases[i].version, cases[i].pcrel);

		emu_verdict_init(&v);
		cr_assert_eq(emu_sframe_validate(buf, len, &p, &v), -EINVAL);
		cr_assert_eq(v.rule, EMU_R_KERNEL_REFUSES);
		cr_assert_str_eq(v.reason, cases[i].reason);
	}
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_validate(buf, sample(2, true), &p, &v), 0, "%s", v.reason);
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_validate(buf, sample(3, true), &p, &v), 0, "%s", v.reason);
}

Test(sframe_rules, v16_takes_version_3_only)
{
	struct emu_sframe_params p = params(EMU_PROFILE_V16);
	const struct { uint8_t version; bool pcrel; } cases[] = { { 1, false }, { 2, false }, { 2, true } };

	for (size_t i = 0; i < 3; i++) {
		size_t len = sample(cases[i].version, cases[i].pcrel);

		emu_verdict_init(&v);
		cr_assert_eq(emu_sframe_validate(buf, len, &p, &v), -EINVAL);
		cr_assert_eq(v.rule, EMU_R_KERNEL_REFUSES);
		cr_assert_str_eq(v.reason, "v16: the kernel requires version 3 (the v15/v16 series)");
	}
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_validate(buf, sample(3, true), &p, &v), 0, "%s", v.reason);
}

/* A kernel profile refuses by its header rules before any FDE is looked at (v16 order). */
Test(sframe_rules, kernel_header_rules_come_before_the_fdes)
{
	struct emu_sframe_params p = params(EMU_PROFILE_V16);
	size_t len = sample(2, true);

	put32(lay.fde_pos[1], 0x7fffff00);	/* FDE 1 far outside the text */
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_validate(buf, len, &p, &v), -EINVAL);
	cr_assert_eq(v.rule, EMU_R_KERNEL_REFUSES, "%s", emu_rule_name(v.rule));
	expect_rule(len, EMU_R_SF_FDE_TEXT, NULL);	/* the emulator profile: the FDE */
}
