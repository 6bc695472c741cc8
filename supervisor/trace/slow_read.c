// SPDX-License-Identifier: GPL-2.0
/* A read of tracee memory on a thread of its own, so that the event loop never waits on it. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "slow_read.h"
#include "supervisor/core/procmap_query.h"

#define PAGE 4096u
#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_SWAPPED (1ull << 62)


/**
 * struct slow_read - one read and its thread
 * @wake: eventfd of its own, written when done (what slow_read_wait() polls)
 * @done_fd: the caller's eventfd, written when done
 * @done: set (release) by the thread when @err and @buf are final
 */
struct slow_read {
	pthread_t thread;
	pid_t pid;
	uint64_t addr;
	size_t len;
	int wake;
	int done_fd;
	int err;
	bool done;
	uint8_t buf[];
};

static void *reader(void *arg)
{
	struct slow_read *r = arg;
	struct iovec local = { .iov_base = r->buf, .iov_len = r->len },
		     remote = { .iov_base = (void *)(uintptr_t)r->addr, .iov_len = r->len };
	ssize_t n = process_vm_readv(r->pid, &local, 1, &remote, 1, 0);
	uint64_t one = 1;

	r->err = n == (ssize_t)r->len ? 0 : n < 0 ? -errno : -EFAULT;
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	if (write(r->wake, &one, sizeof(one)) < 0 || write(r->done_fd, &one, sizeof(one)) < 0)
		return NULL;	/* a full eventfd: it was written to already */
	return NULL;
}

struct slow_read *slow_read_start(pid_t pid, uint64_t addr, size_t len, int done_fd)
{
	struct slow_read *r = calloc(1, sizeof(*r) + len);

	if (!r)
		return NULL;
	*r = (struct slow_read){ .pid = pid, .addr = addr, .len = len, .done_fd = done_fd };
	r->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->wake < 0)
		goto err;
	if (pthread_create(&r->thread, NULL, reader, r))
		goto err_wake;
	return r;
err_wake:
	close(r->wake);
err:
	free(r);
	return NULL;
}

bool slow_read_done(const struct slow_read *r)
{
	return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

bool slow_read_wait(struct slow_read *r, int ms)
{
	struct pollfd p = { .fd = r->wake, .events = POLLIN };

	if (!slow_read_done(r))
		poll(&p, 1, ms);
	return slow_read_done(r);
}

int slow_read_finish(struct slow_read *r, void *buf)
{
	int err;

	pthread_join(r->thread, NULL);
	err = r->err;
	if (!err && buf)
		memcpy(buf, r->buf, r->len);
	close(r->wake);
	free(r);
	return err;
}

void slow_read_what(const struct slow_read *r, uint64_t *addr, size_t *len)
{
	*addr = r->addr;
	*len = r->len;
}

bool slow_read_may_block(int pagemap_fd, uint64_t addr, size_t len)
{
	uint64_t first = addr / PAGE, last = (addr + len - 1) / PAGE, e[64];

	if (!len)
		return false;
	if (pagemap_fd < 0 || addr + len < addr)
		return true;
	while (first <= last) {
		size_t n = last - first + 1 < 64 ? (size_t)(last - first + 1) : 64;

		if (pread(pagemap_fd, e, n * sizeof(e[0]), (off_t)(first * sizeof(e[0]))) !=
		    (ssize_t)(n * sizeof(e[0])))
			return true;
		for (size_t i = 0; i < n; i++)
			if (!(e[i] & PAGEMAP_PRESENT))
				return true;	/* swapped out or never faulted in: may wait */
		first += n;
	}
	return false;
}

bool slow_read_on_block_device(int maps_fd, uint64_t addr, size_t len)
{
	uint64_t end = addr + len;
	struct procmap_vma v;

	if (!len || end < addr)
		return false;
	while (addr < end) {
		if (procmap_query(maps_fd, addr, false, &v) || !v.inode || !v.dev_major ||
		    v.end <= addr)
			return false;
		addr = v.end;
	}
	return true;
}
