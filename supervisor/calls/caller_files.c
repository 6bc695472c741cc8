// SPDX-License-Identifier: GPL-2.0
/* A caller's files through pidfd_getfd(2) (caller_files.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caller_files.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* 6.9: a pidfd of a thread, not only of a leader */
#endif

/*
 * Filesystems whose reads are served by a process or a network: FUSE, NFS,
 * SMB/CIFS (three magics), 9P, Ceph, AFS, Coda, GlusterFS through FUSE.
 */
int caller_file_may_block(long f_type)
{
	static const unsigned long magics[] = {
		0x65735546, 0x6969, 0xfe534d42, 0xff534d42, 0x517b, 0x01021997, 0x00c36400,
		0x5346414f, 0x73757245,
	};

	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if ((unsigned long)(unsigned int)f_type == magics[i])
			return 1;
	return 0;
}

static int fd_of(void *ctx)
{
	return (int)(intptr_t)ctx;
}

static int file_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd_of(ctx), p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static void file_release(void *ctx)
{
	close(fd_of(ctx));
}

/* A pidfd of the calling thread where the kernel has them (6.9), else of its process. */
static int open_pidfd(const struct caller_files *cf)
{
	int fd = -1;

	if (cf->tid != cf->tgid)
		fd = (int)syscall(SYS_pidfd_open, cf->tid, PIDFD_THREAD);
	if (fd < 0)
		fd = (int)syscall(SYS_pidfd_open, cf->tgid, 0);
	return fd;
}

static int get(void *ctx, int fd, struct emu_file *f)
{
	int pidfd = open_pidfd(ctx), mine, flags, err;
	struct statfs sfs;
	struct stat st;

	if (pidfd < 0)
		return -errno;
	mine = fd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	err = fd < 0 ? -EBADF : -errno;
	close(pidfd);
	if (mine < 0)
		return err;
	flags = fcntl(mine, F_GETFL);
	if (flags < 0 || fstat(mine, &st) || fstatfs(mine, &sfs)) {
		err = -errno;
		close(mine);
		return err;
	}
	*f = (struct emu_file){
		.read = file_read, .release = file_release, .ctx = (void *)(intptr_t)mine,
		.size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0,
		.regular = S_ISREG(st.st_mode),
		.readable = !(flags & O_PATH) && (flags & O_ACCMODE) != O_WRONLY,
		.may_block = caller_file_may_block(sfs.f_type),
	};
	return 0;
}

struct emu_files caller_files_of(struct caller_files *cf)
{
	return (struct emu_files){ .get = get, .ctx = cf };
}
