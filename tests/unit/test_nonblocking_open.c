// SPDX-License-Identifier: GPL-2.0
/*
 * codectl-run's open() (supervisor/nonblocking_open.c): a read-only open by
 * name never blocks, so a FIFO put where a mapped file was cannot stop
 * libunwind-ptrace, which opens mapped files itself; other opens are as
 * open(2) makes them. This binary links the same definition.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_tmp.h"

TestSuite(nonblocking_open, .timeout = 10);

static void path_in(char *buf, size_t size, const char *dir, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

/* libunwind's references to open() find this one, as every lookup in the global scope does. */
Test(nonblocking_open, is_the_open_libraries_find)
{
	cr_assert_eq(dlsym(RTLD_DEFAULT, "open"), (void *)open);
	cr_assert_eq(dlsym(RTLD_DEFAULT, "open64"), (void *)open);
}

/* A FIFO nobody writes to is opened at once; mapping it fails as libunwind's mmap would. */
Test(nonblocking_open, a_fifo_opened_read_only_does_not_block)
{
	char dir[128], fifo[192];
	int fd;

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-nbopen"));
	path_in(fifo, sizeof(fifo), dir, "lib.so");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	fd = open(fifo, O_RDONLY);
	cr_assert_geq(fd, 0, "errno %d", errno);
	cr_assert_eq(fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK), O_RDONLY | O_NONBLOCK);
	cr_assert_eq(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0), MAP_FAILED);
	cr_assert_eq(errno, ENODEV);
	close(fd);
	unlink(fifo);
	rmdir(dir);
}

/* Writing, creating (with the mode given) and errors are open(2)'s own. */
Test(nonblocking_open, other_opens_are_unchanged)
{
	char dir[128], file[192];
	struct stat st;
	int fd;

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-nbopen"));
	path_in(file, sizeof(file), dir, "out");
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	cr_assert_geq(fd, 0, "errno %d", errno);
	cr_assert_eq(fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK), O_WRONLY);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	close(fd);
	cr_assert_eq(open(file, O_WRONLY | O_CREAT | O_EXCL, 0600), -1);
	cr_assert_eq(errno, EEXIST);
	unlink(file);
	rmdir(dir);
	cr_assert_eq(open(file, O_RDONLY), -1);
	cr_assert_eq(errno, ENOENT);
}
