// SPDX-License-Identifier: GPL-2.0
/* A caller's files through pidfd_getfd(2) (caller_files.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
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
 * SMB/CIFS (three magics), 9P, Ceph, AFS, Coda (GlusterFS and sshfs are
 * FUSE); and those stacked on others, which may be any of them (overlayfs,
 * ecryptfs: a user namespace can mount both, over FUSE).
 */
int caller_file_may_block(long f_type)
{
	static const unsigned long magics[] = {
		0x65735546, 0x6969, 0xfe534d42, 0xff534d42, 0x517b, 0x01021997, 0x00c36400,
		0x5346414f, 0x73757245, 0x794c7630, 0xf15f,
	};

	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if ((unsigned long)(unsigned int)f_type == magics[i])
			return 1;
	return 0;
}

/** struct held_file - one file held: its identity, descriptor, users and table */
struct held_file {
	dev_t dev;
	ino_t ino;
	int fd;
	unsigned int refs;
	struct held_files *set;
};

static int file_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct held_file *hf = ctx;
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(hf->fd, p, len, (off_t)off);

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
	struct held_file *hf = ctx;
	struct held_files *h = hf->set;

	if (--hf->refs)
		return;
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i] == hf)
			h->v[i] = h->v[--h->n];
	close(hf->fd);
	free(hf);
}

void held_files_limit(struct held_files *h)
{
	struct rlimit rl;
	uint64_t room;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	room = rl.rlim_cur > HELD_FILES_RESERVE + 1 ? rl.rlim_cur - HELD_FILES_RESERVE : 1;
	h->max = room < HELD_FILES_MAX ? room : HELD_FILES_MAX;
}

void held_files_free(struct held_files *h)
{
	for (size_t i = 0; i < h->n; i++) {
		close(h->v[i]->fd);
		free(h->v[i]);
	}
	free(h->v);
	*h = (struct held_files){ .max = h->max };
}

/* The file @st describes, held with @fd (closed if it is held already); NULL on EMFILE/ENOMEM. */
static struct held_file *hold(struct held_files *h, const struct stat *st, int fd)
{
	struct held_file *hf, **grown;

	for (size_t i = 0; i < h->n; i++)
		if (h->v[i]->dev == st->st_dev && h->v[i]->ino == st->st_ino) {
			close(fd);
			h->v[i]->refs++;
			return h->v[i];
		}
	if (h->n == (h->max ? h->max : HELD_FILES_MAX))
		return NULL;
	if (h->n == h->cap) {
		grown = realloc(h->v, (h->cap ? 2 * h->cap : 16) * sizeof(*grown));
		if (!grown)
			return NULL;
		h->v = grown;
		h->cap = h->cap ? 2 * h->cap : 16;
	}
	hf = malloc(sizeof(*hf));
	if (!hf)
		return NULL;
	*hf = (struct held_file){ st->st_dev, st->st_ino, fd, 1, h };
	h->v[h->n++] = hf;
	return hf;
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
	const struct caller_files *cf = ctx;
	int pidfd = open_pidfd(cf), mine, flags, err;
	struct held_file *hf;
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
	hf = hold(cf->held, &st, mine);
	if (!hf) {
		close(mine);
		return -EMFILE;	/* the emulator's own limit: EAGAIN */
	}
	*f = (struct emu_file){
		.read = file_read, .release = file_release, .ctx = hf,
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
