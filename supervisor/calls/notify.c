// SPDX-License-Identifier: GPL-2.0
/*
 * Seccomp filter and listener. libseccomp builds the filter; it is loaded with
 * seccomp(2) directly because libseccomp 2.5.4 cannot set WAIT_KILLABLE_RECV,
 * and the listener ioctls are raw because libseccomp folds their errors into
 * -ECANCELED.
 */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "notify.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* The exported BPF from @fd (a memfd libseccomp wrote) into @f. */
static int read_prog(int fd, struct notify_filter *f)
{
	off_t size = lseek(fd, 0, SEEK_END);

	if (size <= 0 || size % sizeof(struct sock_filter) || size > 65536)
		return -EINVAL;
	f->prog.filter = malloc((size_t)size);
	if (!f->prog.filter)
		return -ENOMEM;
	if (pread(fd, f->prog.filter, (size_t)size, 0) != size) {
		free(f->prog.filter);
		f->prog.filter = NULL;
		return -EIO;
	}
	f->prog.len = (unsigned short)(size / sizeof(struct sock_filter));
	return 0;
}

/*
 * The rules: each number whole; prctl only for its options in @t (compared on
 * the low 32 bits: the kernel reads the option as an int).
 */
static int add_rules(scmp_filter_ctx ctx, const struct notify_traps *t)
{
	int err = 0;

	for (unsigned int i = 0; !err && i < t->n; i++)
		err = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, (int)t->nr[i], 0);
	for (unsigned int i = 0; !err && i < t->nprctl; i++)
		err = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(prctl), 1,
				       SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu,
					       (uint32_t)t->prctl_options[i]));
	return err;
}

int notify_filter_build(struct notify_filter *f, const struct notify_traps *t)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int fd = -1, err;

	memset(f, 0, sizeof(*f));
	if (!ctx)
		return -ENOMEM;
	/* other architectures' calls are allowed, never killed; no-new-privs is ours */
	err = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	if (!err)
		err = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (!err)
		err = add_rules(ctx, t);
	if (!err) {
		fd = memfd_create("codectl-filter", MFD_CLOEXEC);
		err = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
	}
	if (!err)
		err = read_prog(fd, f);
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return err;
}

void notify_filter_free(struct notify_filter *f)
{
	free(f->prog.filter);
	f->prog.filter = NULL;
}

int notify_filter_load(const struct notify_filter *f, bool *killable)
{
	unsigned long flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	long fd = -1;

	if (*killable) {
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			     flags | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &f->prog);
		if (fd >= 0)
			return (int)fd;
		*killable = false;
		if (errno != EINVAL)
			return -errno;
	}
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &f->prog);
	return fd < 0 ? -errno : (int)fd;
}

int notifier_init(struct notifier *n, int fd, bool sync)
{
	struct seccomp_notif_sizes sizes;

	memset(n, 0, sizeof(*n));
	n->fd = fd;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes))
		return -errno;
	n->req_size = sizes.seccomp_notif > sizeof(*n->req) ? sizes.seccomp_notif : sizeof(*n->req);
	n->resp_size = sizes.seccomp_notif_resp > sizeof(*n->resp) ? sizes.seccomp_notif_resp :
								      sizeof(*n->resp);
	n->req = calloc(1, n->req_size);
	n->resp = calloc(1, n->resp_size);
	if (!n->req || !n->resp) {
		notifier_free(n);
		return -ENOMEM;
	}
	/* best effort: Linux >= 6.6; older kernels answer EINVAL */
	if (sync)
		n->sync_wakeup = !ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
					SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	return 0;
}

void notifier_free(struct notifier *n)
{
	free(n->req);
	free(n->resp);
	n->req = NULL;
	n->resp = NULL;
}

int notifier_receive(struct notifier *n)
{
	memset(n->req, 0, n->req_size);		/* the kernel demands a zeroed buffer */
	if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_RECV, n->req))
		return -errno;
	return 0;
}

bool notifier_id_valid(const struct notifier *n, uint64_t id)
{
	return !ioctl(n->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id);
}

int notifier_respond(struct notifier *n, uint64_t id, int err)
{
	memset(n->resp, 0, n->resp_size);
	n->resp->id = id;
	n->resp->error = err;		/* a negative errno, or 0 with val 0 */
	if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_SEND, n->resp))
		return -errno;
	return 0;
}
