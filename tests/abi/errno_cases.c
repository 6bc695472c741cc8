// SPDX-License-Identifier: GPL-2.0
/* Conformance: every row of the ABI page's error table, and the extensible-struct rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "abi.h"

/* An ELF registration of a fresh 256-byte text chunk with a valid v2+PCREL section. */
struct elf_fixture {
	struct code_elf_info info;
	uint8_t *sec;
};

static void elf_fixture(struct abi_ctx *ctx, struct elf_fixture *f)
{
	uint64_t text = abi_text(ctx, 256);
	size_t len;

	f->sec = abi_data(ctx, 512);
	len = abi_section(2, true, text, 4, 64, f->sec, 512);

	memset(&f->info, 0, sizeof(f->info));
	f->info.text_start = text;
	f->info.text_end = text + 256;
	f->info.sframe_start = (uintptr_t)f->sec;
	f->info.sframe_end = (uintptr_t)f->sec + len;
	f->info.pathname = (uintptr_t)"/usr/lib/libconformance.so";
}

static enum abi_result unknown_option(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	EXPECT(ctx, codectl(5, &f.info, sizeof(f.info), 0), EINVAL);
	EXPECT(ctx, codectl(0xffffffffu, &f.info, sizeof(f.info), 0), EINVAL);
	return ABI_PASS;
}

static enum abi_result flags_nonzero(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	EXPECT(ctx, codectl(CODE_REGISTER_ELF, &f.info, sizeof(f.info), 1), EINVAL);
	EXPECT(ctx, codectl(CODE_REGISTER_ELF, &f.info, sizeof(f.info), 0x80000000u), EINVAL);
	EXPECT(ctx, abi_reg_elf(&f.info), 0);	/* the same call with flags 0 works */
	EXPECT(ctx, codectl(CODE_UNREGISTER, (void *)(uintptr_t)f.info.text_start, 0, 1), EINVAL);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	return ABI_PASS;
}

static enum abi_result size_below_ver0(struct abi_ctx *ctx)
{
	struct elf_fixture f;
	struct code_jit_info j = { 0 };

	elf_fixture(ctx, &f);
	EXPECT(ctx, codectl(CODE_REGISTER_ELF, &f.info, CODE_ELF_INFO_SIZE_VER0 - 1, 0), EINVAL);
	EXPECT(ctx, codectl(CODE_REGISTER_ELF, &f.info, 0, 0), EINVAL);
	EXPECT(ctx, codectl(CODE_REGISTER_SFRAME, &f.info.text_start, CODE_SFRAME_INFO_SIZE_VER0 - 8,
			    0), EINVAL);
	EXPECT(ctx, codectl(CODE_REGISTER_JIT, &j, CODE_JIT_INFO_SIZE_VER0 - 1, 0), EINVAL);
	return ABI_PASS;
}

static enum abi_result unregister_with_size(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	EXPECT(ctx, abi_reg_elf(&f.info), 0);
	EXPECT(ctx, codectl(CODE_UNREGISTER, (void *)(uintptr_t)f.info.text_start, 8, 0), EINVAL);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	return ABI_PASS;
}

static enum abi_result text_range_empty_or_inverted(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.text_end = f.info.text_start;
	EXPECT(ctx, abi_reg_elf(&f.info), EINVAL);
	f.info.text_end = f.info.text_start - 16;
	EXPECT(ctx, abi_reg_elf(&f.info), EINVAL);
	return ABI_PASS;
}

static enum abi_result sframe_range_inverted(struct abi_ctx *ctx)
{
	struct elf_fixture f;
	uint64_t start;

	elf_fixture(ctx, &f);
	start = f.info.sframe_start;
	f.info.sframe_start = f.info.sframe_end;
	f.info.sframe_end = start;
	EXPECT(ctx, abi_reg_elf(&f.info), EINVAL);
	return ABI_PASS;
}

static enum abi_result sframe_one_bound_zero(struct abi_ctx *ctx)
{
	struct elf_fixture f;
	uint64_t end;

	elf_fixture(ctx, &f);
	end = f.info.sframe_end;
	f.info.sframe_end = 0;
	EXPECT(ctx, abi_reg_elf(&f.info), EINVAL);
	f.info.sframe_end = end;
	f.info.sframe_start = 0;
	EXPECT(ctx, abi_reg_elf(&f.info), EINVAL);
	return ABI_PASS;
}

static enum abi_result text_not_executable(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.text_start = (uintptr_t)ctx->rw;
	f.info.text_end = f.info.text_start + 64;
	f.info.sframe_start = f.info.sframe_end = 0;
	EXPECT(ctx, abi_reg_elf(&f.info), EINVAL);
	f.info.text_start = (uintptr_t)ctx->none;
	f.info.text_end = f.info.text_start + 64;
	EXPECT(ctx, abi_reg_elf(&f.info), EINVAL);
	return ABI_PASS;
}

static enum abi_result text_past_executable_mapping(struct abi_ctx *ctx)
{
	uint64_t end = (uintptr_t)ctx->text + ctx->text_len;

	/* the last bytes of the RX area and beyond: not wholly executable */
	EXPECT(ctx, abi_reg_ident(end - 64, end + 4096, "/x"), EINVAL);
	return ABI_PASS;
}

static enum abi_result sframe_not_readable(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.sframe_start = (uintptr_t)ctx->none;
	f.info.sframe_end = f.info.sframe_start + 128;
	EXPECT(ctx, abi_reg_elf(&f.info), EINVAL);
	return ABI_PASS;
}

static enum abi_result build_id_without_pointer(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.build_id_len = 20;
	EXPECT(ctx, abi_reg_elf(&f.info), EINVAL);
	return ABI_PASS;
}

static enum abi_result build_id_too_long(struct abi_ctx *ctx)
{
	static const uint8_t id[CODE_BUILD_ID_MAX + 1] = { 0xab };
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.build_id = (uintptr_t)id;
	f.info.build_id_len = CODE_BUILD_ID_MAX + 1;
	EXPECT(ctx, abi_reg_elf(&f.info), EINVAL);
	f.info.build_id_len = CODE_BUILD_ID_MAX;	/* the largest allowed */
	EXPECT(ctx, abi_reg_elf(&f.info), 0);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	return ABI_PASS;
}

static enum abi_result neither_aspect(struct abi_ctx *ctx)
{
	uint64_t text = abi_text(ctx, 64);
	struct code_elf_info i = { .text_start = text, .text_end = text + 64 };

	EXPECT(ctx, abi_reg_elf(&i), EINVAL);
	return ABI_PASS;
}

static long reg_jit(uint64_t text, const struct code_jit_unwind_table *t)
{
	struct code_jit_info j = { .text_start = text, .text_end = text + 256,
				   .unwind_head = (uintptr_t)t };

	return codectl(CODE_REGISTER_JIT, &j, sizeof(j), 0);
}

/* A JIT table header in the data area with the given fields. */
static long jit_with(struct abi_ctx *ctx, uint64_t reserved, uint64_t used, uint32_t stride,
		     uint32_t size)
{
	struct code_jit_unwind_table *t = (void *)abi_data(ctx, sizeof(*t) + 256);

	*t = (struct code_jit_unwind_table){ .reserved_len = reserved, .used_len = used,
					     .fre_stride = stride, .fre_size = size };
	return reg_jit(abi_text(ctx, 256), t);
}

static enum abi_result jit_used_above_reserved(struct abi_ctx *ctx)
{
	EXPECT(ctx, jit_with(ctx, 48, 72, 24, 21), EINVAL);
	return ABI_PASS;
}

static enum abi_result jit_fre_size_small(struct abi_ctx *ctx)
{
	EXPECT(ctx, jit_with(ctx, 48, 0, 24, 20), EINVAL);
	return ABI_PASS;
}

static enum abi_result jit_stride_below_size(struct abi_ctx *ctx)
{
	EXPECT(ctx, jit_with(ctx, 48, 0, 20, 24), EINVAL);
	return ABI_PASS;
}

static enum abi_result jit_stride_unaligned(struct abi_ctx *ctx)
{
	EXPECT(ctx, jit_with(ctx, 48, 0, 22, 21), EINVAL);
	return ABI_PASS;
}

static enum abi_result jit_valid(struct abi_ctx *ctx)
{
	struct code_jit_unwind_table *t = (void *)abi_data(ctx, sizeof(*t) + 48);
	uint64_t text = abi_text(ctx, 256);

	*t = (struct code_jit_unwind_table){ .reserved_len = 48, .used_len = 24,
					     .fre_stride = 24, .fre_size = 21 };
	EXPECT(ctx, reg_jit(text, t), 0);
	EXPECT(ctx, abi_unreg(text), 0);
	return ABI_PASS;
}

static enum abi_result jit_header_unreadable(struct abi_ctx *ctx)
{
	uint64_t text = abi_text(ctx, 256);

	EXPECT(ctx, reg_jit(text, (const void *)ctx->none), EFAULT);
	return ABI_PASS;
}

/* The fixture's struct at the start of @size zeroed bytes in the data area. */
static uint8_t *big_struct(struct abi_ctx *ctx, struct elf_fixture *f, size_t size)
{
	uint8_t *big = abi_data(ctx, size);

	elf_fixture(ctx, f);
	memcpy(big, &f->info, sizeof(f->info));
	return big;
}

static enum abi_result e2big_above_page(struct abi_ctx *ctx)
{
	struct elf_fixture f;
	uint8_t *big = big_struct(ctx, &f, 8192);

	EXPECT(ctx, codectl(CODE_REGISTER_ELF, big, 4097, 0), E2BIG);
	return ABI_PASS;
}

static enum abi_result page_with_zero_tail_accepted(struct abi_ctx *ctx)
{
	struct elf_fixture f;
	uint8_t *big = big_struct(ctx, &f, 4096);

	EXPECT(ctx, codectl(CODE_REGISTER_ELF, big, 4096, 0), 0);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	return ABI_PASS;
}

static enum abi_result e2big_nonzero_tail(struct abi_ctx *ctx)
{
	struct elf_fixture f;
	uint8_t *big = big_struct(ctx, &f, 256);

	big[200] = 1;
	EXPECT(ctx, codectl(CODE_REGISTER_ELF, big, 256, 0), E2BIG);
	big[200] = 0;
	big[CODE_ELF_INFO_SIZE_VER0] = 1;	/* the first byte past the known struct */
	EXPECT(ctx, codectl(CODE_REGISTER_ELF, big, 256, 0), E2BIG);
	return ABI_PASS;
}

static enum abi_result larger_zero_tail_accepted(struct abi_ctx *ctx)
{
	struct elf_fixture f;
	uint8_t *big = big_struct(ctx, &f, 256);

	EXPECT(ctx, codectl(CODE_REGISTER_ELF, big, 256, 0), 0);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	return ABI_PASS;
}

static enum abi_result info_unreadable(struct abi_ctx *ctx)
{
	EXPECT(ctx, codectl(CODE_REGISTER_ELF, NULL, CODE_ELF_INFO_SIZE_VER0, 0), EFAULT);
	EXPECT(ctx, codectl(CODE_REGISTER_SFRAME, ctx->none, CODE_SFRAME_INFO_SIZE_VER0, 0), EFAULT);
	EXPECT(ctx, codectl(CODE_REGISTER_JIT, ctx->none, CODE_JIT_INFO_SIZE_VER0, 0), EFAULT);
	return ABI_PASS;
}

static enum abi_result info_partly_readable(struct abi_ctx *ctx)
{
	/* the struct's last bytes lie in the PROT_NONE page after the RW one, if adjacent */
	uint8_t *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (two == MAP_FAILED || mprotect(two + 4096, 4096, PROT_NONE))
		return ABI_FAIL;
	EXPECT(ctx, codectl(CODE_REGISTER_ELF, two + 4096 - 40, CODE_ELF_INFO_SIZE_VER0, 0), EFAULT);
	munmap(two, 8192);
	return ABI_PASS;
}

static enum abi_result efault_pathname(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.pathname = (uintptr_t)ctx->none;
	EXPECT(ctx, abi_reg_elf(&f.info), EFAULT);
	return ABI_PASS;
}

static enum abi_result efault_build_id(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.build_id = (uintptr_t)ctx->none;
	f.info.build_id_len = 20;
	EXPECT(ctx, abi_reg_elf(&f.info), EFAULT);
	return ABI_PASS;
}

static enum abi_result efault_debug_link(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.debug_link_pathname = (uintptr_t)ctx->none + 100;
	EXPECT(ctx, abi_reg_elf(&f.info), EFAULT);
	return ABI_PASS;
}

/* A string of @n 'a's and a NUL (n + 1 > PATH_MAX is too long), in the data area. */
static const char *long_path(struct abi_ctx *ctx, size_t n)
{
	char *p = (char *)abi_data(ctx, n + 1);

	memset(p, 'a', n);
	return p;
}

static enum abi_result enametoolong_pathname(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.pathname = (uintptr_t)long_path(ctx, 4096);
	EXPECT(ctx, abi_reg_elf(&f.info), ENAMETOOLONG);
	return ABI_PASS;
}

static enum abi_result enametoolong_debug_link(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.debug_link_pathname = (uintptr_t)long_path(ctx, 8191);
	EXPECT(ctx, abi_reg_elf(&f.info), ENAMETOOLONG);
	return ABI_PASS;
}

static enum abi_result path_max_accepted(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	f.info.pathname = (uintptr_t)long_path(ctx, 4095);	/* and the NUL: PATH_MAX bytes */
	EXPECT(ctx, abi_reg_elf(&f.info), 0);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	return ABI_PASS;
}

static enum abi_result eexist_identity(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	EXPECT(ctx, abi_reg_elf(&f.info), 0);
	f.info.sframe_start = f.info.sframe_end = 0;	/* identity only, same text */
	EXPECT(ctx, abi_reg_elf(&f.info), EEXIST);
	f.info.text_start += 255;			/* sharing one byte */
	f.info.text_end += 255;
	EXPECT(ctx, abi_reg_elf(&f.info), EEXIST);
	EXPECT(ctx, abi_unreg(f.info.text_start - 255), 0);
	return ABI_PASS;
}

static enum abi_result eexist_unwind(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	EXPECT(ctx, abi_reg_elf(&f.info), 0);
	EXPECT(ctx, abi_reg_sframe(f.info.text_start + 64, f.info.text_end, f.sec,
				   f.info.sframe_end - f.info.sframe_start), EEXIST);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	return ABI_PASS;
}

static enum abi_result overlap_jit_and_sframe(struct abi_ctx *ctx)
{
	static struct code_jit_unwind_table t __attribute__((aligned(8))) = {
		.reserved_len = 48, .fre_stride = 24, .fre_size = 21
	};
	uint8_t *sec = abi_data(ctx, 512);
	uint64_t text = abi_text(ctx, 512);
	size_t len = abi_section(3, true, text, 4, 64, sec, 512);
	struct code_jit_info j = { .text_start = text + 128, .text_end = text + 512,
				   .unwind_head = (uintptr_t)&t };

	EXPECT(ctx, abi_reg_sframe(text, text + 256, sec, len), 0);
	EXPECT(ctx, codectl(CODE_REGISTER_JIT, &j, sizeof(j), 0), EEXIST);
	j.text_start = text + 256;			/* touching: no overlap */
	EXPECT(ctx, codectl(CODE_REGISTER_JIT, &j, sizeof(j), 0), 0);
	EXPECT(ctx, abi_unreg(text), 0);
	EXPECT(ctx, abi_unreg(text + 256), 0);
	return ABI_PASS;
}

static enum abi_result touching_ranges(struct abi_ctx *ctx)
{
	uint64_t t = abi_text(ctx, 300);

	EXPECT(ctx, abi_reg_ident(t, t + 100, "/a"), 0);
	EXPECT(ctx, abi_reg_ident(t + 100, t + 200, "/b"), 0);
	EXPECT(ctx, abi_reg_ident(t + 99, t + 101, "/c"), EEXIST);
	EXPECT(ctx, abi_unreg(t), 0);
	EXPECT(ctx, abi_unreg(t + 100), 0);
	return ABI_PASS;
}

static enum abi_result split_model(struct abi_ctx *ctx)
{
	struct elf_fixture f;

	elf_fixture(ctx, &f);
	EXPECT(ctx, abi_reg_sframe(f.info.text_start, f.info.text_end, f.sec,
				   f.info.sframe_end - f.info.sframe_start), 0);
	EXPECT(ctx, abi_reg_ident(f.info.text_start, f.info.text_end, "/usr/lib/libsplit.so"), 0);
	EXPECT(ctx, abi_reg_elf(&f.info), EEXIST);	/* both aspects taken */
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);	/* removes both */
	EXPECT(ctx, abi_unreg(f.info.text_start), ENOENT);
	EXPECT(ctx, abi_reg_elf(&f.info), 0);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	return ABI_PASS;
}

static enum abi_result unregister_unknown(struct abi_ctx *ctx)
{
	uint64_t t = abi_text(ctx, 64);

	EXPECT(ctx, abi_unreg(t), ENOENT);
	EXPECT(ctx, abi_reg_ident(t, t + 64, "/x"), 0);
	EXPECT(ctx, abi_unreg(t + 1), ENOENT);		/* only the exact text_start */
	EXPECT(ctx, abi_unreg(t), 0);
	return ABI_PASS;
}

/* The per-process limit: fill it with one-byte identity registrations. */
static enum abi_result registration_limit(struct abi_ctx *ctx)
{
	uint64_t base = abi_text(ctx, 70000);
	long n, i;

	for (n = 0; n < 70000; n++)
		if (abi_reg_ident(base + n, base + n + 1, "/l"))
			break;
	if (n == 70000 || errno != ENOSPC) {
		snprintf(ctx->msg, sizeof(ctx->msg), "registration %ld: errno %s, want ENOSPC", n,
			 strerrorname_np(errno));
		return ABI_FAIL;
	}
	EXPECT(ctx, abi_unreg(base), 0);
	EXPECT(ctx, abi_reg_ident(base + n, base + n + 1, "/l"), 0);	/* room again */
	EXPECT(ctx, abi_reg_ident(base + n + 1, base + n + 2, "/l"), ENOSPC);
	for (i = n; i >= 1; i--)
		if (abi_unreg(base + i))
			return ABI_FAIL;
	return ABI_PASS;
}

const struct abi_case abi_errno_cases[] = {
	{ "einval-unknown-option", unknown_option },
	{ "einval-flags", flags_nonzero },
	{ "einval-size-below-ver0", size_below_ver0 },
	{ "einval-unregister-size", unregister_with_size },
	{ "einval-text-range", text_range_empty_or_inverted },
	{ "einval-sframe-range-inverted", sframe_range_inverted },
	{ "einval-sframe-one-bound-zero", sframe_one_bound_zero },
	{ "einval-text-not-executable", text_not_executable },
	{ "einval-text-past-mapping", text_past_executable_mapping },
	{ "einval-sframe-not-readable", sframe_not_readable },
	{ "einval-build-id-null", build_id_without_pointer },
	{ "einval-build-id-too-long", build_id_too_long },
	{ "einval-neither-aspect", neither_aspect },
	{ "einval-jit-used-above-reserved", jit_used_above_reserved },
	{ "einval-jit-fre-size", jit_fre_size_small },
	{ "einval-jit-stride-below-size", jit_stride_below_size },
	{ "einval-jit-stride-unaligned", jit_stride_unaligned },
	{ "jit-valid-header", jit_valid },
	{ "efault-jit-header", jit_header_unreadable },
	{ "e2big-above-page", e2big_above_page },
	{ "page-sized-zero-tail-accepted", page_with_zero_tail_accepted },
	{ "e2big-nonzero-tail", e2big_nonzero_tail },
	{ "larger-zero-tail-accepted", larger_zero_tail_accepted },
	{ "efault-info", info_unreadable },
	{ "efault-info-partial", info_partly_readable },
	{ "efault-pathname", efault_pathname },
	{ "efault-build-id", efault_build_id },
	{ "efault-debug-link", efault_debug_link },
	{ "enametoolong-pathname", enametoolong_pathname },
	{ "enametoolong-debug-link", enametoolong_debug_link },
	{ "path-max-accepted", path_max_accepted },
	{ "eexist-identity", eexist_identity },
	{ "eexist-unwind", eexist_unwind },
	{ "eexist-jit-vs-sframe", overlap_jit_and_sframe },
	{ "touching-ranges", touching_ranges },
	{ "split-model", split_model },
	{ "enoent-unregister", unregister_unknown },
	{ "enospc-limit", registration_limit },
	{ NULL, NULL },
};
