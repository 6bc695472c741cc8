/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JIT unwind tables (CODE_REGISTER_JIT): the registration-time header check
 * and the lookup at unwind time, which reads the live tables through the
 * accessor every time (they grow; codectl-abi.md, "CODE_REGISTER_JIT").
 */
#ifndef EMU_JIT_H
#define EMU_JIT_H

#include <stdint.h>

#include "accessor.h"
#include "arch.h"
#include "rules.h"
#include "unwind_rule.h"

/* Longest table chain followed before the chain counts as looping. */
#define EMU_JIT_MAX_TABLES 4096

/**
 * emu_jit_check_head() - check the first table header at registration
 * @head: tracee address of the header (8-byte aligned)
 * Return: 0, -EFAULT (unreadable), -EINVAL (misaligned, used_len above
 * reserved_len, fre_size below 21, fre_stride below fre_size or not a
 * multiple of 4); @v names the rule.
 */
int emu_jit_check_head(const struct emu_accessor *mem, uint64_t head, struct emu_verdict *v);

/**
 * emu_jit_find_rule() - the rule for @ip in the table chain at @head
 * @text_start: the JIT code area's start; entries' ip_off count from it
 *
 * Reads each table's used_len, then only entries below it, and binary-searches
 * the table covering @ip (O(log n) entry reads per table).
 * Return: 0, -ENOENT (no entry covers @ip), -EINVAL (a malformed table: bad
 * header, unsorted or overlapping entries, a stride change, a chain longer
 * than EMU_JIT_MAX_TABLES, unreadable entries).
 */
int emu_jit_find_rule(const struct emu_accessor *mem, const struct emu_arch_info *arch,
		      uint64_t text_start, uint64_t head, uint64_t ip,
		      struct emu_unwind_rule *rule);

#endif /* EMU_JIT_H */
