/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame sections kept in a file rather than in the process's memory
 * (CODE_REGISTER_SFRAME_FILE, codectl-abi.md "CODE_REGISTER_SFRAME_FILE"):
 * plain or block-compressed (struct code_sframe_blocks). Registration reads
 * what a kernel reads of a section then: the header and the FDE table
 * (block 0). A lookup reads, or decompresses, the blocks holding its
 * function's FREs, checks that function's FREs the first time, and charges
 * the blocks to the address space's budget (block_cache.h).
 */
#ifndef EMU_SFRAME_FILE_H
#define EMU_SFRAME_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "block_cache.h"
#include "sframe_section.h"

/* Bytes of each FRE block of a plain file (what a lookup reads at once). */
#define EMU_SF_FILE_BLOCK (64u << 10)

/**
 * struct emu_file - a file of the caller's, as the kernel's struct file
 * @read: copy @len bytes at file offset @off into @buf; 0, or -EIO (a short
 *	read too)
 * @release: drop the file (called once, when its last user goes)
 * @ctx: passed to both; owned by whoever made the file
 * @size: the file's size, bytes
 * @regular: a regular file; @readable: open for reading
 * @may_block: on a filesystem whose reads can wait on a process (FUSE, NFS)
 */
struct emu_file {
	int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
	void (*release)(void *ctx);
	void *ctx;
	uint64_t size;
	bool regular;
	bool readable;
	bool may_block;
};

/**
 * struct emu_sframe_file_params - where the section is in the file
 * @offset, @length: the data's bytes in the file
 * @size: the section's bytes, uncompressed
 * @compression: CODE_SFRAME_COMPRESS_*
 * @cache: the budget the blocks are charged to (a reference is taken)
 * @room: bytes the registration may keep for good (emu_sframe_kept(): its
 *	header, FDE table and index), what is left of the address space's
 *	budget; more is -ENOMEM (sframe-budget)
 */
struct emu_sframe_file_params {
	uint64_t offset;
	uint64_t length;
	uint64_t size;
	unsigned int compression;
	struct emu_block_cache *cache;
	uint64_t room;
};

/**
 * emu_sframe_load_file() - read a section's header and FDE table from @file
 *	and check them (the FREs are checked when first used)
 * @file: consumed: released on failure, else when the section goes
 * @p: as emu_sframe_load(); @p->sframe_addr is where the section would be loaded
 * @out: the new section, one reference
 *
 * Return: 0; -EIO (file-read), -EINVAL (file-blocks, or an sframe-* rule of
 * the header or an FDE), -ENOMEM (sframe-budget, or out of memory); @v names
 * the rule.
 */
int emu_sframe_load_file(const struct emu_file *file, const struct emu_sframe_file_params *fp,
			 const struct emu_sframe_params *p, struct emu_sframe_section **out,
			 struct emu_verdict *v);

/** emu_sframe_is_file() - @s is read from a file (lookups can fail on its data). */
bool emu_sframe_is_file(const struct emu_sframe_section *s);

/**
 * emu_sframe_file_fault() - why the last lookup of @s failed with -EFAULT
 *	(a block unreadable or corrupt, an FRE breaking a rule); NULL if none did
 */
const struct emu_verdict *emu_sframe_file_fault(const struct emu_sframe_section *s);

/** emu_sframe_source() - where @s's bytes come from: "memory", "file", "file,zlib", "file,zstd". */
const char *emu_sframe_source(const struct emu_sframe_section *s);

/**
 * emu_sframe_kept() - bytes of @s held for as long as it is registered: a
 *	copy's all; a file-backed section's header, FDE table, block index and
 *	room for one compressed block
 */
size_t emu_sframe_kept(const struct emu_sframe_section *s);

/** emu_sframe_resident() - bytes of @s held in memory now (all of them for a copy). */
size_t emu_sframe_resident(const struct emu_sframe_section *s);

#endif /* EMU_SFRAME_FILE_H */
