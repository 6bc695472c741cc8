// SPDX-License-Identifier: GPL-2.0
/* PROCMAP_QUERY: one mapping of a process asked of the kernel. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "procfs.h"
#include "procmap_query.h"

/*
 * PROCMAP_QUERY's argument (include/uapi/linux/fs.h, Linux 6.11; declared
 * here for the older headers of Debian 12): in, @size, @query_flags and
 * @query_addr (and where to put the name); out, the mapping and its file.
 */
struct vma_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
_Static_assert(sizeof(struct vma_query) == 104, "PROCMAP_QUERY's struct is 104 bytes");
#define VMA_QUERY _IOWR('f', 17, struct vma_query)

#define QUERY_COVERING_OR_NEXT_VMA 0x10	/* query_flags: the mapping above when none holds it */
#define VMA_PROT_BITS 0x7		/* vma_flags: readable 1, writable 2, executable 4 */

/* An anonymous mapping's name ("[vdso]", "[heap]", "[anon:...]"): is it the vDSO? */
static bool is_vdso(int maps_fd, uint64_t addr)
{
	char name[128];
	struct vma_query q = { .size = sizeof(q), .query_addr = addr,
			       .vma_name_size = sizeof(name),
			       .vma_name_addr = (uint64_t)(uintptr_t)name };

	return !ioctl(maps_fd, VMA_QUERY, &q) && !strcmp(name, "[vdso]");
}

int procmap_query(int maps_fd, uint64_t addr, bool or_next, struct procmap_vma *v)
{
	struct vma_query q = { .size = sizeof(q), .query_addr = addr,
			       .query_flags = or_next ? QUERY_COVERING_OR_NEXT_VMA : 0 };

	if (maps_fd < 0)
		return -EBADF;
	if (ioctl(maps_fd, VMA_QUERY, &q))
		return -errno;
	*v = (struct procmap_vma){
		.start = q.vma_start, .end = q.vma_end, .prot = q.vma_flags & VMA_PROT_BITS,
		.ident = procfs_map_ident(q.vma_offset, q.dev_major, q.dev_minor, q.inode),
		.inode = q.inode, .dev_major = q.dev_major,
	};
	if (!q.inode && (v->prot & EMU_PROT_EXEC) && is_vdso(maps_fd, q.vma_start))
		v->prot |= EMU_VMA_VDSO;
	return 0;
}

int procmap_read_range(int maps_fd, uint64_t start, uint64_t end, struct emu_mappings *m)
{
	struct procmap_vma v;
	int err;

	while (start < end) {
		err = procmap_query(maps_fd, start, true, &v);
		if (err == -ENOENT || (!err && v.start >= end))
			return 0;
		if (err)
			return err;
		err = emu_mappings_add_ident(m, v.start, v.end, v.prot, v.ident);
		if (err)
			return err;
		start = v.end;
	}
	return 0;
}
