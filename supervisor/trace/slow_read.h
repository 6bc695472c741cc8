/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads of a traced process's memory that may wait: a page that is not
 * present may have to come from a userfaultfd handler or a FUSE server that
 * never answers, and process_vm_readv(2) would then block the supervisor's
 * one event loop, stalling every traced process. Such a read runs on a
 * thread of its own; the loop waits for it a short while, then goes on (the
 * caller, whose call waits for its answer, is the only one that waits, as in
 * a kernel) and hears of it on a descriptor when it is done.
 */
#ifndef SUPERVISOR_TRACE_SLOW_READ_H
#define SUPERVISOR_TRACE_SLOW_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How long the loop waits for a read that may block before it goes on. */
#define SLOW_READ_WAIT_MS 20

/* Reads that may wait at once at most; past that the caller is told EAGAIN. */
#define SLOW_READ_MAX 64

struct slow_read;

/**
 * slow_read_start() - read @len bytes at @addr of process @pid on a thread
 * of its own; @done_fd (an eventfd) is written to when it is done
 * Return: the read, or NULL (ENOMEM, no thread): the caller reads itself.
 */
struct slow_read *slow_read_start(pid_t pid, uint64_t addr, size_t len, int done_fd);

/**
 * slow_read_wait() - wait up to @ms (-1: for ever) for @r; true when it is done
 */
bool slow_read_wait(struct slow_read *r, int ms);

/** slow_read_done() - has @r finished (without waiting)? */
bool slow_read_done(const struct slow_read *r);

/**
 * slow_read_finish() - the result of a finished @r: 0 and its bytes copied to
 * @buf (unless NULL), or the negative errno of process_vm_readv (-EFAULT for a short read);
 * @r is freed (its thread joined)
 */
int slow_read_finish(struct slow_read *r, void *buf);

/** slow_read_what() - where @r reads: its address and length (for the watchdog). */
void slow_read_what(const struct slow_read *r, uint64_t *addr, size_t *len);

/**
 * slow_read_may_block() - may reading [@addr, @addr + @len) of @pid wait on
 * a page? True when a page of it is not present in the process's page
 * tables (/proc/PID/pagemap through @pagemap_fd, opened by the caller), or
 * the pagemap cannot be read. Present pages are read without waiting.
 */
bool slow_read_may_block(int pagemap_fd, uint64_t addr, size_t len);

/**
 * slow_read_on_block_device() - is every byte of [@addr, @addr + @len) of a
 * file on a block device (a device number with a major other than 0: a
 * local disk's filesystem, not FUSE, NFS, tmpfs or btrfs' anonymous
 * devices, nor anonymous memory)? Its missing pages come from the disk:
 * no userfaultfd (which takes anonymous, shmem and hugetlbfs memory only)
 * and no server a process runs can hold a read of them. Asked of the
 * kernel by PROCMAP_QUERY on @maps_fd (/proc/PID/maps) just before the
 * read, as pagemap is; false where the kernel has no PROCMAP_QUERY (before
 * 6.11) or @maps_fd < 0.
 */
bool slow_read_on_block_device(int maps_fd, uint64_t addr, size_t len);

#endif /* SUPERVISOR_TRACE_SLOW_READ_H */
