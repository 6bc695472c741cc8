// SPDX-License-Identifier: GPL-2.0
/* Sections written by the test writer in v1 read back by libsframe 2.40, field by field. */
#include <criterion/criterion.h>
#include <sframe.h>
#include <sframe-api.h>

#include "emu/emu.h"
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

static void check_against_libsframe(const struct sfw_fde *fdes, unsigned int n)
{
	struct sfw_section s = sfw_amd64(1, false, SEC);
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
	cr_assert_not_null(d, "libsframe: %s", sframe_errmsg(err));
	cr_assert_eq(sframe_decoder_get_num_fidx(d), n);
	cr_assert_eq(sframe_decoder_get_fixed_ra_offset(d), -8);
	for (unsigned int i = 0; i < n; i++) {
		uint32_t nfres, fsize;
		int32_t fstart;
		unsigned char info;

		cr_assert_eq(sframe_decoder_get_funcdesc(d, i, &nfres, &fsize, &fstart, &info), 0);
		cr_assert_eq(SEC + (int64_t)fstart, fdes[i].func_start);
		cr_assert_eq(fsize, fdes[i].func_size);
		cr_assert_eq(nfres, fdes[i].nfres);
		cr_assert_eq((info >> 4) & 1, fdes[i].pcmask);
		for (unsigned int j = 0; j < nfres; j++) {
			const struct sfw_fre *w = &fdes[i].fres[j];
			sframe_frame_row_entry fre;

			cr_assert_eq(sframe_decoder_get_fre(d, i, j, &fre), 0);
			cr_assert_eq(fre.fre_start_addr, w->start);
			cr_assert_eq(sframe_fre_get_base_reg_id(&fre, &err), w->sp_base);
			cr_assert_eq(sframe_fre_get_cfa_offset(d, &fre, &err), w->words[0]);
			err = 0;
			if (w->count > 1)
				cr_assert_eq(sframe_fre_get_fp_offset(d, &fre, &err), w->words[1]);
			else
				sframe_fre_get_fp_offset(d, &fre, &err);
			cr_assert_eq(err != 0, w->count < 2, "FP offset present iff written");
		}
	}
	sframe_decoder_free(&d);
}

Test(libsframe_roundtrip, fp_functions)
{
	struct sfw_fde fdes[8];

	sample_functions(fdes, 8, TEXT, 48);
	check_against_libsframe(fdes, 8);
}

Test(libsframe_roundtrip, plt_and_wide_offsets)
{
	struct sfw_fde fdes[3] = {
		{ .func_start = TEXT, .func_size = 64, .pcmask = true, .nfres = 2, .fres = plt_fres },
		{ .func_start = TEXT + 0x100, .func_size = 0x500, .fre_type = -1, .nfres = 3,
		  .fres = wide_fres },
		{ .func_start = TEXT + 0x1000, .func_size = 0x20000, .fre_type = -1, .nfres = 3,
		  .fres = wide_fres },
	};

	check_against_libsframe(fdes, 3);
}
