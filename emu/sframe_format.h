/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame on-disk format, versions 1, 2 and 3: byte offsets and bit fields
 * (binutils libsframe/doc/sframe-spec, "SFrame Section"). Little-endian
 * sections only; fields are read unaligned.
 */
#ifndef EMU_SFRAME_FORMAT_H
#define EMU_SFRAME_FORMAT_H

#define EMU_SF_MAGIC			0xdee2
#define EMU_SF_MAGIC_SWAPPED		0xe2de

/* Preamble and header: 28 bytes, then auxhdr_len bytes (spec 2.1, 2.2). */
#define EMU_SF_HDR_MAGIC		0x00	/* u16 */
#define EMU_SF_HDR_VERSION		0x02	/* u8 */
#define EMU_SF_HDR_FLAGS		0x03	/* u8 */
#define EMU_SF_HDR_ABI			0x04	/* u8 */
#define EMU_SF_HDR_FIXED_FP		0x05	/* s8 */
#define EMU_SF_HDR_FIXED_RA		0x06	/* s8 */
#define EMU_SF_HDR_AUXHDR_LEN		0x07	/* u8 */
#define EMU_SF_HDR_NUM_FDES		0x08	/* u32 */
#define EMU_SF_HDR_NUM_FRES		0x0c	/* u32 */
#define EMU_SF_HDR_FRE_LEN		0x10	/* u32 */
#define EMU_SF_HDR_FDEOFF		0x14	/* u32, from the header end */
#define EMU_SF_HDR_FREOFF		0x18	/* u32, from the header end */
#define EMU_SF_HDR_SIZE			28

#define EMU_SF_F_FDE_SORTED		0x1
#define EMU_SF_F_FRAME_POINTER		0x2	/* v1/v2 only */
#define EMU_SF_F_FDE_FUNC_START_PCREL	0x4	/* v2 erratum (binutils 2.45), v3 */
#define EMU_SF_V1_F_ALL			0x3
#define EMU_SF_V2_F_ALL			0x7
#define EMU_SF_V3_F_ALL			0x5

#define EMU_SF_ABI_AARCH64_BE		1
#define EMU_SF_ABI_AARCH64_LE		2
#define EMU_SF_ABI_AMD64_LE		3
#define EMU_SF_ABI_S390X_BE		4

/* v1 FDE: 17 bytes packed; v2: 20 bytes (spec 2.3). */
#define EMU_SF_FDE_START		0	/* s32 (v1/v2), s64 (v3) */
#define EMU_SF_FDE_SIZE			4	/* u32 (v1/v2); v3 at 8 */
#define EMU_SF_FDE_FRE_OFF		8	/* u32 (v1/v2); v3 at 12 */
#define EMU_SF_FDE_NUM_FRES		12	/* u32 (v1/v2 only) */
#define EMU_SF_FDE_INFO			16	/* u8 (v1/v2 only) */
#define EMU_SF_FDE_REP_SIZE		17	/* u8 (v2 only) */
#define EMU_SF_V1_FDE_SIZE		17
#define EMU_SF_V2_FDE_SIZE		20

/* v3: 16-byte index entry, and a 5-byte attribute record ahead of the FREs. */
#define EMU_SF_V3_IDX_START		0	/* s64 */
#define EMU_SF_V3_IDX_SIZE		8	/* u32 */
#define EMU_SF_V3_IDX_FRE_OFF		12	/* u32, points at the attribute record */
#define EMU_SF_V3_IDX_ENTRY_SIZE	16
#define EMU_SF_V3_ATTR_NUM_FRES		0	/* u16 */
#define EMU_SF_V3_ATTR_INFO		2	/* u8 */
#define EMU_SF_V3_ATTR_INFO2		3	/* u8 */
#define EMU_SF_V3_ATTR_REP_SIZE		4	/* u8 */
#define EMU_SF_V3_ATTR_SIZE		5

/* FDE info byte (v1/v2 func_info, v3 attribute info). */
#define EMU_SF_INFO_FRE_TYPE(i)		((i) & 0xf)	/* 0/1/2: 1/2/4-byte FRE starts */
#define EMU_SF_INFO_PCMASK(i)		(((i) >> 4) & 0x1)
#define EMU_SF_INFO_PAUTH_KEY_B(i)	(((i) >> 5) & 0x1)
#define EMU_SF_INFO_SIGNAL(i)		(((i) >> 7) & 0x1)	/* v3 only */
#define EMU_SF_FRE_TYPE_ADDR4		2

/* v3 attribute info2: the FDE type. */
#define EMU_SF_V3_FDE_TYPE(i2)		((i2) & 0x1f)
#define EMU_SF_V3_FDE_TYPE_DEFAULT	0
#define EMU_SF_V3_FDE_TYPE_FLEX		1

/* FRE info byte (spec 2.4.1). */
#define EMU_SF_FRE_BASE_SP(i)		((i) & 0x1)	/* else FP */
#define EMU_SF_FRE_COUNT(i)		(((i) >> 1) & 0xf)
#define EMU_SF_FRE_OFFSET_SIZE(i)	(((i) >> 5) & 0x3)	/* 0/1/2: 1/2/4 bytes */
#define EMU_SF_FRE_MANGLED_RA(i)	(((i) >> 7) & 0x1)
#define EMU_SF_FRE_OFFSET_4B		2

/* v3 FLEX control word: reg_p, deref_p, reserved bit, DWARF register. */
#define EMU_SF_FLEX_REG_P(c)		((c) & 0x1)
#define EMU_SF_FLEX_DEREF_P(c)		(((c) >> 1) & 0x1)
#define EMU_SF_FLEX_RESERVED(c)		(((c) >> 2) & 0x1)
#define EMU_SF_FLEX_REGNUM(c)		((c) >> 3)
#define EMU_SF_FLEX_MAX_WORDS		6

/* v1 has no repetition size; PLT entries repeat every 16 bytes (AMD64, AArch64). */
#define EMU_SF_V1_PCMASK_REP_SIZE	16

#endif /* EMU_SFRAME_FORMAT_H */
