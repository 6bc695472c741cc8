// SPDX-License-Identifier: GPL-2.0
/* Opening files on a traced process's behalf, with its credentials (codectl-run(1), SECURITY). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "as_tracee.h"
#include "procfs.h"

#define DAC_CAPS ((1ull << CAP_DAC_OVERRIDE) | (1ull << CAP_DAC_READ_SEARCH))
#define MAX_GROUPS 65536	/* NGROUPS_MAX of Linux */

void as_tracee_creds_free(struct as_tracee_creds *c)
{
	free(c->groups);
	*c = (struct as_tracee_creds){ 0 };
}

static int cmp_gid(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return (x > y) - (x < y);
}

/* This thread's capabilities (capget(2) v3: two 32-bit words each). */
static int get_caps(struct __user_cap_data_struct caps[2])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

	return syscall(SYS_capget, &h, caps) ? -errno : 0;
}

static int set_caps(const struct __user_cap_data_struct caps[2])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

	return syscall(SYS_capset, &h, caps) ? -errno : 0;
}

/* Ours: setfs[ug]id(-1) changes nothing and returns the current id. */
static int own_creds(struct as_tracee_creds *c, struct __user_cap_data_struct caps[2])
{
	int n, err;

	*c = (struct as_tracee_creds){ .fsuid = (uid_t)syscall(SYS_setfsuid, -1),
				       .fsgid = (gid_t)syscall(SYS_setfsgid, -1) };
	err = get_caps(caps);
	if (err)
		return err;
	c->dac_caps = caps[0].effective & DAC_CAPS;
	n = getgroups(0, NULL);
	if (n <= 0)
		return n < 0 ? -errno : 0;
	c->groups = calloc((size_t)n, sizeof(*c->groups));
	if (!c->groups)
		return -ENOMEM;
	n = getgroups(n, c->groups);
	if (n < 0) {
		err = -errno;
		as_tracee_creds_free(c);
		return err;
	}
	c->ngroups = (size_t)n;
	qsort(c->groups, c->ngroups, sizeof(*c->groups), cmp_gid);
	return 0;
}

/* The numbers after "Groups:" (none is fine). */
static int parse_groups(struct as_tracee_creds *c, const char *s)
{
	size_t cap = 0;
	unsigned long v;
	char *end;
	void *p;

	for (;;) {
		s += strspn(s, " \t");
		if (*s < '0' || *s > '9')
			break;
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || v > UINT_MAX || c->ngroups == MAX_GROUPS)
			return -EINVAL;
		if (c->ngroups == cap) {
			cap = cap ? cap * 2 : 16;
			p = realloc(c->groups, cap * sizeof(*c->groups));
			if (!p)
				return -ENOMEM;
			c->groups = p;
		}
		c->groups[c->ngroups++] = (gid_t)v;
		s = end;
	}
	if (*s && *s != '\n')
		return -EINVAL;
	if (c->ngroups)
		qsort(c->groups, c->ngroups, sizeof(*c->groups), cmp_gid);
	return 0;
}

/* One line of /proc/PID/status; *@seen gets a bit for each field found. */
static int parse_status_line(struct as_tracee_creds *c, const char *line, unsigned int *seen)
{
	unsigned int r, e, s, fs;
	unsigned long long caps;

	if (sscanf(line, "Uid: %u %u %u %u", &r, &e, &s, &fs) == 4) {
		c->fsuid = fs;
		*seen |= 1;
	} else if (sscanf(line, "Gid: %u %u %u %u", &r, &e, &s, &fs) == 4) {
		c->fsgid = fs;
		*seen |= 2;
	} else if (!strncmp(line, "Groups:", 7) && !(*seen & 4)) {
		*seen |= 4;
		return parse_groups(c, line + 7);
	} else if (sscanf(line, "CapEff: %llx", &caps) == 1) {
		c->dac_caps = caps & DAC_CAPS;
		*seen |= 8;
	}
	return 0;
}

int as_tracee_creds_of(pid_t pid, struct as_tracee_creds *c)
{
	struct __user_cap_data_struct caps[2];
	unsigned int seen = 0;
	char path[64], *line = NULL;
	size_t size = 0;
	int err = 0;
	FILE *f;

	if (!pid)
		return own_creds(c, caps);
	*c = (struct as_tracee_creds){ 0 };
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (!err && getline(&line, &size, f) > 0)
		err = parse_status_line(c, line, &seen);
	free(line);
	fclose(f);
	if (!err && seen != 15)
		err = seen ? -EINVAL : -ESRCH;	/* a task gone mid-read shows nothing */
	if (err)
		as_tracee_creds_free(c);
	return err;
}

static bool same_creds(const struct as_tracee_creds *a, const struct as_tracee_creds *b)
{
	return a->fsuid == b->fsuid && a->fsgid == b->fsgid && a->ngroups == b->ngroups &&
	       (!a->ngroups || !memcmp(a->groups, b->groups, a->ngroups * sizeof(*a->groups))) &&
	       !(a->dac_caps & ~b->dac_caps);
}

/* setfsuid(2)/setfsgid(2) report no error: the id read back tells. */
static bool set_fsid(long nr, unsigned int id)
{
	syscall(nr, id);
	return (unsigned int)syscall(nr, -1) == id;
}

/* Take @c's groups, fsgid and fsuid, then drop the DAC capabilities it lacks. */
static int wear(struct as_tracee *s, const struct as_tracee_creds *c)
{
	struct __user_cap_data_struct caps[2];
	uint32_t drop = (uint32_t)(s->own.dac_caps & ~c->dac_caps);

	if (c->ngroups != s->own.ngroups ||
	    (c->ngroups && memcmp(c->groups, s->own.groups, c->ngroups * sizeof(*c->groups)))) {
		s->groups_set = true;
		if (syscall(SYS_setgroups, c->ngroups, c->groups))
			return -EPERM;
	}
	if (!set_fsid(SYS_setfsgid, c->fsgid) || !set_fsid(SYS_setfsuid, c->fsuid))
		return -EPERM;
	/* a non-zero fsuid already cleared them (capabilities(7)) */
	if (!drop || get_caps(caps) || !(caps[0].effective & drop))
		return 0;
	caps[0].effective &= ~drop;
	return set_caps(caps) ? -EPERM : 0;
}

int as_tracee_enter_creds(struct as_tracee *s, const struct as_tracee_creds *c)
{
	int err;

	*s = (struct as_tracee){ 0 };
	err = own_creds(&s->own, s->own_caps);
	if (err) {
		as_tracee_creds_free(&s->own);
		return err;
	}
	if (same_creds(&s->own, c))
		return 0;
	s->worn = true;
	err = wear(s, c);
	if (err)
		as_tracee_leave(s);
	return err;
}

void as_tracee_id_init(struct as_tracee_id *t, pid_t pid)
{
	*t = (struct as_tracee_id){ .pid = pid };
}

void as_tracee_id_free(struct as_tracee_id *t)
{
	as_tracee_creds_free(&t->last);
	*t = (struct as_tracee_id){ 0 };
}

void as_tracee_id_new_sample(struct as_tracee_id *t)
{
	t->fresh = false;
}

/* @t's credentials as of this sample, or as last read once it is gone. */
static int refresh(struct as_tracee_id *t)
{
	struct __user_cap_data_struct caps[2];
	struct as_tracee_creds c, own;
	unsigned long long started;

	if (t->fresh)
		return 0;
	if (as_tracee_creds_of(t->pid, &c))
		return t->known ? 0 : -ESRCH;
	/* read after: a process that took the pid before the status was read shows */
	started = procfs_start_time(t->pid);
	if (!started || (t->start_time && started != t->start_time)) {
		as_tracee_creds_free(&c);
		return t->known ? 0 : -ESRCH;
	}
	/* ours do not change: compare again only when the process's did */
	if (!t->known || !same_creds(&c, &t->last) || !same_creds(&t->last, &c)) {
		t->ours = !own_creds(&own, caps) && same_creds(&own, &c);
		as_tracee_creds_free(&own);
	}
	as_tracee_creds_free(&t->last);
	t->last = c;
	t->known = true;
	t->fresh = true;
	t->start_time = started;
	return 0;
}

int as_tracee_enter(struct as_tracee *s, struct as_tracee_id *t)
{
	int err = refresh(t);

	*s = (struct as_tracee){ 0 };
	if (err || t->ours)
		return err;
	return as_tracee_enter_creds(s, &t->last);
}

void as_tracee_leave(struct as_tracee *s)
{
	bool ok;

	if (s->worn) {
		/* fsuid first: going back to 0 gives back the file capabilities */
		ok = set_fsid(SYS_setfsuid, s->own.fsuid) && set_fsid(SYS_setfsgid, s->own.fsgid);
		if (ok && s->groups_set)
			ok = !syscall(SYS_setgroups, s->own.ngroups, s->own.groups);
		if (ok)
			ok = !set_caps(s->own_caps);
		if (!ok) {
			fprintf(stderr, "codectl-run: cannot restore its credentials: %s\n",
				strerror(errno));
			abort();
		}
	}
	as_tracee_creds_free(&s->own);
	*s = (struct as_tracee){ 0 };
}

/*
 * The checks, with this thread's credentials: look the file up without
 * opening it (O_PATH: a FIFO, device or socket is never opened, and with
 * O_NOFOLLOW a final symbolic link is the handle's own type), then open the
 * regular file through that handle: the same inode, whatever the path
 * names by then.
 */
static int open_regular(const char *path)
{
	char self[64];
	struct stat st;
	int pfd, fd, flags, err;

	pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st)) {
		err = -errno;
		goto out_close;
	}
	err = S_ISLNK(st.st_mode) ? -ELOOP : !S_ISREG(st.st_mode) ? -EINVAL :
	      st.st_size > AS_TRACEE_MAX_BYTES ? -EFBIG : 0;
	if (err)
		goto out_close;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out_close;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)) {
		err = -errno;
		close(fd);
		goto out_close;
	}
	err = fd;
out_close:
	close(pfd);
	return err;
}

int as_tracee_open(struct as_tracee_id *t, const char *path)
{
	struct as_tracee s;
	int fd = as_tracee_enter(&s, t);

	if (fd)
		return fd;
	fd = open_regular(path);
	as_tracee_leave(&s);
	return fd;
}
