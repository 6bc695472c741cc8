/* SPDX-License-Identifier: GPL-2.0 */
/* The strace-like line --trace prints for each call of an entry point. */
#ifndef SUPERVISOR_CALLS_TRACE_LINE_H
#define SUPERVISOR_CALLS_TRACE_LINE_H

#include <stddef.h>
#include <sys/types.h>

#include "emu/accessor.h"
#include "emu/codectl_call.h"
#include "emu/kernel_call.h"

#define TRACE_STRING_MAX 200	/* bytes of a tracee string shown, as strace -s 200 */

/**
 * struct trace_strings - a refused CODE_REGISTER_ELF call's strings, read for
 *	display only, before the answer lets the caller change them
 * @path, @debug_link: NUL-terminated, when @path_read, @debug_link_read
 *	(else the pointer is shown)
 * @path_cut, @debug_link_cut: longer than TRACE_STRING_MAX, or cut by a fault
 * @build_id: @build_id_len bytes, 0 when unreadable
 */
struct trace_strings {
	char path[TRACE_STRING_MAX + 1];
	char debug_link[TRACE_STRING_MAX + 1];
	bool path_read, debug_link_read;
	bool path_cut, debug_link_cut;
	uint8_t build_id[CODE_BUILD_ID_MAX];
	uint32_t build_id_len;
};

/**
 * trace_strings_read() - read @e's pathname, debug link and build id through
 *	@mem, as far as they are readable (never more than TRACE_STRING_MAX bytes
 *	of a string, CODE_BUILD_ID_MAX of the build id)
 */
void trace_strings_read(struct trace_strings *t, const struct emu_accessor *mem,
			const struct code_elf_info *e);

/**
 * trace_line_format() - "[pid T] codectl(OPTION, {ARGS}, SIZE, FLAGS) = RESULT"
 * @err: 0, or the negative errno answered (the reason comes from @res)
 * @strings: for a refused CODE_REGISTER_ELF, its strings, or NULL (pointers shown)
 * Return: the length written into @buf (always NUL-terminated, truncated to @len).
 */
size_t trace_line_format(char *buf, size_t len, pid_t tid, const struct emu_call *c,
			 const struct emu_call_result *res, int err,
			 const struct trace_strings *strings);

/**
 * trace_kcall_format() - the line of a kernel proposal's call, under its own
 *	name: "[pid T] sframe_register({sframe_start=.., sframe_size=.., text_start=..,
 *	text_size=..}, 32) = RESULT", "prctl(PR_ADD_SFRAME, ...)",
 *	"stacktrace_setup(STACKTRACE_REGISTER_SFRAME, ...)"; a registered
 *	section's version and FDE count follow its size or end
 * Return: as trace_line_format().
 */
size_t trace_kcall_format(char *buf, size_t len, pid_t tid, const struct emu_kcall *kc,
			  const struct emu_call_result *res, int err);

/**
 * trace_exec_format() - the --trace line of an execve that succeeded, as
 * strace writes it: execve("PATH", ["ARG0", ...]) = 0, from the program's
 * path and its arguments (@args: @n bytes, each argument ending with a NUL,
 * as /proc/PID/cmdline has them, and @args[@n] a NUL; at most 32 shown)
 * Return: the length written into @buf (@len bytes, NUL-terminated).
 */
size_t trace_exec_format(char *buf, size_t len, pid_t tid, const char *path, const char *args,
			 size_t n);

/** trace_quote() - @str quoted and escaped as in trace lines, into @buf (@len bytes). */
void trace_quote(char *buf, size_t len, const char *str);

/** errno_name() - "EINVAL" for EINVAL; "E?" for an unknown value. */
const char *errno_name(int err);

#endif /* SUPERVISOR_CALLS_TRACE_LINE_H */
