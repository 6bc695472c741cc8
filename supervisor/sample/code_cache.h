/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One process's code pages, kept from sample to sample: the pages of file
 * mappings that are executable and not writable, whose bytes do not change
 * while the mappings stay as they are. Walks read code at every frame (the
 * signal trampoline check, the plausibility oracle); without this cache each
 * sample would read the same pages of libc again through process_vm_readv.
 * Emptied whenever the process's mappings change.
 */
#ifndef SUPERVISOR_SAMPLE_CODE_CACHE_H
#define SUPERVISOR_SAMPLE_CODE_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/mappings.h"
#include "sample_mem.h"

#define CODE_CACHE_PAGES 256u	/* pages kept (1 MiB), direct-mapped by address */

struct code_cache;

/** code_cache_new() - an empty cache for process @pid; NULL on ENOMEM. */
struct code_cache *code_cache_new(pid_t pid);

/** code_cache_free() - release it (NULL is fine; a tracees_free_fn). */
void code_cache_free(void *cc);

/** code_cache_clear() - the mappings changed: forget every page. */
void code_cache_clear(struct code_cache *cc);

/**
 * code_cache_page() - the page at @page (aligned) when @maps say it is code
 * of a file that cannot be written there; read on first use
 * @cacheable: set to whether it is such a page (false: the caller reads it
 *	itself)
 * Return: the page's SAMPLE_MEM_PAGE bytes (owned by @cc, valid until the
 * next call), or NULL when it is not cacheable or not readable.
 */
const uint8_t *code_cache_page(struct code_cache *cc, const struct emu_mappings *maps,
			       uint64_t page, bool *cacheable);

#endif /* SUPERVISOR_SAMPLE_CODE_CACHE_H */
