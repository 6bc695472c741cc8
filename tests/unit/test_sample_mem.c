// SPDX-License-Identifier: GPL-2.0
/*
 * The sample's memory reader (supervisor/sample/sample_mem.c) over this very
 * process: a page is seen as it was at its first read while the cache has
 * room; once it is full, every read is live, so that nothing read after is
 * older than something read before (a JIT table's used_len, then entries).
 * Code pages of file mappings come from the process's code cache instead.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/sample/code_cache.h"
#include "supervisor/sample/sample_mem.h"
#include "supervisor/core/procfs.h"

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
	sample_mem_init(&m, &smp, NULL, NULL);
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

/* A function of this program's text, and the mapping /proc says holds it. */
__attribute__((noinline)) static int text_marker(int x)
{
	return x * 3 + 1;
}

Test(sample_mem, code_pages_are_kept_across_samples_until_the_mappings_change)
{
	static struct sample_mem m;
	struct sample smp = { .tid = getpid(), .tgid = getpid() };
	uint64_t code = (uintptr_t)text_marker, page = code & ~(uint64_t)(SAMPLE_MEM_PAGE - 1);
	uint64_t *heap = aligned_alloc(SAMPLE_MEM_PAGE, SAMPLE_MEM_PAGE);
	struct code_cache *cc = code_cache_new(getpid());
	struct emu_mappings maps = { 0 };
	uint8_t want[16], got[16];
	bool cacheable;

	cr_assert(cc && heap);
	cr_assert_eq(procfs_maps_read(getpid(), &maps), 0);
	memcpy(want, (const void *)(uintptr_t)code, sizeof(want));
	sample_mem_init(&m, &smp, cc, &maps);
	cr_assert_eq(sample_mem_read(&m, code, got, sizeof(got)), 0);
	cr_assert_arr_eq(got, want, sizeof(want));
	cr_assert_eq(m.remote_reads, 0, "file code comes from the code cache");
	cr_assert(code_cache_page(cc, &maps, page, &cacheable) && cacheable);
	/* the next sample finds it there: no read of its own */
	sample_mem_init(&m, &smp, cc, &maps);
	cr_assert_eq(sample_mem_read(&m, code, got, sizeof(got)), 0);
	cr_assert_eq(m.remote_reads, 0);
	/* writable memory is never kept */
	heap[0] = 7;
	cr_assert_eq(read_word(&m, heap), 7);
	cr_assert_eq(m.remote_reads, 1);
	cr_assert_null(code_cache_page(cc, &maps, (uintptr_t)heap, &cacheable));
	cr_assert_not(cacheable);
	code_cache_clear(cc);
	cr_assert(code_cache_page(cc, &maps, page, &cacheable) && cacheable, "read again");
	emu_mappings_free(&maps);
	code_cache_free(cc);
	free(heap);
}

/*
 * A "stack" mapping of four words with the copy holding words 1 and 2 (SP
 * at word 1): a read in the copy comes from it; word 3 (above it) and word
 * 0 (below SP, a slot an epilogue just popped) are read live, and say so;
 * with copy_only they give the poison, a word no walk can go on from.
 */
Test(sample_mem, the_stack_outside_the_copy_is_read_live_and_marked)
{
	static struct sample_mem m;
	static uint64_t stack[4] = { 10, 11, 12, 13 };
	static struct sample smp;
	static uint64_t copy[2] = { 21, 22 };
	uint64_t v;

	smp = (struct sample){ .tid = getpid(), .tgid = getpid() };
	smp.stack_start = (uintptr_t)&stack[1];
	smp.stack = (uint8_t *)copy;
	smp.stack_len = sizeof(copy);
	smp.stack_map_start = (uintptr_t)&stack[0];
	smp.stack_map_end = (uintptr_t)&stack[4];
	sample_mem_init(&m, &smp, NULL, NULL);
	cr_assert_eq(read_word(&m, &stack[2]), 22);
	cr_assert_not(m.past_copy);
	cr_assert_eq(read_word(&m, &stack[3]), 13);
	cr_assert(m.past_copy, "above the copy");
	sample_mem_init(&m, &smp, NULL, NULL);
	cr_assert_eq(read_word(&m, &stack[0]), 10);
	cr_assert(m.past_copy, "below SP");
	m.copy_only = true;
	cr_assert_eq(sample_mem_read(&m, (uintptr_t)&stack[0], &v, sizeof(v)), 0);
	cr_assert_eq(v, 0xa5a5a5a5a5a5a5a5ull);
	v = 0;
	cr_assert_eq(sample_mem_read(&m, (uintptr_t)&stack[3], &v, sizeof(v)), 0);
	cr_assert_eq(v, 0xa5a5a5a5a5a5a5a5ull);
	cr_assert_eq(sample_mem_read(&m, (uintptr_t)&stack[1], &v, sizeof(v)), 0);
	cr_assert_eq(v, 21);
}
