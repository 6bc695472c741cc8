// SPDX-License-Identifier: GPL-2.0
/* process_vm_readv(2) accessor: copy_from_user for a traced process. */
#include <errno.h>
#include <sys/uio.h>

#include "remote_mem.h"

static int remote_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct remote_mem *rm = ctx;
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n;

	rm->reads++;
	n = process_vm_readv(rm->pid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && errno != EFAULT && errno != ESRCH && !rm->internal_err)
		rm->internal_err = errno;
	return -EFAULT;
}

struct emu_accessor remote_mem_accessor(struct remote_mem *rm)
{
	return (struct emu_accessor){ .read = remote_read, .ctx = rm };
}
