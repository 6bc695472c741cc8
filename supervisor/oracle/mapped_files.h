/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which of a traced process's mapped files libunwind-ptrace may open
 * (codectl-run(1), SECURITY). _UPT_find_proc_info() opens the file of the
 * mapping that holds an address itself, by the path /proc/PID/maps shows,
 * under /proc/PID/root (libunwind 1.8 falls back to the bare path when that
 * is no regular file), with a plain open(2): a FIFO there would block it for
 * good. It cannot be given a descriptor, so before it is asked about an
 * address, that path is checked here with as_tracee_open() (and closed);
 * the verdicts are kept until the mappings change.
 */
#ifndef SUPERVISOR_ORACLE_MAPPED_FILES_H
#define SUPERVISOR_ORACLE_MAPPED_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * struct mapped_file - one line of /proc/PID/maps
 * @start, @end: its addresses [start, end)
 * @path: the name shown (malloc'd; "" for anonymous memory)
 * @verdict: 0 when the file may be opened, a negative errno when not,
 *	1 while not checked yet
 * @writable: mapped writable ("rw"): its bytes can change under a cache
 * @id: the same while the mapping is read again unchanged (start, end and
 *	path), another once it changed: what is cached of it is keyed by it
 */
struct mapped_file {
	uint64_t start;
	uint64_t end;
	char *path;
	int verdict;
	bool writable;
	uint64_t id;
};

/**
 * struct mapped_files - a process's mappings, read when first needed
 * @pid: the process
 * @v, @n: its mappings in address order (@v NULL until read)
 * @read_ns: when they were read (CLOCK_MONOTONIC), 0 until then
 * @sample_ns: when the sample being walked was taken: an address no mapping
 *	holds reads them again only when they were read before it
 * @reads: times /proc/PID/maps was read (for tests)
 * @last_id: the last mapping id given (ids start at 1)
 */
struct mapped_files {
	pid_t pid;
	struct mapped_file *v;
	size_t n;
	uint64_t read_ns;
	uint64_t sample_ns;
	unsigned long reads;
	uint64_t last_id;
};

/** mapped_files_init() - nothing known yet of process @pid's mappings. */
void mapped_files_init(struct mapped_files *mf, pid_t pid);

/** mapped_files_free() - release everything (an all-zero @mf is fine). */
void mapped_files_free(struct mapped_files *mf);

/** mapped_files_forget() - the mappings changed: read them again when needed. */
void mapped_files_forget(struct mapped_files *mf);

/**
 * mapped_files_new_sample() - a new sample, taken at @taken_ns
 * (CLOCK_MONOTONIC): an unknown address reads the mappings again when they
 * were read before it
 */
void mapped_files_new_sample(struct mapped_files *mf, uint64_t taken_ns);

struct as_tracee_id;

/**
 * mapped_files_check() - may the file mapped at @addr be opened by libunwind?
 * @who: the process (@mf->pid) the file would be opened for
 *
 * The mappings are read when none known holds @addr (once per sample;
 * verdicts on mappings that did not change are kept). The file is
 * "/proc/PID/root" followed by the mapping's path, checked once with
 * as_tracee_open() for @who.
 * Return: 0 when it may; -ENOENT when no mapping holds @addr or the mapping
 * has no absolute path (anonymous memory, the vDSO: libunwind would look
 * for such a name relative to codectl-run's directory), -ENOMEM, or
 * as_tracee_open()'s negative errno.
 */
int mapped_files_check(struct mapped_files *mf, struct as_tracee_id *who, uint64_t addr);

/**
 * mapped_files_find() - the mapping known to hold @addr, as last read (no
 * read of /proc/PID/maps); NULL when none. Valid until the next
 * mapped_files_check() or mapped_files_forget().
 */
const struct mapped_file *mapped_files_find(const struct mapped_files *mf, uint64_t addr);

#endif /* SUPERVISOR_ORACLE_MAPPED_FILES_H */
