// SPDX-License-Identifier: GPL-2.0
/* Code pages of file mappings, kept across samples until the mappings change. */
#include <stdlib.h>
#include <sys/uio.h>

#include "code_cache.h"

/**
 * struct code_cache - one process's code pages
 * @addr: each slot's page address + 1 (0: empty); @ok: it was readable
 */
struct code_cache {
	pid_t pid;
	uint64_t addr[CODE_CACHE_PAGES];
	bool ok[CODE_CACHE_PAGES];
	uint8_t page[CODE_CACHE_PAGES][SAMPLE_MEM_PAGE];
};

struct code_cache *code_cache_new(pid_t pid)
{
	struct code_cache *cc = calloc(1, sizeof(*cc));

	if (cc)
		cc->pid = pid;
	return cc;
}

void code_cache_free(void *cc)
{
	free(cc);
}

void code_cache_clear(struct code_cache *cc)
{
	for (unsigned int i = 0; cc && i < CODE_CACHE_PAGES; i++)
		cc->addr[i] = 0;
}

/* A page whose bytes stay as they are while the mapping does: file code, not writable. */
static bool immutable_code(const struct emu_mappings *maps, uint64_t page)
{
	const struct emu_vma *v = maps ? emu_mappings_find(maps, page) : NULL;

	return v && v->ident && (v->prot & EMU_PROT_EXEC) && !(v->prot & EMU_PROT_WRITE) &&
	       page + SAMPLE_MEM_PAGE <= v->end;
}

const uint8_t *code_cache_page(struct code_cache *cc, const struct emu_mappings *maps,
			       uint64_t page, bool *cacheable)
{
	unsigned int i = (unsigned int)(page / SAMPLE_MEM_PAGE) % CODE_CACHE_PAGES;
	struct iovec local = { .iov_base = cc->page[i], .iov_len = SAMPLE_MEM_PAGE },
		     remote = { .iov_base = (void *)(uintptr_t)page, .iov_len = SAMPLE_MEM_PAGE };

	*cacheable = immutable_code(maps, page);
	if (!*cacheable)
		return NULL;
	if (cc->addr[i] != page + 1) {
		cc->ok[i] = process_vm_readv(cc->pid, &local, 1, &remote, 1, 0) == SAMPLE_MEM_PAGE;
		cc->addr[i] = page + 1;
	}
	return cc->ok[i] ? cc->page[i] : NULL;
}
