/* SPDX-License-Identifier: GPL-2.0 */
/* Reading another process's memory with process_vm_readv(2). */
#ifndef SUPERVISOR_TRACE_REMOTE_MEM_H
#define SUPERVISOR_TRACE_REMOTE_MEM_H

#include <stdint.h>
#include <sys/types.h>

#include "emu/accessor.h"
#include "slow_read.h"

/**
 * struct remote_mem_fds - a process's procfs files its readers keep open,
 * each opened on first use (-1: not yet; -2: cannot be)
 * @pagemap: /proc/PID/pagemap: which pages are present
 * @maps: /proc/PID/maps: its PROCMAP_QUERY (Linux 6.11) tells a mapping's file
 */
struct remote_mem_fds {
	int pagemap;
	int maps;
};

/**
 * remote_mem_maps_fd() - @fds' /proc/@pid/maps (any thread of the process),
 * opened on first use: it stays on the address space it was opened on
 * Return: the descriptor (owned by @fds), or negative when it cannot be opened.
 */
int remote_mem_maps_fd(struct remote_mem_fds *fds, pid_t pid);

/**
 * remote_mem_fds_close() - close @fds' files (an address space gone, or
 * replaced by an execve) and mark them not yet opened
 */
void remote_mem_fds_close(struct remote_mem_fds *fds);

/**
 * struct remote_mem - an accessor's context: the process and read statistics
 * @pid: the process read (any thread id of it)
 * @reads: process_vm_readv(2) calls made
 * @internal_err: the errno of a read that failed for a reason of the
 *	reader's, not the process's (ENOMEM, EPERM, ...: no EFAULT, no ESRCH;
 *	EAGAIN: a read that may wait, with no room to let it); 0 when none did
 * @done_fd: an eventfd: reads of pages that are not present, outside a
 *	file on a block device, run on a thread of their own (slow_read.h)
 *	and write to it when done; -1: such a read fails (EAGAIN in
 *	@internal_err: no room for another read aside)
 * @parked: a read that did not finish in SLOW_READ_WAIT_MS; it goes on, and
 *	the reads after it fail at once: the caller discards what it read and
 *	tries again once @parked is done (slow_read_done())
 * @fds: where the process's procfs files are kept (the caller's: its
 *	address space's, not closed here)
 */
struct remote_mem {
	pid_t pid;
	uint64_t reads;
	int internal_err;
	int done_fd;
	struct slow_read *parked;
	struct remote_mem_fds *fds;
};

/**
 * remote_mem_init() - a reader of process @pid's memory; with @fds (not
 * NULL: it keeps the process's descriptors), a read of pages that are not
 * present goes aside through @done_fd (see above) unless they are of a file
 * on a block device (slow_read_on_block_device()); with NULL every read is
 * made in place, and may wait (tests, a process stopped at exec)
 */
void remote_mem_init(struct remote_mem *rm, pid_t pid, int done_fd, struct remote_mem_fds *fds);

/**
 * remote_mem_accessor() - an emu accessor reading @rm->pid's memory
 * A read succeeds only if every byte is copied (a short read is -EFAULT);
 * a failure that is not the process's is -EFAULT too, and kept in
 * @rm->internal_err for the caller, which must not take it for "unmapped".
 */
struct emu_accessor remote_mem_accessor(struct remote_mem *rm);

#endif /* SUPERVISOR_TRACE_REMOTE_MEM_H */
