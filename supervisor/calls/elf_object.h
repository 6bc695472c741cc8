/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A loaded ELF object's program headers as its process has them in memory
 * (ELF header and program headers read with the process's accessor, never
 * from a file): what the exec-time registration and --synthesize-sframe
 * find an object's text, PT_GNU_SFRAME and PT_GNU_EH_FRAME by.
 */
#ifndef SUPERVISOR_CALLS_ELF_OBJECT_H
#define SUPERVISOR_CALLS_ELF_OBJECT_H

#include <elf.h>

#include "emu/accessor.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

#define ELF_OBJECT_MAX_PHDRS 128

/**
 * struct elf_object - an object's program headers
 * @what: what it is, for the log ("program", "interpreter", ...)
 * @bias: its load bias (run-time address - p_vaddr)
 * @ph, @n: its program headers
 */
struct elf_object {
	const char *what;
	uint64_t bias;
	Elf64_Phdr ph[ELF_OBJECT_MAX_PHDRS];
	unsigned int n;
};

/**
 * elf_object_phdrs() - the @n program headers at @addr into @o
 * Return: 0, -EINVAL (none, or more than ELF_OBJECT_MAX_PHDRS), -EFAULT.
 */
int elf_object_phdrs(const struct emu_accessor *mem, uint64_t addr, uint64_t n,
		     struct elf_object *o);

/**
 * elf_object_at() - the object whose ELF header is mapped at @base, the
 *	start of its first PT_LOAD's first page (bias @base less that page's p_vaddr)
 * Return: 0, -ENOEXEC (no ELF header there), or elf_object_phdrs()'s errors.
 */
int elf_object_at(const struct emu_accessor *mem, uint64_t base, struct elf_object *o);

/** elf_object_find() - @o's first program header of @type, or NULL. */
const Elf64_Phdr *elf_object_find(const struct elf_object *o, uint32_t type);

#endif /* SUPERVISOR_CALLS_ELF_OBJECT_H */
