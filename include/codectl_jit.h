/* SPDX-License-Identifier: MIT */
/*
 * JIT unwind tables for writers (codectl(2) CODE_REGISTER_JIT): a header-only
 * helper beside codectl.h that uses nothing but include/.
 *
 * One struct codectl_jit_tables describes a JIT code area and its chain of
 * unwind tables. The tables live in one area reserved at init (mmap with
 * MAP_NORESERVE: pages cost memory only when touched), so a full table is
 * chained to a new one without any system call; the code area is registered
 * once and unregistered at teardown. Adding a function's FREs writes them past
 * the published end, then publishes them with one store-release of used_len
 * (the emulator or kernel reads used_len with load-acquire, then only entries
 * below it). A chained table is fully written before the old table's `next`
 * is stored (release), and the old table's used_len is stored again after it,
 * as codectl-abi.md orders it.
 *
 * Writers: one at a time (callers serialise codectl_jit_add()); readers (the
 * unwinder) need no lock. Entries must be added in increasing address order.
 *
 *	struct codectl_jit_tables t;
 *	struct code_jit_unwind_fre fre[CODECTL_JIT_FP_FRES];
 *
 *	codectl_jit_init(&t, code, code_len, 65536, 64);
 *	codectl_jit_register(&t);			// the one system call
 *	n = codectl_jit_fres_fp(fn - code, leave_off, fre);
 *	codectl_jit_add(&t, fre, n);			// no system call
 *	...
 *	codectl_jit_destroy(&t);			// unregister, unmap
 */
#ifndef CODECTL_JIT_H
#define CODECTL_JIT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "codectl.h"

/*
 * <sys/mman.h> names MAP_ANONYMOUS and MAP_NORESERVE only under
 * _DEFAULT_SOURCE or _GNU_SOURCE (the default of gnu11 and of g++), which a
 * header cannot define once the includer's system headers are in. In strict
 * ISO C (-std=c11) the kernel's values are used where they are the generic
 * ones (asm-generic/mman-common.h, asm-generic/mman.h); elsewhere, compile
 * with -D_DEFAULT_SOURCE.
 */
#if defined(MAP_ANONYMOUS) && defined(MAP_NORESERVE)
#define CODECTL_JIT_MAP_ANONYMOUS MAP_ANONYMOUS
#define CODECTL_JIT_MAP_NORESERVE MAP_NORESERVE
#elif defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__) || \
	defined(__riscv)
#define CODECTL_JIT_MAP_ANONYMOUS 0x20
#define CODECTL_JIT_MAP_NORESERVE 0x4000
#else
#error "codectl_jit.h: no MAP_ANONYMOUS/MAP_NORESERVE: compile with -D_DEFAULT_SOURCE"
#endif

/* The stride this helper writes: struct code_jit_unwind_fre rounded up to 4. */
#define CODECTL_JIT_FRE_STRIDE 24u
/* FREs that codectl_jit_fres_fp() and codectl_jit_fres_frameless() produce. */
#define CODECTL_JIT_FP_FRES 4u
#define CODECTL_JIT_FRAMELESS_FRES 3u

/**
 * struct codectl_jit_tables - one JIT code area and its unwind table chain
 * @text_start, @text_end: the code area, [start, end), addresses
 * @area, @area_len: the reserved table area (owned: unmapped at destroy
 *	when @area_owned)
 * @area_used: bytes of @area handed out to tables
 * @fres_per_table: entries each table holds
 * @head, @tail: first and last table of the chain (inside @area)
 * @end_off: end (ip_off + size) of the last entry added: the next must start
 *	at or after it
 * @registered: codectl_jit_register() succeeded
 */
struct codectl_jit_tables {
	uint64_t text_start;
	uint64_t text_end;
	unsigned char *area;
	size_t area_len;
	size_t area_used;
	size_t fres_per_table;
	struct code_jit_unwind_table *head;
	struct code_jit_unwind_table *tail;
	uint64_t end_off;
	int area_owned;
	int registered;
};

static inline size_t codectl_jit_table_bytes(size_t fres_per_table)
{
	return sizeof(struct code_jit_unwind_table) + fres_per_table * CODECTL_JIT_FRE_STRIDE;
}

/* Carve the next table out of the area; NULL when the area is full. */
static inline struct code_jit_unwind_table *codectl_jit_new_table(struct codectl_jit_tables *t)
{
	size_t bytes = codectl_jit_table_bytes(t->fres_per_table);
	struct code_jit_unwind_table *tab;

	if (t->area_len - t->area_used < bytes)
		return NULL;
	tab = (struct code_jit_unwind_table *)(t->area + t->area_used);
	t->area_used += bytes;
	tab->reserved_len = (uint64_t)t->fres_per_table * CODECTL_JIT_FRE_STRIDE;
	tab->used_len = 0;
	tab->next = 0;
	tab->fre_stride = CODECTL_JIT_FRE_STRIDE;
	tab->fre_size = CODE_JIT_FRE_SIZE_VER0;
	return tab;
}

/**
 * codectl_jit_init_area() - describe a code area, with a caller-owned table area
 * @text, @text_len: the JIT code area (bytes; executable when registered)
 * @area, @area_len: memory for the tables, 8-byte aligned, zero or not; it
 *	holds area_len / codectl_jit_table_bytes(@fres_per_table) tables
 * @fres_per_table: entries per table (>= 1)
 *
 * Return: 0, or -EINVAL (empty text, misaligned or too small area, 0 entries).
 */
static inline int codectl_jit_init_area(struct codectl_jit_tables *t, const void *text,
					size_t text_len, void *area, size_t area_len,
					size_t fres_per_table)
{
	memset(t, 0, sizeof(*t));
	if (!text || !text_len || !area || ((uintptr_t)area & 7) || !fres_per_table ||
	    fres_per_table > (SIZE_MAX - 64) / CODECTL_JIT_FRE_STRIDE)
		return -EINVAL;
	t->text_start = (uintptr_t)text;
	t->text_end = t->text_start + text_len;
	t->area = (unsigned char *)area;
	t->area_len = area_len;
	t->fres_per_table = fres_per_table;
	t->head = t->tail = codectl_jit_new_table(t);
	return t->head ? 0 : -EINVAL;
}

/**
 * codectl_jit_init() - describe a code area; reserve room for @max_tables tables
 * @fres_per_table: entries per table (>= 1); @max_tables: tables at most (>= 1)
 *
 * The table area is mapped here (one mmap, MAP_NORESERVE) and owned by @t.
 * Return: 0, -EINVAL (bad sizes), -ENOMEM (the mapping failed).
 */
static inline int codectl_jit_init(struct codectl_jit_tables *t, const void *text,
				   size_t text_len, size_t fres_per_table, size_t max_tables)
{
	size_t bytes = codectl_jit_table_bytes(fres_per_table);
	void *area;
	int err;

	memset(t, 0, sizeof(*t));
	if (!fres_per_table || !max_tables || fres_per_table > (SIZE_MAX / 2) / 64 ||
	    max_tables > (SIZE_MAX / 2) / bytes)
		return -EINVAL;
	area = mmap(NULL, bytes * max_tables, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | CODECTL_JIT_MAP_ANONYMOUS | CODECTL_JIT_MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED)
		return -ENOMEM;
	err = codectl_jit_init_area(t, text, text_len, area, bytes * max_tables, fres_per_table);
	if (err) {
		munmap(area, bytes * max_tables);
		return err;
	}
	t->area_owned = 1;
	return 0;
}

/**
 * codectl_jit_register() - register the code area and its table chain
 * Return: 0, or the negative errno of codectl(2) (-ENOSYS outside codectl-run
 * and on kernels without codectl: the tables still work, nobody reads them).
 */
static inline int codectl_jit_register(struct codectl_jit_tables *t)
{
	struct code_jit_info info;

	/* member by member: designated initializers are not C++17 */
	memset(&info, 0, sizeof(info));
	info.text_start = t->text_start;
	info.text_end = t->text_end;
	info.unwind_head = (uintptr_t)t->head;
	if (codectl(CODE_REGISTER_JIT, &info, sizeof(info), 0))
		return -errno;
	t->registered = 1;
	return 0;
}

/* @fre[0..n) lie in the text, each non-empty, sorted, apart, and after end_off. */
static inline int codectl_jit_check_fres(const struct codectl_jit_tables *t,
					 const struct code_jit_unwind_fre *fre, size_t n)
{
	uint64_t end = t->end_off, len = t->text_end - t->text_start;

	for (size_t i = 0; i < n; i++) {
		if (!fre[i].size || fre[i].ip_off < end)
			return -EINVAL;
		end = (uint64_t)fre[i].ip_off + fre[i].size;
		if (end > len)
			return -ERANGE;
	}
	return 0;
}

static inline void codectl_jit_copy_fres(struct code_jit_unwind_table *tab, uint64_t used,
					 const struct code_jit_unwind_fre *fre, size_t n)
{
	unsigned char *dst = (unsigned char *)(tab + 1) + used;

	for (size_t i = 0; i < n; i++)
		memcpy(dst + i * CODECTL_JIT_FRE_STRIDE, &fre[i], CODE_JIT_FRE_SIZE_VER0);
}

/**
 * struct codectl_jit_slot - where the next entries go (codectl_jit_reserve())
 * @tab: the tail table, or a new one not yet linked into the chain (@fresh)
 * @used: bytes of @tab's entries before them (its used_len)
 */
struct codectl_jit_slot {
	struct code_jit_unwind_table *tab;
	uint64_t used;
	int fresh;
};

/**
 * codectl_jit_reserve() - check @n entries and find room for them, unpublished
 * @fre, @n: as for codectl_jit_add()
 *
 * The first half of codectl_jit_add(), for writers that must do something
 * to the slots before the entries land there (tests poison them). Nothing is
 * visible to readers until codectl_jit_publish().
 * Return: 0 with *@slot set, or the errors of codectl_jit_add() (-EINVAL
 * also after codectl_jit_destroy() or a failed init).
 */
static inline int codectl_jit_reserve(struct codectl_jit_tables *t,
				      const struct code_jit_unwind_fre *fre, size_t n,
				      struct codectl_jit_slot *slot)
{
	struct code_jit_unwind_table *tab = t->tail;
	uint64_t bytes = (uint64_t)n * CODECTL_JIT_FRE_STRIDE;
	int err;

	if (!tab || !n || n > t->fres_per_table)
		return -EINVAL;
	err = codectl_jit_check_fres(t, fre, n);
	if (err)
		return err;
	slot->tab = tab;
	slot->used = tab->used_len;
	slot->fresh = 0;
	if (tab->reserved_len - slot->used >= bytes)
		return 0;
	slot->tab = codectl_jit_new_table(t);
	if (!slot->tab)
		return -ENOSPC;
	slot->used = 0;
	slot->fresh = 1;
	return 0;
}

/**
 * codectl_jit_publish() - write @n entries to @slot and publish them
 * @slot: from codectl_jit_reserve() with the same @fre and @n, just before
 *
 * The entries, then used_len (store-release); a new table is linked by a
 * store-release of the old tail's next once it is complete, and the old
 * tail's used_len is stored again after that, as codectl-abi.md orders it.
 */
static inline void codectl_jit_publish(struct codectl_jit_tables *t,
				       const struct codectl_jit_slot *slot,
				       const struct code_jit_unwind_fre *fre, size_t n)
{
	struct code_jit_unwind_table *old = t->tail;
	uint64_t used = slot->used + (uint64_t)n * CODECTL_JIT_FRE_STRIDE;

	codectl_jit_copy_fres(slot->tab, slot->used, fre, n);
	__atomic_store_n(&slot->tab->used_len, used, __ATOMIC_RELEASE);
	if (slot->fresh) {
		__atomic_store_n(&old->next, (uint64_t)(uintptr_t)slot->tab, __ATOMIC_RELEASE);
		__atomic_store_n(&old->used_len, old->used_len, __ATOMIC_RELEASE);
		t->tail = slot->tab;
	}
	t->end_off = (uint64_t)fre[n - 1].ip_off + fre[n - 1].size;
}

/**
 * codectl_jit_add() - append and publish one function's FREs (no system call)
 * @fre, @n: entries in increasing ip_off order, offsets from text_start,
 *	starting at or after the end of the last entry added; all n are
 *	published together, in one table (a full table is chained first)
 *
 * Return: 0, -EINVAL (n 0 or above a table's size, an empty, unsorted or
 * overlapping entry), -ERANGE (an entry outside the text), -ENOSPC (the
 * table area is full).
 */
static inline int codectl_jit_add(struct codectl_jit_tables *t,
				  const struct code_jit_unwind_fre *fre, size_t n)
{
	struct codectl_jit_slot slot;
	int err = codectl_jit_reserve(t, fre, n, &slot);

	if (!err)
		codectl_jit_publish(t, &slot, fre, n);
	return err;
}

/**
 * codectl_jit_destroy() - unregister (when registered) and free the table area
 *
 * A registration already gone (-ENOENT: unregistered by someone else) counts
 * as unregistered. Calling it again, or codectl_jit_add() after it, is safe
 * (-EINVAL from the add).
 * Return: 0, or the negative errno of the unregistration; then nothing is
 * freed, since the unwinder may still read the tables.
 */
static inline int codectl_jit_destroy(struct codectl_jit_tables *t)
{
	if (t->registered &&
	    codectl(CODE_UNREGISTER, (void *)(uintptr_t)t->text_start, 0, 0) && errno != ENOENT)
		return -errno;
	t->registered = 0;
	if (t->area_owned && t->area)
		munmap(t->area, t->area_len);
	t->area = NULL;
	t->area_len = t->area_used = 0;
	t->area_owned = 0;
	t->head = t->tail = NULL;
	return 0;
}

/* One FRE: [ip_off + start, ip_off + end) with the CFA at base + cfa_off. */
static inline struct code_jit_unwind_fre codectl_jit_fre(uint32_t ip_off, uint32_t start,
							 uint32_t end, uint8_t base_fp,
							 int32_t cfa_off, int fp_saved)
{
	struct code_jit_unwind_fre f;

	memset(&f, 0, sizeof(f));
	f.size = end - start;
	f.ip_off = ip_off + start;
	f.cfa_off = cfa_off;
	f.fp_off = fp_saved ? -16 : 0;
	f.info = (uint8_t)((base_fp ? CODE_JIT_FRE_CFA_BASE_FP : 0) |
			   (fp_saved ? CODE_JIT_FRE_FP_SAVED : 0));
	return f;
}

/**
 * codectl_jit_fres_fp() - FREs of an x86_64 function with a frame pointer
 * @ip_off: the function's offset from text_start (bytes)
 * @leave_off: offset of its `leave` from the function's start (>= 4); the
 *	`ret` follows at @leave_off + 1, the function is @leave_off + 2 bytes
 *
 * The shape: `push %rbp` (1 byte) at 0, `mov %rsp,%rbp` (3 bytes) at 1, any
 * body that keeps %rbp, `leave` (1 byte), `ret` (1 byte).
 * Return: the number of entries written to @out (CODECTL_JIT_FP_FRES), 0 when
 * @leave_off is below 4.
 */
static inline unsigned int codectl_jit_fres_fp(uint32_t ip_off, uint32_t leave_off,
					       struct code_jit_unwind_fre *out)
{
	if (leave_off < 4)
		return 0;
	out[0] = codectl_jit_fre(ip_off, 0, 1, 0, 8, 0);			/* push %rbp */
	out[1] = codectl_jit_fre(ip_off, 1, 4, 0, 16, 1);			/* mov %rsp,%rbp */
	out[2] = codectl_jit_fre(ip_off, 4, leave_off + 1, 1, 16, 1);		/* body, leave */
	out[3] = codectl_jit_fre(ip_off, leave_off + 1, leave_off + 2, 0, 8, 0);	/* ret */
	return CODECTL_JIT_FP_FRES;
}

/**
 * codectl_jit_fres_frameless() - FREs of an x86_64 function without a frame pointer
 * @ip_off: the function's offset from text_start (bytes)
 * @sub_len: bytes of its first instruction, `sub $frame,%rsp` (4 or 7)
 * @frame: bytes that instruction subtracts (the body keeps %rsp there)
 * @ret_off: offset of the `ret` from the function's start, right after
 *	`add $frame,%rsp`; the function is @ret_off + 1 bytes
 *
 * Return: the number of entries written to @out (CODECTL_JIT_FRAMELESS_FRES),
 * 0 when @ret_off is not after @sub_len or @frame is above INT32_MAX - 8.
 */
static inline unsigned int codectl_jit_fres_frameless(uint32_t ip_off, uint32_t sub_len,
						      uint32_t frame, uint32_t ret_off,
						      struct code_jit_unwind_fre *out)
{
	if (!sub_len || ret_off <= sub_len || frame > INT32_MAX - 8)
		return 0;
	out[0] = codectl_jit_fre(ip_off, 0, sub_len, 0, 8, 0);			/* sub */
	out[1] = codectl_jit_fre(ip_off, sub_len, ret_off, 0, 8 + (int32_t)frame, 0);
	out[2] = codectl_jit_fre(ip_off, ret_off, ret_off + 1, 0, 8, 0);	/* ret */
	return CODECTL_JIT_FRAMELESS_FRES;
}

#endif /* CODECTL_JIT_H */
