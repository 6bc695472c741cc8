// SPDX-License-Identifier: GPL-2.0
/* process_vm_readv(2) accessor: copy_from_user for a traced process. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include "remote_mem.h"

void remote_mem_init(struct remote_mem *rm, pid_t pid, int done_fd, struct remote_mem_fds *fds)
{
	*rm = (struct remote_mem){ .pid = pid, .done_fd = done_fd, .fds = fds };
}

/* Process @pid's /proc/PID/@name kept in *@fd, opened on first use. */
static int proc_fd(pid_t pid, int *fd, const char *name)
{
	char path[64];

	if (*fd == -1) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
		*fd = open(path, O_RDONLY | O_CLOEXEC);
		if (*fd < 0)
			*fd = -2;
	}
	return *fd;
}

int remote_mem_maps_fd(struct remote_mem_fds *fds, pid_t pid)
{
	return proc_fd(pid, &fds->maps, "maps");
}

void remote_mem_fds_close(struct remote_mem_fds *fds)
{
	if (fds->pagemap >= 0)
		close(fds->pagemap);
	if (fds->maps >= 0)
		close(fds->maps);
	*fds = (struct remote_mem_fds){ -1, -1 };
}

/*
 * May the read wait? Only on a page that is not present, outside a file on
 * a block device (a userfaultfd range, FUSE, a network filesystem).
 */
static bool may_block(struct remote_mem *rm, uint64_t addr, size_t len)
{
	return slow_read_may_block(proc_fd(rm->pid, &rm->fds->pagemap, "pagemap"), addr, len) &&
	       !slow_read_on_block_device(remote_mem_maps_fd(rm->fds, rm->pid), addr, len);
}

/* A failure that is not the process's is kept for the caller; the read is -EFAULT. */
static int failed(struct remote_mem *rm, int err)
{
	if (err != -EFAULT && err != -ESRCH && !rm->internal_err)
		rm->internal_err = -err;
	return -EFAULT;
}

/* A read of pages that may not come in: on its own thread, waited for a while. */
static int read_aside(struct remote_mem *rm, uint64_t addr, void *buf, size_t len)
{
	struct slow_read *r;
	int err;

	if (rm->parked)
		return -EFAULT;	/* the call is tried again once that one is done */
	r = slow_read_start(rm->pid, addr, len, rm->done_fd);
	if (!r)
		return failed(rm, -EAGAIN);
	if (!slow_read_wait(r, SLOW_READ_WAIT_MS)) {
		rm->parked = r;
		return -EFAULT;
	}
	err = slow_read_finish(r, buf);
	return err ? failed(rm, err) : 0;
}

static int remote_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct remote_mem *rm = ctx;
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n;

	rm->reads++;
	if (rm->fds && may_block(rm, addr, len))
		return rm->done_fd >= 0 ? read_aside(rm, addr, buf, len) : failed(rm, -EAGAIN);
	n = process_vm_readv(rm->pid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return failed(rm, n < 0 ? -errno : -EFAULT);
}

struct emu_accessor remote_mem_accessor(struct remote_mem *rm)
{
	return (struct emu_accessor){ .read = remote_read, .ctx = rm };
}
