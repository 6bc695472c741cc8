// SPDX-License-Identifier: GPL-2.0
/* Every row of the ABI page's error table, through emu_codectl() on a fake tracee. */
#include <criterion/criterion.h>
#include <string.h>

#include "fake_space.h"
#include "sframe_samples.h"

static struct fake_space fs;

static void setup(void)
{
	fake_space_init(&fs);
}

static void teardown(void)
{
	fake_space_fini(&fs);
}

TestSuite(codectl, .init = setup, .fini = teardown);

/* A valid v2+PCREL section for 4 functions of 64 bytes at @text, placed in data. */
static void put_section(uint64_t text, __u64 *start, __u64 *end)
{
	uint8_t buf[512];
	struct sfw_layout lay;
	size_t len = sample_section(2, true, fake_next_addr(&fs), text, 4, 64, buf, sizeof(buf), &lay);

	*start = fake_put(&fs, buf, len);
	*end = *start + len;
}

static struct code_elf_info elf_info(uint64_t text)
{
	struct code_elf_info e = { .elf_start = FAKE_TEXT_A, .elf_end = FAKE_TEXT_END,
				   .text_start = text, .text_end = text + 256 };

	put_section(text, &e.sframe_start, &e.sframe_end);
	e.pathname = fake_put(&fs, "/lib/libx.so", 13);
	return e;
}

static int call_elf(const struct code_elf_info *e)
{
	return fake_call(&fs, CODE_REGISTER_ELF, fake_put(&fs, e, sizeof(*e)), sizeof(*e), 0);
}

static int call_sframe(const struct code_sframe_info *s)
{
	return fake_call(&fs, CODE_REGISTER_SFRAME, fake_put(&fs, s, sizeof(*s)), sizeof(*s), 0);
}

static void expect(int ret, int err, enum emu_rule rule)
{
	cr_assert_eq(ret, -err, "ret %d, want %d (%s)", ret, -err, fs.res.verdict.reason);
	cr_assert_eq(fs.res.verdict.rule, rule, "rule %s, want %s", emu_rule_name(fs.res.verdict.rule),
		     emu_rule_name(rule));
}

Test(codectl, elf_registration_succeeds)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	cr_assert_eq(call_elf(&e), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(emu_registry_count(fs.registry), 1);
	cr_assert_eq(fs.res.reg->aspects, EMU_ASPECT_UNWIND | EMU_ASPECT_IDENTITY);
	cr_assert_str_eq(fs.res.reg->ident.pathname, "/lib/libx.so");
	cr_assert_eq(fs.res.sframe_version, 2);
	cr_assert_eq(fs.res.sframe_fdes, 4);
}

Test(codectl, unknown_option_einval)
{
	expect(fake_call(&fs, 5, 0, 0, 0), EINVAL, EMU_R_OPTION);
	expect(fake_call(&fs, ~0u, 0, 0, 0), EINVAL, EMU_R_OPTION);
}

Test(codectl, nonzero_flags_einval)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);
	uint64_t a = fake_put(&fs, &e, sizeof(e));

	expect(fake_call(&fs, CODE_REGISTER_ELF, a, sizeof(e), 1), EINVAL, EMU_R_FLAGS);
	expect(fake_call(&fs, CODE_UNREGISTER, FAKE_TEXT_A, 0, 0x80000000u), EINVAL, EMU_R_FLAGS);
	cr_assert_eq(emu_registry_count(fs.registry), 0);
}

Test(codectl, info_size_below_ver0_einval)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);
	uint64_t a = fake_put(&fs, &e, sizeof(e));

	expect(fake_call(&fs, CODE_REGISTER_ELF, a, CODE_ELF_INFO_SIZE_VER0 - 1, 0), EINVAL,
	       EMU_R_SIZE_VER0);
	expect(fake_call(&fs, CODE_REGISTER_SFRAME, a, CODE_SFRAME_INFO_SIZE_VER0 - 8, 0), EINVAL,
	       EMU_R_SIZE_VER0);
	expect(fake_call(&fs, CODE_REGISTER_JIT, a, 0, 0), EINVAL, EMU_R_SIZE_VER0);
}

Test(codectl, unregister_with_info_size_einval)
{
	expect(fake_call(&fs, CODE_UNREGISTER, FAKE_TEXT_A, 8, 0), EINVAL, EMU_R_UNREG_SIZE);
}

Test(codectl, empty_or_inverted_text_einval)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	e.text_end = e.text_start;
	expect(call_elf(&e), EINVAL, EMU_R_TEXT_RANGE);
	e.text_end = e.text_start - 1;
	expect(call_elf(&e), EINVAL, EMU_R_TEXT_RANGE);
}

Test(codectl, sframe_start_above_end_einval)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);
	uint64_t s = e.sframe_start;

	e.sframe_start = e.sframe_end;
	e.sframe_end = s;
	expect(call_elf(&e), EINVAL, EMU_R_SFRAME_RANGE);
}

Test(codectl, only_one_sframe_bound_zero_einval)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);
	struct code_sframe_info s = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256, .sframe_end = e.sframe_end };

	e.sframe_start = 0;
	expect(call_elf(&e), EINVAL, EMU_R_SFRAME_RANGE);
	e = elf_info(FAKE_TEXT_A);
	e.sframe_end = 0;
	expect(call_elf(&e), EINVAL, EMU_R_SFRAME_RANGE);
	expect(call_sframe(&s), EINVAL, EMU_R_SFRAME_RANGE);
}

Test(codectl, sframe_option_without_section_einval)
{
	struct code_sframe_info s = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256 };

	expect(call_sframe(&s), EINVAL, EMU_R_SFRAME_RANGE);
}

Test(codectl, text_not_executable_einval)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	e.text_start = FAKE_RW_NOEXEC;
	e.text_end = FAKE_RW_NOEXEC + 64;
	expect(call_elf(&e), EINVAL, EMU_R_TEXT_NOT_EXEC);
	e.text_start = 0x100000;	/* unmapped */
	e.text_end = 0x100100;
	expect(call_elf(&e), EINVAL, EMU_R_TEXT_NOT_EXEC);
	e.text_start = FAKE_TEXT_END - 16;	/* runs past the last executable byte */
	e.text_end = FAKE_TEXT_END + 16;
	expect(call_elf(&e), EINVAL, EMU_R_TEXT_NOT_EXEC);
}

Test(codectl, text_over_two_adjacent_exec_mappings_accepted)
{
	struct code_sframe_info s = { .text_start = FAKE_TEXT_B - 128, .text_end = FAKE_TEXT_B + 128 };

	put_section(FAKE_TEXT_B - 128, &s.sframe_start, &s.sframe_end);
	cr_assert_eq(call_sframe(&s), 0, "%s", fs.res.verdict.reason);
	/* a v2 section: v16 takes v3 only */
	cr_assert_eq(fs.res.verdict.kernel_refusals, EMU_KR_TEXT_VMAS | EMU_KR_V3_ONLY);
}

Test(codectl, kernel_profiles_refuse_text_over_two_mappings)
{
	struct code_sframe_info s = { .text_start = FAKE_TEXT_B - 128, .text_end = FAKE_TEXT_B + 128 };

	fs.policy.profile = EMU_PROFILE_V13;
	put_section(FAKE_TEXT_B - 128, &s.sframe_start, &s.sframe_end);
	expect(call_sframe(&s), EINVAL, EMU_R_KERNEL_REFUSES);
	cr_assert_str_eq(fs.res.verdict.reason,
			 "v13: the kernel requires the text in one executable mapping");
	fs.policy.profile = EMU_PROFILE_V16;
	expect(call_sframe(&s), EINVAL, EMU_R_KERNEL_REFUSES);
	cr_assert_str_eq(fs.res.verdict.reason,
			 "v16: the kernel requires the text in one executable mapping");
}

Test(codectl, sframe_not_readable_einval)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	e.sframe_start = FAKE_NOACCESS;
	e.sframe_end = FAKE_NOACCESS + 64;
	expect(call_elf(&e), EINVAL, EMU_R_SFRAME_NOT_READABLE);
	e.sframe_start = 0x100000;
	e.sframe_end = 0x100040;
	expect(call_elf(&e), EINVAL, EMU_R_SFRAME_NOT_READABLE);
}

Test(codectl, invalid_sframe_section_einval)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	fs.data[e.sframe_start - FAKE_DATA] = 0x00;	/* magic 0xde00 */
	expect(call_elf(&e), EINVAL, EMU_R_SF_MAGIC);
	cr_assert_str_eq(fs.res.verdict.reason, "magic 0xde00, not 0xdee2");
}

Test(codectl, build_id_len_without_pointer_einval)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	e.build_id_len = 20;
	expect(call_elf(&e), EINVAL, EMU_R_BUILD_ID_NULL);
}

Test(codectl, build_id_too_long_einval)
{
	uint8_t id[65] = { 1 };
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	e.build_id = fake_put(&fs, id, sizeof(id));
	e.build_id_len = CODE_BUILD_ID_MAX + 1;
	expect(call_elf(&e), EINVAL, EMU_R_BUILD_ID_LEN);
	e.build_id_len = CODE_BUILD_ID_MAX;
	cr_assert_eq(call_elf(&e), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(fs.res.reg->ident.build_id_len, 64);
}

Test(codectl, neither_aspect_einval)
{
	struct code_elf_info e = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 64 };

	expect(call_elf(&e), EINVAL, EMU_R_NO_ASPECT);
	e.build_id = fake_put(&fs, "x", 1);	/* a pointer without a length is no build id */
	expect(call_elf(&e), EINVAL, EMU_R_NO_ASPECT);
}

Test(codectl, info_above_page_e2big)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);
	uint64_t a = fake_put(&fs, &e, sizeof(e));

	expect(fake_call(&fs, CODE_REGISTER_ELF, a, 4097, 0), E2BIG, EMU_R_SIZE_PAGE);
}

Test(codectl, larger_struct_nonzero_tail_e2big)
{
	uint8_t big[128] = { 0 };
	struct code_elf_info e = elf_info(FAKE_TEXT_A);
	uint64_t a;

	memcpy(big, &e, sizeof(e));
	big[100] = 1;
	a = fake_put(&fs, big, sizeof(big));
	expect(fake_call(&fs, CODE_REGISTER_ELF, a, sizeof(big), 0), E2BIG, EMU_R_SIZE_TAIL);
}

Test(codectl, larger_struct_zero_tail_accepted)
{
	uint8_t big[4096] = { 0 };
	struct code_elf_info e = elf_info(FAKE_TEXT_A);
	uint64_t a;

	memcpy(big, &e, sizeof(e));
	a = fake_put(&fs, big, sizeof(big));
	cr_assert_eq(fake_call(&fs, CODE_REGISTER_ELF, a, sizeof(big), 0), 0, "%s",
		     fs.res.verdict.reason);
}

Test(codectl, info_unreadable_efault)
{
	expect(fake_call(&fs, CODE_REGISTER_ELF, FAKE_NOACCESS, 80, 0), EFAULT, EMU_R_INFO_FAULT);
	expect(fake_call(&fs, CODE_REGISTER_SFRAME, 0, 32, 0), EFAULT, EMU_R_INFO_FAULT);
	expect(fake_call(&fs, CODE_REGISTER_JIT, FAKE_DATA + FAKE_DATA_SIZE - 16, 24, 0), EFAULT,
	       EMU_R_INFO_FAULT);
}

Test(codectl, pathname_unreadable_efault)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	e.pathname = FAKE_NOACCESS;
	expect(call_elf(&e), EFAULT, EMU_R_PATH_FAULT);
}

Test(codectl, debug_link_unreadable_efault)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	e.debug_link_pathname = FAKE_NOACCESS + 8;
	expect(call_elf(&e), EFAULT, EMU_R_PATH_FAULT);
}

Test(codectl, build_id_unreadable_efault)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	e.build_id = FAKE_DATA + FAKE_DATA_SIZE - 10;
	e.build_id_len = 20;
	expect(call_elf(&e), EFAULT, EMU_R_BUILD_ID_FAULT);
}

Test(codectl, pathname_too_long_enametoolong)
{
	char big[EMU_PATH_MAX + 1];
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	memset(big, 'a', sizeof(big));
	e.pathname = fake_put(&fs, big, sizeof(big));
	expect(call_elf(&e), ENAMETOOLONG, EMU_R_PATH_TOO_LONG);
}

Test(codectl, debug_link_too_long_enametoolong)
{
	char big[EMU_PATH_MAX + 1];
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	memset(big, 'b', sizeof(big));
	e.debug_link_pathname = fake_put(&fs, big, sizeof(big));
	expect(call_elf(&e), ENAMETOOLONG, EMU_R_PATH_TOO_LONG);
}

Test(codectl, overlap_same_aspect_eexist)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	cr_assert_eq(call_elf(&e), 0);
	e = elf_info(FAKE_TEXT_A);
	expect(call_elf(&e), EEXIST, EMU_R_OVERLAP);
	cr_assert_str_eq(fs.res.verdict.reason,
			 "text 0x400000..0x400100 overlaps the unwind aspect of 0x400000..0x400100");
}

Test(codectl, split_model_sframe_then_identity)
{
	struct code_sframe_info s = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256 };
	struct code_elf_info e = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256 };

	put_section(FAKE_TEXT_A, &s.sframe_start, &s.sframe_end);
	cr_assert_eq(call_sframe(&s), 0, "%s", fs.res.verdict.reason);
	e.pathname = fake_put(&fs, "/bin/prog", 10);
	cr_assert_eq(call_elf(&e), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(fs.res.reg->aspects, EMU_ASPECT_IDENTITY);
	cr_assert_eq(emu_registry_count(fs.registry), 2);
	/* a second SFRAME for the same text conflicts on the unwind aspect */
	expect(call_sframe(&s), EEXIST, EMU_R_OVERLAP);
	/* and a second identity on the identity aspect */
	expect(call_elf(&e), EEXIST, EMU_R_OVERLAP);
}

Test(codectl, jit_overlapping_sframe_eexist)
{
	struct code_sframe_info s = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256 };
	struct code_jit_unwind_table t = { .reserved_len = 24 * 4, .fre_stride = 24, .fre_size = 21 };
	struct code_jit_info j = { .text_start = FAKE_TEXT_A + 128, .text_end = FAKE_TEXT_A + 512 };

	put_section(FAKE_TEXT_A, &s.sframe_start, &s.sframe_end);
	cr_assert_eq(call_sframe(&s), 0);
	j.unwind_head = fake_put(&fs, &t, sizeof(t));
	expect(fake_call(&fs, CODE_REGISTER_JIT, fake_put(&fs, &j, sizeof(j)), sizeof(j), 0),
	       EEXIST, EMU_R_OVERLAP);
}

Test(codectl, unregister_unknown_enoent)
{
	expect(fake_call(&fs, CODE_UNREGISTER, FAKE_TEXT_A, 0, 0), ENOENT, EMU_R_UNREG_UNKNOWN);
}

Test(codectl, unregister_removes_both_aspects)
{
	struct code_sframe_info s = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256 };
	struct code_elf_info e = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256 };

	put_section(FAKE_TEXT_A, &s.sframe_start, &s.sframe_end);
	cr_assert_eq(call_sframe(&s), 0);
	e.pathname = fake_put(&fs, "/bin/prog", 10);
	cr_assert_eq(call_elf(&e), 0);
	cr_assert_eq(fake_call(&fs, CODE_UNREGISTER, FAKE_TEXT_A, 0, 0), 0);
	cr_assert_eq(fs.res.removed, 2);
	cr_assert_eq(emu_registry_count(fs.registry), 0);
	expect(fake_call(&fs, CODE_UNREGISTER, FAKE_TEXT_A, 0, 0), ENOENT, EMU_R_UNREG_UNKNOWN);
}

Test(codectl, unregister_needs_exact_text_start)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	cr_assert_eq(call_elf(&e), 0);
	expect(fake_call(&fs, CODE_UNREGISTER, FAKE_TEXT_A + 1, 0, 0), ENOENT, EMU_R_UNREG_UNKNOWN);
	cr_assert_eq(emu_registry_count(fs.registry), 1);
}

Test(codectl, limit_enospc)
{
	struct code_elf_info e = { .pathname = fake_put(&fs, "/x", 3) };

	emu_registry_free(fs.registry);
	fs.registry = fs.space.registry = emu_registry_new(3);
	for (int i = 0; i < 3; i++) {
		e.text_start = FAKE_TEXT_A + 64 * i;
		e.text_end = e.text_start + 64;
		cr_assert_eq(call_elf(&e), 0, "%s", fs.res.verdict.reason);
	}
	e.text_start = FAKE_TEXT_A + 1024;
	e.text_end = e.text_start + 64;
	expect(call_elf(&e), ENOSPC, EMU_R_LIMIT);
	cr_assert_eq(fake_call(&fs, CODE_UNREGISTER, FAKE_TEXT_A, 0, 0), 0);
	cr_assert_eq(call_elf(&e), 0, "after an unregister the slot is free again");
}

Test(codectl, section_above_size_cap_enomem)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);

	fs.policy.max_sframe_size = 64;
	expect(call_elf(&e), ENOMEM, EMU_R_SFRAME_TOO_BIG);
}

static uint64_t put_jit(uint64_t reserved, uint64_t used, uint32_t stride, uint32_t size)
{
	struct code_jit_unwind_table t = { reserved, used, 0, stride, size };
	struct code_jit_info j = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 4096 };

	j.unwind_head = fake_put(&fs, &t, sizeof(t));
	return fake_put(&fs, &j, sizeof(j));
}

static int call_jit(uint64_t a)
{
	return fake_call(&fs, CODE_REGISTER_JIT, a, sizeof(struct code_jit_info), 0);
}

Test(codectl, jit_registration_succeeds)
{
	cr_assert_eq(call_jit(put_jit(240, 0, 24, 21)), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(fs.res.reg->unwind_kind, EMU_UNWIND_JIT);
}

Test(codectl, jit_used_above_reserved_einval)
{
	expect(call_jit(put_jit(48, 72, 24, 21)), EINVAL, EMU_R_JIT_USED_LEN);
}

Test(codectl, jit_fre_size_below_21_einval)
{
	expect(call_jit(put_jit(48, 0, 24, 20)), EINVAL, EMU_R_JIT_FRE_SIZE);
}

Test(codectl, jit_stride_below_size_einval)
{
	expect(call_jit(put_jit(48, 0, 20, 24)), EINVAL, EMU_R_JIT_FRE_STRIDE);
}

Test(codectl, jit_stride_not_multiple_of_4_einval)
{
	expect(call_jit(put_jit(48, 0, 22, 21)), EINVAL, EMU_R_JIT_FRE_STRIDE);
}

Test(codectl, jit_header_unreadable_efault)
{
	struct code_jit_info j = { FAKE_TEXT_A, FAKE_TEXT_A + 4096, FAKE_NOACCESS };

	expect(call_jit(fake_put(&fs, &j, sizeof(j))), EFAULT, EMU_R_JIT_HEAD_FAULT);
	j.unwind_head = FAKE_DATA + FAKE_DATA_SIZE - 16;	/* partly readable */
	expect(call_jit(fake_put(&fs, &j, sizeof(j))), EFAULT, EMU_R_JIT_HEAD_FAULT);
}

Test(codectl, jit_header_misaligned_einval)
{
	struct code_jit_info j = { FAKE_TEXT_A, FAKE_TEXT_A + 4096, FAKE_DATA + 4 };

	expect(call_jit(fake_put(&fs, &j, sizeof(j))), EINVAL, EMU_R_JIT_HEAD_ALIGN);
}

Test(codectl, exec_registration_is_unwind_only)
{
	struct code_sframe_info s = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256 };
	struct emu_call_result res;

	put_section(FAKE_TEXT_A, &s.sframe_start, &s.sframe_end);
	cr_assert_eq(emu_register_exec_sframe(&fs.policy, &fs.space, &s, &res), 0, "%s",
		     res.verdict.reason);
	cr_assert_eq(res.reg->origin, EMU_ORIGIN_EXEC);
	cr_assert_eq(res.reg->aspects, EMU_ASPECT_UNWIND);
}

Test(codectl, prepare_changes_nothing_until_commit)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);
	struct emu_call c = { .option = CODE_REGISTER_ELF, .info = fake_put(&fs, &e, sizeof(e)),
			      .info_size = sizeof(e) };

	cr_assert_eq(emu_codectl_prepare(&fs.policy, &fs.space, &c, &fs.res), 0);
	cr_assert_eq(emu_registry_count(fs.registry), 0, "staged, not registered");
	cr_assert_not_null(fs.res.staged);
	emu_codectl_discard(&fs.res);	/* the answer was lost: nothing happened */
	cr_assert_eq(emu_registry_count(fs.registry), 0);
	cr_assert_eq(emu_codectl_prepare(&fs.policy, &fs.space, &c, &fs.res), 0);
	cr_assert_eq(emu_codectl_commit(&fs.space, &fs.res), 0);
	cr_assert_eq(emu_registry_count(fs.registry), 1);
	cr_assert_eq(fs.res.reg->text_start, FAKE_TEXT_A);
	cr_assert_null(fs.res.staged);
}

Test(codectl, prepared_unregister_keeps_the_registration_until_commit)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);
	struct emu_call c = { .option = CODE_UNREGISTER, .info = FAKE_TEXT_A };

	cr_assert_eq(call_elf(&e), 0);
	cr_assert_eq(emu_codectl_prepare(&fs.policy, &fs.space, &c, &fs.res), 0);
	emu_codectl_discard(&fs.res);
	cr_assert_eq(emu_registry_count(fs.registry), 1);
	cr_assert_eq(emu_codectl_prepare(&fs.policy, &fs.space, &c, &fs.res), 0);
	cr_assert_eq(emu_codectl_commit(&fs.space, &fs.res), 0);
	cr_assert_eq(fs.res.removed, 1);
	cr_assert_eq(emu_registry_count(fs.registry), 0);
}

Test(codectl, sections_above_the_address_space_budget_enomem)
{
	struct code_elf_info e = elf_info(FAKE_TEXT_A);
	uint64_t len = e.sframe_end - e.sframe_start;

	fs.policy.max_sframe_total = 2 * len;
	cr_assert_eq(call_elf(&e), 0);
	e = elf_info(FAKE_TEXT_A + 256);
	cr_assert_eq(call_elf(&e), 0);
	cr_assert_eq(emu_registry_sframe_bytes(fs.registry), 2 * len);
	e = elf_info(FAKE_TEXT_A + 512);
	expect(call_elf(&e), ENOMEM, EMU_R_SFRAME_BUDGET);
	cr_assert_eq(fake_call(&fs, CODE_UNREGISTER, FAKE_TEXT_A, 0, 0), 0);
	cr_assert_eq(emu_registry_sframe_bytes(fs.registry), len);
	cr_assert_eq(call_elf(&e), 0, "room again after an unregister");
}
