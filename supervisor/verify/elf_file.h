/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF file as the verifier reads it (libelf, libdw): its loadable
 * segments as memory at their link-time addresses, its executable segments,
 * its .sframe, function symbols (.symtab, else .dynsym), imports (the GOT
 * slots of .rela.plt and GLOB_DAT relocations), sections, build id, and
 * .eh_frame's rows through libdw's CFI. Any file may be given: every offset
 * and size is checked against the file, and what cannot be used is left out.
 */
#ifndef SUPERVISOR_VERIFY_ELF_FILE_H
#define SUPERVISOR_VERIFY_ELF_FILE_H

#include <elfutils/libdw.h>
#include <libelf.h>

#include "emu/mem_image.h"
#include "verify.h"

#define VERIFY_BUILD_ID_MAX 64

/**
 * struct verify_elf - one opened file (everything owned; verify_elf_close())
 * @map, @size: a private copy-on-write mapping of the file
 * @img, @mem: its PT_LOAD segments' file bytes at their link-time addresses
 * @text: its executable segments (or executable sections), at run-time
 *	addresses (link-time + @bias)
 * @syms: symbols, imports and sections at run-time addresses (names point
 *	into @map)
 * @sframe_addr, @sframe_len: PT_GNU_SFRAME (else the .sframe section), link-time
 * @bias: added to link-time addresses (verify_elf_rebase())
 * @build_id, @build_id_len: NT_GNU_BUILD_ID's bytes
 * @relocatable: a relocatable object (.o), laid out as a linker would
 *	(verify_elf_open()): each allocated section at an address of its own
 */
struct verify_elf {
	uint8_t *map;
	size_t size;
	Elf *elf;
	Dwarf_CFI *cfi;
	struct emu_mem_image img;
	struct emu_accessor mem;
	struct emu_mappings text;
	struct verify_symbols syms;
	uint64_t sframe_addr;
	uint64_t sframe_len;
	uint64_t bias;
	uint8_t build_id[VERIFY_BUILD_ID_MAX];
	size_t build_id_len;
	bool relocatable;
};

/**
 * verify_elf_open() - open and index the ELF file at @path
 * @err, @errlen: why not, on failure
 * Return: 0, -ENOENT/-EACCES/... (the file), -ENOEXEC (not a 64-bit
 * little-endian x86-64 executable, shared object or relocatable object),
 * -ENOMEM.
 */
int verify_elf_open(const char *path, struct verify_elf *e, char *err, size_t errlen);

/**
 * verify_elf_open_fd() - the same from the open file @fd, which it closes
 * (codectl-run opens a tracee's files with as_tracee_open())
 * Return: as verify_elf_open().
 */
int verify_elf_open_fd(int fd, struct verify_elf *e, char *err, size_t errlen);

/**
 * verify_elf_open_mem() - the same from @len bytes at @data (copied)
 * Return: as verify_elf_open().
 */
int verify_elf_open_mem(const uint8_t *data, size_t len, struct verify_elf *e, char *err,
			size_t errlen);

/** verify_elf_close() - release everything of @e (a zeroed @e is fine). */
void verify_elf_close(struct verify_elf *e);

/**
 * verify_elf_sframe() - load @e's .sframe through emu (validated as a
 * registration of its executable segments would be), at link-time
 * addresses: call it before any verify_elf_rebase()
 * @out: the section, one reference (emu_sframe_put())
 * Return: 0, -ENODATA (no .sframe), -EINVAL (emu refuses it: @err says
 * why), -EFAULT (its bytes are not in the file), -ENOMEM.
 */
int verify_elf_sframe(struct verify_elf *e, struct emu_sframe_section **out, char *err,
		      size_t errlen);

/**
 * verify_elf_rebase() - move @e's symbols, sections and text by @bias
 * (the object is loaded @bias bytes above its link-time addresses); its
 * memory (@e->mem) stays at link-time addresses
 */
int verify_elf_rebase(struct verify_elf *e, uint64_t bias);

/**
 * verify_elf_dwarf() - a verify_dwarf_fn: @ctx is a struct verify_elf;
 * the .eh_frame row at run-time address @addr (outermost when it says the
 * RA is undefined; a rule the neutral form cannot hold has cfa_reg 0xff)
 */
int verify_elf_dwarf(void *ctx, uint64_t addr, struct emu_unwind_rule *out);

/** verify_elf_target() - the target that checks @s (from verify_elf_sframe()) in @e. */
struct verify_target verify_elf_target(struct verify_elf *e, const struct emu_sframe_section *s);

#endif /* SUPERVISOR_VERIFY_ELF_FILE_H */
