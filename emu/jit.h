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
#include "jit_index.h"
#include "rules.h"
#include "unwind_rule.h"

/* Longest table chain followed: a longer one ends the walk (chain-too-long). */
#define EMU_JIT_MAX_TABLES 4096

/*
 * What made a JIT table chain unusable at unwind time, in one table (an
 * X-macro): X(ID, reason, what); the enum (EMU_JIT_<ID>) and the stop reasons
 * (emu_jit_fault_reason()) are made from it.
 */
#define EMU_JIT_FAULTS(X) \
	X(OK, "jit-table-invalid", "nothing") \
	X(HEADER_UNREADABLE, "jit-table-invalid: header-unreadable", \
	  "a table header could not be read") \
	X(HEADER_MISALIGNED, "jit-table-invalid: header-misaligned", \
	  "a table (head or next) not 8-byte aligned") \
	X(USED_LEN, "jit-table-invalid: used-len-above-reserved-len", \
	  "used_len above reserved_len") \
	X(FRE_SIZE, "jit-table-invalid: fre-size-below-21", "fre_size below 21") \
	X(FRE_STRIDE, "jit-table-invalid: bad-fre-stride", \
	  "fre_stride below fre_size or not a multiple of 4") \
	X(LAYOUT_CHANGED, "jit-table-invalid: stride-or-size-changed", \
	  "fre_stride or fre_size differs from the head's") \
	X(ENTRY_UNREADABLE, "jit-table-invalid: entry-unreadable", \
	  "a published entry could not be read") \
	X(UNSORTED, "jit-table-invalid: unsorted", \
	  "entries (or tables) not in increasing ip_off order") \
	X(OVERLAP, "jit-table-invalid: overlap", "an entry starts inside the one before it") \
	X(CHAIN_LOOP, "jit-table-invalid: chain-loop", \
	  "the next chain comes back to a table (one holding entries is caught as unsorted)") \
	X(CHAIN_TOO_LONG, "jit-table-invalid: chain-too-long", \
	  "more than EMU_JIT_MAX_TABLES tables")

enum emu_jit_fault {
#define EMU_JIT_FAULT_ID(id, reason, what) EMU_JIT_##id,
	EMU_JIT_FAULTS(EMU_JIT_FAULT_ID)
#undef EMU_JIT_FAULT_ID
	EMU_JIT_FAULT_COUNT
};

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
 * Reads each table's header (used_len first: entries at or beyond it are never
 * read) and first entry until a table starts above @ip, then the last entry of
 * the table before it, and binary-searches that one: O(tables + log n) reads
 * (2 per table passed, log2 n + 3 in the one searched). With @idx (the
 * registration's index of sealed tables, see jit_index.h; NULL: none) the
 * sealed tables are binary-searched instead of walked, and the walk, if any,
 * starts at the last of them and adds those it finds sealed: O(log tables +
 * log n) once the index has caught up. Nothing else is kept: the tables grow
 * between calls. Everything read is checked as far as the search sees it (the
 * order of the entries it visits, the next entry for overlap), like the
 * kernel's FDE search; a sealed table whose first entry changed empties the
 * index.
 * Return: 0, -ENOENT (no entry covers @ip), -EINVAL (a malformed chain;
 * *@fault says what).
 */
int emu_jit_find_rule(const struct emu_accessor *mem, const struct emu_arch_info *arch,
		      uint64_t text_start, uint64_t head, uint64_t ip,
		      struct emu_jit_index *idx, struct emu_unwind_rule *rule,
		      enum emu_jit_fault *fault);

/**
 * emu_jit_fault_reason() - "jit-table-invalid: <what>" for a walk's stop reason
 * (a static string; "jit-table-invalid" for EMU_JIT_OK or unknown values).
 */
const char *emu_jit_fault_reason(enum emu_jit_fault fault);

#endif /* EMU_JIT_H */
