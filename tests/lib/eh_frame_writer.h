/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A test writer of .eh_frame and .eh_frame_hdr as GCC and ld emit them on
 * x86_64 (DWARF 4 CFI in the LSB's .eh_frame form; the header with a
 * binary-search table), for frame-pointer functions laid out back to back.
 */
#ifndef TESTS_EH_FRAME_WRITER_H
#define TESTS_EH_FRAME_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define EHW_MAX_FUNCS 64

/**
 * struct ehw_layout - where ehw_build() put each part, as offsets in its buffer
 * @cie: the CIE; @cie_version, @cie_ra: its version and RA-column bytes
 * @fde: each function's FDE
 * @eh_frame_len: .eh_frame's length, its zero terminator included
 * @hdr: .eh_frame_hdr (after .eh_frame, 8-aligned); @hdr_len: its length
 * @table: the header's binary-search table (8 bytes an entry: function
 *	start and FDE address, each datarel sdata4)
 */
struct ehw_layout {
	size_t cie;
	size_t cie_version;
	size_t cie_ra;
	size_t fde[EHW_MAX_FUNCS];
	size_t eh_frame_len;
	size_t hdr;
	size_t hdr_len;
	size_t table;
};

/**
 * ehw_build() - .eh_frame then .eh_frame_hdr in @buf, for @n functions of
 * @size bytes from @text (push %rbp at 0, mov %rsp,%rbp at 1, CFA = RBP + 16
 * from 4), to be loaded at address @addr (@buf's own, or a fake tracee's)
 * Return: the bytes written, or 0 when they do not fit @cap or @n is above
 * EHW_MAX_FUNCS.
 */
size_t ehw_build(uint64_t addr, uint64_t text, unsigned int n, uint32_t size, uint8_t *buf,
		 size_t cap, struct ehw_layout *lay);

/** ehw_put32() - store @v at @p, little-endian (a test's change to a field). */
void ehw_put32(uint8_t *p, uint32_t v);

#endif /* TESTS_EH_FRAME_WRITER_H */
