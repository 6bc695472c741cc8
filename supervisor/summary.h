/* SPDX-License-Identifier: GPL-2.0 */
/* The exit summary: per process, what its codectl calls did. */
#ifndef SUPERVISOR_SUMMARY_H
#define SUPERVISOR_SUMMARY_H

#include "supervisor.h"

/** sv_print_summary() - one table row per process, then rejections by errno and reason. */
void sv_print_summary(struct supervisor *s);

#endif /* SUPERVISOR_SUMMARY_H */
