// SPDX-License-Identifier: GPL-2.0
/*
 * A relocatable object (.o) laid out as a linker would lay it out, in the
 * verifier's private copy of the file, before libelf reads it: each
 * allocated section at an address of its own (sh_addr, in section order from
 * RELOC_BASE, aligned as it asks), symbol values made addresses, and the
 * relocations of allocated sections applied where their symbol is defined in
 * the object. So .sframe's function start addresses (PC-relative,
 * relocated against .text) and .eh_frame's point at the code they describe,
 * as in a linked file. Relocations against undefined symbols (calls to other
 * objects) are left as the assembler wrote them. Every offset, size and index
 * is checked against the file.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu/sframe_format.h"
#include "relocatable.h"

/* Where the first allocated section goes (not 0: no function at address 0). */
#define RELOC_BASE 0x10000ull

struct reloc_file {
	uint8_t *map;
	size_t size;
	Elf64_Ehdr eh;
};

static bool in_file(const struct reloc_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static Elf64_Shdr get_shdr(const struct reloc_file *f, size_t i)
{
	Elf64_Shdr sh;

	memcpy(&sh, f->map + f->eh.e_shoff + i * sizeof(sh), sizeof(sh));
	return sh;
}

static void put_shdr(struct reloc_file *f, size_t i, const Elf64_Shdr *sh)
{
	memcpy(f->map + f->eh.e_shoff + i * sizeof(*sh), sh, sizeof(*sh));
}

/* Each allocated section at its own address; -EOVERFLOW past 2^63. */
static int place_sections(struct reloc_file *f)
{
	uint64_t at = RELOC_BASE;

	for (size_t i = 1; i < f->eh.e_shnum; i++) {
		Elf64_Shdr sh = get_shdr(f, i);
		uint64_t align = sh.sh_addralign > 1 ? sh.sh_addralign : 1;

		if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		if ((align & (align - 1)) || align > 4096 || sh.sh_size > (1ull << 62) ||
		    at > (1ull << 62))
			return -EOVERFLOW;
		at = (at + align - 1) & ~(align - 1);
		sh.sh_addr = at;
		put_shdr(f, i, &sh);
		at += sh.sh_size;
	}
	return 0;
}

/* The address section @shndx was placed at, or 0 (none, or a reserved index). */
static uint64_t section_addr(const struct reloc_file *f, uint32_t shndx)
{
	if (!shndx || shndx >= f->eh.e_shnum || shndx >= SHN_LORESERVE)
		return 0;
	return get_shdr(f, shndx).sh_addr;
}

/* Symbols of @sh (a SHT_SYMTAB) made addresses: value + their section's address. */
static void place_symbols(struct reloc_file *f, const Elf64_Shdr *sh)
{
	size_t n = sh->sh_size / sizeof(Elf64_Sym);

	if (sh->sh_entsize != sizeof(Elf64_Sym) || !in_file(f, sh->sh_offset, sh->sh_size))
		return;
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = f->map + sh->sh_offset + i * sizeof(Elf64_Sym);
		Elf64_Sym s;

		memcpy(&s, p, sizeof(s));
		s.st_value += section_addr(f, s.st_shndx);
		memcpy(p, &s, sizeof(s));
	}
}

/* One relocation of section @to: S + A (- P), 4 or 8 bytes; unknown types are left. */
static void apply_one(struct reloc_file *f, const Elf64_Shdr *to, const Elf64_Rela *r, uint64_t s)
{
	uint64_t p = to->sh_addr + r->r_offset, v;
	unsigned int len;

	switch (ELF64_R_TYPE(r->r_info)) {
	case R_X86_64_64:
		v = s + (uint64_t)r->r_addend, len = 8;
		break;
	case R_X86_64_PC64:
		v = s + (uint64_t)r->r_addend - p, len = 8;
		break;
	case R_X86_64_32:
	case R_X86_64_32S:
		v = s + (uint64_t)r->r_addend, len = 4;
		break;
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		v = s + (uint64_t)r->r_addend - p, len = 4;
		break;
	default:
		return;
	}
	if (r->r_offset > to->sh_size || len > to->sh_size - r->r_offset)
		return;
	memcpy(f->map + to->sh_offset + r->r_offset, &v, len);	/* little-endian */
}

/* The relocations in @rsh (a SHT_RELA) whose symbol the object defines. */
static void apply_relocations(struct reloc_file *f, const Elf64_Shdr *rsh)
{
	Elf64_Shdr to, symtab;
	size_t n = rsh->sh_size / sizeof(Elf64_Rela);

	if (!rsh->sh_info || rsh->sh_info >= f->eh.e_shnum || !rsh->sh_link ||
	    rsh->sh_link >= f->eh.e_shnum || rsh->sh_entsize != sizeof(Elf64_Rela) ||
	    !in_file(f, rsh->sh_offset, rsh->sh_size))
		return;
	to = get_shdr(f, rsh->sh_info);
	symtab = get_shdr(f, rsh->sh_link);
	if (!(to.sh_flags & SHF_ALLOC) || to.sh_type == SHT_NOBITS ||
	    !in_file(f, to.sh_offset, to.sh_size) || symtab.sh_type != SHT_SYMTAB ||
	    !in_file(f, symtab.sh_offset, symtab.sh_size))
		return;
	for (size_t i = 0; i < n; i++) {
		size_t sym;
		Elf64_Rela r;
		Elf64_Sym s;

		memcpy(&r, f->map + rsh->sh_offset + i * sizeof(r), sizeof(r));
		sym = ELF64_R_SYM(r.r_info);
		if (!sym || sym >= symtab.sh_size / sizeof(s))
			continue;
		memcpy(&s, f->map + symtab.sh_offset + sym * sizeof(s), sizeof(s));
		if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_COMMON)
			continue;	/* another object's: left as written */
		apply_one(f, &to, &r, s.st_value);
	}
}

bool verify_is_relocatable(const uint8_t *map, size_t size)
{
	Elf64_Ehdr eh;

	if (size < sizeof(eh))
		return false;
	memcpy(&eh, map, sizeof(eh));
	return !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh.e_ident[EI_DATA] == ELFDATA2LSB && eh.e_machine == EM_X86_64 &&
	       eh.e_type == ET_REL;
}

int verify_layout_relocatable(uint8_t *map, size_t size)
{
	struct reloc_file f = { .map = map, .size = size };
	int r;

	if (!verify_is_relocatable(map, size))
		return -ENOEXEC;
	memcpy(&f.eh, map, sizeof(f.eh));
	if (f.eh.e_shentsize != sizeof(Elf64_Shdr) || f.eh.e_shnum >= SHN_LORESERVE ||
	    !in_file(&f, f.eh.e_shoff, (uint64_t)f.eh.e_shnum * sizeof(Elf64_Shdr)))
		return -ENOEXEC;
	r = place_sections(&f);
	if (r)
		return r;
	for (size_t i = 1; i < f.eh.e_shnum; i++) {
		Elf64_Shdr sh = get_shdr(&f, i);

		if (sh.sh_type == SHT_SYMTAB)
			place_symbols(&f, &sh);
	}
	for (size_t i = 1; i < f.eh.e_shnum; i++) {
		Elf64_Shdr sh = get_shdr(&f, i);

		if (sh.sh_type == SHT_RELA)
			apply_relocations(&f, &sh);
	}
	return 0;
}

struct fde_order {
	uint64_t start;
	uint32_t index;
};

static int cmp_fde(const void *a, const void *b)
{
	const struct fde_order *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* The function start FDE record @pos (section offset) holds, as an address. */
static uint64_t fde_start(const uint8_t *sec, size_t pos, uint8_t version, uint64_t anchor)
{
	int64_t off;

	if (version == 3) {
		memcpy(&off, sec + pos + EMU_SF_V3_IDX_START, 8);
	} else {
		int32_t o32;

		memcpy(&o32, sec + pos + EMU_SF_FDE_START, 4);
		off = o32;
	}
	return anchor + (uint64_t)off;
}

static void set_fde_start(uint8_t *sec, size_t pos, uint8_t version, uint64_t anchor,
			  uint64_t start)
{
	int64_t off = (int64_t)(start - anchor);
	int32_t o32 = (int32_t)off;

	if (version == 3)
		memcpy(sec + pos + EMU_SF_V3_IDX_START, &off, 8);
	else
		memcpy(sec + pos + EMU_SF_FDE_START, &o32, 4);
}

int verify_sframe_sort_fdes(uint8_t *sec, size_t len, uint64_t sframe_addr)
{
	uint8_t version, flags, *tmp;
	uint32_t num, fdeoff;
	size_t size, tbl;
	struct fde_order *o;
	bool pcrel;
	uint16_t magic;

	if (len < EMU_SF_HDR_SIZE)
		return -EINVAL;
	memcpy(&magic, sec, 2);
	version = sec[2], flags = sec[3];
	if (magic != EMU_SF_MAGIC || version < 1 || version > 3)
		return -EINVAL;
	if (flags & EMU_SF_F_FDE_SORTED)
		return 0;
	memcpy(&num, sec + 8, 4);
	memcpy(&fdeoff, sec + 20, 4);
	size = version == 1 ? EMU_SF_V1_FDE_SIZE : version == 2 ? EMU_SF_V2_FDE_SIZE :
	       EMU_SF_V3_IDX_ENTRY_SIZE;
	tbl = EMU_SF_HDR_SIZE + (size_t)sec[7] + fdeoff;
	if (num > (1u << 24) || tbl > len || (size_t)num * size > len - tbl)
		return -EINVAL;
	pcrel = flags & EMU_SF_F_FDE_FUNC_START_PCREL;
	o = calloc(num ? num : 1, sizeof(*o));
	tmp = malloc(num ? (size_t)num * size : 1);
	if (!o || !tmp) {
		free(o);
		free(tmp);
		return -ENOMEM;
	}
	memcpy(tmp, sec + tbl, (size_t)num * size);
	for (uint32_t i = 0; i < num; i++) {
		size_t pos = tbl + (size_t)i * size;

		/* an assembler's start is relative to its own field (a PC32/PC64 relocation) */
		o[i] = (struct fde_order){ fde_start(sec, pos, version, sframe_addr + pos), i };
	}
	qsort(o, num, sizeof(*o), cmp_fde);
	for (uint32_t i = 0; i < num; i++) {
		size_t pos = tbl + (size_t)i * size;

		memcpy(sec + pos, tmp + (size_t)o[i].index * size, size);
		set_fde_start(sec, pos, version, sframe_addr + (pcrel ? pos : 0), o[i].start);
	}
	sec[3] = flags | EMU_SF_F_FDE_SORTED;
	free(o);
	free(tmp);
	return 0;
}
