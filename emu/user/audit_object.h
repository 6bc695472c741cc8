/* SPDX-License-Identifier: MIT */
/*
 * What a dynamic loader knows of a loaded object and codectl(2) wants: its
 * executable segments, its .sframe, its extent and its identity (path, build
 * id, debug link). Read without malloc: fixed buffers, and memory reads that
 * cannot fault (process_vm_readv on ourselves).
 */
#ifndef CODECTL_AUDIT_OBJECT_H
#define CODECTL_AUDIT_OBJECT_H

#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <codectl.h>

#define AUDIT_MAX_PHDRS 64
#define AUDIT_MAX_TEXT 16
#define AUDIT_PATH_MAX 4096

/**
 * struct audit_object - one loaded object
 * @path: its real path ("" when unknown); @debug_link: the .gnu_debuglink name
 * @text_start, @text_end: one range per PF_X PT_LOAD, addresses
 * @has_sframe: the object has a PT_GNU_SFRAME (possibly empty)
 * @sframe_start, @sframe_end: its range, addresses
 * @elf_start, @elf_end: from the lowest PT_LOAD to the end of the highest
 */
struct audit_object {
	char path[AUDIT_PATH_MAX];
	char debug_link[256];
	uint32_t debug_link_crc;
	uint8_t build_id[CODE_BUILD_ID_MAX];
	uint32_t build_id_len;
	uint64_t elf_start;
	uint64_t elf_end;
	bool has_sframe;
	uint64_t sframe_start;
	uint64_t sframe_end;
	uint64_t text_start[AUDIT_MAX_TEXT];
	uint64_t text_end[AUDIT_MAX_TEXT];
	unsigned int ntext;
};

/**
 * audit_object_read() - fill @o for the object @map describes
 * Program headers come from memory (the main program through AT_PHDR, the
 * vDSO through AT_SYSINFO_EHDR, other objects at their load base), or from
 * the file when memory does not hold an ELF header there (prelinked objects).
 * Return: 0, or -1 when the object's program headers cannot be found.
 */
int audit_object_read(const struct link_map *map, struct audit_object *o);

#endif /* CODECTL_AUDIT_OBJECT_H */
