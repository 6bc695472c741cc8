/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small SFrame writer for tests: builds v1, v2 (with or without
 * FDE_FUNC_START_PCREL) and v3 sections from a description, valid or broken.
 * It writes what it is told (no sorting, no checks), so tests can build every
 * malformation; layout offsets are reported for byte patches.
 */
#ifndef TESTS_SFRAME_WRITER_H
#define TESTS_SFRAME_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SFW_MAX_FDES 512

/**
 * struct sfw_fre - one FRE
 * @start: offset from the function start (PCMASK: in the repeat block)
 * @sp_base: CFA base is SP (else FP)
 * @count: data words; @words: their values (FLEX: control words included)
 * @word_size: 1, 2 or 4 bytes; 0 picks the smallest that holds every word
 * @info: when non-zero, written as the info byte instead of the computed one
 */
struct sfw_fre {
	uint32_t start;
	bool sp_base;
	bool mangled_ra;
	uint8_t count;
	int32_t words[15];
	uint8_t word_size;
	uint8_t info;
};

/**
 * struct sfw_fde - one function
 * @func_start: absolute address; @func_size: bytes
 * @fre_type: 0/1/2 = 1/2/4-byte FRE starts; -1 picks from @func_size as gas does
 * @pcmask, @rep_size: PC type and repetition size (v2/v3)
 * @fde_type: v3 type (0 DEFAULT, 1 FLEX); @signal: v3 signal-frame bit
 * @info, @info2: when non-zero, written instead of the computed bytes
 */
struct sfw_fde {
	uint64_t func_start;
	uint32_t func_size;
	int fre_type;
	bool pcmask;
	uint8_t rep_size;
	uint8_t fde_type;
	bool signal;
	uint8_t info;
	uint8_t info2;
	unsigned int nfres;
	const struct sfw_fre *fres;
};

/**
 * struct sfw_section - a whole section
 * @version: 1, 2 or 3
 * @pcrel: function starts relative to the FDE field (v2 erratum; v3 always)
 * @flags: written as is when @raw_flags, else computed (SORTED | PCREL)
 * @addr: the address the section will be loaded at (anchors function starts)
 */
struct sfw_section {
	uint8_t version;
	bool pcrel;
	bool raw_flags;
	uint8_t flags;
	uint8_t abi;
	int8_t fixed_fp;
	int8_t fixed_ra;
	uint8_t auxhdr_len;
	uint64_t addr;
	unsigned int nfdes;
	const struct sfw_fde *fdes;
};

/** struct sfw_layout - where the writer put things, byte offsets in the section */
struct sfw_layout {
	size_t len;
	size_t fdes_pos;
	size_t fres_pos;
	size_t fde_pos[SFW_MAX_FDES];
	size_t fre_block_pos[SFW_MAX_FDES];	/* v3: the attribute record */
};

/**
 * sfw_write() - encode @s into @buf (@cap bytes)
 * Return: the section length, or 0 if @cap is too small or @s too large.
 */
size_t sfw_write(const struct sfw_section *s, uint8_t *buf, size_t cap, struct sfw_layout *lay);

/** sfw_amd64() - an AMD64 section header description (fixed RA -8) of @version. */
struct sfw_section sfw_amd64(uint8_t version, bool pcrel, uint64_t addr);

#endif /* TESTS_SFRAME_WRITER_H */
