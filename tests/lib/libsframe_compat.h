/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libsframe, the second SFrame decoder the tests compare with, changed its
 * API in binutils 2.45: FDEs are read per version (get_funcdesc_v2/_v3, with
 * 64-bit start offsets), the FRE getters take the FDE type (v3 FLEX),
 * fre_offsets became fre_datawords, and the encoder's add_funcdesc and write
 * took other arguments. make's configuration step finds which one this
 * machine has: LIBSFRAME_API is 240 (binutils 2.40-2.44) or 245 (2.45+).
 *
 * The versions each reads whole differ too: 2.40 reads SFrame v1, 2.41-2.44
 * v2 (v1 headers, but FDEs in v2's layout), 2.45+ v2 (with and without
 * FDE_FUNC_START_PCREL) and v3.
 */
#ifndef TESTS_LIBSFRAME_COMPAT_H
#define TESTS_LIBSFRAME_COMPAT_H

#include <sframe.h>
#include <sframe-api.h>
#include <stdint.h>

#ifndef LIBSFRAME_API
#error "LIBSFRAME_API is set by the Makefile (build/config.mk)"
#endif

#if LIBSFRAME_API >= 245
#define LSF_FRE_DATA(fre)	((fre)->fre_datawords)
/* what the encoder writes: 2.45 v2 with PCREL, 2.46+ v3 only */
#define LSF_ENCODE_VERSION	SFRAME_VERSION
#define LSF_ENCODE_FLAGS	(SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL)
#define LSF_FDE_TYPE_FLEX	SFRAME_FDE_TYPE_FLEX
#else
#define LSF_FRE_DATA(fre)	((fre)->fre_offsets)
#define LSF_ENCODE_VERSION	SFRAME_VERSION	/* 2.40: v1; 2.41-2.44: v2 */
#define LSF_ENCODE_FLAGS	SFRAME_F_FDE_SORTED
#define LSF_FDE_TYPE_FLEX	UINT32_MAX	/* no FLEX FDEs before v3 */
#endif

/**
 * struct lsf_fde - one FDE as libsframe reports it
 * @start: the function start as stored: relative to the section start, or,
 *	with SFRAME_F_FDE_FUNC_START_PCREL (v2 of 2.45, v3), to the FDE's own
 *	start field (lsf_fde_addr() makes it an address)
 * @size: function size in bytes
 * @num_fres: FREs of the function
 * @info: the function info byte (FRE type, PC type)
 * @type: the FDE type to give the FRE getters (v3 DEFAULT or FLEX; 0 before)
 */
struct lsf_fde {
	int64_t start;
	uint32_t size;
	uint32_t num_fres;
	unsigned char info;
	uint32_t type;
};

/* The @i'th FDE of @d; 0 or libsframe's error. */
static inline int lsf_fde_at(sframe_decoder_ctx *d, unsigned int i, struct lsf_fde *f)
{
#if LIBSFRAME_API >= 245
	unsigned char info2 = 0;
	uint8_t rep;
	int32_t start32;
	int err;

	f->type = 0;
	if (sframe_decoder_get_version(d) == SFRAME_VERSION_3) {
		err = sframe_decoder_get_funcdesc_v3(d, i, &f->num_fres, &f->size, &f->start,
						     &f->info, &info2, &rep);
		f->type = SFRAME_V3_FDE_TYPE(info2);
		return err;
	}
	err = sframe_decoder_get_funcdesc_v2(d, i, &f->num_fres, &f->size, &start32, &f->info,
					     &rep);
	f->start = start32;
	return err;
#else
	int32_t start32;
	int err = sframe_decoder_get_funcdesc(d, i, &f->num_fres, &f->size, &start32, &f->info);

	f->start = start32;
	f->type = 0;
	return err;
#endif
}

/* The address of @f's function, for a section loaded at @sec_addr. */
static inline uint64_t lsf_fde_addr(sframe_decoder_ctx *d, uint64_t sec_addr, unsigned int i,
				    const struct lsf_fde *f)
{
#if LIBSFRAME_API >= 245
	int err = 0;

	if (sframe_decoder_get_flags(d) & SFRAME_F_FDE_FUNC_START_PCREL)
		return sec_addr + sframe_decoder_get_offsetof_fde_start_addr(d, i, &err) +
		       (uint64_t)f->start;
#else
	(void)d;
	(void)i;
#endif
	return sec_addr + (uint64_t)f->start;
}

/* The FRE of @d covering @pc, an offset from the section start; 0 if found. */
static inline int lsf_find_fre(sframe_decoder_ctx *d, int64_t pc, sframe_frame_row_entry *fre)
{
#if LIBSFRAME_API >= 245
	return sframe_find_fre(d, pc, fre);
#else
	return sframe_find_fre(d, (int32_t)pc, fre);
#endif
}

#if LIBSFRAME_API >= 245
#define lsf_cfa_offset(d, fre, type, err)	sframe_fre_get_cfa_offset(d, fre, type, err)
#define lsf_fp_offset(d, fre, type, err)	sframe_fre_get_fp_offset(d, fre, type, err)
#define lsf_ra_offset(d, fre, type, err)	sframe_fre_get_ra_offset(d, fre, type, err)
#else
#define lsf_cfa_offset(d, fre, type, err)	((void)(type), sframe_fre_get_cfa_offset(d, fre, err))
#define lsf_fp_offset(d, fre, type, err)	((void)(type), sframe_fre_get_fp_offset(d, fre, err))
#define lsf_ra_offset(d, fre, type, err)	((void)(type), sframe_fre_get_ra_offset(d, fre, err))
#endif

/*
 * lsf_encoder_add_fde() - add a PCINC/PCMASK FDE with @num_fres FREs to follow
 * @start: the function start relative to the section start (made relative
 *	to the FDE's own field for LSF_ENCODE_FLAGS' PCREL)
 */
static inline int lsf_encoder_add_fde(sframe_encoder_ctx *e, int32_t start, uint32_t size,
				      unsigned char info, uint32_t num_fres)
{
#if LIBSFRAME_API >= 245
	int err = 0;	/* the FDE is not there yet: its offset is still given */
	int64_t at = sframe_encoder_get_offsetof_fde_start_addr(e, sframe_encoder_get_num_fidx(e),
								&err);

	if (sframe_encoder_get_version(e) == SFRAME_VERSION_3)
		return sframe_encoder_add_funcdesc_v3(e, start - at, size, info, 0, 0, num_fres);
	return sframe_encoder_add_funcdesc_v2(e, (int32_t)(start - at), size, info, 0, num_fres);
#else
	return sframe_encoder_add_funcdesc(e, start, size, info, num_fres);
#endif
}

/* The encoded section (malloc'd by libsframe), FDEs sorted; NULL with *@err set. */
static inline char *lsf_encoder_write(sframe_encoder_ctx *e, size_t *len, int *err)
{
#if LIBSFRAME_API >= 245
	return sframe_encoder_write(e, len, 1, err);
#else
	return sframe_encoder_write(e, len, err);
#endif
}

#endif /* TESTS_LIBSFRAME_COMPAT_H */
