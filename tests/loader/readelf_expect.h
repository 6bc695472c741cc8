/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What codectl(2) registrations of a loaded object should be, from what
 * binutils' readelf says of its file (readelf -lW, readelf -n), so that the
 * loader tests compare the audit module against an independent reader.
 */
#ifndef TESTS_READELF_EXPECT_H
#define TESTS_READELF_EXPECT_H

#include <stdbool.h>
#include <stdint.h>

#define EXPECT_MAX_TEXT 16

/**
 * struct object_expect - one object as loaded at @bias
 * @text_start, @text_end: one range per PF_X PT_LOAD (addresses)
 * @has_sframe, @sframe_start, @sframe_end: its PT_GNU_SFRAME
 * @eh_frame_hdr_start, @eh_frame_hdr_end: its PT_GNU_EH_FRAME (0, 0: none)
 * @elf_start, @elf_end: lowest PT_LOAD start to highest PT_LOAD end
 * @text_vaddr: p_vaddr of the first PF_X PT_LOAD (to find a bias again)
 * @build_id: "Build ID:" of readelf -n in hex, "" when none
 */
struct object_expect {
	uint64_t text_start[EXPECT_MAX_TEXT];
	uint64_t text_end[EXPECT_MAX_TEXT];
	int ntext;
	bool has_sframe;
	uint64_t sframe_start, sframe_end;
	uint64_t eh_frame_hdr_start, eh_frame_hdr_end;
	uint64_t elf_start, elf_end;
	uint64_t text_vaddr;
	char build_id[2 * 64 + 1];
};

/**
 * readelf_expect() - run readelf on @path and fill @e for load bias @bias
 * Return: 0, or -1 when readelf fails or shows no PT_LOAD.
 */
int readelf_expect(const char *path, uint64_t bias, struct object_expect *e);

/**
 * readelf_fde_covers() - is link-time address @addr in a function of the
 * .sframe section of @path, as `readelf --sframe` lists them ("func idx [N]:
 * pc = 0xPC, size = N bytes")?
 * Return: 1 or 0, or -1 when readelf fails or lists no function.
 */
int readelf_fde_covers(const char *path, uint64_t addr);

/**
 * nm_symbol() - the value of symbol @name of @path, as nm(1) shows it
 * Return: 0, or -1 when nm shows no such symbol.
 */
int nm_symbol(const char *path, const char *name, uint64_t *value);

#endif /* TESTS_READELF_EXPECT_H */
