/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A JIT function's unwind table entries (CODE_REGISTER_JIT) held to its
 * code, both read from the traced process as they are at the time (the
 * tables grow without a system call). A function's bounds are the JIT's
 * perf map's, or the run of adjacent entries around an address.
 */
#ifndef SUPERVISOR_VERIFY_JIT_CHECK_H
#define SUPERVISOR_VERIFY_JIT_CHECK_H

#include <stdint.h>

#include "emu/accessor.h"
#include "emu/arch.h"
#include "verify.h"

/**
 * struct verify_jit - one JIT registration, as read for a check (nothing owned)
 * @mem: the process's memory (code and tables)
 * @text_start, @text_end: its code area, [start, end)
 * @head: the address of its first table
 */
struct verify_jit {
	const struct emu_accessor *mem;
	const struct emu_arch_info *arch;
	uint64_t text_start;
	uint64_t text_end;
	uint64_t head;
};

/* Entries followed each way from an address for a function's bounds at most. */
#define VERIFY_JIT_MAX_RUN 4096

/**
 * verify_jit_run_around() - the run of adjacent entries (each starting where
 * the one before ends) around @ip: [@start, @end), at most
 * VERIFY_JIT_MAX_RUN entries each way
 * Return: 0, or -ENOENT when no entry covers @ip (-EINVAL: the tables are
 * malformed).
 */
int verify_jit_run_around(const struct verify_jit *j, uint64_t ip, uint64_t *start,
			  uint64_t *end);

/**
 * verify_jit_check() - hold the entries in effect in the function [@start,
 * @end) (named @name, or NULL) to its code, entered as the ABI says:
 * findings appended to @out as verify_function() does (a JIT entry's
 * finding has @jit set: the entry is [@func_start + @fre_start,
 * @row.code_end)), its entries counted as rows
 * Return: 0, -ENOMEM, or -EINVAL when @start or @end is outside the code area.
 */
int verify_jit_check(const struct verify_jit *j, uint64_t start, uint64_t end, const char *name,
		     struct verify_result *out);

#endif /* SUPERVISOR_VERIFY_JIT_CHECK_H */
