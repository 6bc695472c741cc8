// SPDX-License-Identifier: GPL-2.0
/* The stack copy, then the live process by page. */
#include <string.h>
#include <sys/uio.h>

#include "code_cache.h"
#include "sample_mem.h"

void sample_mem_init(struct sample_mem *m, const struct sample *smp, struct code_cache *code,
		     const struct emu_mappings *maps)
{
	m->smp = smp;
	m->code = code;
	m->maps = maps;
	m->npages = 0;
	m->remote_reads = 0;
	m->remote_faults = 0;
	m->past_copy = false;
	m->copy_only = false;
	m->stack_high = 0;
}

/*
 * The cached page at @page (aligned), read on first use; NULL when unreadable.
 * Pages are never replaced: a walk sees each cached page as it was at its
 * first read, so data published in order (a JIT table's used_len, then its
 * entries) is never seen newer in front of older behind. Once the cache is
 * full, *@uncached is set for every page, cached or not, and the caller
 * reads the live process itself: every read from then on is newer than
 * every read before, which that order allows (serving an entry from a page
 * cached before a used_len read live after would not be).
 */
static const uint8_t *page_of(struct sample_mem *m, uint64_t page, bool *uncached)
{
	struct iovec local, remote = { .iov_base = (void *)(uintptr_t)page,
				       .iov_len = SAMPLE_MEM_PAGE };
	unsigned int i;

	*uncached = m->npages == SAMPLE_MEM_PAGES;
	if (*uncached)
		return NULL;
	for (i = 0; i < m->npages; i++)
		if (m->page_addr[i] == page)
			return m->page_ok[i] ? m->page[i] : NULL;
	i = m->npages++;
	local = (struct iovec){ .iov_base = m->page[i], .iov_len = SAMPLE_MEM_PAGE };
	m->remote_reads++;
	m->page_addr[i] = page;
	m->page_ok[i] = process_vm_readv(m->smp->tgid, &local, 1, &remote, 1, 0) ==
			SAMPLE_MEM_PAGE;
	if (!m->page_ok[i])
		m->remote_faults++;
	return m->page_ok[i] ? m->page[i] : NULL;
}

static int read_uncached(struct sample_mem *m, uint64_t addr, uint8_t *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len },
		     remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };

	m->remote_reads++;
	if (process_vm_readv(m->smp->tgid, &local, 1, &remote, 1, 0) == (ssize_t)len)
		return 0;
	m->remote_faults++;
	return -EFAULT;
}

static int read_remote(struct sample_mem *m, uint64_t addr, uint8_t *buf, size_t len)
{
	while (len) {
		uint64_t page = addr & ~(uint64_t)(SAMPLE_MEM_PAGE - 1);
		size_t off = (size_t)(addr - page), n = SAMPLE_MEM_PAGE - off;
		bool code = false, uncached = false;
		const uint8_t *p = NULL;

		if (m->code)
			p = code_cache_page(m->code, m->maps, page, &code);
		if (!code)
			p = page_of(m, page, &uncached);
		if (n > len)
			n = len;
		if (uncached && read_uncached(m, addr, buf, n))
			return -EFAULT;
		if (!uncached && !p)
			return -EFAULT;
		if (p)
			memcpy(buf, p + off, n);
		buf += n;
		addr += n;
		len -= n;
	}
	return 0;
}

/*
 * A read of @len bytes of a stack outside the copy: it is live, later. With
 * copy_only, @buf gets SAMPLE_MEM_POISON bytes instead, and the walk goes on
 * with them: the frames that depend on the read part from the live walk's,
 * those that do not (an FP slot an epilogue popped, which the next rule does
 * not use) stay equal. Return: true when @buf was so filled.
 */
static bool outside_copy(struct sample_mem *m, void *buf, size_t len)
{
	m->past_copy = true;
	if (!m->copy_only)
		return false;
	memset(buf, SAMPLE_MEM_POISON, len);
	return true;
}

int sample_mem_read(struct sample_mem *m, uint64_t addr, void *buf, size_t len)
{
	const struct sample *s = m->smp;
	uint64_t end = addr + len;

	if (end < addr)
		return -EFAULT;
	if (addr >= s->stack_map_start && addr < s->stack_map_end && end > m->stack_high)
		m->stack_high = end;
	if (addr >= s->stack_start && end <= s->stack_start + s->stack_len) {
		memcpy(buf, s->stack + (addr - s->stack_start), len);
		return 0;
	}
	/*
	 * The stack outside the copy, above it or below SP (a slot an epilogue
	 * just popped, which a rule may still name), is read live: later.
	 */
	if ((addr < s->stack_start || end > s->stack_start + s->stack_len) &&
	    addr < s->stack_map_end && end > s->stack_map_start && outside_copy(m, buf, len))
		return 0;
	return read_remote(m, addr, buf, len);
}

static int accessor_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return sample_mem_read(ctx, addr, buf, len);
}

/*
 * The unwinder's reads of a stack: any outside the copy, of another stack
 * too (the one a signal frame on an alternate stack interrupted), is read
 * live, later.
 */
static int accessor_read_stack(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct sample_mem *m = ctx;
	const struct sample *s = m->smp;

	if ((addr < s->stack_start || addr + len > s->stack_start + s->stack_len) &&
	    outside_copy(m, buf, len))
		return 0;
	return sample_mem_read(m, addr, buf, len);
}

struct emu_accessor sample_mem_accessor(struct sample_mem *m)
{
	return (struct emu_accessor){ .read = accessor_read, .ctx = m,
				      .read_stack = accessor_read_stack };
}
