// SPDX-License-Identifier: GPL-2.0
/* An ELF file indexed for the verifier: segments, .sframe, symbols, imports, notes. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>

#include "elf_file.h"
#include "relocatable.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif
#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* Symbols, imports or sections kept from one file at most (hostile counts). */
#define MAX_NAMES (1u << 22)

static int fail(char *err, size_t n, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t n, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return e;
}

/* A loadable segment: its file bytes as memory, and its place among the text when executable. */
static void add_segment(struct verify_elf *e, const GElf_Phdr *ph)
{
	uint64_t filesz = ph->p_filesz;

	if (ph->p_offset >= e->size)
		filesz = 0;
	else if (filesz > e->size - ph->p_offset)
		filesz = e->size - ph->p_offset;	/* a truncated file */
	if (filesz && ph->p_vaddr + filesz >= ph->p_vaddr)
		emu_mem_image_add(&e->img, ph->p_vaddr, e->map + ph->p_offset, filesz);
	if ((ph->p_flags & PF_X) && ph->p_memsz && ph->p_vaddr + ph->p_memsz > ph->p_vaddr)
		emu_mappings_add(&e->text, ph->p_vaddr, ph->p_vaddr + ph->p_memsz, EMU_PROT_EXEC);
}

static int read_segments(struct verify_elf *e)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e->elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n && i < 4096; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD)
			add_segment(e, &ph);
		else if (ph.p_type == PT_GNU_SFRAME) {
			e->sframe_addr = ph.p_vaddr;
			e->sframe_len = ph.p_memsz;
		}
	}
	return 0;
}

/* Room for entry @n of an array whose capacity doubles from 16 (NULL: no more). */
static void *grow(void *v, size_t n, size_t size)
{
	if (n && (n < 16 || (n & (n - 1))))
		return v;	/* room left */
	return n < MAX_NAMES ? realloc(v, (n ? n * 2 : 16) * size) : NULL;
}

static void add_section(struct verify_elf *e, const GElf_Shdr *sh, const char *name)
{
	struct verify_section *v;

	if (!(sh->sh_flags & SHF_ALLOC) || !sh->sh_size || !name)
		return;
	v = grow(e->syms.sec, e->syms.nsec, sizeof(*v));
	if (!v)
		return;
	e->syms.sec = v;
	v[e->syms.nsec++] = (struct verify_section){ .start = sh->sh_addr,
						      .end = sh->sh_addr + sh->sh_size, .name = name };
}

static void add_symbols(struct verify_elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = d && sh->sh_entsize ? d->d_size / sh->sh_entsize : 0;
	GElf_Sym s;

	for (size_t i = 0; i < n && i < MAX_NAMES; i++) {
		struct verify_sym *v;
		int type;

		if (!gelf_getsym(d, (int)i, &s))
			continue;
		type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
		    !s.st_value)
			continue;
		v = grow(e->syms.sym, e->syms.nsym, sizeof(*v));
		if (!v)
			return;
		e->syms.sym = v;
		v[e->syms.nsym++] = (struct verify_sym){ .start = s.st_value, .size = s.st_size,
			.name = elf_strptr(e->elf, sh->sh_link, s.st_name) };
	}
}

/* The GOT slots of PLT and GLOB_DAT relocations, named by the dynamic symbols. */
static void add_imports(struct verify_elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Scn *symscn = elf_getscn(e->elf, sh->sh_link);
	Elf_Data *d = elf_getdata(scn, NULL), *sd = symscn ? elf_getdata(symscn, NULL) : NULL;
	GElf_Shdr ssh;
	GElf_Rela r;
	GElf_Sym s;
	size_t n = d && sh->sh_entsize ? d->d_size / sh->sh_entsize : 0;

	if (!sd || !gelf_getshdr(symscn, &ssh))
		return;
	for (size_t i = 0; i < n && i < MAX_NAMES; i++) {
		struct verify_import *v;
		unsigned long type;

		if (!gelf_getrela(d, (int)i, &r))
			continue;
		type = GELF_R_TYPE(r.r_info);
		if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
		    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		v = grow(e->syms.imp, e->syms.nimp, sizeof(*v));
		if (!v)
			return;
		e->syms.imp = v;
		v[e->syms.nimp++] = (struct verify_import){ .slot = r.r_offset,
			.name = elf_strptr(e->elf, ssh.sh_link, s.st_name) };
	}
}

static void read_build_id(struct verify_elf *e, Elf_Scn *scn)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)d->d_buf + noff, "GNU", 4) || nh.n_descsz > VERIFY_BUILD_ID_MAX)
			continue;
		memcpy(e->build_id, (char *)d->d_buf + doff, nh.n_descsz);
		e->build_id_len = nh.n_descsz;
		return;
	}
}

static void read_section(struct verify_elf *e, Elf_Scn *scn, size_t shstrndx, bool *symtab,
			 bool had_text)
{
	const char *name;
	GElf_Shdr sh;

	if (!gelf_getshdr(scn, &sh))
		return;
	name = elf_strptr(e->elf, shstrndx, sh.sh_name);
	add_section(e, &sh, name);
	if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !*symtab)) {
		if (sh.sh_type == SHT_SYMTAB && !*symtab) {
			e->syms.nsym = 0;	/* .symtab has all .dynsym has, and more */
			*symtab = true;
		}
		add_symbols(e, scn, &sh);
	} else if (sh.sh_type == SHT_RELA) {
		add_imports(e, scn, &sh);
	} else if (sh.sh_type == SHT_NOTE && !e->build_id_len) {
		read_build_id(e, scn);
	}
	/* a relocatable object has no segments: its allocated sections are its memory */
	if (e->relocatable && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS &&
	    sh.sh_offset <= e->size && sh.sh_size && sh.sh_size <= e->size - sh.sh_offset)
		emu_mem_image_add(&e->img, sh.sh_addr, e->map + sh.sh_offset, sh.sh_size);
	if (name && !strcmp(name, ".sframe") && !e->sframe_addr && (sh.sh_flags & SHF_ALLOC)) {
		e->sframe_addr = sh.sh_addr;
		e->sframe_len = sh.sh_size;
	}
	/* no executable segment: the executable sections, in address order */
	if ((sh.sh_flags & SHF_EXECINSTR) && (sh.sh_flags & SHF_ALLOC) && !had_text &&
	    sh.sh_size && sh.sh_addr + sh.sh_size > sh.sh_addr)
		emu_mappings_add(&e->text, sh.sh_addr, sh.sh_addr + sh.sh_size, EMU_PROT_EXEC);
}

static void read_sections(struct verify_elf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx = 0, n = 0;
	bool symtab = false, had_text = e->text.n;

	if (elf_getshdrstrndx(e->elf, &shstrndx))
		shstrndx = 0;
	/* symbols in .symtab replace those of .dynsym seen before it */
	while ((scn = elf_nextscn(e->elf, scn)) && n++ < 65536)
		read_section(e, scn, shstrndx, &symtab, had_text);
}

static int check_header(struct verify_elf *e, char *err, size_t errlen)
{
	GElf_Ehdr eh;

	if (elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &eh))
		return fail(err, errlen, -ENOEXEC, "not an ELF file");
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64)
		return fail(err, errlen, -ENOEXEC, "not a 64-bit x86-64 ELF file");
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN && eh.e_type != ET_REL)
		return fail(err, errlen, -ENOEXEC, "not an executable, shared or relocatable "
			    "object (ELF type %u)", eh.e_type);
	return 0;
}

static int index_file(struct verify_elf *e, char *err, size_t errlen)
{
	int r;

	elf_version(EV_CURRENT);
	if (verify_is_relocatable(e->map, e->size)) {
		r = verify_layout_relocatable(e->map, e->size);
		if (r)
			return fail(err, errlen, r, "a relocatable object whose sections cannot "
				    "be laid out");
		e->relocatable = true;
	}
	e->elf = elf_memory((char *)e->map, e->size);
	if (!e->elf)
		return fail(err, errlen, -ENOEXEC, "libelf: %s", elf_errmsg(-1));
	r = check_header(e, err, errlen);
	if (r)
		return r;
	if (read_segments(e))
		return fail(err, errlen, -ENOEXEC, "unreadable program headers");
	read_sections(e);
	verify_symbols_sort(&e->syms);
	e->mem = emu_mem_image_accessor(&e->img);
	e->cfi = dwarf_getcfi_elf(e->elf);
	return 0;
}

int verify_elf_open_mem(const uint8_t *data, size_t len, struct verify_elf *e, char *err,
			size_t errlen)
{
	int r;

	memset(e, 0, sizeof(*e));
	if (!len)
		return fail(err, errlen, -ENOEXEC, "empty file");
	e->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (e->map == MAP_FAILED) {
		e->map = NULL;
		return fail(err, errlen, -ENOMEM, "out of memory");
	}
	memcpy(e->map, data, len);
	e->size = len;
	r = index_file(e, err, errlen);
	if (r)
		verify_elf_close(e);
	return r;
}

/* @fd's @size bytes into @e->map (read, not mapped: a file cut short later cannot fault us). */
static int read_all(int fd, struct verify_elf *e, size_t size, char *err, size_t errlen)
{
	size_t off = 0;
	ssize_t n;

	e->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (e->map == MAP_FAILED) {
		e->map = NULL;
		return fail(err, errlen, -ENOMEM, "out of memory");
	}
	e->size = size;
	while (off < size) {
		n = pread(fd, e->map + off, size - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(err, errlen, -errno, "read: %s", strerror(errno));
		if (!n)
			return fail(err, errlen, -ENOEXEC, "the file shrank while it was read");
		off += (size_t)n;
	}
	return 0;
}

int verify_elf_open_fd(int fd, struct verify_elf *e, char *err, size_t errlen)
{
	struct stat st;
	int r;

	memset(e, 0, sizeof(*e));
	if (fstat(fd, &st))
		r = fail(err, errlen, -errno, "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode) || !st.st_size)
		r = fail(err, errlen, -ENOEXEC, S_ISREG(st.st_mode) ? "empty file" :
			 "not a regular file");
	else
		r = read_all(fd, e, (size_t)st.st_size, err, errlen);
	close(fd);
	if (!r)
		r = index_file(e, err, errlen);
	if (r)
		verify_elf_close(e);
	return r;
}

int verify_elf_open(const char *path, struct verify_elf *e, char *err, size_t errlen)
{
	/* O_NONBLOCK: a FIFO is refused as not a regular file, not waited on */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), r = -errno;

	if (fd < 0) {
		memset(e, 0, sizeof(*e));
		return fail(err, errlen, r, "%s", strerror(-r));
	}
	return verify_elf_open_fd(fd, e, err, errlen);
}

void verify_elf_close(struct verify_elf *e)
{
	if (e->cfi)
		dwarf_cfi_end(e->cfi);
	if (e->elf)
		elf_end(e->elf);
	if (e->map)
		munmap(e->map, e->size);
	emu_mappings_free(&e->text);
	free(e->syms.sym);
	free(e->syms.imp);
	free(e->syms.sec);
	memset(e, 0, sizeof(*e));
}

int verify_elf_sframe(struct verify_elf *e, struct emu_sframe_section **out, char *err,
		      size_t errlen)
{
	struct emu_sframe_params p = { .sframe_addr = e->sframe_addr, .arch = EMU_ARCH_X86_64,
				       .maps = &e->text };
	struct emu_verdict v;
	uint8_t *copy;
	int r;

	if (!e->sframe_addr || !e->sframe_len)
		return fail(err, errlen, -ENODATA, "no .sframe section");
	if (!e->text.n)
		return fail(err, errlen, -ENODATA, "no executable segment");
	if (e->sframe_len > e->size)
		return fail(err, errlen, -EFAULT, ".sframe larger than the file");
	copy = malloc(e->sframe_len);
	if (!copy)
		return fail(err, errlen, -ENOMEM, "out of memory");
	if (emu_read(&e->mem, e->sframe_addr, copy, e->sframe_len)) {
		free(copy);
		return fail(err, errlen, -EFAULT, ".sframe not in the file's segments");
	}
	/* a .o's FDEs are in source order: the linker would sort them */
	if (e->relocatable && verify_sframe_sort_fdes(copy, e->sframe_len, e->sframe_addr)) {
		free(copy);
		return fail(err, errlen, -EINVAL, ".sframe refused: no FDE table to sort");
	}
	p.text_start = e->text.vma[0].start;
	p.text_end = e->text.vma[0].end;
	emu_verdict_init(&v);
	r = emu_sframe_load(copy, e->sframe_len, &p, out, &v);
	if (r)
		return fail(err, errlen, r, ".sframe refused (%s): %s", emu_rule_name(v.rule),
			    v.reason);
	return 0;
}

int verify_elf_rebase(struct verify_elf *e, uint64_t bias)
{
	struct emu_mappings text = { 0 };
	uint64_t d = bias - e->bias;

	for (size_t i = 0; i < e->text.n; i++)
		if (emu_mappings_add(&text, e->text.vma[i].start + d, e->text.vma[i].end + d,
				     EMU_PROT_EXEC))
			break;
	emu_mappings_free(&e->text);
	e->text = text;
	for (size_t i = 0; i < e->syms.nsym; i++)
		e->syms.sym[i].start += d;
	for (size_t i = 0; i < e->syms.nimp; i++)
		e->syms.imp[i].slot += d;
	for (size_t i = 0; i < e->syms.nsec; i++) {
		e->syms.sec[i].start += d;
		e->syms.sec[i].end += d;
	}
	e->bias = bias;
	return e->text.n ? 0 : -EINVAL;
}

/* A register rule of libdw's: "CFA + N" as DW_OP_call_frame_cfa [DW_OP_plus_uconst N]. */
static struct emu_loc_rule dwarf_loc(Dwarf_Frame *fr, int reg, bool *undefined)
{
	Dwarf_Op mem[3], *ops = NULL;
	struct emu_loc_rule l = { .kind = EMU_LOC_SAME, .reg = (uint8_t)reg };
	size_t n = 0;

	if (dwarf_frame_register(fr, reg, mem, &ops, &n))
		return (struct emu_loc_rule){ .kind = EMU_LOC_REG, .reg = 0xff };
	if (!n) {
		*undefined = ops == mem;
		return l;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa || n > 2 ||
	    (n == 2 && ops[1].atom != DW_OP_plus_uconst))
		return (struct emu_loc_rule){ .kind = EMU_LOC_REG, .reg = 0xff };
	return (struct emu_loc_rule){ .kind = EMU_LOC_CFA_DEREF,
				      .off = n == 2 ? (int64_t)ops[1].number : 0 };
}

/* The CFA: DW_OP_bregN off or DW_OP_bregx N off; anything else is not representable. */
static void dwarf_cfa(Dwarf_Frame *fr, struct emu_unwind_rule *r)
{
	Dwarf_Op *ops = NULL;
	size_t n = 0;
	int reg = -1;

	r->cfa_base = EMU_CFA_REG;
	r->cfa_reg = 0xff;
	if (dwarf_frame_cfa(fr, &ops, &n) || n != 1)
		return;
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		r->cfa_off = (int64_t)ops[0].number;
	} else if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number < 32 ? (int)ops[0].number : -1;
		r->cfa_off = (int64_t)ops[0].number2;
	}
	if (reg < 0)
		return;
	r->cfa_reg = (uint8_t)reg;
	r->cfa_base = reg == 7 ? EMU_CFA_SP : reg == 6 ? EMU_CFA_FP : EMU_CFA_REG;
}

int verify_elf_dwarf(void *ctx, uint64_t addr, struct emu_unwind_rule *out)
{
	struct verify_elf *e = ctx;
	Dwarf_Frame *fr = NULL;
	bool ra_undef = false, fp_undef = false;

	if (!e->cfi || dwarf_cfi_addrframe(e->cfi, addr - e->bias, &fr))
		return -ENOENT;
	*out = (struct emu_unwind_rule){ 0 };
	dwarf_cfa(fr, out);
	out->ra = dwarf_loc(fr, 16, &ra_undef);
	out->fp = dwarf_loc(fr, 6, &fp_undef);
	out->outermost = ra_undef;
	free(fr);
	return 0;
}

struct verify_target verify_elf_target(struct verify_elf *e, const struct emu_sframe_section *s)
{
	return (struct verify_target){ .sframe = s, .mem = &e->mem, .text = &e->text,
				       .syms = &e->syms, .dwarf = verify_elf_dwarf, .dwarf_ctx = e };
}
