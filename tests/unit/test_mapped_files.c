// SPDX-License-Identifier: GPL-2.0
/*
 * Which mapped files libunwind-ptrace may open (supervisor/oracle/mapped_files.c),
 * checked on a child that maps a file and waits.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/core/as_tracee.h"
#include "supervisor/core/clock.h"
#include "supervisor/oracle/mapped_files.h"
#include "test_tmp.h"

#define NOBODY 65534

static char dir[128];

/* Others may search it: a child running as nobody looks in it. */
static void make_dir(void)
{
	cr_assert(test_mkdtemp_shared(dir, sizeof(dir), "codectl-mapped-files"));
}

static void remove_dir(void)
{
	cr_assert_eq(test_rmtree(dir), 0);
}

TestSuite(mapped_files, .init = make_dir, .fini = remove_dir, .timeout = 30);

static const char *path_of(const char *name)
{
	static char buf[2][256];
	static unsigned int next;
	char *b = buf[next++ % 2];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

/* A child's mappings: @file of the file "lib", @anon of anonymous memory. */
struct child {
	pid_t pid;
	uint64_t file;
	uint64_t anon;
};

/* In the child: map "lib" and anonymous memory, say where, wait. */
static void child_main(int out, bool as_nobody, pid_t parent)
{
	uint64_t at[2] = { 0 };
	void *p;
	int fd;

	if (as_nobody && (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
			  setresuid(NOBODY, NOBODY, NOBODY)))
		_exit(1);
	/* gone with the test, whatever it asserts (set after: new uids clear it) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	fd = open(path_of("lib"), O_RDONLY);
	p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p != MAP_FAILED)
		at[0] = (uintptr_t)p;
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		at[1] = (uintptr_t)p;
	if (write(out, at, sizeof(at)) != sizeof(at))
		_exit(1);
	pause();
	_exit(0);
}

static struct child start_child(bool as_nobody)
{
	struct child c = { 0 };
	pid_t parent = getpid();
	uint64_t at[2];
	int p[2];

	cr_assert_eq(pipe(p), 0);
	c.pid = fork();
	cr_assert_geq(c.pid, 0);
	if (!c.pid)
		child_main(p[1], as_nobody, parent);
	close(p[1]);
	cr_assert_eq(read(p[0], at, sizeof(at)), (ssize_t)sizeof(at));
	close(p[0]);
	cr_assert(at[0] && at[1]);
	c.file = at[0];
	c.anon = at[1];
	return c;
}

static void end_child(const struct child *c)
{
	int st;

	kill(c->pid, SIGKILL);
	cr_assert_eq(waitpid(c->pid, &st, 0), c->pid);
}

static void make_lib(void)
{
	int fd = open(path_of("lib"), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 4096), 0);
	cr_assert_eq(close(fd), 0);
}

Test(mapped_files, a_mapped_file_is_checked_once_until_the_mappings_change)
{
	struct as_tracee_id who;
	struct mapped_files mf;
	struct child c;
	uint64_t id;

	make_lib();
	c = start_child(false);
	as_tracee_id_init(&who, c.pid);
	mapped_files_init(&mf, c.pid);
	cr_assert_eq(mapped_files_check(&mf, &who, c.file), 0);
	cr_assert_eq(mapped_files_check(&mf, &who, c.anon), -ENOENT);
	cr_assert_eq(mapped_files_check(&mf, &who, 0x1000), -ENOENT);
	cr_assert_eq(mf.reads, 1);	/* one read, whatever is not found */
	id = mapped_files_find(&mf, c.file)->id;
	cr_assert_neq(id, 0);
	cr_assert_neq(mapped_files_find(&mf, c.anon)->id, id);
	mapped_files_new_sample(&mf, mf.read_ns - 1);	/* taken before that read */
	cr_assert_eq(mapped_files_check(&mf, &who, 0x1000), -ENOENT);
	cr_assert_eq(mf.reads, 1);
	mapped_files_new_sample(&mf, clock_now_ns());	/* taken since */
	cr_assert_eq(mapped_files_check(&mf, &who, 0x1000), -ENOENT);
	cr_assert_eq(mf.reads, 2);
	cr_assert_eq(mapped_files_find(&mf, c.file)->id, id);	/* read again, the same */
	/* a FIFO in its place: the mapping now shows "lib (deleted)", no file of that name */
	cr_assert_eq(mkfifo(path_of("fifo"), 0644), 0);
	cr_assert_eq(rename(path_of("fifo"), path_of("lib")), 0);
	cr_assert_eq(mapped_files_check(&mf, &who, c.file), 0);	/* kept */
	mapped_files_forget(&mf);
	cr_assert_eq(mapped_files_check(&mf, &who, c.file), -ENOENT);
	cr_assert_gt(mapped_files_find(&mf, c.file)->id, id);	/* "lib (deleted)": another */
	cr_assert_eq(mkfifo(path_of("lib (deleted)"), 0644), 0);
	mapped_files_forget(&mf);
	cr_assert_eq(mapped_files_check(&mf, &who, c.file), -EINVAL);
	end_child(&c);
	mapped_files_free(&mf);
	as_tracee_id_free(&who);
}

Test(mapped_files, a_file_the_process_can_no_longer_open_is_refused)
{
	struct as_tracee_id who;
	struct mapped_files mf;
	struct child c;

	make_lib();
	if (geteuid() != 0) {
		/* our own file, made unreadable: we cannot open it either */
		c = start_child(false);
		cr_assert_eq(chmod(path_of("lib"), 0), 0);
		as_tracee_id_init(&who, c.pid);
		mapped_files_init(&mf, c.pid);
		cr_assert_eq(mapped_files_check(&mf, &who, c.file), -EACCES);
		cr_log_info("not root: a child running as nobody is not tested");
	} else {
		c = start_child(true);
		cr_assert_eq(chmod(path_of("lib"), 0600), 0);	/* root's, not nobody's now */
		as_tracee_id_init(&who, c.pid);
		mapped_files_init(&mf, c.pid);
		cr_assert_eq(mapped_files_check(&mf, &who, c.file), -EACCES);
		cr_assert_eq(who.last.fsuid, NOBODY);
	}
	end_child(&c);
	mapped_files_free(&mf);
	as_tracee_id_free(&who);
}
