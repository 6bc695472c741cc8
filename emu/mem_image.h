/* SPDX-License-Identifier: GPL-2.0 */
/* An accessor over in-memory copies of tracee memory (tests, stack snapshots). */
#ifndef EMU_MEM_IMAGE_H
#define EMU_MEM_IMAGE_H

#include "accessor.h"

#define EMU_MEM_IMAGE_MAX_REGIONS 16

/**
 * struct emu_mem_region - @len bytes at @data stand for tracee [@addr, @addr + @len)
 * The bytes are borrowed: the caller keeps them alive while the image is used.
 */
struct emu_mem_region {
	uint64_t addr;
	const void *data;
	size_t len;
};

/**
 * struct emu_mem_image - a set of regions, then an optional fallback accessor
 * @regions: at most EMU_MEM_IMAGE_MAX_REGIONS, in any order
 * @fallback: asked for reads no region wholly covers; NULL = -EFAULT
 * @fallback_reads: number of reads passed to @fallback (statistics)
 */
struct emu_mem_image {
	struct emu_mem_region regions[EMU_MEM_IMAGE_MAX_REGIONS];
	unsigned int nregions;
	const struct emu_accessor *fallback;
	uint64_t fallback_reads;
};

/**
 * emu_mem_image_add() - add a region to @img
 * Return: 0, or -ENOSPC when the image already holds the maximum of regions.
 */
int emu_mem_image_add(struct emu_mem_image *img, uint64_t addr, const void *data, size_t len);

/** emu_mem_image_accessor() - an accessor reading from @img (which must outlive it). */
struct emu_accessor emu_mem_image_accessor(struct emu_mem_image *img);

#endif /* EMU_MEM_IMAGE_H */
