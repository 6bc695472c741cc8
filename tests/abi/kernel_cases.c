// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of each kernel interface (sframe_register, the prctl,
 * stacktrace_setup) through abi_kreg()/abi_kunreg(): every row of the ABI
 * page's "Register checks, in this order", that order, v3-only acceptance,
 * overlap and half-open adjacency, the unregister rules. Sections are written
 * with the project's SFrame writer (Debian 12's assembler emits v1). Where the
 * v13 series differs from v16 the case expects what --kernel says.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "abi.h"
#include "sframe_samples.h"

#define SEC_MAX 2048

/* A section over a fresh text chunk of @text_len bytes. */
struct ksec {
	uint8_t *buf;
	size_t len;
	uint64_t text;
	uint64_t text_len;
	struct sfw_layout lay;
};

/* Version @version of 4 frame-pointer functions of 64 bytes over a fresh 256-byte chunk. */
static void kmake(struct abi_ctx *ctx, struct ksec *k, uint8_t version, bool pcrel)
{
	k->buf = abi_data(ctx, SEC_MAX);
	k->text = abi_text(ctx, 256);
	k->text_len = 256;
	k->len = sample_section(version, pcrel, (uintptr_t)k->buf, k->text, 4, 64, k->buf,
				SEC_MAX, &k->lay);
}

/* A v3 section @s (fdes set by the caller) over [@text, @text + @text_len). */
static void kmake_from(struct abi_ctx *ctx, struct ksec *k, struct sfw_section *s, uint64_t text,
		       uint64_t text_len)
{
	k->buf = abi_data(ctx, SEC_MAX);
	s->addr = (uintptr_t)k->buf;
	k->text = text;
	k->text_len = text_len;
	k->len = sfw_write(s, k->buf, SEC_MAX, &k->lay);
}

/* One v3 function of @size bytes at @text with @n FREs. */
static void kmake_one(struct abi_ctx *ctx, struct ksec *k, uint64_t text, uint32_t size,
		      const struct sfw_fre *fres, unsigned int n)
{
	struct sfw_fde fde = { .func_start = text, .func_size = size, .fre_type = 0, .nfres = n,
			       .fres = fres };
	struct sfw_section s = sfw_amd64(3, true, 0);

	s.fdes = &fde;
	s.nfdes = 1;
	kmake_from(ctx, k, &s, text, size);
}

static long kreg(const struct abi_ctx *ctx, const struct ksec *k)
{
	return abi_kreg(ctx, (uintptr_t)k->buf, k->len, k->text, k->text_len);
}

static long kunreg(const struct abi_ctx *ctx, const struct ksec *k)
{
	return abi_kunreg(ctx, (uintptr_t)k->buf);
}

static void put32(struct ksec *k, size_t pos, uint32_t v)
{
	memcpy(k->buf + pos, &v, 4);
}

static int want_v16(const struct abi_ctx *ctx, int v16, int v13)
{
	return ctx->kernel == ABI_KERNEL_V13 ? v13 : v16;
}

/*
 * Does the kernel under test read the whole section at registration? v13
 * did; v16 only when built with CONFIG_SFRAME_VALIDATION (--sframe-validation).
 * Otherwise it checks the header alone and finds the rest at unwind time.
 */
static bool validates(const struct abi_ctx *ctx)
{
	return ctx->kernel == ABI_KERNEL_V13 || ctx->validation;
}

/*
 * Section @k, broken past its header: refused with @err by a kernel that
 * validates, else registered (and unregistered again).
 */
#define EXPECT_BODY(ctx, k, err)						\
	do {									\
		if (validates(ctx)) {						\
			EXPECT((ctx), kreg((ctx), (k)), (err));			\
		} else {							\
			EXPECT((ctx), kreg((ctx), (k)), 0);			\
			EXPECT((ctx), kunreg((ctx), (k)), 0);			\
		}								\
	} while (0)

static enum abi_result valid_v3(struct abi_ctx *ctx)
{
	struct ksec k;

	kmake(ctx, &k, 3, true);
	EXPECT(ctx, kreg(ctx, &k), 0);
	EXPECT(ctx, kunreg(ctx, &k), 0);
	EXPECT(ctx, kunreg(ctx, &k), EINVAL);	/* stale: nothing registered with it now */
	EXPECT(ctx, kreg(ctx, &k), 0);		/* the same again, after the removal */
	EXPECT(ctx, kunreg(ctx, &k), 0);
	return ABI_PASS;
}

static enum abi_result range_empty(struct abi_ctx *ctx)
{
	struct ksec k;

	kmake(ctx, &k, 3, true);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)k.buf, 0, k.text, 256), EINVAL);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)k.buf, k.len, k.text, 0), EINVAL);
	return ABI_PASS;
}

static enum abi_result range_wraps(struct abi_ctx *ctx)
{
	struct ksec k;

	kmake(ctx, &k, 3, true);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)k.buf, UINT64_MAX - (uintptr_t)k.buf + 16, k.text,
			     256), EINVAL);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)k.buf, k.len, k.text, UINT64_MAX - k.text + 16),
	       EINVAL);
	return ABI_PASS;
}

static enum abi_result sframe_not_one_mapping(struct abi_ctx *ctx)
{
	struct ksec k;

	kmake(ctx, &k, 3, true);
	/* from the guard page into the data area: two mappings */
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)ctx->data - 16, k.len, k.text, 256), EINVAL);
	EXPECT(ctx, abi_kreg(ctx, 1ull << 46, k.len, k.text, 256), EINVAL);	/* none */
	return ABI_PASS;
}

static enum abi_result text_not_one_exec_mapping(struct abi_ctx *ctx)
{
	uint64_t end = (uintptr_t)ctx->text + ctx->text_len;
	uint8_t *two = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ksec k;

	if (two == MAP_FAILED || mprotect(two + 4096, 4096, PROT_EXEC))
		return ABI_FAIL;
	kmake(ctx, &k, 3, true);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)k.buf, k.len, (uintptr_t)ctx->rw, 256), EINVAL);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)k.buf, k.len, end - 64, 128), EINVAL);
	/* two executable mappings (r-x, --x) side by side are not one */
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)k.buf, k.len, (uintptr_t)two + 4096 - 128, 256),
	       EINVAL);
	munmap(two, 8192);
	return ABI_PASS;
}

static enum abi_result header_unreadable(struct abi_ctx *ctx)
{
	struct ksec k;

	kmake(ctx, &k, 3, true);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)ctx->none, 256, k.text, 256), EFAULT);
	return ABI_PASS;
}

static enum abi_result bad_magic(struct abi_ctx *ctx)
{
	struct ksec k;

	kmake(ctx, &k, 3, true);
	k.buf[0] = 0xe3;
	EXPECT(ctx, kreg(ctx, &k), EINVAL);
	return ABI_PASS;
}

static enum abi_result v3_only(struct abi_ctx *ctx)
{
	struct ksec k;

	kmake(ctx, &k, 1, false);
	EXPECT(ctx, kreg(ctx, &k), EINVAL);
	kmake(ctx, &k, 2, false);
	EXPECT(ctx, kreg(ctx, &k), EINVAL);
	kmake(ctx, &k, 2, true);	/* v13 took v2 with PCREL, as v12 did */
	EXPECT(ctx, kreg(ctx, &k), want_v16(ctx, EINVAL, 0));
	if (ctx->kernel == ABI_KERNEL_V13)
		EXPECT(ctx, kunreg(ctx, &k), 0);
	kmake(ctx, &k, 3, true);
	EXPECT(ctx, kreg(ctx, &k), 0);
	EXPECT(ctx, kunreg(ctx, &k), 0);
	return ABI_PASS;
}

static enum abi_result flags_sorted_pcrel(struct abi_ctx *ctx)
{
	struct sfw_fde fdes[4];
	struct sfw_section s = sfw_amd64(3, true, 0);
	struct ksec k;

	s.raw_flags = true;
	s.fdes = fdes;
	s.nfdes = 4;
	for (int i = 0; i < 2; i++) {
		uint64_t text = abi_text(ctx, 256);

		sample_functions(fdes, 4, text, 64);
		s.flags = i ? 0x1 : 0x4;	/* SORTED without PCREL, PCREL without SORTED */
		kmake_from(ctx, &k, &s, text, 256);
		EXPECT(ctx, kreg(ctx, &k), EINVAL);
	}
	return ABI_PASS;
}

static enum abi_result auxhdr(struct abi_ctx *ctx)
{
	struct sfw_fde fdes[4];
	struct sfw_section s = sfw_amd64(3, true, 0);
	uint64_t text = abi_text(ctx, 256);
	struct ksec k;

	sample_functions(fdes, 4, text, 64);
	s.fdes = fdes;
	s.nfdes = 4;
	s.auxhdr_len = 8;
	kmake_from(ctx, &k, &s, text, 256);
	EXPECT(ctx, kreg(ctx, &k), EINVAL);
	return ABI_PASS;
}

static enum abi_result no_fdes_no_fres(struct abi_ctx *ctx)
{
	static const struct sfw_fre none[1];
	struct sfw_section s = sfw_amd64(3, true, 0);
	uint64_t text = abi_text(ctx, 256);
	struct ksec k;

	kmake_from(ctx, &k, &s, text, 256);	/* no FDE */
	EXPECT(ctx, kreg(ctx, &k), EINVAL);
	kmake_one(ctx, &k, abi_text(ctx, 64), 64, none, 0);	/* an FDE, no FRE */
	EXPECT(ctx, kreg(ctx, &k), EINVAL);
	return ABI_PASS;
}

static enum abi_result subsections_out_of_bounds(struct abi_ctx *ctx)
{
	struct ksec k;

	kmake(ctx, &k, 3, true);
	put32(&k, 16, (uint32_t)k.len);		/* fre_len: FREs past the section's end */
	EXPECT(ctx, kreg(ctx, &k), EINVAL);
	kmake(ctx, &k, 3, true);
	put32(&k, 24, 0);			/* fres_off: the FREs over the FDE index */
	EXPECT(ctx, kreg(ctx, &k), EINVAL);
	return ABI_PASS;
}

static enum abi_result function_outside_text(struct abi_ctx *ctx)
{
	struct ksec k;
	int64_t far = 1 << 20;

	kmake(ctx, &k, 3, true);
	memcpy(k.buf + k.lay.fde_pos[3], &far, 8);	/* PC-relative start: 1 MiB on */
	EXPECT_BODY(ctx, &k, EFAULT);
	return ABI_PASS;
}

static enum abi_result fre_start_past_function(struct abi_ctx *ctx)
{
	const struct sfw_fre past[2] = {
		{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
		{ .start = 65, .sp_base = true, .count = 1, .words = { 8 } },
	};
	struct sfw_fre at[2] = { past[0], past[1] };
	struct ksec k;

	kmake_one(ctx, &k, abi_text(ctx, 64), 64, past, 2);
	EXPECT_BODY(ctx, &k, EINVAL);
	at[1].start = 64;	/* at the end: v16 refuses it (>=), v13 did not (>) */
	kmake_one(ctx, &k, abi_text(ctx, 64), 64, at, 2);
	EXPECT(ctx, kreg(ctx, &k), want_v16(ctx, ctx->validation ? EINVAL : 0, 0));
	if (ctx->kernel == ABI_KERNEL_V13 || !ctx->validation)
		EXPECT(ctx, kunreg(ctx, &k), 0);
	return ABI_PASS;
}

static enum abi_result more_fres_than_bytes(struct abi_ctx *ctx)
{
	const struct sfw_fre fres[3] = {
		{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
		{ .start = 1, .sp_base = true, .count = 1, .words = { 8 } },
		{ .start = 2, .sp_base = true, .count = 1, .words = { 8 } },
	};
	struct ksec k;

	kmake_one(ctx, &k, abi_text(ctx, 64), 2, fres, 3);	/* v16: fres_num <= func_size */
	EXPECT(ctx, kreg(ctx, &k), want_v16(ctx, ctx->validation ? EINVAL : 0, 0));
	if (ctx->kernel == ABI_KERNEL_V13 || !ctx->validation)
		EXPECT(ctx, kunreg(ctx, &k), 0);
	return ABI_PASS;
}

static enum abi_result fres_past_subsection(struct abi_ctx *ctx)
{
	struct ksec k;
	uint32_t fre_len;

	kmake(ctx, &k, 3, true);
	memcpy(&fre_len, k.buf + 16, 4);
	/* the last FDE's attribute record starts 2 bytes before the sub-section's end */
	put32(&k, k.lay.fde_pos[3] + 12, fre_len - 2);
	EXPECT_BODY(ctx, &k, EFAULT);
	return ABI_PASS;
}

static enum abi_result fre_order(struct abi_ctx *ctx)
{
	const struct sfw_fre fres[2] = {
		{ .start = 8, .sp_base = true, .count = 1, .words = { 8 } },
		{ .start = 8, .sp_base = true, .count = 1, .words = { 16 } },
	};
	struct ksec k;

	kmake_one(ctx, &k, abi_text(ctx, 64), 64, fres, 2);
	EXPECT_BODY(ctx, &k, EINVAL);
	return ABI_PASS;
}

static enum abi_result fdes_unsorted(struct abi_ctx *ctx)
{
	struct sfw_fde fdes[4], t;
	struct sfw_section s = sfw_amd64(3, true, 0);
	uint64_t text = abi_text(ctx, 256);
	struct ksec k;

	sample_functions(fdes, 4, text, 64);
	t = fdes[1];
	fdes[1] = fdes[2];
	fdes[2] = t;
	s.fdes = fdes;
	s.nfdes = 4;
	kmake_from(ctx, &k, &s, text, 256);
	EXPECT_BODY(ctx, &k, EINVAL);
	return ABI_PASS;
}

/*
 * A reserved bit in a FLEX control word: v13 refused it; v16 reads control
 * words only at a lookup (its validation reads the data words, not the
 * rules they make), so it registers the section whatever its build.
 */
static enum abi_result flex_reserved_bit(struct abi_ctx *ctx)
{
	const struct sfw_fre fre = { .start = 0, .count = 2, .words = { 0x3d, 8 } };
	struct sfw_fde fde = { .func_start = abi_text(ctx, 64), .func_size = 64, .fre_type = 0,
			       .fde_type = 1, .nfres = 1, .fres = &fre };
	struct sfw_section s = sfw_amd64(3, true, 0);
	struct ksec k;

	s.fdes = &fde;
	s.nfdes = 1;
	kmake_from(ctx, &k, &s, fde.func_start, 64);
	/* CFA control word 0x3d: bit 2 reserved */
	EXPECT(ctx, kreg(ctx, &k), want_v16(ctx, 0, EINVAL));
	if (ctx->kernel == ABI_KERNEL_V16)
		EXPECT(ctx, kunreg(ctx, &k), 0);
	return ABI_PASS;
}

static enum abi_result overlap(struct abi_ctx *ctx)
{
	struct ksec a, b;

	kmake(ctx, &a, 3, true);
	EXPECT(ctx, kreg(ctx, &a), 0);
	b = a;
	b.buf = abi_data(ctx, SEC_MAX);
	b.len = sample_section(3, true, (uintptr_t)b.buf, a.text, 4, 64, b.buf, SEC_MAX, &b.lay);
	EXPECT(ctx, kreg(ctx, &b), EEXIST);
	b.buf[0] = 0;	/* an invalid section is refused before the overlap is seen */
	EXPECT(ctx, kreg(ctx, &b), EINVAL);
	EXPECT(ctx, kunreg(ctx, &a), 0);
	return ABI_PASS;
}

/* Registration checks in their order: where two rules fail, the earlier answers. */
static enum abi_result check_order(struct abi_ctx *ctx)
{
	struct ksec k, v2, held;
	int64_t far = 1 << 20;

	kmake(ctx, &k, 3, true);
	/* mappings before the header: RW text, unreadable section */
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)ctx->none, 256, (uintptr_t)ctx->rw, 256), EINVAL);
	/* the header before the FDEs: a v2 section whose function is outside the text */
	kmake(ctx, &v2, 2, true);
	memcpy(v2.buf + v2.lay.fde_pos[3], &far, 4);
	EXPECT(ctx, kreg(ctx, &v2), want_v16(ctx, EINVAL, EFAULT));
	/* validation (by a kernel that validates) before the overlap */
	EXPECT(ctx, kreg(ctx, &k), 0);
	held = k;
	kmake(ctx, &k, 3, true);
	k.text = held.text;
	k.len = sample_section(3, true, (uintptr_t)k.buf, k.text, 4, 64, k.buf, SEC_MAX, &k.lay);
	memcpy(k.buf + k.lay.fde_pos[3], &far, 8);
	EXPECT(ctx, kreg(ctx, &k), validates(ctx) ? EFAULT : EEXIST);
	EXPECT(ctx, kunreg(ctx, &held), 0);
	return ABI_PASS;
}

static enum abi_result half_open_adjacency(struct abi_ctx *ctx)
{
	uint64_t t = abi_text(ctx, 128);
	struct ksec a, b;

	a.buf = abi_data(ctx, SEC_MAX);
	a.len = sample_section(3, true, (uintptr_t)a.buf, t, 1, 64, a.buf, SEC_MAX, &a.lay);
	a.text = t;
	a.text_len = 64;
	b.buf = abi_data(ctx, SEC_MAX);
	b.len = sample_section(3, true, (uintptr_t)b.buf, t + 64, 1, 64, b.buf, SEC_MAX, &b.lay);
	b.text = t + 64;
	b.text_len = 64;
	EXPECT(ctx, kreg(ctx, &a), 0);
	/* [t, t + 64) and [t + 64, t + 128) touch: v13's maple tree took the end as inclusive */
	EXPECT(ctx, kreg(ctx, &b), want_v16(ctx, 0, EEXIST));
	if (ctx->kernel == ABI_KERNEL_V16)
		EXPECT(ctx, kunreg(ctx, &b), 0);
	EXPECT(ctx, kunreg(ctx, &a), 0);
	return ABI_PASS;
}

static enum abi_result unregister_unknown(struct abi_ctx *ctx)
{
	struct ksec k;

	kmake(ctx, &k, 3, true);
	EXPECT(ctx, abi_kunreg(ctx, (uintptr_t)k.buf), EINVAL);
	EXPECT(ctx, kreg(ctx, &k), 0);
	EXPECT(ctx, abi_kunreg(ctx, k.text), EINVAL);		/* the text is no key */
	EXPECT(ctx, abi_kunreg(ctx, (uintptr_t)k.buf + 1), EINVAL);
	EXPECT(ctx, kunreg(ctx, &k), 0);
	return ABI_PASS;
}

/*
 * One section for two executable mappings, registered for each: one removal
 * by sframe_start takes both. (A kernel built with CONFIG_SFRAME_VALIDATION
 * refuses the two registrations: each holds FDEs outside its text.)
 */
static enum abi_result unregister_every_range(struct abi_ctx *ctx)
{
	uint8_t *area = mmap(NULL, 3 * 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
	uint8_t *m[2] = { area, area + 2 * 4096 };
	struct sfw_fde fdes[4];
	struct sfw_section s = sfw_amd64(3, true, 0);
	struct ksec k;

	/* two executable mappings apart: a PROT_NONE page between them */
	if (area == MAP_FAILED || mprotect(area + 4096, 4096, PROT_NONE))
		return ABI_FAIL;
	sample_functions(fdes, 2, (uintptr_t)m[0], 64);
	sample_functions(fdes + 2, 2, (uintptr_t)m[1], 64);
	s.fdes = fdes;
	s.nfdes = 4;
	kmake_from(ctx, &k, &s, (uintptr_t)m[0], 128);
	if (ctx->kernel == ABI_KERNEL_V16 && ctx->validation) {
		EXPECT(ctx, kreg(ctx, &k), EFAULT);	/* FDE 2: function outside the text */
		munmap(area, 3 * 4096);
		return ABI_PASS;
	}
	EXPECT(ctx, kreg(ctx, &k), 0);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)k.buf, k.len, (uintptr_t)m[1], 128), 0);
	EXPECT(ctx, kunreg(ctx, &k), 0);
	EXPECT(ctx, kunreg(ctx, &k), EINVAL);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)k.buf, k.len, (uintptr_t)m[1], 128), 0);
	EXPECT(ctx, kunreg(ctx, &k), 0);
	munmap(area, 3 * 4096);
	return ABI_PASS;
}

/*
 * The split model: a codectl identity-only registration of the same text
 * coexists with this one (the registry is one). Without codectl (a kernel
 * that has only this interface) there is nothing to coexist with.
 */
static enum abi_result coexists_with_codectl_identity(struct abi_ctx *ctx)
{
	struct ksec k;
	bool codectl_there;

	kmake(ctx, &k, 3, true);
	codectl_there = !(abi_reg_ident(k.text, k.text + 256, "/abi/split") == -1 &&
			  errno == ENOSYS);
	EXPECT(ctx, kreg(ctx, &k), 0);
	if (codectl_there) {
		EXPECT(ctx, abi_reg_sframe(k.text, k.text + 256, k.buf, k.len), EEXIST);
		EXPECT(ctx, kunreg(ctx, &k), 0);	/* the unwind aspect only */
		EXPECT(ctx, abi_reg_ident(k.text, k.text + 256, "/abi/split"), EEXIST);
		EXPECT(ctx, abi_unreg(k.text), 0);
	} else {
		EXPECT(ctx, kunreg(ctx, &k), 0);
	}
	return ABI_PASS;
}

const struct abi_case abi_kernel_cases[] = {
	{ "kernel-valid-v3-and-stale-unregister", valid_v3 },
	{ "kernel-einval-empty-range", range_empty },
	{ "kernel-einval-range-wraps", range_wraps },
	{ "kernel-einval-sframe-not-one-mapping", sframe_not_one_mapping },
	{ "kernel-einval-text-not-one-exec-mapping", text_not_one_exec_mapping },
	{ "kernel-efault-header-unreadable", header_unreadable },
	{ "kernel-einval-magic", bad_magic },
	{ "kernel-einval-v3-only", v3_only },
	{ "kernel-einval-sorted-and-pcrel-required", flags_sorted_pcrel },
	{ "kernel-einval-auxhdr", auxhdr },
	{ "kernel-einval-no-fdes-no-fres", no_fdes_no_fres },
	{ "kernel-einval-subsections-out-of-bounds", subsections_out_of_bounds },
	{ "kernel-efault-function-outside-text", function_outside_text },
	{ "kernel-einval-fre-start-past-function", fre_start_past_function },
	{ "kernel-einval-more-fres-than-bytes", more_fres_than_bytes },
	{ "kernel-efault-fres-past-subsection", fres_past_subsection },
	{ "kernel-einval-fre-order", fre_order },
	{ "kernel-einval-fdes-unsorted", fdes_unsorted },
	{ "kernel-flex-reserved-bit", flex_reserved_bit },
	{ "kernel-eexist-overlap-after-validation", overlap },
	{ "kernel-check-order", check_order },
	{ "kernel-half-open-adjacency", half_open_adjacency },
	{ "kernel-einval-unregister-unknown", unregister_unknown },
	{ "kernel-unregister-removes-every-range", unregister_every_range },
	{ "kernel-coexists-with-codectl-identity", coexists_with_codectl_identity },
	{ NULL, NULL },
};
