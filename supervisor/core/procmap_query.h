/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One mapping of a process at a time, asked of the kernel: PROCMAP_QUERY,
 * an ioctl on an open /proc/PID/maps (Linux 6.11), in place of reading and
 * parsing the whole file.
 */
#ifndef SUPERVISOR_CORE_PROCMAP_QUERY_H
#define SUPERVISOR_CORE_PROCMAP_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/mappings.h"

/**
 * struct procmap_vma - one mapping as PROCMAP_QUERY tells it
 * @start, @end: its range, [start, end), bytes
 * @prot: EMU_PROT_* (and EMU_VMA_VDSO for the vDSO)
 * @ident: the file mapped (procfs_map_ident()), 0 for anonymous memory
 * @inode, @dev_major: the file's, 0 for anonymous memory
 */
struct procmap_vma {
	uint64_t start;
	uint64_t end;
	unsigned int prot;
	uint64_t ident;
	uint64_t inode;
	uint32_t dev_major;
};

/**
 * procmap_query() - the mapping of the process behind @maps_fd (an open
 * /proc/PID/maps; the address space it was opened on, even after the
 * thread exits) that holds @addr, or with @or_next the first one above it
 * Return: 0, -ENOENT (no such mapping), -ENOTTY or -EINVAL (a kernel
 * without PROCMAP_QUERY), -EBADF (@maps_fd < 0), -ESRCH (the address space
 * is gone), or another negative errno of the ioctl.
 */
int procmap_query(int maps_fd, uint64_t addr, bool or_next, struct procmap_vma *v);

/**
 * procmap_read_range() - append to @m the mappings holding a byte of
 * [@start, @end), in address order, as procfs_maps_read() would list them
 * Return: 0 (none is not an error), -ENOMEM, or procmap_query()'s errors
 * but -ENOENT; @m may then hold some of them.
 */
int procmap_read_range(int maps_fd, uint64_t start, uint64_t end, struct emu_mappings *m);

#endif /* SUPERVISOR_CORE_PROCMAP_QUERY_H */
