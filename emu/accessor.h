/* SPDX-License-Identifier: GPL-2.0 */
/* The only way emu/ reads tracee memory: a copy_from_user-like accessor. */
#ifndef EMU_ACCESSOR_H
#define EMU_ACCESSOR_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct emu_accessor - reads memory of the traced address space
 * @read: copy @len bytes at tracee address @addr into @buf; return 0, or
 *        -EFAULT when any byte is unreadable (a partial read is a failure)
 * @ctx: passed to @read unchanged; owned by whoever set up the accessor
 * @read_stack: the same for the unwinder's reads of a thread's stack (CFA,
 *	RA and FP slots, a signal frame's registers), which a reader of a
 *	stack copy taken earlier tells apart; NULL: @read
 *
 * Implementations: an in-memory image (tests, fuzzers, stack snapshots), and
 * in the supervisor process_vm_readv(2).
 */
struct emu_accessor {
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
	int (*read_stack)(void *ctx, uint64_t addr, void *buf, size_t len);
};

/**
 * emu_read() - read @len bytes at @addr through @mem
 * Return: 0, or -EFAULT (also when [addr, addr + len) wraps around).
 */
static inline int emu_read(const struct emu_accessor *mem, uint64_t addr, void *buf, size_t len)
{
	if (len == 0)
		return 0;
	if (addr + len < addr)
		return -EFAULT;
	return mem->read(mem->ctx, addr, buf, len);
}

/** emu_read_stack_u64() - a word of a thread's stack (@mem->read_stack); 0 or -EFAULT. */
static inline int emu_read_stack_u64(const struct emu_accessor *mem, uint64_t addr, uint64_t *val)
{
	if (addr + sizeof(*val) < addr)
		return -EFAULT;
	if (!mem->read_stack)
		return mem->read(mem->ctx, addr, val, sizeof(*val));
	return mem->read_stack(mem->ctx, addr, val, sizeof(*val));
}

/** emu_read_u64() - read one native-endian 64-bit word; 0 or -EFAULT. */
static inline int emu_read_u64(const struct emu_accessor *mem, uint64_t addr, uint64_t *val)
{
	return emu_read(mem, addr, val, sizeof(*val));
}

#endif /* EMU_ACCESSOR_H */
