/* SPDX-License-Identifier: GPL-2.0 */
/* The strace-like line --trace prints for each codectl call. */
#ifndef SUPERVISOR_TRACE_LINE_H
#define SUPERVISOR_TRACE_LINE_H

#include <stddef.h>
#include <sys/types.h>

#include "emu/codectl_call.h"

/**
 * trace_line_format() - "[pid T] codectl(OPTION, {ARGS}, SIZE, FLAGS) = RESULT"
 * @err: 0, or the negative errno answered (the reason comes from @res)
 * Return: the length written into @buf (always NUL-terminated, truncated to @len).
 */
size_t trace_line_format(char *buf, size_t len, pid_t tid, const struct emu_call *c,
			 const struct emu_call_result *res, int err);

/** errno_name() - "EINVAL" for EINVAL; "E?" for an unknown value. */
const char *errno_name(int err);

#endif /* SUPERVISOR_TRACE_LINE_H */
