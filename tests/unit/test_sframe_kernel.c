// SPDX-License-Identifier: GPL-2.0
/*
 * The v16 series' SFrame reader (emu/sframe_kernel.c): issue 20's three
 * reproducers with the reason each failure gives, and agreement with the
 * emulator's own decoder on real binutils 2.47 output at every byte of text.
 * The other classes are in tests/vectors/kernel (test_kernel_vectors.c).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_sframe.h"
#include "emu/emu.h"

#define SEC 0x200000200100ull
#define TEXT 0x200000101000ull

/* A section from hex at SEC, for the text [TEXT, TEXT + 0x40). */
struct kcase {
	uint8_t bytes[128];
	size_t len;
	struct emu_mem_image img;
	struct emu_accessor mem;
	struct emu_ksframe k;
	struct emu_unwind_rule rule;
	struct emu_verdict why;
};

static void kcase_init(struct kcase *c, const char *hex)
{
	memset(c, 0, sizeof(*c));
	c->len = strlen(hex) / 2;
	cr_assert_leq(c->len, sizeof(c->bytes));
	for (size_t i = 0; i < c->len; i++)
		sscanf(hex + 2 * i, "%2hhx", &c->bytes[i]);
	emu_mem_image_add(&c->img, SEC, c->bytes, c->len);
	c->mem = emu_mem_image_accessor(&c->img);
	c->k = (struct emu_ksframe){ .sframe_start = SEC, .sframe_end = SEC + c->len,
				    .text_start = TEXT, .text_end = TEXT + 0x40 };
	emu_verdict_init(&c->why);
	cr_assert_eq(emu_ksframe_add(&c->k, &c->mem, emu_arch_get(EMU_ARCH_X86_64), true, &c->why),
		     0, "%s", c->why.reason);
}

static int find(struct kcase *c, uint64_t ip)
{
	emu_verdict_init(&c->why);
	return emu_ksframe_find(&c->k, &c->mem, emu_arch_get(EMU_ARCH_X86_64), ip, &c->rule,
				&c->why);
}

/* Issue 20, class 1: the first FRE starts at 4; at the function's first byte there is none. */
Test(sframe_kernel, no_fre_at_the_address_is_einval)
{
	struct kcase c;

	kcase_init(&c, "e2de03050300f80001000000020000000b0000000000000010000000e40ef0ff"
		       "ffffffff10000000000000000200000000040308080310");
	cr_assert_eq(find(&c, TEXT), -EINVAL);
	cr_assert_eq(c.why.rule, EMU_R_SF_NO_FRE);
	cr_assert_str_eq(c.why.reason, "FDE 0: no FRE starts at or below offset 0x0");
	cr_assert_eq(find(&c, TEXT + 4), 0);
	cr_assert_eq(c.rule.cfa_base, EMU_CFA_SP);
	cr_assert_eq(c.rule.cfa_off, 8);
	cr_assert_eq(find(&c, TEXT + 0x10), -ENOENT);	/* past the function: a gap */
	c.bytes[0x2c + 2] = 0x80;			/* the v3 signal bit: not read */
	cr_assert_eq(find(&c, TEXT), -EINVAL);
}

/* Class 2: no RA word, fixed RA offset 0: the RA is retained, and x86-64 has no RA register. */
Test(sframe_kernel, ra_without_a_word_is_retained)
{
	struct emu_registry *r = emu_registry_new(8);
	struct emu_registration *reg = calloc(1, sizeof(*reg));
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = 8,
				     .profile = EMU_PROFILE_V16, .lookup_ra = true };
	struct emu_regs regs = { .ip = TEXT, .sp = 0x7ff000, .fp = 0 };
	struct emu_frame frames[8];
	struct emu_unwind_result res;
	struct emu_verdict v;
	struct kcase c;

	kcase_init(&c, "e2de0305030000000100000001000000080000000000000010000000e40ef0ff"
		       "ffffffff10000000000000000100000000008308");
	cr_assert_eq(find(&c, TEXT), 0, "%s", c.why.reason);
	cr_assert_eq(c.rule.ra.kind, EMU_LOC_SAME);
	cr_assert_eq(c.rule.fp.kind, EMU_LOC_SAME);
	/* the step after it fails, and the walk ends at frame 0 */
	*reg = (struct emu_registration){ .text_start = TEXT, .text_end = TEXT + 0x40,
					  .aspects = EMU_ASPECT_UNWIND, .unwind_kind = EMU_UNWIND_SFRAME,
					  .sframe_start = SEC, .sframe_end = SEC + c.len,
					  .ksframe = c.k };
	emu_verdict_init(&v);
	cr_assert_eq(emu_registry_insert(r, reg, &v), 0);
	cr_assert_eq(emu_unwind(r, &c.mem, &regs, &o, frames, &res), 0);
	cr_assert_eq(res.stop, EMU_STOP_RA_RETAINED);
	cr_assert_eq(res.nframes, 1);
	emu_registry_free(r);
}

/*
 * Class 3: FDE 0's start changed after registration. The kernel's search
 * visits FDE 0 first (its range is [0, num_fdes - 1]), sees a start above
 * the address and stops with nothing found.
 */
Test(sframe_kernel, search_path_reads_the_changed_entry)
{
	struct kcase c;

	kcase_init(&c, "e2de03050300f8000200000002000000100000000000000020000000e40ef0ff"
		       "ffffffff1000000000000000e40ef0ffffffffff100000000500000000000000"
		       "000200000000040308080310");
	cr_assert_eq(find(&c, TEXT + 0x1e), 0);
	cr_assert_eq(c.rule.cfa_off, 16);
	c.bytes[0x22] = 0x8e;
	cr_assert_eq(find(&c, TEXT + 0x1e), -ENOENT);
}

/* Are the two rules the same unwind step? (A kept FP: whatever register number it names.) */
static bool same_rule(const struct emu_unwind_rule *a, const struct emu_unwind_rule *b)
{
	return a->cfa_base == b->cfa_base && a->cfa_off == b->cfa_off &&
	       a->cfa_deref == b->cfa_deref &&
	       (a->cfa_base != EMU_CFA_REG || a->cfa_reg == b->cfa_reg) &&
	       a->ra.kind == b->ra.kind && a->ra.off == b->ra.off &&
	       a->fp.kind == b->fp.kind && a->fp.off == b->fp.off &&
	       a->outermost == b->outermost && a->code_end == b->code_end;
}

/* @path's section: the kernel's reader and the copy's decoder agree at every byte. */
static unsigned long compare_file(const char *path)
{
	const struct emu_arch_info *arch = emu_arch_get(EMU_ARCH_X86_64);
	struct emu_unwind_rule kr, cr;
	struct emu_sframe_section *s;
	struct emu_mem_image img = { 0 };
	struct emu_accessor mem;
	struct elf_sframe es;
	struct emu_ksframe k;
	struct emu_verdict v;
	unsigned long n = 0;
	int ke, ce;

	if (elf_sframe_read(path, &es) || es.text_end <= es.text_start)
		return 0;
	emu_mem_image_add(&img, es.addr, es.data, es.len);
	mem = emu_mem_image_accessor(&img);
	k = (struct emu_ksframe){ .sframe_start = es.addr, .sframe_end = es.addr + es.len,
				  .text_start = es.text_start, .text_end = es.text_end };
	emu_verdict_init(&v);
	cr_assert_eq(emu_ksframe_add(&k, &mem, arch, true, &v), 0, "%s: %s", path, v.reason);
	cr_assert_eq(emu_sframe_load(memcpy(malloc(es.len), es.data, es.len), es.len,
				     &(struct emu_sframe_params){ es.addr, es.text_start,
								  es.text_end, EMU_ARCH_X86_64,
								  EMU_PROFILE_EMULATOR, NULL },
				     &s, &v), 0, "%s: %s", path, v.reason);
	for (uint64_t ip = es.text_start; ip < es.text_end; ip++, n++) {
		ke = emu_ksframe_find(&k, &mem, arch, ip, &kr, &v);
		ce = emu_sframe_find_rule(s, ip, &cr);
		cr_assert_eq(ke, ce, "%s at 0x%llx: kernel %d (%s), copy %d", path,
			     (unsigned long long)ip, ke, v.reason, ce);
		cr_assert(ke || same_rule(&kr, &cr), "%s at 0x%llx: the rules differ", path,
			  (unsigned long long)ip);
	}
	emu_sframe_put(s);
	elf_sframe_free(&es);
	return n;
}

Test(sframe_kernel, agrees_with_the_decoder_on_binutils_2_47_output)
{
	DIR *d = opendir(VECTOR_DIR "/v3");
	unsigned long bytes = 0, files = 0, n;
	struct dirent *e;
	char path[512];

	cr_assert(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strstr(e->d_name, ".txt") || !strcmp(e->d_name, "TOOLCHAIN"))
			continue;
		snprintf(path, sizeof(path), "%s/v3/%s", VECTOR_DIR, e->d_name);
		n = compare_file(path);
		files += n > 0;
		bytes += n;
	}
	closedir(d);
	cr_log_info("sframe_kernel: %lu files, %lu addresses", files, bytes);
	cr_assert_geq(files, 16, "only %lu SFrame v3 files with text", files);
}
