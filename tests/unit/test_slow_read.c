// SPDX-License-Identifier: GPL-2.0
/*
 * Which reads may wait (supervisor/trace/slow_read.c): a mapping of a file
 * on a block device is read in place, anonymous memory and files elsewhere
 * (shmem, tmpfs, FUSE, overlay's anonymous device) are not. The expectation comes
 * from stat(2) of the file mapped, and from whether this kernel answers
 * PROCMAP_QUERY at all (6.11 and later).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "supervisor/trace/slow_read.h"

static int maps_fd;
static bool have_query;

static void setup(void)
{
	uint64_t q[13] = { sizeof(q), 0, (uintptr_t)&maps_fd };

	maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(maps_fd, 0);
	have_query = !ioctl(maps_fd, _IOWR('f', 17, uint64_t[13]), q);
	if (!have_query)
		cr_assert_eq(errno, ENOTTY, "PROCMAP_QUERY: %s", strerror(errno));
}

static void teardown(void)
{
	close(maps_fd);
}

TestSuite(slow_read, .init = setup, .fini = teardown);

/* Map @path's first page; *@on_disk: its filesystem's device has a major. */
static void *map_file(const char *path, bool *on_disk)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_eq(fstat(fd, &st), 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	cr_assert_neq(p, MAP_FAILED);
	*on_disk = major(st.st_dev) != 0;
	return p;
}

Test(slow_read, a_file_on_a_block_device_is_read_in_place)
{
	bool on_disk;
	void *p = map_file("/proc/self/exe", &on_disk);

	cr_assert_eq(slow_read_on_block_device(maps_fd, (uintptr_t)p, 4096), have_query && on_disk);
	cr_assert_eq(slow_read_on_block_device(maps_fd, (uintptr_t)p + 100, 8),
		     have_query && on_disk);
	cr_assert_not(slow_read_on_block_device(-2, (uintptr_t)p, 4096));
	cr_assert_not(slow_read_on_block_device(maps_fd, (uintptr_t)p, 0));
	munmap(p, 4096);
}

Test(slow_read, anonymous_memory_and_a_range_past_the_file_wait_aside)
{
	uint8_t *area = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	cr_assert_neq(area, MAP_FAILED);
	cr_assert_geq(fd, 0);
	cr_assert_not(slow_read_on_block_device(maps_fd, (uintptr_t)area, 8));
	/* the file's page, then a hole where the anonymous page was */
	cr_assert_eq(mmap(area, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0), area);
	close(fd);
	cr_assert_eq(munmap(area + 4096, 4096), 0);
	cr_assert_not(slow_read_on_block_device(maps_fd, (uintptr_t)area + 4000, 200));
	cr_assert_not(slow_read_on_block_device(maps_fd, (uintptr_t)area + 4096, 8));
	munmap(area, 4096);
}

Test(slow_read, a_shmem_file_waits_aside)
{
	int fd = memfd_create("codectl-slow-read", MFD_CLOEXEC);
	void *p;

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 4096), 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	cr_assert_neq(p, MAP_FAILED);
	cr_assert_not(slow_read_on_block_device(maps_fd, (uintptr_t)p, 8));
	munmap(p, 4096);
}
