// SPDX-License-Identifier: GPL-2.0
/*
 * Sections written by the test writer read back by libsframe, field by field,
 * in every SFrame version this machine's libsframe reads (binutils 2.40: v1;
 * 2.41-2.44: v2; 2.45+: v2, v2 with FDE_FUNC_START_PCREL, v3).
 */
#include <criterion/criterion.h>

#include "emu/emu.h"
#include "libsframe_compat.h"
#include "sframe_samples.h"

#define SEC 0x402000ull
#define TEXT 0x401000ull

static const struct sfw_fre plt_fres[2] = {
	{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
	{ .start = 11, .sp_base = true, .count = 1, .words = { 16 } },
};

static const struct sfw_fre wide_fres[3] = {
	{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
	{ .start = 0x300, .sp_base = true, .count = 2, .words = { 0x2010, -16 } },
	{ .start = 0x400, .sp_base = false, .count = 2, .words = { 16, -0x10000 } },
};

static void check_version(const struct sfw_fde *fdes, unsigned int n, uint8_t version,
			  bool pcrel)
{
	struct sfw_section s = sfw_amd64(version, pcrel, SEC);
	struct sfw_layout lay;
	uint8_t buf[2048];
	size_t len;
	sframe_decoder_ctx *d;
	int err = 0;

	s.fdes = fdes;
	s.nfdes = n;
	len = sfw_write(&s, buf, sizeof(buf), &lay);
	cr_assert_gt(len, 0);
	d = sframe_decode((const char *)buf, len, &err);
	cr_assert_not_null(d, "libsframe, v%u: %s", version, sframe_errmsg(err));
	cr_assert_eq(sframe_decoder_get_num_fidx(d), n);
	cr_assert_eq(sframe_decoder_get_fixed_ra_offset(d), -8);
	for (unsigned int i = 0; i < n; i++) {
		struct lsf_fde f;

		cr_assert_eq(lsf_fde_at(d, i, &f), 0);
		cr_assert_eq(lsf_fde_addr(d, SEC, i, &f), fdes[i].func_start, "v%u FDE %u", version,
			     i);
		cr_assert_eq(f.size, fdes[i].func_size);
		cr_assert_eq(f.num_fres, fdes[i].nfres);
		cr_assert_eq((f.info >> 4) & 1, fdes[i].pcmask);
		for (unsigned int j = 0; j < f.num_fres; j++) {
			const struct sfw_fre *w = &fdes[i].fres[j];
			sframe_frame_row_entry fre;

			cr_assert_eq(sframe_decoder_get_fre(d, i, j, &fre), 0, "v%u FDE %u FRE %u",
				     version, i, j);
			cr_assert_eq(fre.fre_start_addr, w->start, "v%u FDE %u FRE %u", version, i, j);
			cr_assert_eq(sframe_fre_get_base_reg_id(&fre, &err), w->sp_base);
			cr_assert_eq(lsf_cfa_offset(d, &fre, f.type, &err), w->words[0]);
			err = 0;
			if (w->count > 1)
				cr_assert_eq(lsf_fp_offset(d, &fre, f.type, &err), w->words[1]);
			else
				lsf_fp_offset(d, &fre, f.type, &err);
			cr_assert_eq(err != 0, w->count < 2, "FP offset present iff written");
		}
	}
	sframe_decoder_free(&d);
}

/*
 * Every version libsframe reads whole: its own (SFRAME_VERSION: v1 in binutils
 * 2.40, v2 in 2.41-2.44, whose FDE reader no longer knows v1's layout, v3 in
 * 2.46+) and, from 2.45 on, v2 with and without FDE_FUNC_START_PCREL.
 * Returns how many were checked.
 */
static int check_against_libsframe(const struct sfw_fde *fdes, unsigned int n)
{
	int versions = 1;

	check_version(fdes, n, SFRAME_VERSION, SFRAME_VERSION >= 3);
#if LIBSFRAME_API >= 245
	check_version(fdes, n, 2, false);
	check_version(fdes, n, 2, true);
	versions += 2;
#endif
	return versions;
}

Test(libsframe_roundtrip, fp_functions)
{
	struct sfw_fde fdes[8];

	sample_functions(fdes, 8, TEXT, 48);
	cr_assert_geq(check_against_libsframe(fdes, 8), 1);
}

Test(libsframe_roundtrip, plt_and_wide_offsets)
{
	struct sfw_fde fdes[3] = {
		{ .func_start = TEXT, .func_size = 64, .pcmask = true, .rep_size = 16, .nfres = 2,
		  .fres = plt_fres },
		{ .func_start = TEXT + 0x100, .func_size = 0x500, .fre_type = -1, .nfres = 3,
		  .fres = wide_fres },
		{ .func_start = TEXT + 0x1000, .func_size = 0x20000, .fre_type = -1, .nfres = 3,
		  .fres = wide_fres },
	};

	cr_assert_geq(check_against_libsframe(fdes, 3), 1);
}
