// SPDX-License-Identifier: GPL-2.0
/* A loaded object's program headers, read from its process (elf_object.h). */
#include <errno.h>
#include <string.h>

#include "elf_object.h"

int elf_object_phdrs(const struct emu_accessor *mem, uint64_t addr, uint64_t n,
		     struct elf_object *o)
{
	if (!n || n > ELF_OBJECT_MAX_PHDRS)
		return -EINVAL;
	o->n = (unsigned int)n;
	return emu_read(mem, addr, o->ph, n * sizeof(Elf64_Phdr));
}

int elf_object_at(const struct emu_accessor *mem, uint64_t base, struct elf_object *o)
{
	Elf64_Ehdr eh;
	int err = emu_read(mem, base, &eh, sizeof(eh));

	if (err)
		return err;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		return -ENOEXEC;
	err = elf_object_phdrs(mem, base + eh.e_phoff, eh.e_phnum, o);
	/* the header is at the start of the first PT_LOAD's page (vaddr 0 but in ET_EXEC) */
	for (unsigned int i = 0; !err && i < o->n; i++)
		if (o->ph[i].p_type == PT_LOAD) {
			o->bias = base - (o->ph[i].p_vaddr & ~0xfffull);
			break;
		}
	return err;
}

const Elf64_Phdr *elf_object_find(const struct elf_object *o, uint32_t type)
{
	for (unsigned int i = 0; i < o->n; i++)
		if (o->ph[i].p_type == type)
			return &o->ph[i];
	return NULL;
}
