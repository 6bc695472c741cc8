/* SPDX-License-Identifier: GPL-2.0 */
/* Reading another process's memory with process_vm_readv(2). */
#ifndef SUPERVISOR_TRACE_REMOTE_MEM_H
#define SUPERVISOR_TRACE_REMOTE_MEM_H

#include <stdint.h>
#include <sys/types.h>

#include "emu/accessor.h"

/**
 * struct remote_mem - an accessor's context: the process and read statistics
 * @pid: the process read (any thread id of it)
 * @reads: process_vm_readv(2) calls made
 * @internal_err: the errno of a read that failed for a reason of the
 *	reader's, not the process's (ENOMEM, EPERM, ...: no EFAULT, no ESRCH);
 *	0 when none did
 */
struct remote_mem {
	pid_t pid;
	uint64_t reads;
	int internal_err;
};

/**
 * remote_mem_accessor() - an emu accessor reading @rm->pid's memory
 * A read succeeds only if every byte is copied (a short read is -EFAULT);
 * a failure that is not the process's is -EFAULT too, and kept in
 * @rm->internal_err for the caller, which must not take it for "unmapped".
 */
struct emu_accessor remote_mem_accessor(struct remote_mem *rm);

#endif /* SUPERVISOR_TRACE_REMOTE_MEM_H */
