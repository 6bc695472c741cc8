/* SPDX-License-Identifier: MIT */
/*
 * A file of SFrame kept apart from its object, as debug information is
 * (sframe-extract(1)): this header, then at @offset the data that
 * CODE_REGISTER_SFRAME_FILE reads (the .sframe section as it is, or
 * block-compressed: struct code_sframe_blocks). A loader finds it by the
 * object's build id, DIR/.build-id/xx/rest.sframe (xx the id's first byte in
 * hex, rest the others), and registers it with the fields below: the text
 * ranges are the object's, sframe_addr is its load bias + @sframe_vaddr.
 * All little-endian.
 */
#ifndef CODECTL_SFRAME_FILE_H
#define CODECTL_SFRAME_FILE_H

#include <linux/codectl.h>

#define CODECTL_SFRAME_FILE_MAGIC "SFRMFILE"	/* 8 bytes, no NUL */
#define CODECTL_SFRAME_FILE_VERSION 1
/* Where the data starts in the files sframe-extract writes (offset may be larger). */
#define CODECTL_SFRAME_FILE_HDR_SIZE 128

struct codectl_sframe_file {
	char magic[8];			/* CODECTL_SFRAME_FILE_MAGIC */
	__u32 version;			/* CODECTL_SFRAME_FILE_VERSION */
	__u32 compression;		/* CODE_SFRAME_COMPRESS_* */
	__u64 sframe_vaddr;		/* the section's address in the object (sh_addr) */
	__u64 offset;			/* of the data in this file */
	__u64 length;			/* bytes of data */
	__u64 size;			/* bytes of the section, uncompressed */
	__u32 build_id_len;		/* bytes of build_id used */
	__u32 reserved;			/* 0 */
	__u8 build_id[CODE_BUILD_ID_MAX];	/* the object's build id */
};

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#include <stddef.h>
_Static_assert(sizeof(struct codectl_sframe_file) == 120, "codectl_sframe_file size");
_Static_assert(offsetof(struct codectl_sframe_file, sframe_vaddr) == 16, "sframe_vaddr");
_Static_assert(offsetof(struct codectl_sframe_file, build_id) == 56, "build_id");
#endif

#endif /* CODECTL_SFRAME_FILE_H */
