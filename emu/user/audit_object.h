/* SPDX-License-Identifier: MIT */
/*
 * What a dynamic loader knows of a loaded object and codectl(2) wants: its
 * executable segments, its .sframe, its extent and its identity (path, build
 * id, debug link). Read without malloc and with little stack: the caller
 * supplies the buffers (the module keeps them static, under the loader's
 * lock), memory is read with process_vm_readv on ourselves (a bad address
 * fails instead of faulting) and files with pread (a truncated file fails
 * instead of raising SIGBUS).
 */
#ifndef CODECTL_AUDIT_OBJECT_H
#define CODECTL_AUDIT_OBJECT_H

#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <codectl.h>

#define AUDIT_MAX_PHDRS 256
#define AUDIT_MAX_TEXT 16	/* executable segments registered per object */
#define AUDIT_PATH_MAX 4096

/**
 * struct audit_object - one loaded object
 * @path: its real path ("" when unknown); @debug_link: the .gnu_debuglink name
 * @text_start, @text_end: one range per PF_X PT_LOAD, addresses (the first
 *	AUDIT_MAX_TEXT of them)
 * @has_sframe: the object has a PT_GNU_SFRAME (possibly empty)
 * @sframe_start, @sframe_end: its range, addresses
 * @eh_frame_hdr_start, @eh_frame_hdr_size: its PT_GNU_EH_FRAME (.eh_frame_hdr),
 *	address and bytes; 0, 0 when it has none
 * @elf_start, @elf_end: from the lowest PT_LOAD to the end of the highest
 * @permanent: the loader never unmaps it (main program, ELF interpreter, vDSO)
 * @bias: its load bias (what its link-time addresses are moved by)
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
	uint64_t eh_frame_hdr_start;
	uint64_t eh_frame_hdr_size;
	uint64_t text_start[AUDIT_MAX_TEXT];
	uint64_t text_end[AUDIT_MAX_TEXT];
	unsigned int ntext;
	bool permanent;
	uint64_t bias;
};

/** struct audit_scratch - buffers audit_object_read() works in (about 26 KiB) */
struct audit_scratch {
	Elf64_Phdr ph[AUDIT_MAX_PHDRS];
	union {
		uint8_t notes[4096];
		Elf64_Shdr sh[64];
	};
	char names[8192];
};

/**
 * audit_object_read() - fill @o for the object @map describes
 * Program headers come from memory (the main program through AT_PHDR, the
 * vDSO through AT_SYSINFO_EHDR, other objects at their load bias), or from
 * the file when memory does not hold an ELF header there (prelinked objects);
 * either way they must place PT_DYNAMIC at @map->l_ld.
 * Return: 0, or -1 when the object's program headers cannot be found.
 */
int audit_object_read(const struct link_map *map, struct audit_object *o,
		      struct audit_scratch *s);

/**
 * audit_mapped_path() - the path of the file mapped at @addr, from
 *	/proc/self/maps, into @buf (@len bytes, NUL-terminated); @s->names is
 *	used as the read buffer. Return: 0, or -1 when none is found.
 */
int audit_mapped_path(uint64_t addr, char *buf, size_t len, struct audit_scratch *s);

#endif /* CODECTL_AUDIT_OBJECT_H */
