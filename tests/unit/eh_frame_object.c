// SPDX-License-Identifier: GPL-2.0
/* Real objects for the .eh_frame tests (eh_frame_object.h). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame_object.h"

#define MAX_SEGS 16



/* Reads of this process's memory, inside the object's segments only. */
static int self_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct object *o = ctx;

	for (unsigned int i = 0; i < o->nseg; i++) {
		if (addr < o->seg_start[i] || addr > o->seg_end[i] || len > o->seg_end[i] - addr)
			continue;
		memcpy(buf, (const void *)(uintptr_t)addr, len);
		return 0;
	}
	return -EFAULT;
}

/* The mappings: each segment's pages, in order, a page shared with the one before left to it. */
static void object_maps(struct object *o, const unsigned int *prot)
{
	uint64_t prev_end = 0, start, end;

	for (unsigned int i = 0; i < o->nseg; i++) {
		start = o->seg_start[i] & ~0xfffull;
		end = (o->seg_end[i] + 0xfff) & ~0xfffull;
		if (start < prev_end)
			start = prev_end;
		if (start < end)
			cr_assert_eq(emu_mappings_add(&o->maps, start, end, prot[i]), 0);
		prev_end = end > prev_end ? end : prev_end;
	}
}

static unsigned int prot_of(uint32_t flags)
{
	return (flags & PF_R ? EMU_PROT_READ : 0) | (flags & PF_W ? EMU_PROT_WRITE : 0) |
	       (flags & PF_X ? EMU_PROT_EXEC : 0);
}

/* A segment of the object (@vaddr: its link-time address): PT_LOAD, the header, the text. */
static void object_phdr(struct object *o, uint32_t type, uint32_t flags, uint64_t vaddr,
			uint64_t memsz, unsigned int *prot)
{
	uint64_t start = o->bias + vaddr;

	if (type == PT_GNU_EH_FRAME) {
		o->hdr_start = start;
		o->hdr_end = start + memsz;
	}
	if (type != PT_LOAD)
		return;
	if (flags & PF_X) {
		o->text_start = start;
		o->text_end = start + memsz;
	}
	cr_assert_lt(o->nseg, MAX_SEGS);
	prot[o->nseg] = prot_of(flags);
	o->seg_start[o->nseg] = start;
	o->seg_end[o->nseg++] = start + memsz;
}

/* libdw's CFI of the file, and where its .plt is. */
static void object_open_file(struct object *o)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *name;

	elf_version(EV_CURRENT);
	o->fd = open(o->path, O_RDONLY);
	cr_assert_geq(o->fd, 0, "%s", o->path);
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	cr_assert(o->elf, "%s: %s", o->path, elf_errmsg(-1));
	o->cfi = dwarf_getcfi_elf(o->elf);
	cr_assert(o->cfi, "%s: %s", o->path, dwarf_errmsg(-1));
	cr_assert_eq(elf_getshdrstrndx(o->elf, &shstrndx), 0);
	while ((scn = elf_nextscn(o->elf, scn))) {
		cr_assert(gelf_getshdr(scn, &sh));
		name = elf_strptr(o->elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".plt")) {
			o->plt_start = o->bias + sh.sh_addr;
			o->plt_end = o->plt_start + sh.sh_size;
		}
	}
}

void object_close(struct object *o)
{
	dwarf_cfi_end(o->cfi);
	elf_end(o->elf);
	close(o->fd);
	emu_mappings_free(&o->maps);
	free(o->file);
}

struct pick {
	const char *want;	/* "" for the main program, else a substring of the name */
	struct object *o;
	bool found;
};

static int pick_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct pick *p = data;
	unsigned int prot[MAX_SEGS];
	struct object *o = p->o;

	(void)size;
	if (*p->want && !strstr(info->dlpi_name, p->want))
		return 0;
	snprintf(o->path, sizeof(o->path), "%s", *p->want ? info->dlpi_name : "/proc/self/exe");
	o->bias = info->dlpi_addr;
	for (unsigned int i = 0; i < info->dlpi_phnum; i++)
		object_phdr(o, info->dlpi_phdr[i].p_type, info->dlpi_phdr[i].p_flags,
			    info->dlpi_phdr[i].p_vaddr, info->dlpi_phdr[i].p_memsz, prot);
	object_maps(o, prot);
	p->found = true;
	return 1;
}

/* An object of this process: "" the program (listed first), else the first named @want. */
void object_in_process(struct object *o, const char *want)
{
	struct pick p = { want, o, false };

	memset(o, 0, sizeof(*o));
	dl_iterate_phdr(pick_object, &p);
	cr_assert(p.found, "no object %s", want);
	o->mem = (struct emu_accessor){ .read = self_read, .ctx = o };
	object_open_file(o);
}

/* A program file: its PT_LOAD segments' bytes at their link-time addresses. */
void object_from_file(struct object *o, const char *path)
{
	unsigned int prot[MAX_SEGS];
	struct stat st;
	size_t phnum;
	GElf_Phdr ph;

	memset(o, 0, sizeof(*o));
	snprintf(o->path, sizeof(o->path), "%s", path);
	object_open_file(o);
	cr_assert_eq(fstat(o->fd, &st), 0);
	o->file = malloc(st.st_size);
	cr_assert_eq(pread(o->fd, o->file, st.st_size, 0), st.st_size);
	cr_assert_eq(elf_getphdrnum(o->elf, &phnum), 0);
	for (size_t i = 0; i < phnum; i++) {
		cr_assert(gelf_getphdr(o->elf, (int)i, &ph));
		object_phdr(o, ph.p_type, ph.p_flags, ph.p_vaddr, ph.p_memsz, prot);
		if (ph.p_type == PT_LOAD)
			cr_assert_eq(emu_mem_image_add(&o->img, ph.p_vaddr, o->file + ph.p_offset,
						       ph.p_filesz), 0);
	}
	object_maps(o, prot);
	o->mem = emu_mem_image_accessor(&o->img);
}

/* Registration with validation: it must succeed on what the toolchain wrote. */
void object_register(struct object *o)
{
	struct emu_verdict v;

	cr_assert(o->hdr_start && o->text_start, "%s: no PT_GNU_EH_FRAME or text", o->path);
	o->e = (struct emu_eh_frame){ .hdr_start = o->hdr_start, .hdr_end = o->hdr_end,
				      .text_start = o->text_start, .text_end = o->text_end };
	emu_verdict_init(&v);
	cr_assert_eq(emu_eh_frame_add(&o->e, &o->mem, &o->maps, true, &v), 0, "%s: %s (%s)",
		     o->path, v.reason, emu_rule_name(v.rule));
	cr_assert_gt(o->e.fde_count, 0);
}
