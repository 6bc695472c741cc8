/* SPDX-License-Identifier: GPL-2.0 */
/* The exit summary: per process, what its codectl calls did. */
#ifndef SUPERVISOR_CALLS_SUMMARY_H
#define SUPERVISOR_CALLS_SUMMARY_H

#include <jansson.h>
#include <stdio.h>

#include "supervisor/trace/tracees.h"

/** summary_print() - one table row per process of @t, then rejections by errno and reason. */
void summary_print(FILE *f, const struct tracees *t);

/** summary_totals() - every process's statistics of @t added up, those folded in included. */
struct proc_stats summary_totals(const struct tracees *t);

/**
 * summary_json() - the table's rows as JSON, oldest process first: pid,
 * program, accepted, rejected, rejected_by_rule ({"sframe-fde-order": 1}),
 * unregistered, at_exec, stale, left_at_exit (the processes folded into
 * one row past TRACEES_MAX_EXITED are not listed); NULL on ENOMEM
 */
json_t *summary_json(const struct tracees *t);

#endif /* SUPERVISOR_CALLS_SUMMARY_H */
