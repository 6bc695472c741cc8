// SPDX-License-Identifier: GPL-2.0
/*
 * The sample's memory reader (supervisor/sample/sample_mem.c) over this very
 * process: a page is seen as it was at its first read while the cache has
 * room; once it is full, every read is live, so that nothing read after is
 * older than something read before (a JIT table's used_len, then entries).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/sample/sample_mem.h"

#define PAGES (SAMPLE_MEM_PAGES + 2)

static uint64_t read_word(struct sample_mem *m, const uint64_t *p)
{
	uint64_t v = 0;

	cr_assert_eq(sample_mem_read(m, (uintptr_t)p, &v, sizeof(v)), 0);
	return v;
}

Test(sample_mem, cached_pages_keep_their_first_read_until_the_cache_is_full)
{
	static struct sample_mem m;
	struct sample smp = { .tid = getpid(), .tgid = getpid() };
	uint64_t *mem = aligned_alloc(SAMPLE_MEM_PAGE, PAGES * SAMPLE_MEM_PAGE);
	size_t words = SAMPLE_MEM_PAGE / sizeof(uint64_t);

	cr_assert(mem);
	memset(mem, 0, PAGES * SAMPLE_MEM_PAGE);
	sample_mem_init(&m, &smp);
	mem[0] = 1;
	cr_assert_eq(read_word(&m, &mem[0]), 1);
	mem[0] = 2;
	cr_assert_eq(read_word(&m, &mem[0]), 1, "the page as it was first read");
	for (size_t p = 1; p < SAMPLE_MEM_PAGES; p++)
		read_word(&m, &mem[p * words]);
	cr_assert_eq(m.npages, SAMPLE_MEM_PAGES);
	cr_assert_eq(read_word(&m, &mem[SAMPLE_MEM_PAGES * words]), 0, "read live, not cached");
	cr_assert_eq(read_word(&m, &mem[0]), 2, "cache full: even a cached page is read live");
	cr_assert_eq(m.remote_reads, SAMPLE_MEM_PAGES + 2);
	free(mem);
}
