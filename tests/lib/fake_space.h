/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake tracee for in-process tests: fixed mappings backed by buffers, a
 * registry, and helpers to place argument structs and call emu_codectl().
 *
 *   0x400000-0x410000 r-x  text A        0x500000-0x501000 r--  read-only page
 *   0x410000-0x420000 r-x  text B        0x600000-0x640000 rw-  data (fake_put)
 *   0x430000-0x431000 rw-  not exec      0x700000-0x701000 ---  unreadable
 */
#ifndef TESTS_FAKE_SPACE_H
#define TESTS_FAKE_SPACE_H

#include "emu/emu.h"

#define FAKE_TEXT_A 0x400000ull
#define FAKE_TEXT_B 0x410000ull
#define FAKE_TEXT_END 0x420000ull
#define FAKE_RW_NOEXEC 0x430000ull
#define FAKE_RO 0x500000ull
#define FAKE_DATA 0x600000ull
#define FAKE_DATA_SIZE 0x40000ull
#define FAKE_NOACCESS 0x700000ull

struct fake_space {
	uint8_t *text;		/* zeroed bytes behind text A+B */
	uint8_t *data;
	uint8_t ro[4096];
	uint8_t rw_noexec[4096];
	size_t data_used;
	struct emu_mem_image img;
	struct emu_accessor mem;
	struct emu_mappings maps;
	struct emu_registry *registry;
	struct emu_space space;
	struct emu_policy policy;
	struct emu_call_result res;
};

/** fake_space_init() - set up @fs with the layout above and an empty registry. */
void fake_space_init(struct fake_space *fs);
void fake_space_fini(struct fake_space *fs);

/** fake_put() - copy @len bytes into the data area; returns their tracee address (16-aligned). */
uint64_t fake_put(struct fake_space *fs, const void *p, size_t len);

/** fake_call() - emu_codectl() with these arguments; returns its result (0 or -errno). */
int fake_call(struct fake_space *fs, unsigned int option, uint64_t info, uint64_t size,
	      unsigned int flags);

/** fake_register_sframe() - place @sec (@len bytes) and register it for [start, end). */
int fake_register_sframe(struct fake_space *fs, const uint8_t *sec, size_t len, uint64_t start,
			 uint64_t end);

/** fake_sframe_addr() - where the next fake_put() of an SFrame section will land. */
uint64_t fake_next_addr(const struct fake_space *fs);

#endif /* TESTS_FAKE_SPACE_H */
