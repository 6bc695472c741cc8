/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codectl-run's log: stderr, or the -o FILE. Lines of its own start with
 * "codectl-run: "; trace lines, the summary and the report are written to
 * @f as they are.
 */
#ifndef SUPERVISOR_CORE_LOG_H
#define SUPERVISOR_CORE_LOG_H

#include <stdbool.h>
#include <stdio.h>

/**
 * struct log - where codectl-run writes
 * @f: the stream (owned by main)
 * @quiet: -q: no notes (log_note()) and no summary; errors still print
 */
struct log {
	FILE *f;
	bool quiet;
};

/** log_line() - "codectl-run: " and the formatted text, one line, always. */
void log_line(struct log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** log_note() - like log_line(), but not with -q. */
void log_note(struct log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* SUPERVISOR_CORE_LOG_H */
