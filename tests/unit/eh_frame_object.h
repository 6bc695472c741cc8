/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Real objects for the .eh_frame tests: this process's own (its memory) or a
 * program file's segments placed at their addresses, with the .eh_frame_hdr
 * registered as eh_frame_register would, and libdw's CFI of the file.
 */
#ifndef TESTS_UNIT_EH_FRAME_OBJECT_H
#define TESTS_UNIT_EH_FRAME_OBJECT_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdint.h>

#include "emu/eh_frame.h"
#include "emu/mem_image.h"

#define MAX_SEGS 16

/*
 * An object to compare: its PT_LOAD segments as read (this process's memory,
 * or a file's bytes placed at their addresses), its .eh_frame_hdr, text and
 * .plt at run time, and libdw's CFI of its file (file address: run time - @bias).
 */
struct object {
	char path[512];
	uint64_t bias;
	uint64_t seg_start[MAX_SEGS], seg_end[MAX_SEGS];
	unsigned int nseg;
	uint64_t hdr_start, hdr_end, text_start, text_end, plt_start, plt_end;
	uint8_t *file;		/* a file's bytes (NULL: this process's memory) */
	struct emu_mem_image img;
	struct emu_accessor mem;
	struct emu_mappings maps;
	struct emu_eh_frame e;
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi;
};

/** object_in_process() - an object of this process: "" the program, else the first named @want */
void object_in_process(struct object *o, const char *want);

/** object_from_file() - a program file: its PT_LOAD segments' bytes at their link-time addresses */
void object_from_file(struct object *o, const char *path);

/** object_register() - @o's .eh_frame_hdr through emu_eh_frame_add() with validation; must pass */
void object_register(struct object *o);

/** object_close() - release what @o holds */
void object_close(struct object *o);

#endif /* TESTS_UNIT_EH_FRAME_OBJECT_H */
