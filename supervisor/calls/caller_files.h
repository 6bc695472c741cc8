/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A traced caller's file descriptors for the emulated kernel (struct
 * emu_files): the file open at a descriptor of the caller's is taken with
 * pidfd_getfd(2), never by opening a name, and described as the kernel's
 * fdget() and kernel_read_file() see it (regular, open for reading, size),
 * plus whether its reads can wait on a process (FUSE, network filesystems),
 * which the supervisor must never do.
 */
#ifndef SUPERVISOR_CALLS_CALLER_FILES_H
#define SUPERVISOR_CALLS_CALLER_FILES_H

#include <sys/types.h>

#include "emu/codectl_call.h"

/*
 * Files held at most at once, all callers together: one descriptor each,
 * however many registrations use it (the supervisor's descriptors are its
 * own to keep: a caller cannot take them all).
 */
#define HELD_FILES_MAX 4096

/**
 * struct held_files - the callers' files the supervisor holds, one per
 * file (device and inode), each with the registrations using it (owned by
 * the run; empty again when every registration has gone)
 * @max: how many at most (0: HELD_FILES_MAX); held_files_limit() sets it
 */
struct held_files {
	struct held_file **v;
	size_t n;
	size_t cap;
	size_t max;
};

/*
 * Descriptors kept for the supervisor's own use (/proc files, pidfds, perf
 * events, libraries' opens) whatever the callers hand over.
 */
#define HELD_FILES_RESERVE 512

/**
 * held_files_limit() - @h's maximum from the descriptor limit now: what it
 * leaves after HELD_FILES_RESERVE, at most HELD_FILES_MAX (at least 1)
 */
void held_files_limit(struct held_files *h);

/** held_files_free() - free @h's table (after every registration went; any left is closed). */
void held_files_free(struct held_files *h);

/**
 * struct caller_files - whose descriptors: @tid's, in thread group @tgid;
 * @held: where the files taken are kept
 */
struct caller_files {
	pid_t tgid;
	pid_t tid;
	struct held_files *held;
};

/** caller_files_of() - the emu_files reading @cf (which must outlive the call). */
struct emu_files caller_files_of(struct caller_files *cf);

/** caller_file_may_block() - can reads of a file on a filesystem of magic @f_type wait on a process? */
int caller_file_may_block(long f_type);

#endif /* SUPERVISOR_CALLS_CALLER_FILES_H */
