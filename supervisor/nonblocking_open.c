// SPDX-License-Identifier: GPL-2.0
/*
 * Every read-only open(2) made by name in codectl-run is non-blocking.
 *
 * libunwind-ptrace opens the file mapped at an address itself, with a plain
 * open(path, O_RDONLY) on the path /proc/PID/maps shows, and cannot be given
 * a descriptor instead. codectl-run checks that path first (regular file,
 * the program's credentials: codectl-run(1), SECURITY), but the program may
 * put a FIFO there between the check and libunwind's open; a FIFO nobody
 * writes to would block that open, and with it the one event loop, for
 * good. This definition of open() in the executable comes before libc's for
 * every library codectl-run links (libunwind's references to open among
 * them); it adds O_NONBLOCK to a read-only open that creates nothing. On a
 * regular file or a /proc file O_NONBLOCK changes nothing; a FIFO or a
 * device is opened at once, and libunwind's mmap of it then fails (ENODEV):
 * no unwind info from that file, as for a file the check refuses.
 * Opens relative to a directory (openat) are codectl-run's own and are left
 * as they are.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Does an open with @flags take a mode (it may create a file)? */
static bool creates(int flags)
{
	return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE;
}

/* The flags @flags become: O_NONBLOCK added to a read-only open that creates nothing. */
static int nonblocking_flags(int flags)
{
	if ((flags & O_ACCMODE) != O_RDONLY || creates(flags))
		return flags;
	return flags | O_NONBLOCK;
}

/**
 * open() - open(2), with O_NONBLOCK added to a read-only open (see above)
 * @path, @flags, and the mode when @flags create a file: as open(2)
 * Return: a descriptor, or -1 with errno set, as open(2).
 */
int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (creates(flags)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return syscall(SYS_openat, AT_FDCWD, path, nonblocking_flags(flags), mode);
}

/** open64() - the same (the name large-file builds call). */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
