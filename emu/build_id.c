// SPDX-License-Identifier: GPL-2.0
/* The build id of the object at an address, from the process's memory (build_id.h). */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "build_id.h"

/* The most program headers and note bytes read: an object's first page. */
#define MAX_PHDRS 64
#define MAX_NOTES 4096

/* The object's first mapping: its ELF header's address, or 0. */
static uint64_t object_start(const struct emu_accessor *mem, const struct emu_mappings *maps,
			     uint64_t addr)
{
	const struct emu_vma *v = emu_mappings_find(maps, addr);
	uint8_t magic[SELFMAG];

	while (v && v->ident) {
			if (!emu_read(mem, v->start, magic, sizeof(magic)) && !memcmp(magic, ELFMAG, SELFMAG))
			return v->start;
		if (v == maps->vma || v[-1].end != v->start)
			return 0;
		v--;
	}
	return 0;
}

/* NT_GNU_BUILD_ID among the notes in @buf. */
static int find_note(const uint8_t *buf, size_t len, uint8_t *id, size_t *id_len)
{
	size_t at = 0;

	while (len - at >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr n;
		size_t name = (size_t)-1, desc;

		memcpy(&n, buf + at, sizeof(n));
		at += sizeof(n);
		name = (n.n_namesz + 3) & ~3u;
		desc = (n.n_descsz + 3) & ~3u;
		if (name > len - at || desc > len - at - name)
			return -ENOENT;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && !memcmp(buf + at, "GNU", 4) &&
		    n.n_descsz && n.n_descsz <= EMU_BUILD_ID_MAX) {
			memcpy(id, buf + at + name, n.n_descsz);
			*id_len = n.n_descsz;
			return 0;
		}
		at += name + desc;
	}
	return -ENOENT;
}

/* Does a PF_X PT_LOAD of these headers, moved by @bias, hold @addr? */
static bool holds_code(const Elf64_Phdr *ph, unsigned int n, uint64_t bias, uint64_t addr)
{
	for (unsigned int i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
		    addr - (bias + ph[i].p_vaddr) < ph[i].p_memsz)
			return true;
	return false;
}

int emu_text_build_id(const struct emu_accessor *mem, const struct emu_mappings *maps,
		      uint64_t addr, uint8_t *id, size_t *len)
{
	uint64_t base = object_start(mem, maps, addr), bias = 0;
	Elf64_Phdr ph[MAX_PHDRS];
	uint8_t notes[MAX_NOTES];
	Elf64_Ehdr eh;
	bool first = true;
	int err = -ENOENT;

	if (!base)
		return -ENOENT;
	if (emu_read(mem, base, &eh, sizeof(eh)))
		return -EFAULT;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !eh.e_phnum || eh.e_phnum > MAX_PHDRS)
		return -ENOENT;
	if (emu_read(mem, base + eh.e_phoff, ph, eh.e_phnum * sizeof(*ph)))
		return -EFAULT;
	for (unsigned int i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && first) {
			bias = base - (ph[i].p_vaddr - ph[i].p_offset);
			first = false;
		}
	if (!holds_code(ph, eh.e_phnum, bias, addr))
		return -ENOENT;	/* another object's header, before this one's mappings */
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		size_t n = ph[i].p_filesz < MAX_NOTES ? ph[i].p_filesz : MAX_NOTES;

		if (ph[i].p_type != PT_NOTE)
			continue;
		if (emu_read(mem, bias + ph[i].p_vaddr, notes, n))
			err = -EFAULT;	/* this note unreadable: the next may do */
		else if (!find_note(notes, n, id, len))
			return 0;
	}
	return err;
}
