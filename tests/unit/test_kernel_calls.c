// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own proposals through emu_kcall() on a fake tracee: every
 * errno row with its rule, in the v16 order; the profiles' differences; the
 * registry they share with codectl (split model, removal by sframe_start,
 * no count limit); their --trace lines and how notifications are decoded.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/stacktrace_setup.h>

#include "eh_frame_writer.h"
#include "fake_space.h"
#include "sframe_samples.h"
#include "supervisor/calls/entries.h"

static struct fake_space fs;

static void setup(void)
{
	fake_space_init(&fs);
	fs.policy.profile = EMU_PROFILE_V16;
}

static void teardown(void)
{
	fake_space_fini(&fs);
}

TestSuite(kcall, .init = setup, .fini = teardown);

/* A section of 4 functions of 64 bytes at @text (v@version), placed; its struct. */
static struct sframe_setup put_section(uint8_t version, uint64_t text)
{
	uint8_t buf[1024];
	struct sfw_layout lay;
	size_t len = sample_section(version, version > 1, fake_next_addr(&fs), text, 4, 64, buf,
				    sizeof(buf), &lay);

	return (struct sframe_setup){ fake_put(&fs, buf, len), len, text, 256 };
}

static int call(enum emu_entry entry, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		uint64_t a4)
{
	struct emu_kcall kc = { entry, { a0, a1, a2, a3, a4 } };

	return emu_kcall(&fs.policy, &fs.space, &kc, &fs.res);
}

static int sreg(const struct sframe_setup *s, uint64_t size)
{
	return call(EMU_ENTRY_SFRAME_REGISTER, fake_put(&fs, s, sizeof(*s)), size, 0, 0, 0);
}

static int sunreg(uint64_t sframe_start)
{
	struct sframe_setup s = { .sframe_start = sframe_start };

	return call(EMU_ENTRY_SFRAME_UNREGISTER, fake_put(&fs, &s, sizeof(s)), 32, 0, 0, 0);
}

static void expect(int ret, int err, enum emu_rule rule)
{
	cr_assert_eq(ret, -err, "ret %d, want %d (%s)", ret, -err, fs.res.verdict.reason);
	cr_assert_eq(fs.res.verdict.rule, rule, "rule %s, want %s (%s)",
		     emu_rule_name(fs.res.verdict.rule), emu_rule_name(rule),
		     fs.res.verdict.reason);
}

Test(kcall, sframe_register_and_unregister)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_A);

	cr_assert_eq(sreg(&s, 32), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(fs.res.reg->origin, EMU_ORIGIN_SFRAME_REGISTER);
	cr_assert_eq(fs.res.reg->aspects, EMU_ASPECT_UNWIND);
	cr_assert_eq(fs.res.sframe_version, 3);
	cr_assert_eq(fs.res.sframe_fdes, 4);
	cr_assert_eq(sunreg(s.sframe_start), 0);
	cr_assert_eq(fs.res.removed, 1);
	cr_assert_eq(emu_registry_count(fs.registry), 0);
	expect(sunreg(s.sframe_start), EINVAL, EMU_R_SETUP_UNREG_UNKNOWN);
	cr_assert_str_eq(fs.res.verdict.reason, "no registration with sframe_start 0x600000");
}

Test(kcall, size_is_the_version)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_A);
	static const uint64_t bad[] = { 0, 31, 33, UINT64_MAX };

	for (unsigned int i = 0; i < 4; i++) {
		expect(sreg(&s, bad[i]), EINVAL, EMU_R_SETUP_SIZE);
		expect(call(EMU_ENTRY_SFRAME_REGISTER, 0, bad[i], 0, 0, 0), EINVAL, EMU_R_SETUP_SIZE);
		expect(call(EMU_ENTRY_SFRAME_UNREGISTER, 0, bad[i], 0, 0, 0), EINVAL,
		       EMU_R_SETUP_SIZE);
	}
	cr_assert_str_eq(fs.res.verdict.reason, "size 18446744073709551615, not 32");
}

Test(kcall, struct_unreadable_efault)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_A);
	uint64_t edge = FAKE_DATA + FAKE_DATA_SIZE - 16;	/* half in the data area */

	memcpy(fs.data + FAKE_DATA_SIZE - 16, &s, 16);
	expect(call(EMU_ENTRY_SFRAME_REGISTER, FAKE_NOACCESS, 32, 0, 0, 0), EFAULT,
	       EMU_R_SETUP_FAULT);
	expect(call(EMU_ENTRY_SFRAME_REGISTER, edge, 32, 0, 0, 0), EFAULT, EMU_R_SETUP_FAULT);
	expect(call(EMU_ENTRY_SFRAME_UNREGISTER, 0, 32, 0, 0, 0), EFAULT, EMU_R_SETUP_FAULT);
	cr_assert_eq(fs.res.have_args, false);
}

Test(kcall, empty_and_wrapping_ranges)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_A), t = s;

	t.sframe_size = 0;
	expect(sreg(&t, 32), EINVAL, EMU_R_SETUP_RANGE);
	cr_assert_str_eq(fs.res.verdict.reason, "sframe 0x600000 + 0 is empty");
	t = s;
	t.text_size = 0;
	expect(sreg(&t, 32), EINVAL, EMU_R_SETUP_RANGE);
	t = s;
	t.text_size = UINT64_MAX - t.text_start + 1;
	expect(sreg(&t, 32), EINVAL, EMU_R_SETUP_RANGE);
	cr_assert_str_eq(fs.res.verdict.reason, "text 0x400000 + 18446744073705357312 wraps");
	/* the prctl takes ends: start >= end */
	expect(call(EMU_ENTRY_PRCTL, PR_ADD_SFRAME, s.sframe_start, s.sframe_start, s.text_start,
		    s.text_start + 256), EINVAL, EMU_R_SETUP_RANGE);
	expect(call(EMU_ENTRY_STACKTRACE_SETUP, STACKTRACE_REGISTER_SFRAME, s.sframe_start,
		    UINT64_MAX, s.text_start, 256), EINVAL, EMU_R_SETUP_RANGE);
}

Test(kcall, one_mapping_each)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_B - 128), t = s;

	t.sframe_start = FAKE_DATA + FAKE_DATA_SIZE - 8;	/* data, then nothing */
	expect(sreg(&t, 32), EINVAL, EMU_R_SETUP_SFRAME_VMA);
	t = s;
	expect(sreg(&t, 32), EINVAL, EMU_R_SETUP_TEXT_VMA);	/* over text A and B */
	cr_assert_str_eq(fs.res.verdict.reason,
			 "text 0x40ff80..0x410080 not inside one executable mapping");
	t.text_start = FAKE_RW_NOEXEC;
	expect(sreg(&t, 32), EINVAL, EMU_R_SETUP_TEXT_VMA);
	/* one mapping, unreadable: the header read fails */
	t = put_section(3, FAKE_TEXT_A);
	t.sframe_start = FAKE_NOACCESS;
	expect(sreg(&t, 32), EFAULT, EMU_R_SFRAME_FAULT);
}

Test(kcall, v16_takes_v3_the_emulator_notes_it)
{
	struct sframe_setup s = put_section(2, FAKE_TEXT_A);

	expect(sreg(&s, 32), EINVAL, EMU_R_KERNEL_REFUSES);
	cr_assert_str_eq(fs.res.verdict.reason,
			 "v16: the kernel requires version 3 (the v15/v16 series)");
	fs.policy.profile = EMU_PROFILE_V13;	/* v2 with PCREL, as v12 */
	cr_assert_eq(sreg(&s, 32), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(sunreg(s.sframe_start), 0);
	fs.policy.profile = EMU_PROFILE_EMULATOR;
	s = put_section(1, FAKE_TEXT_A);
	cr_assert_eq(sreg(&s, 32), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(fs.res.verdict.kernel_refusals, EMU_KR_VERSION | EMU_KR_V3_ONLY);
}

/*
 * v16 gives these rules EFAULT where the emulator's codectl answers EINVAL;
 * only a kernel built with CONFIG_SFRAME_VALIDATION sees them at registration.
 */
Test(kcall, v16_errno_of_fde_text_and_fres)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_A);
	uint8_t *sec = fs.data + (s.sframe_start - FAKE_DATA);
	struct code_sframe_info c;
	struct sfw_layout lay;
	uint8_t buf[1024];
	int64_t far = 0x100000;
	uint32_t fre_len;

	sample_section(3, true, s.sframe_start, FAKE_TEXT_A, 4, 64, buf, sizeof(buf), &lay);
	memcpy(sec + lay.fde_pos[3], &far, 8);
	cr_assert_eq(sreg(&s, 32), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(sunreg(s.sframe_start), 0);
	fs.policy.sframe_validation = true;
	expect(sreg(&s, 32), EFAULT, EMU_R_SETUP_FDE_TEXT);
	cr_assert_str_eq(fs.res.verdict.reason, "FDE 3: function 0x70004c..0x70008c outside text "
			 "range 0x400000..0x400100");
	memcpy(sec, buf, s.sframe_size);
	memcpy(&fre_len, sec + 16, 4);
	fre_len -= 2;
	memcpy(sec + lay.fde_pos[3] + 12, &fre_len, 4);	/* attribute record past the end */
	expect(sreg(&s, 32), EFAULT, EMU_R_SETUP_FDE_FRES);
	/* the emulator's codectl keeps its EINVAL for the same bytes */
	fs.policy.profile = EMU_PROFILE_EMULATOR;
	c = (struct code_sframe_info){ FAKE_TEXT_A, FAKE_TEXT_A + 256, s.sframe_start,
				       s.sframe_start + s.sframe_size };
	expect(fake_call(&fs, CODE_REGISTER_SFRAME, fake_put(&fs, &c, sizeof(c)), sizeof(c), 0),
	       EINVAL, EMU_R_SF_FDE_FRES);
}

Test(kcall, v16_fre_at_function_end_and_fre_count)
{
	struct sfw_fre fres[3] = {
		{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
		{ .start = 1, .sp_base = true, .count = 1, .words = { 8 } },
		{ .start = 2, .sp_base = true, .count = 1, .words = { 8 } },
	};
	struct sfw_fde fde = { .func_start = FAKE_TEXT_A, .func_size = 2, .fre_type = 0,
			       .nfres = 3, .fres = fres };
	struct sfw_section sec = sfw_amd64(3, true, fake_next_addr(&fs));
	struct sfw_layout lay;
	uint8_t buf[256];
	struct sframe_setup s;

	sec.fdes = &fde;
	sec.nfdes = 1;
	s = (struct sframe_setup){ 0, sfw_write(&sec, buf, sizeof(buf), &lay), FAKE_TEXT_A, 64 };
	s.sframe_start = fake_put(&fs, buf, s.sframe_size);
	cr_assert_eq(sreg(&s, 32), 0, "%s", fs.res.verdict.reason);	/* not validated */
	cr_assert_eq(sunreg(s.sframe_start), 0);
	fs.policy.sframe_validation = true;
	expect(sreg(&s, 32), EINVAL, EMU_R_SF_FDE_NUM_FRES);
	fde.func_size = 3;	/* the FRE at 2 is inside; one at the end is not, in v16 */
	fde.nfres = 2;
	fres[1].start = 3;
	sec.addr = fake_next_addr(&fs);
	s.sframe_size = sfw_write(&sec, buf, sizeof(buf), &lay);
	s.sframe_start = fake_put(&fs, buf, s.sframe_size);
	expect(sreg(&s, 32), EINVAL, EMU_R_SF_FRE_OUTSIDE);
	cr_assert_str_eq(fs.res.verdict.reason,
			 "FDE 0: FRE 1 start 0x3 not below the function size 0x3");
	fs.policy.profile = EMU_PROFILE_V13;
	cr_assert_eq(sreg(&s, 32), 0, "%s", fs.res.verdict.reason);
}

/* The overlap comes last (after validation), unlike codectl's. */
Test(kcall, overlap_after_validation)
{
	struct sframe_setup a = put_section(3, FAKE_TEXT_A), b = put_section(3, FAKE_TEXT_A);

	cr_assert_eq(sreg(&a, 32), 0);
	expect(sreg(&b, 32), EEXIST, EMU_R_OVERLAP);
	fs.data[b.sframe_start - FAKE_DATA] = 0;
	expect(sreg(&b, 32), EINVAL, EMU_R_SF_MAGIC);
}

Test(kcall, unregister_fields_and_every_range)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_A), k = { .sframe_start = s.sframe_start };

	cr_assert_eq(sreg(&s, 32), 0);
	k.text_size = 1;
	expect(call(EMU_ENTRY_SFRAME_UNREGISTER, fake_put(&fs, &k, sizeof(k)), 32, 0, 0, 0), EINVAL,
	       EMU_R_SETUP_UNREG_FIELDS);
	cr_assert_str_eq(fs.res.verdict.reason,
			 "sframe_size 0, text_start 0x0, text_size 1 (must be 0)");
	/* the same section for text B: one removal takes both */
	s.text_start = FAKE_TEXT_B;
	cr_assert_eq(call(EMU_ENTRY_PRCTL, PR_ADD_SFRAME, s.sframe_start,
			  s.sframe_start + s.sframe_size, FAKE_TEXT_B, FAKE_TEXT_B + 256), 0, "%s",
		     fs.res.verdict.reason);
	cr_assert_eq(emu_registry_count(fs.registry), 2);
	cr_assert_eq(call(EMU_ENTRY_STACKTRACE_SETUP, STACKTRACE_UNREGISTER_SFRAME, s.sframe_start,
			  7, 8, 9), 0);
	cr_assert_eq(fs.res.removed, 2);
	cr_assert_eq(emu_registry_count(fs.registry), 0);
}

Test(kcall, prctl_and_stacktrace_rules)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_A);

	cr_assert_eq(call(EMU_ENTRY_PRCTL, PR_ADD_SFRAME, s.sframe_start,
			  s.sframe_start + s.sframe_size, s.text_start, s.text_start + 256), 0);
	cr_assert_eq(fs.res.reg->origin, EMU_ORIGIN_PRCTL);
	expect(call(EMU_ENTRY_PRCTL, PR_REMOVE_SFRAME, s.sframe_start, 0, 1, 0), EINVAL,
	       EMU_R_PRCTL_ARGS);
	expect(call(EMU_ENTRY_PRCTL, 78, 0, 0, 0, 0), EINVAL, EMU_R_PRCTL_OPTION);
	/* options and ops are ints: the upper half is not looked at */
	cr_assert_eq(call(EMU_ENTRY_PRCTL, (1ull << 32) | PR_REMOVE_SFRAME, s.sframe_start, 0, 0, 0),
		     0);
	expect(call(EMU_ENTRY_STACKTRACE_SETUP, 3, s.sframe_start, s.sframe_size, s.text_start,
		    256), EINVAL, EMU_R_STACKTRACE_OP);
	cr_assert_eq(call(EMU_ENTRY_STACKTRACE_SETUP, (1ull << 32) | STACKTRACE_REGISTER_SFRAME,
			  s.sframe_start, s.sframe_size, s.text_start, 256), 0);
	cr_assert_eq(fs.res.reg->origin, EMU_ORIGIN_STACKTRACE_SETUP);
}

/* The split model: codectl's identity and sframe_register's unwind aspect of one text. */
Test(kcall, split_model_with_codectl)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_A);
	struct code_elf_info e = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256,
				   .pathname = fake_put(&fs, "/lib/x.so", 10) };

	cr_assert_eq(fake_call(&fs, CODE_REGISTER_ELF, fake_put(&fs, &e, sizeof(e)), sizeof(e), 0),
		     0);
	cr_assert_eq(sreg(&s, 32), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(emu_registry_count(fs.registry), 2);
	cr_assert_eq(emu_registry_find_unwind(fs.registry, FAKE_TEXT_A)->origin,
		     EMU_ORIGIN_SFRAME_REGISTER);
	cr_assert_str_eq(emu_registry_find_identity(fs.registry, FAKE_TEXT_A)->ident.pathname,
			 "/lib/x.so");
	cr_assert_eq(sunreg(s.sframe_start), 0);	/* the unwind aspect goes, the identity stays */
	cr_assert_null(emu_registry_find_unwind(fs.registry, FAKE_TEXT_A));
	cr_assert_not_null(emu_registry_find_identity(fs.registry, FAKE_TEXT_A));
}

static int codectl_ident(uint64_t text)
{
	struct code_elf_info e = { .text_start = text, .text_end = text + 64,
				   .pathname = fake_put(&fs, "/lib/y.so", 10) };

	return fake_call(&fs, CODE_REGISTER_ELF, fake_put(&fs, &e, sizeof(e)), sizeof(e), 0);
}

/* The kernel series have no count limit: only codectl's registrations count. */
Test(kcall, no_count_limit)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_A), t = put_section(3, FAKE_TEXT_B);

	emu_registry_free(fs.registry);
	fs.registry = fs.space.registry = emu_registry_new(1);
	cr_assert_eq(sreg(&s, 32), 0);
	cr_assert_eq(sreg(&t, 32), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(codectl_ident(FAKE_TEXT_A + 0x1000), 0, "%s", fs.res.verdict.reason);
	expect(codectl_ident(FAKE_TEXT_A + 0x2000), ENOSPC, EMU_R_LIMIT);
	cr_assert_eq(emu_registry_count(fs.registry), 3);
}

Test(kcall, v13_range_ends_inclusive)
{
	uint8_t buf[512];
	struct sfw_layout lay;
	struct sframe_setup a = { 0, 0, FAKE_TEXT_A, 64 }, b = { 0, 0, FAKE_TEXT_A + 64, 64 };

	a.sframe_size = sample_section(3, true, fake_next_addr(&fs), FAKE_TEXT_A, 1, 64, buf,
				       sizeof(buf), &lay);
	a.sframe_start = fake_put(&fs, buf, a.sframe_size);
	b.sframe_size = sample_section(3, true, fake_next_addr(&fs), FAKE_TEXT_A + 64, 1, 64, buf,
				       sizeof(buf), &lay);
	b.sframe_start = fake_put(&fs, buf, b.sframe_size);
	emu_registry_set_inclusive_end(fs.registry, true);
	cr_assert_eq(sreg(&a, 32), 0);
	expect(sreg(&b, 32), EEXIST, EMU_R_OVERLAP);
	cr_assert_str_eq(fs.res.verdict.reason, "text 0x400040..0x400080 overlaps the unwind "
			 "aspect of 0x400000..0x400040 (v13: ends inclusive)");
	emu_registry_set_inclusive_end(fs.registry, false);
	cr_assert_eq(sreg(&b, 32), 0);
}

Test(kcall, trace_lines)
{
	struct sframe_setup s = put_section(3, FAKE_TEXT_A);
	struct emu_kcall kc = { EMU_ENTRY_SFRAME_REGISTER, { fake_put(&fs, &s, sizeof(s)), 32 } };
	char line[512];

	cr_assert_eq(emu_kcall(&fs.policy, &fs.space, &kc, &fs.res), 0);
	trace_kcall_format(line, sizeof(line), 42, &kc, &fs.res, 0);
	cr_assert_str_eq(line, "[pid 42] sframe_register({sframe_start=0x600000, sframe_size=172 v3 "
			 "4 FDEs, text_start=0x400000, text_size=256}, 32) = 0");
	kc = (struct emu_kcall){ EMU_ENTRY_PRCTL, { PR_REMOVE_SFRAME, s.sframe_start, 1, 0, 0 } };
	trace_kcall_format(line, sizeof(line), 42, &kc, &fs.res,
			   emu_kcall(&fs.policy, &fs.space, &kc, &fs.res));
	cr_assert_str_eq(line, "[pid 42] prctl(PR_REMOVE_SFRAME, 0x600000, 0x1, 0, 0) = -1 EINVAL "
			 "(PR_REMOVE_SFRAME with arg3 0x1, arg4 0x0, arg5 0x0 (must be 0))");
	kc = (struct emu_kcall){ EMU_ENTRY_STACKTRACE_SETUP, { 9, 1, 2, 3, 4 } };
	trace_kcall_format(line, sizeof(line), 42, &kc, &fs.res,
			   emu_kcall(&fs.policy, &fs.space, &kc, &fs.res));
	cr_assert_str_eq(line, "[pid 42] stacktrace_setup(9, 0x1, 0x2, 0x3, 0x4) = -1 EINVAL "
			 "(op 9 (1 or 2))");
	kc = (struct emu_kcall){ EMU_ENTRY_SFRAME_UNREGISTER, { 0x10, 31 } };
	trace_kcall_format(line, sizeof(line), 42, &kc, &fs.res,
			   emu_kcall(&fs.policy, &fs.space, &kc, &fs.res));
	cr_assert_str_eq(line, "[pid 42] sframe_unregister(0x10, 31) = -1 EINVAL (size 31, not 32)");
}

static struct seccomp_notif notif(long nr, uint64_t a0)
{
	return (struct seccomp_notif){ .data = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64,
						 .args = { a0, 1, 2, 3, 4, 5 } } };
}

Test(kcall, notifications_decoded_by_entry)
{
	struct entry_numbers n = { 1000, 1001, 1002, 1003, 1004, 1005, true };
	struct seccomp_notif req = notif(SYS_prctl, (7ull << 32) | PR_ADD_SFRAME);
	struct entry_call c;

	cr_assert_eq(entries_decode(&n, &req, &c), 0);
	cr_assert_eq(c.entry, EMU_ENTRY_PRCTL);
	cr_assert_eq(c.kcall.arg[4], 4);
	req = notif(SYS_prctl, PR_SET_NAME);
	cr_assert_eq(entries_decode(&n, &req, &c), -ENOSYS);
	n.prctl = false;
	req = notif(SYS_prctl, PR_REMOVE_SFRAME);
	cr_assert_eq(entries_decode(&n, &req, &c), -ENOSYS);
	req = notif(1002, 0);
	cr_assert_eq(entries_decode(&n, &req, &c), 0);
	cr_assert_eq(c.entry, EMU_ENTRY_SFRAME_UNREGISTER);
	req = notif(1004, 0);
	cr_assert_eq(entries_decode(&n, &req, &c), 0);
	cr_assert_eq(c.entry, EMU_ENTRY_EH_FRAME_REGISTER);
	req = notif(1005, 0);
	cr_assert_eq(entries_decode(&n, &req, &c), 0);
	cr_assert_eq(c.entry, EMU_ENTRY_EH_FRAME_UNREGISTER);
	cr_assert(entries_removes(&c));
	req.data.arch = AUDIT_ARCH_I386;
	cr_assert_eq(entries_decode(&n, &req, &c), -ENOSYS);
}

/* The .eh_frame tables of 4 functions of 64 bytes at @text, placed; their struct. */
static struct eh_frame_setup put_eh_frame(uint64_t text, struct ehw_layout *lay)
{
	uint8_t buf[1024];
	uint64_t at = fake_next_addr(&fs);
	size_t len = ehw_build(at, text, 4, 64, buf, sizeof(buf), lay);

	cr_assert_eq(fake_put(&fs, buf, len), at);
	return (struct eh_frame_setup){ at + lay->hdr, lay->hdr_len, text, 256 };
}

static int ehreg(const struct eh_frame_setup *s)
{
	return call(EMU_ENTRY_EH_FRAME_REGISTER, fake_put(&fs, s, sizeof(*s)), 32, 0, 0, 0);
}

static int ehunreg(const struct eh_frame_setup *s)
{
	return call(EMU_ENTRY_EH_FRAME_UNREGISTER, fake_put(&fs, s, sizeof(*s)), 32, 0, 0, 0);
}

/* eh_frame_register(2): its own table beside SFrame, its rules, removal by header. */
Test(kcall, eh_frame_register_and_unregister)
{
	struct ehw_layout lay;
	struct eh_frame_setup e = put_eh_frame(FAKE_TEXT_A, &lay);
	struct eh_frame_setup key = { .eh_frame_hdr_start = e.eh_frame_hdr_start };
	struct sframe_setup s = put_section(3, FAKE_TEXT_A);

	cr_assert_eq(sreg(&s, 32), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(ehreg(&e), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(fs.res.reg->origin, EMU_ORIGIN_EH_FRAME_REGISTER);
	cr_assert_eq(fs.res.reg->aspects, EMU_ASPECT_EH_FRAME);
	cr_assert_eq(fs.res.reg->eh_frame.fde_count, 4);
	cr_assert_eq(fs.res.reg->eh_frame.eh_frame_start, e.eh_frame_hdr_start - lay.hdr);
	expect(ehreg(&e), EEXIST, EMU_R_OVERLAP);
	expect(ehunreg(&e), EINVAL, EMU_R_SETUP_UNREG_FIELDS);
	cr_assert_eq(ehunreg(&key), 0);
	cr_assert_eq(fs.res.removed, 1);
	expect(ehunreg(&key), EINVAL, EMU_R_EHF_UNREG_UNKNOWN);
	cr_assert_eq(emu_registry_count(fs.registry), 1, "the SFrame registration stays");
	expect(call(EMU_ENTRY_EH_FRAME_REGISTER, 0, 31, 0, 0, 0), EINVAL, EMU_R_SETUP_SIZE);
	expect(call(EMU_ENTRY_EH_FRAME_REGISTER, FAKE_NOACCESS, 32, 0, 0, 0), EFAULT,
	       EMU_R_SETUP_FAULT);
	cr_assert_str_eq(fs.res.verdict.reason, "struct eh_frame_setup at 0x700000 unreadable");
}

Test(kcall, eh_frame_register_ranges_and_mappings)
{
	struct ehw_layout lay;
	struct eh_frame_setup e = put_eh_frame(FAKE_TEXT_A, &lay), t;

	t = e, t.text_size = 0;
	expect(ehreg(&t), EINVAL, EMU_R_SETUP_RANGE);
	t = e, t.eh_frame_hdr_size = UINT64_MAX;
	expect(ehreg(&t), EINVAL, EMU_R_SETUP_RANGE);
	t = e, t.eh_frame_hdr_start = FAKE_DATA + FAKE_DATA_SIZE - 8;
	expect(ehreg(&t), EINVAL, EMU_R_EHF_HDR_VMA);
	t = e, t.text_start = FAKE_RW_NOEXEC;
	expect(ehreg(&t), EINVAL, EMU_R_SETUP_TEXT_VMA);
	t = e, t.eh_frame_hdr_start = FAKE_NOACCESS;
	expect(ehreg(&t), EFAULT, EMU_R_EHF_HDR_FAULT);
	cr_assert_eq(emu_registry_count(fs.registry), 0);
}
