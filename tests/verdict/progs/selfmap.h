/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A shared library file mapped whole by the program itself (not by the
 * dynamic loader), and what the program reads from the mapping: its
 * executable segment, ELF range, .sframe, build id and dynamic symbols.
 * The mapping holds the file from offset 0, so an address in it is the
 * mapping's start plus the file's virtual address wherever those equal
 * the file offsets (checked for the executable segment and .sframe).
 * Used by self_mapped_lib.c and no_sframe_reasons.c.
 */
#ifndef VERDICT_SELFMAP_H
#define VERDICT_SELFMAP_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* The mapped file and what the program found in it. */
struct lib {
	const uint8_t *base;
	size_t size;
	uint64_t text_start, text_end, elf_end;
	uint64_t sframe_start, sframe_end;
	const uint8_t *build_id;
	uint32_t build_id_len;
};

static inline const Elf64_Shdr *selfmap_shdr(const struct lib *l, unsigned int i)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)l->base;

	return (const Elf64_Shdr *)(l->base + eh->e_shoff) + i;
}

/* The section named @name, or NULL. */
static inline const Elf64_Shdr *selfmap_section(const struct lib *l, const char *name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)l->base;
	const char *names = (const char *)l->base + selfmap_shdr(l, eh->e_shstrndx)->sh_offset;

	for (unsigned int i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + selfmap_shdr(l, i)->sh_name, name))
			return selfmap_shdr(l, i);
	return NULL;
}

/* The address of dynamic symbol @name in the mapping, or 0. */
static inline uint64_t selfmap_symbol(const struct lib *l, const char *name)
{
	const Elf64_Shdr *dynsym = selfmap_section(l, ".dynsym");
	const Elf64_Sym *sym;
	const char *strs;

	if (!dynsym)
		return 0;
	sym = (const Elf64_Sym *)(l->base + dynsym->sh_offset);
	strs = (const char *)l->base + selfmap_shdr(l, dynsym->sh_link)->sh_offset;
	for (size_t i = 0; i < dynsym->sh_size / sizeof(*sym); i++)
		if (sym[i].st_shndx != SHN_UNDEF && !strcmp(strs + sym[i].st_name, name))
			return (uint64_t)(uintptr_t)l->base + sym[i].st_value;
	return 0;
}

/* The NT_GNU_BUILD_ID note's bytes. */
static inline void selfmap_build_id(struct lib *l, const Elf64_Phdr *ph)
{
	const uint8_t *p = l->base + ph->p_offset, *end = p + ph->p_filesz;

	while (p + sizeof(Elf64_Nhdr) <= end) {
		const Elf64_Nhdr *n = (const Elf64_Nhdr *)p;
		const uint8_t *desc = p + sizeof(*n) + ((n->n_namesz + 3) & ~3u);

		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(n + 1, "GNU", 4)) {
			l->build_id = desc;
			l->build_id_len = n->n_descsz;
			return;
		}
		p = desc + ((n->n_descsz + 3) & ~3u);
	}
}

/* Text, ELF range, .sframe and build id of the mapped file; -1 when not laid out as expected. */
static inline int selfmap_parse(struct lib *l)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)l->base;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(l->base + eh->e_phoff);
	const Elf64_Shdr *sf = selfmap_section(l, ".sframe");
	uint64_t base = (uint64_t)(uintptr_t)l->base;

	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_NOTE)
			selfmap_build_id(l, &ph[i]);
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (base + ph[i].p_vaddr + ph[i].p_memsz > l->elf_end)
			l->elf_end = base + ph[i].p_vaddr + ph[i].p_memsz;
		if (!(ph[i].p_flags & PF_X))
			continue;
		if (ph[i].p_vaddr != ph[i].p_offset || l->text_end)
			return -1;
		l->text_start = base + ph[i].p_vaddr;
		l->text_end = l->text_start + ph[i].p_memsz;
	}
	if (!sf || sf->sh_addr != sf->sh_offset || !l->text_end)
		return -1;
	l->sframe_start = base + sf->sh_addr;
	l->sframe_end = l->sframe_start + sf->sh_size;
	return 0;
}

/*
 * Map file @fd whole, read and execute, private (at @at, replacing what
 * is there, unless NULL), and parse it; -1 when that fails.
 */
static inline int selfmap_map_fd(struct lib *l, int fd, void *at)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st))
		return -1;
	p = mmap(at, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE | (at ? MAP_FIXED : 0),
		 fd, 0);
	if (p == MAP_FAILED)
		return -1;
	*l = (struct lib){ .base = p, .size = (size_t)st.st_size };
	return selfmap_parse(l);
}

#endif /* VERDICT_SELFMAP_H */
