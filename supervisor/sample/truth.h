/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The truth of a program that knows its own stack (include/codectl_truth.h):
 * where its table is, found once in its symbols, and the stopped thread's
 * chain read from it during the stop, beside the registers and the stack.
 */
#ifndef SUPERVISOR_SAMPLE_TRUTH_H
#define SUPERVISOR_SAMPLE_TRUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "sample.h"
#include "supervisor/oracle/symbols.h"

/**
 * struct truth_table - where one process keeps its chains
 * @addr: the table's address (0: none)
 * @looked: its symbols were searched (a process has one until it execs)
 */
struct truth_table {
	uint64_t addr;
	bool looked;
};

/** truth_table_new() - not yet looked for; NULL on ENOMEM. */
struct truth_table *truth_table_new(void);

/** truth_table_free() - release it (NULL is fine; a tracees_free_fn). */
void truth_table_free(void *t);

/**
 * truth_table_find() - look for symbol codectl_truth in the module of the
 * program's executable @exe (a buffer of @exe_size bytes; every module's
 * when it is empty or full: a path not known whole) among @sym's, once (a
 * library's is not found: the table is the program's)
 */
void truth_table_find(struct truth_table *t, struct symbols *sym, const char *exe,
		      size_t exe_size);

/**
 * truth_read() - the chain of stopped thread @smp->tid into @smp (truth_depth
 * 0 when the table is unknown, unreadable, not yet in use, or has no chain
 * for the thread; no return addresses when it is deeper than the chain
 * keeps, CODECTL_TRUTH_DEPTH); three small process_vm_readv calls
 */
void truth_read(const struct truth_table *t, struct sample *smp);

#endif /* SUPERVISOR_SAMPLE_TRUTH_H */
