/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * codectl(2): registration of code ranges, their unwind data (SFrame sections,
 * JIT unwind tables) and their identity (ELF object, pathname, build id).
 * UAPI types only; the layout is the ABI contract (codectl-abi.md).
 */
#ifndef _UAPI_LINUX_CODECTL_H
#define _UAPI_LINUX_CODECTL_H

#include <linux/types.h>

/* Syscall number trapped by the emulator when the system headers lack one. */
#define CODECTL_NR_DEFAULT 1000

/* Longest build id accepted, in bytes. */
#define CODE_BUILD_ID_MAX 64

enum code_opt {
	CODE_UNREGISTER = 0,		/* info = text_start, info_size = 0 */
	CODE_REGISTER_ELF = 1,		/* struct code_elf_info */
	CODE_REGISTER_JIT = 2,		/* struct code_jit_info */
	CODE_REGISTER_SFRAME = 3,	/* struct code_sframe_info */
	CODE_REGISTER_SFRAME_FILE = 4,	/* struct code_sframe_file_info (proposed) */
};

/*
 * One executable range of an ELF object: its unwind aspect (the .sframe
 * section, optional) and its identity aspect (elf range, names, build id).
 * All addresses are in the caller's address space; ranges are [start, end).
 */
struct code_elf_info {
	__u64 elf_start;		/* lowest PT_LOAD address of the object */
	__u64 elf_end;			/* end of its highest PT_LOAD */
	__u64 text_start;		/* covered code: [text_start, text_end) */
	__u64 text_end;
	__u64 sframe_start;		/* mapped .sframe; 0,0 = none */
	__u64 sframe_end;
	__u64 pathname;			/* const char *, optional (0) */
	__u64 build_id;			/* const unsigned char *, optional (0) */
	__u64 debug_link_pathname;	/* const char *, optional (0) */
	__u32 build_id_len;		/* bytes at build_id, <= CODE_BUILD_ID_MAX */
	__u32 debug_link_crc;		/* CRC32 of the .gnu_debuglink target */
};
#define CODE_ELF_INFO_SIZE_VER0 80

/* Unwind aspect only: an SFrame section for one text range (split model). */
struct code_sframe_info {
	__u64 text_start;
	__u64 text_end;
	__u64 sframe_start;
	__u64 sframe_end;
};
#define CODE_SFRAME_INFO_SIZE_VER0 32

/*
 * Unwind aspect only, the SFrame section in a file of the caller's rather
 * than in its memory (the emulator's proposal for the RFC's "future
 * code_opt"): [offset, offset + length) of the file open at @fd holds the
 * section, plain or block-compressed (struct code_sframe_blocks).
 */
struct code_sframe_file_info {
	__u64 text_start;		/* covered code: [text_start, text_end) */
	__u64 text_end;
	__u64 sframe_addr;		/* where the section would be loaded: its
					   function starts are relative to it */
	__u64 offset;			/* of the data in the file, bytes */
	__u64 length;			/* bytes of data in the file */
	__u64 size;			/* bytes of the section, uncompressed */
	__u64 build_id;			/* const unsigned char *, optional (0): the
					   build id the text's object must have */
	__u32 build_id_len;		/* bytes at build_id, <= CODE_BUILD_ID_MAX */
	__s32 fd;			/* the caller's descriptor, open for reading */
	__u32 compression;		/* CODE_SFRAME_COMPRESS_* */
	__u32 flags;			/* none defined: 0 */
};
#define CODE_SFRAME_FILE_INFO_SIZE_VER0 72

#define CODE_SFRAME_COMPRESS_NONE	0	/* the section's bytes as they are */
#define CODE_SFRAME_COMPRESS_ZLIB	1	/* blocks in the zlib format (RFC 1950) */
#define CODE_SFRAME_COMPRESS_ZSTD	2	/* blocks in the zstd format (RFC 8878) */

/*
 * Compressed data: this header, the index of its blocks, then the blocks,
 * each compressed on its own. Block 0 holds the section from its first byte
 * up to its FRE sub-section (header, auxiliary header, FDEs); the others
 * hold the FRE sub-section in pieces of block_size bytes (the last may be
 * shorter). All little-endian.
 */
struct code_sframe_blocks {
	__u32 magic;			/* CODE_SFRAME_BLOCKS_MAGIC */
	__u16 version;			/* CODE_SFRAME_BLOCKS_VERSION */
	__u16 reserved;			/* 0 */
	__u32 nblocks;			/* entries of the index that follows */
	__u32 block_size;		/* bytes of each FRE block, uncompressed */
	__u64 size;			/* bytes of the section, uncompressed */
};
#define CODE_SFRAME_BLOCKS_MAGIC	0x4b4c4253u	/* "SBLK" */
#define CODE_SFRAME_BLOCKS_VERSION	1
#define CODE_SFRAME_BLOCK_SIZE_MIN	4096
#define CODE_SFRAME_BLOCK_SIZE_MAX	(1u << 20)

/* One entry of the index. */
struct code_sframe_block {
	__u64 offset;			/* of its compressed bytes, from the data's start */
	__u32 length;			/* compressed bytes */
	__u32 size;			/* bytes it holds, uncompressed */
};

/* Unwind aspect of a JIT code area, described by a chain of unwind tables. */
struct code_jit_info {
	__u64 text_start;		/* JIT code area */
	__u64 text_end;
	__u64 unwind_head;		/* first struct code_jit_unwind_table */
};
#define CODE_JIT_INFO_SIZE_VER0 24

/* Header of one JIT unwind table: 32 bytes, 8-byte aligned, fre[] follows. */
struct code_jit_unwind_table {
	__u64 reserved_len;		/* bytes reserved for fre[] */
	__u64 used_len;			/* bytes of fre[] published (store-release) */
	__u64 next;			/* next table in the chain, 0 = none */
	__u32 fre_stride;		/* bytes from one fre to the next */
	__u32 fre_size;			/* bytes of each fre the writer fills */
};

/*
 * One JIT frame row entry: the rule for [ip_off, ip_off + size). A writer fills
 * CODE_JIT_FRE_SIZE_VER0 bytes of each; an array of this struct has the
 * natural stride (24 bytes).
 */
struct code_jit_unwind_fre {
	__u32 size;			/* code bytes covered */
	__u32 ip_off;			/* offset from text_start */
	__s32 cfa_off;			/* CFA = base + cfa_off */
	__s32 ra_off;			/* RA at CFA + ra_off (if RA_SAVED) */
	__s32 fp_off;			/* caller FP at CFA + fp_off (if FP_SAVED) */
	__u8 info;			/* CODE_JIT_FRE_* bits */
};
#define CODE_JIT_FRE_SIZE_VER0 21

#define CODE_JIT_FRE_CFA_BASE_FP	0x1	/* CFA base is FP, else SP */
#define CODE_JIT_FRE_RA_SAVED		0x2	/* else arch default (x86_64: CFA - 8) */
#define CODE_JIT_FRE_FP_SAVED		0x4	/* else FP unchanged in the caller */
#define CODE_JIT_FRE_OUTERMOST		0x8	/* no caller: the unwind ends here */

/* The layout, checked where _Static_assert is standard (C11 and later). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#include <stddef.h>
_Static_assert(sizeof(struct code_elf_info) == CODE_ELF_INFO_SIZE_VER0, "code_elf_info size");
_Static_assert(offsetof(struct code_elf_info, elf_start) == 0, "elf_start");
_Static_assert(offsetof(struct code_elf_info, elf_end) == 8, "elf_end");
_Static_assert(offsetof(struct code_elf_info, text_start) == 16, "text_start");
_Static_assert(offsetof(struct code_elf_info, text_end) == 24, "text_end");
_Static_assert(offsetof(struct code_elf_info, sframe_start) == 32, "sframe_start");
_Static_assert(offsetof(struct code_elf_info, sframe_end) == 40, "sframe_end");
_Static_assert(offsetof(struct code_elf_info, pathname) == 48, "pathname");
_Static_assert(offsetof(struct code_elf_info, build_id) == 56, "build_id");
_Static_assert(offsetof(struct code_elf_info, debug_link_pathname) == 64, "debug_link");
_Static_assert(offsetof(struct code_elf_info, build_id_len) == 72, "build_id_len");
_Static_assert(offsetof(struct code_elf_info, debug_link_crc) == 76, "debug_link_crc");

_Static_assert(sizeof(struct code_sframe_info) == CODE_SFRAME_INFO_SIZE_VER0, "sframe_info");
_Static_assert(offsetof(struct code_sframe_info, text_start) == 0, "text_start");
_Static_assert(offsetof(struct code_sframe_info, text_end) == 8, "text_end");
_Static_assert(offsetof(struct code_sframe_info, sframe_start) == 16, "sframe_start");
_Static_assert(offsetof(struct code_sframe_info, sframe_end) == 24, "sframe_end");

_Static_assert(sizeof(struct code_sframe_file_info) == CODE_SFRAME_FILE_INFO_SIZE_VER0, "file info");
_Static_assert(offsetof(struct code_sframe_file_info, sframe_addr) == 16, "sframe_addr");
_Static_assert(offsetof(struct code_sframe_file_info, offset) == 24, "offset");
_Static_assert(offsetof(struct code_sframe_file_info, length) == 32, "length");
_Static_assert(offsetof(struct code_sframe_file_info, size) == 40, "size");
_Static_assert(offsetof(struct code_sframe_file_info, build_id) == 48, "build_id");
_Static_assert(offsetof(struct code_sframe_file_info, build_id_len) == 56, "build_id_len");
_Static_assert(offsetof(struct code_sframe_file_info, fd) == 60, "fd");
_Static_assert(offsetof(struct code_sframe_file_info, compression) == 64, "compression");
_Static_assert(offsetof(struct code_sframe_file_info, flags) == 68, "flags");
_Static_assert(sizeof(struct code_sframe_blocks) == 24, "blocks header size");
_Static_assert(offsetof(struct code_sframe_blocks, nblocks) == 8, "nblocks");
_Static_assert(offsetof(struct code_sframe_blocks, block_size) == 12, "block_size");
_Static_assert(offsetof(struct code_sframe_blocks, size) == 16, "size");
_Static_assert(sizeof(struct code_sframe_block) == 16, "block entry size");

_Static_assert(sizeof(struct code_jit_info) == CODE_JIT_INFO_SIZE_VER0, "code_jit_info size");
_Static_assert(offsetof(struct code_jit_info, text_start) == 0, "text_start");
_Static_assert(offsetof(struct code_jit_info, text_end) == 8, "text_end");
_Static_assert(offsetof(struct code_jit_info, unwind_head) == 16, "unwind_head");

_Static_assert(sizeof(struct code_jit_unwind_table) == 32, "table header size");
_Static_assert(offsetof(struct code_jit_unwind_table, reserved_len) == 0, "reserved_len");
_Static_assert(offsetof(struct code_jit_unwind_table, used_len) == 8, "used_len");
_Static_assert(offsetof(struct code_jit_unwind_table, next) == 16, "next");
_Static_assert(offsetof(struct code_jit_unwind_table, fre_stride) == 24, "fre_stride");
_Static_assert(offsetof(struct code_jit_unwind_table, fre_size) == 28, "fre_size");

_Static_assert(sizeof(struct code_jit_unwind_fre) == 24, "jit fre natural stride");
_Static_assert(offsetof(struct code_jit_unwind_fre, size) == 0, "size");
_Static_assert(offsetof(struct code_jit_unwind_fre, ip_off) == 4, "ip_off");
_Static_assert(offsetof(struct code_jit_unwind_fre, cfa_off) == 8, "cfa_off");
_Static_assert(offsetof(struct code_jit_unwind_fre, ra_off) == 12, "ra_off");
_Static_assert(offsetof(struct code_jit_unwind_fre, fp_off) == 16, "fp_off");
_Static_assert(offsetof(struct code_jit_unwind_fre, info) + 1 == CODE_JIT_FRE_SIZE_VER0, "info");
#endif

#endif /* _UAPI_LINUX_CODECTL_H */
