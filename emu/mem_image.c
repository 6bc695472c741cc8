// SPDX-License-Identifier: GPL-2.0
/* In-memory accessor: reads served from borrowed copies of tracee memory. */
#include <string.h>

#include "mem_image.h"

int emu_mem_image_add(struct emu_mem_image *img, uint64_t addr, const void *data, size_t len)
{
	if (img->nregions >= EMU_MEM_IMAGE_MAX_REGIONS)
		return -ENOSPC;
	img->regions[img->nregions++] = (struct emu_mem_region){ addr, data, len };
	return 0;
}

static int mem_image_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct emu_mem_image *img = ctx;
	unsigned int i;

	for (i = 0; i < img->nregions; i++) {
		const struct emu_mem_region *r = &img->regions[i];

		if (addr < r->addr || addr - r->addr > r->len || len > r->len - (addr - r->addr))
			continue;
		memcpy(buf, (const char *)r->data + (addr - r->addr), len);
		return 0;
	}
	if (!img->fallback)
		return -EFAULT;
	img->fallback_reads++;
	return emu_read(img->fallback, addr, buf, len);
}

struct emu_accessor emu_mem_image_accessor(struct emu_mem_image *img)
{
	return (struct emu_accessor){ .read = mem_image_read, .ctx = img };
}
