/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols for JIT code from a perf map: perf's convention, /tmp/perf-PID.map
 * (PID the thread group id), one function a line, "START SIZE name" with
 * START and SIZE in hex. The file belongs to the traced program and is not
 * trusted: it is opened without following links and without blocking, must
 * be a regular file owned by the program's (effective or file-system) uid or
 * ours, is read up to a size cap, and lines that are too long or malformed
 * are skipped. It grows while the program runs: what was appended is read
 * when a lookup misses, at most once per sample.
 */
#ifndef SUPERVISOR_ORACLE_PERF_MAP_H
#define SUPERVISOR_ORACLE_PERF_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "supervisor/core/as_tracee.h"

#define PERF_MAP_MAX_BYTES (64u << 20)	/* bytes of the file read at most */
#define PERF_MAP_MAX_LINE 1024		/* longer lines are skipped */
#define PERF_MAP_MAX_ENTRIES (1u << 20)	/* entries kept at most */
#define PERF_MAP_CHUNK 65536		/* bytes read at a time (> PERF_MAP_MAX_LINE) */

/** struct perf_map_entry - one function: [start, end), its name at names + name_off */
struct perf_map_entry {
	uint64_t start;
	uint64_t end;
	uint32_t name_off;
	uint32_t seq;	/* line number: of two entries at one start, the later wins */
};

/**
 * struct perf_map - the perf map of one process
 * @path: the file (/tmp/perf-PID.map unless given)
 * @pid: the process, whose uids may own the file
 * @who: the process the file is opened for (as_tracee_open())
 * @v, @n, @cap: entries sorted by start (then line), for binary search
 * @names, @names_len, @names_cap: the names, NUL-terminated, one buffer
 * @max_bytes: bytes of the file read at most (PERF_MAP_MAX_BYTES; tests lower it)
 * @lines: lines seen (numbers the entries)
 * @unsorted: entries were appended out of order (sorted after each read)
 * @dev, @ino, @size, @mtime: the file read last; @read_off: bytes of it
 *	parsed (complete lines only); @have_file: those are valid
 * @skip_line: the line at @read_off is too long: skip it to its newline
 * @owner, @have_owner: a uid of the process's that owned a file accepted
 * @checked: the file was looked at since the last perf_map_new_sample()
 * @reads: times the file was read (a whole or appended part)
 * @problem: why the file was refused or not read whole (a static phrase),
 *	NULL when none; @problem_noted: the caller has said so
 */
struct perf_map {
	char path[64];
	pid_t pid;
	struct as_tracee_id who;
	struct perf_map_entry *v;
	size_t n;
	size_t cap;
	char *names;
	size_t names_len;
	size_t names_cap;
	uint32_t lines;
	bool unsorted;
	size_t max_bytes;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	off_t read_off;
	bool have_file;
	bool skip_line;
	uid_t owner;
	bool have_owner;
	bool checked;
	unsigned long reads;
	const char *problem;
	bool problem_noted;
};

/**
 * perf_map_init() - an empty map of process @pid, read on first use
 * @path: the file, or NULL for /tmp/perf-@pid.map (copied; longer than
 *	63 bytes leaves the map empty for good)
 */
void perf_map_init(struct perf_map *m, pid_t pid, const char *path);

/**
 * perf_map_free() - release everything (an all-zero @m is fine); @m is left
 * empty, without a path: lookups find nothing and read no file
 */
void perf_map_free(struct perf_map *m);

/** perf_map_new_sample() - a new sample: a miss may look at the file again. */
void perf_map_new_sample(struct perf_map *m);

/**
 * perf_map_lookup() - the function holding tracee address @addr
 * @start: set to its start address when found
 *
 * A miss reads what was appended to the file (or the whole file when it was
 * replaced, truncated or rewritten) once per sample, then looks again.
 * Return: its name (owned by @m, valid until the next lookup or free), or
 * NULL when no entry holds @addr.
 */
const char *perf_map_lookup(struct perf_map *m, uint64_t addr, uint64_t *start);

/** perf_map_function() - perf_map_lookup(), and the function's end (*@end, exclusive). */
const char *perf_map_function(struct perf_map *m, uint64_t addr, uint64_t *start, uint64_t *end);

/**
 * perf_map_parse_line() - parse one line (without its newline) "START SIZE name"
 * @line, @len: the line, @len bytes (no NUL needed)
 * @start, @size: the numbers (hex, an optional 0x, as perf reads them)
 * @name, @name_len: the name: the rest of the line after one or more spaces
 *	(points into @line)
 *
 * Return: 0, or -EINVAL for a malformed line (a number missing, not hex or
 * above 64 bits, size 0, start + size past 2^64, no name).
 */
int perf_map_parse_line(const char *line, size_t len, uint64_t *start, uint64_t *size,
			const char **name, size_t *name_len);

#endif /* SUPERVISOR_ORACLE_PERF_MAP_H */
