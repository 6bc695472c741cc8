// SPDX-License-Identifier: GPL-2.0
/*
 * Opening files on a tracee's behalf (supervisor/core/as_tracee.c): only
 * regular files, never blocking, size-capped, with the tracee's credentials.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/core/as_tracee.h"
#include "test_tmp.h"

#define NOBODY 65534

static char dir[128];

/* Others may search it: a child running as nobody looks in it. */
static void make_dir(void)
{
	cr_assert(test_mkdtemp_shared(dir, sizeof(dir), "codectl-as-tracee"));
}

static void remove_dir(void)
{
	cr_assert_eq(test_rmtree(dir), 0);
}

/* A FIFO opened by mistake would block the test: the time limit fails it. */
TestSuite(as_tracee, .init = make_dir, .fini = remove_dir, .timeout = 30);

static const char *path_of(const char *name)
{
	static char buf[2][256];
	static unsigned int next;
	char *b = buf[next++ % 2];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

static void write_file(const char *name, const char *text, mode_t mode)
{
	int fd = open(path_of(name), O_WRONLY | O_CREAT | O_TRUNC, mode);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	cr_assert_eq(fchmod(fd, mode), 0);
	cr_assert_eq(close(fd), 0);
}

/* as_tracee_open() on behalf of ourselves. */
static int open_self(const char *path)
{
	struct as_tracee_id self;
	int fd;

	as_tracee_id_init(&self, getpid());
	fd = as_tracee_open(&self, path);
	as_tracee_id_free(&self);
	return fd;
}

Test(as_tracee, a_regular_file_opens_read_only_blocking_and_close_on_exec)
{
	char buf[16] = { 0 };
	int fd;

	write_file("f", "contents", 0644);
	fd = open_self(path_of("f"));
	cr_assert_geq(fd, 0);
	cr_assert_eq(fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK | O_PATH), O_RDONLY);
	cr_assert_eq(fcntl(fd, F_GETFD), FD_CLOEXEC);
	cr_assert_eq(read(fd, buf, sizeof(buf)), 8);
	cr_assert_str_eq(buf, "contents");
	close(fd);
}

Test(as_tracee, a_fifo_is_refused_and_never_opened)
{
	int w;

	cr_assert_eq(mkfifo(path_of("fifo"), 0666), 0);
	cr_assert_eq(open_self(path_of("fifo")), -EINVAL);
	/* nobody holds it open for reading: a non-blocking writer finds no reader */
	w = open(path_of("fifo"), O_WRONLY | O_NONBLOCK);
	cr_assert_eq(w, -1);
	cr_assert_eq(errno, ENXIO);
}

Test(as_tracee, a_symbolic_link_is_not_followed)
{
	write_file("f", "x", 0644);
	cr_assert_eq(symlink(path_of("f"), path_of("link")), 0);
	cr_assert_eq(open_self(path_of("link")), -ELOOP);
	cr_assert_eq(symlink("/dev/zero", path_of("zero")), 0);
	cr_assert_eq(open_self(path_of("zero")), -ELOOP);
}

Test(as_tracee, directories_and_devices_are_refused)
{
	cr_assert_eq(open_self(dir), -EINVAL);
	cr_assert_eq(open_self("/dev/zero"), -EINVAL);
	cr_assert_eq(open_self("/dev/null"), -EINVAL);
	cr_assert_eq(open_self(path_of("missing")), -ENOENT);
}

Test(as_tracee, a_file_above_the_size_cap_is_refused)
{
	int fd = open(path_of("sparse"), O_WRONLY | O_CREAT, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, AS_TRACEE_MAX_BYTES), 0);
	fd = open_self(path_of("sparse"));	/* exactly the cap: taken */
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(truncate(path_of("sparse"), 16ll << 30), 0);	/* 16 GiB, sparse */
	cr_assert_eq(open_self(path_of("sparse")), -EFBIG);
	cr_assert_eq(truncate(path_of("sparse"), AS_TRACEE_MAX_BYTES + 1), 0);
	cr_assert_eq(open_self(path_of("sparse")), -EFBIG);
}

Test(as_tracee, our_status_gives_our_credentials)
{
	struct as_tracee_creds ours, status;

	cr_assert_eq(as_tracee_creds_of(0, &ours), 0);
	cr_assert_eq(as_tracee_creds_of(getpid(), &status), 0);
	cr_assert_eq(ours.fsuid, geteuid());
	cr_assert_eq(ours.fsgid, getegid());
	cr_assert_eq(status.fsuid, ours.fsuid);
	cr_assert_eq(status.fsgid, ours.fsgid);
	cr_assert_eq(status.ngroups, ours.ngroups);
	for (size_t i = 0; i < ours.ngroups; i++)
		cr_assert_eq(status.groups[i], ours.groups[i]);
	cr_assert_eq(status.dac_caps, ours.dac_caps);
	as_tracee_creds_free(&ours);
	as_tracee_creds_free(&status);
}

/* In a child: drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the effective set. */
static bool drop_dac_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[2];

	if (syscall(SYS_capget, &h, caps))
		return false;
	caps[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
	return !syscall(SYS_capset, &h, caps);
}

/*
 * A child that sleeps with other credentials: nobody's (@uid 65534, no
 * groups), or root without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
 * (@uid 0). Returns once it runs with them.
 */
static pid_t child_as(uid_t uid)
{
	pid_t pid, parent = getpid();
	int p[2];
	bool ok;
	char c = 0;

	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		if (uid)
			ok = !setgroups(0, NULL) && !setresgid(NOBODY, NOBODY, NOBODY) &&
			     !setresuid(uid, uid, uid);
		else
			ok = drop_dac_caps();
		/* gone with the test, whatever it asserts (set after: new uids clear it) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		c = ok ? 'y' : 'n';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	cr_assert_eq(c, 'y');
	return pid;
}

static void end_child(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
}

/* Our fsuid, fsgid, groups and effective capabilities are as they were. */
static void assert_ours_unchanged(const struct as_tracee_creds *before)
{
	struct as_tracee_creds now;

	cr_assert_eq(as_tracee_creds_of(0, &now), 0);
	cr_assert_eq(now.fsuid, before->fsuid);
	cr_assert_eq(now.fsgid, before->fsgid);
	cr_assert_eq(now.ngroups, before->ngroups);
	cr_assert_eq(now.dac_caps, before->dac_caps);
	as_tracee_creds_free(&now);
}

Test(as_tracee, a_file_the_tracee_cannot_open_is_not_opened_for_it)
{
	struct as_tracee_creds ours, fake = { 0 };
	struct as_tracee_id child;
	struct as_tracee s;
	pid_t pid;
	int fd;

	cr_assert_eq(as_tracee_creds_of(0, &ours), 0);
	write_file("secret", "root only", 0600);
	write_file("public", "anyone", 0644);
	if (geteuid() != 0) {
		/* credentials of another user cannot be taken: refused, nothing changed */
		fake.fsuid = geteuid() + 1;
		fake.fsgid = getegid();
		cr_assert_eq(as_tracee_enter_creds(&s, &fake), -EPERM);
		as_tracee_leave(&s);
		assert_ours_unchanged(&ours);
		cr_log_info("not root: taking a nobody child's credentials is not tested");
		as_tracee_creds_free(&ours);
		return;
	}
	pid = child_as(NOBODY);
	as_tracee_id_init(&child, pid);
	cr_assert_eq(as_tracee_open(&child, path_of("secret")), -EACCES);
	assert_ours_unchanged(&ours);
	fd = as_tracee_open(&child, path_of("public"));
	cr_assert_geq(fd, 0);
	close(fd);
	fd = open_self(path_of("secret"));
	cr_assert_geq(fd, 0);
	close(fd);
	/* once it is gone, what it was decides, not who has its pid now */
	end_child(pid);
	as_tracee_id_new_sample(&child);
	cr_assert_eq(as_tracee_open(&child, path_of("secret")), -EACCES);
	cr_assert_eq(child.last.fsuid, NOBODY);
	as_tracee_id_free(&child);
	as_tracee_id_init(&child, pid);	/* never read while it lived */
	cr_assert_eq(as_tracee_open(&child, path_of("public")), -ESRCH);
	as_tracee_id_free(&child);
	assert_ours_unchanged(&ours);
	as_tracee_creds_free(&ours);
}

Test(as_tracee, root_without_dac_capabilities_is_held_to_file_modes)
{
	struct as_tracee_creds ours;
	struct as_tracee_id child;
	pid_t pid;
	int fd;

	cr_assert_eq(as_tracee_creds_of(0, &ours), 0);
	write_file("theirs", "another user's", 0600);
	if (geteuid() != 0) {
		/* our own file: same credentials, opened without any switch */
		fd = open_self(path_of("theirs"));
		cr_assert_geq(fd, 0);
		close(fd);
		cr_log_info("not root: a root child without DAC capabilities is not tested");
		as_tracee_creds_free(&ours);
		return;
	}
	cr_assert_eq(chown(path_of("theirs"), 4242, 4242), 0);
	pid = child_as(0);
	as_tracee_id_init(&child, pid);
	cr_assert_eq(as_tracee_open(&child, path_of("theirs")), -EACCES);
	cr_assert_eq(child.last.fsuid, 0);
	cr_assert_eq(child.last.dac_caps, 0);
	assert_ours_unchanged(&ours);
	fd = open_self(path_of("theirs"));
	cr_assert_geq(fd, 0);
	close(fd);
	end_child(pid);
	as_tracee_id_free(&child);
	as_tracee_creds_free(&ours);
}
