/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory of a sampled process as the unwinders see it: the stack copy taken
 * at the stop first, then the process's code pages kept across samples
 * (code_cache.h), then the live process through process_vm_readv(2), cached
 * by page so a walk costs one system call per page it touches.
 */
#ifndef SUPERVISOR_SAMPLE_SAMPLE_MEM_H
#define SUPERVISOR_SAMPLE_SAMPLE_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/accessor.h"
#include "emu/mappings.h"
#include "sample.h"

#define SAMPLE_MEM_PAGE		4096u
#define SAMPLE_MEM_PAGES	64u

struct code_cache;

/*
 * The byte a copy-only read outside the copy gives: 0xa5a5a5a5a5a5a5a5 is
 * no canonical address, so no IP, CFA or frame pointer a walk can go on from.
 */
#define SAMPLE_MEM_POISON 0xa5

/**
 * struct sample_mem - reader over one sample
 * @smp: the sample (not owned)
 * @remote_reads: process_vm_readv calls made; @remote_faults: pages unreadable
 * @past_copy: a read fell on the stack outside the copy, above it or below
 *	SP (read live, later)
 * @copy_only: such reads give SAMPLE_MEM_POISON bytes instead: what the
 *	copy alone gives
 * @stack_high: the end of the highest read on the thread's stack (0: none)
 * @code, @maps: the process's code pages and the mappings that say which
 *	pages are code (both NULL: none)
 * The page cache lives as long as the reader: one sample's walks.
 */
struct sample_mem {
	const struct sample *smp;
	struct code_cache *code;
	const struct emu_mappings *maps;
	uint64_t page_addr[SAMPLE_MEM_PAGES];
	bool page_ok[SAMPLE_MEM_PAGES];
	unsigned int npages;
	uint64_t remote_reads;
	uint64_t remote_faults;
	bool past_copy;
	bool copy_only;
	uint64_t stack_high;
	uint8_t page[SAMPLE_MEM_PAGES][SAMPLE_MEM_PAGE];
};

/**
 * sample_mem_init() - a reader for @smp with an empty page cache, reading
 * code pages through @code as @maps say (both may be NULL)
 */
void sample_mem_init(struct sample_mem *m, const struct sample *smp, struct code_cache *code,
		     const struct emu_mappings *maps);

/**
 * sample_mem_read() - copy @len bytes at tracee address @addr to @buf
 * Return: 0, or -EFAULT when any byte is neither in the copy nor readable.
 */
int sample_mem_read(struct sample_mem *m, uint64_t addr, void *buf, size_t len);

/** sample_mem_accessor() - @m as an emu accessor. */
struct emu_accessor sample_mem_accessor(struct sample_mem *m);

#endif /* SUPERVISOR_SAMPLE_SAMPLE_MEM_H */
