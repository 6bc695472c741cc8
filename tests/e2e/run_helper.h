/* SPDX-License-Identifier: GPL-2.0 */
/* Running build/codectl-run from tests, and reading its summary. */
#ifndef TESTS_RUN_HELPER_H
#define TESTS_RUN_HELPER_H

#include <stdbool.h>
#include <sys/types.h>

#define MAX_ROWS 256

/** struct summary_row - one row of codectl-run's exit summary */
struct summary_row {
	int pid;
	unsigned long exec, accepted, rejected, unregistered, left, stale;
	char program[256];
};

/**
 * struct run - one run of codectl-run
 * @status: codectl-run's exit status (or 128 + signal)
 * @out: what the program printed on stdout (malloc'd)
 * @log: codectl-run's log, the -o file (malloc'd)
 * @timed_out: it was killed at run_codectl_within()'s limit (@status 137)
 */
struct run {
	int status;
	bool timed_out;
	char *out;
	char *log;
	struct summary_row rows[MAX_ROWS];
	int nrows;
};

/**
 * run_codectl() - run "codectl-run OPTS... -o LOG -- PROG ARGS..." and wait
 * @argv: codectl-run's options, then "--", then the program and its arguments;
 *	NULL-terminated. The log option is added in front.
 */
void run_codectl(struct run *r, const char *const *argv);

/**
 * run_codectl_within() - run_codectl(), but kill codectl-run (SIGKILL, its
 * status then 128 + 9 and @r->timed_out set) if it has not ended after
 * @seconds
 */
void run_codectl_within(struct run *r, const char *const *argv, unsigned int seconds);

/** run_free() - release what run_codectl() allocated. */
void run_free(struct run *r);

/** run_row() - the summary row of @pid, or NULL. */
const struct summary_row *run_row(const struct run *r, int pid);

/** run_first_row() - the first process's row (the program started). */
const struct summary_row *run_first_row(const struct run *r);

/** read_file() - a file's contents (malloc'd, NUL-terminated), or NULL. */
char *read_file(const char *path);

#endif /* TESTS_RUN_HELPER_H */
