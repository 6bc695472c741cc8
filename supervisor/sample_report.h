/* SPDX-License-Identifier: GPL-2.0 */
/* The sampling report: text on the log, --json, --folded. */
#ifndef SUPERVISOR_SAMPLE_REPORT_H
#define SUPERVISOR_SAMPLE_REPORT_H

struct supervisor;

/**
 * sample_report_add_sources() - add "source": "file.c:LINE" to the frames of
 * the examples and disagreements kept for the report (done once, at the end:
 * reading a module's line table is slow)
 */
void sample_report_add_sources(struct supervisor *s);

/** sample_report_print() - the report on the log (samples, agreement, coverage, places). */
void sample_report_print(struct supervisor *s);

/**
 * sample_report_check_files() - can --json and --folded be written? Checked
 * before the program starts. Return: 0, or -1 after logging why not.
 */
int sample_report_check_files(struct supervisor *s);

/**
 * sample_report_write_files() - --json and --folded, each written to a
 * temporary file in the same directory and renamed over FILE
 * Return: 0, or -1 after logging which file could not be written.
 */
int sample_report_write_files(struct supervisor *s, int exit_status);

#endif /* SUPERVISOR_SAMPLE_REPORT_H */
