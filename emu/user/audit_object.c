// SPDX-License-Identifier: MIT
/* Program headers, build id and debug link of a loaded object, for the audit module. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "audit_object.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

struct phdrs {
	Elf64_Phdr ph[AUDIT_MAX_PHDRS];
	unsigned int n;
	uint64_t bias;
};

/* The object's file, mapped read-only: its headers and unloaded sections. */
struct file_map {
	const uint8_t *data;
	size_t size;
};

/* @len bytes at @off of the file, or NULL when they are not all inside it. */
static const void *file_at(const struct file_map *f, uint64_t off, uint64_t len)
{
	if (!f->data || off > f->size || len > f->size - off)
		return NULL;
	return f->data + off;
}

/* Our own memory, read so that a bad address fails instead of faulting. */
static int self_read(uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

static bool ehdr_ok(const Elf64_Ehdr *eh)
{
	return !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_phentsize == sizeof(Elf64_Phdr) && eh->e_phnum && eh->e_phnum <= AUDIT_MAX_PHDRS;
}

/* The ELF header at @addr in memory, then the program headers it points to. */
static int phdrs_from_memory(uint64_t ehdr_addr, struct phdrs *p)
{
	Elf64_Ehdr eh;

	if (self_read(ehdr_addr, &eh, sizeof(eh)) || !ehdr_ok(&eh))
		return -1;
	p->n = eh.e_phnum;
	return self_read(ehdr_addr + eh.e_phoff, p->ph, p->n * sizeof(Elf64_Phdr));
}

static int phdrs_from_file(const struct file_map *f, struct phdrs *p)
{
	const Elf64_Ehdr *eh = file_at(f, 0, sizeof(*eh));
	const void *ph;

	if (!eh || !ehdr_ok(eh))
		return -1;
	ph = file_at(f, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr));
	if (!ph)
		return -1;
	p->n = eh->e_phnum;
	memcpy(p->ph, ph, p->n * sizeof(Elf64_Phdr));
	return 0;
}

/* The main program: AT_PHDR, and the bias from its PT_PHDR. */
static int main_phdrs(struct phdrs *p)
{
	uint64_t at = getauxval(AT_PHDR), n = getauxval(AT_PHNUM);

	if (!at || !n || n > AUDIT_MAX_PHDRS || self_read(at, p->ph, n * sizeof(Elf64_Phdr)))
		return -1;
	p->n = (unsigned int)n;
	for (unsigned int i = 0; i < p->n; i++)
		if (p->ph[i].p_type == PT_PHDR)
			p->bias = at - p->ph[i].p_vaddr;
	return 0;
}

static bool is_vdso(const struct link_map *map)
{
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);

	return vdso && map->l_addr == vdso;
}

/*
 * Map the object's file and take its real path from /proc/self/fd; @f stays
 * empty when there is no file (the vDSO) or it cannot be opened.
 */
static void map_file(const struct link_map *map, bool main, struct audit_object *o,
		     struct file_map *f)
{
	const char *name = main ? "/proc/self/exe" : map->l_name;
	char link[64];
	struct stat st;
	void *data;
	ssize_t n;
	int fd;

	if (!name || !name[0])
		return;
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, o->path, sizeof(o->path) - 1);
	o->path[n > 0 ? n : 0] = '\0';
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (data != MAP_FAILED) {
			f->data = data;
			f->size = (size_t)st.st_size;
		}
	}
	close(fd);
}

static void take_segments(const struct phdrs *p, struct audit_object *o)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (unsigned int i = 0; i < p->n; i++) {
		const Elf64_Phdr *ph = &p->ph[i];

		/* an empty section is passed on as it is: the kernel refuses it */
		if (ph->p_type == PT_GNU_SFRAME) {
			o->has_sframe = true;
			o->sframe_start = p->bias + ph->p_vaddr;
			o->sframe_end = o->sframe_start + ph->p_memsz;
		}
		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr < lo)
			lo = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > hi)
			hi = ph->p_vaddr + ph->p_memsz;
		if ((ph->p_flags & PF_X) && ph->p_memsz && o->ntext < AUDIT_MAX_TEXT) {
			o->text_start[o->ntext] = p->bias + ph->p_vaddr;
			o->text_end[o->ntext++] = p->bias + ph->p_vaddr + ph->p_memsz;
		}
	}
	if (hi > lo) {
		o->elf_start = p->bias + lo;
		o->elf_end = p->bias + hi;
	}
}

/* NT_GNU_BUILD_ID from the object's PT_NOTE segments, as loaded. */
static void take_build_id(const struct phdrs *p, struct audit_object *o)
{
	uint8_t notes[4096];

	for (unsigned int i = 0; i < p->n && !o->build_id_len; i++) {
		const Elf64_Phdr *ph = &p->ph[i];
		size_t len = ph->p_memsz < sizeof(notes) ? ph->p_memsz : sizeof(notes), pos = 0;

		if (ph->p_type != PT_NOTE || self_read(p->bias + ph->p_vaddr, notes, len))
			continue;
		while (pos + sizeof(Elf64_Nhdr) <= len) {
			Elf64_Nhdr nh;
			size_t name = (pos + sizeof(nh)), desc;

			memcpy(&nh, notes + pos, sizeof(nh));
			desc = name + ((nh.n_namesz + 3) & ~3u);
			if (desc > len || nh.n_descsz > len - desc)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(notes + name, "GNU", 4) && nh.n_descsz <= CODE_BUILD_ID_MAX) {
				memcpy(o->build_id, notes + desc, nh.n_descsz);
				o->build_id_len = nh.n_descsz;
				break;
			}
			pos = desc + ((nh.n_descsz + 3) & ~3u);
		}
	}
}

/* The section named @name in the file, or NULL. */
static const Elf64_Shdr *find_section(const struct file_map *f, const char *name)
{
	const Elf64_Ehdr *eh = file_at(f, 0, sizeof(*eh));
	const Elf64_Shdr *sh, *strtab;
	size_t len = strlen(name) + 1;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_shentsize != sizeof(*sh) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = file_at(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*sh));
	if (!sh)
		return NULL;
	strtab = &sh[eh->e_shstrndx];
	for (unsigned int i = 1; i < eh->e_shnum; i++) {
		const char *s = file_at(f, strtab->sh_offset + sh[i].sh_name, len);

		if (sh[i].sh_name < strtab->sh_size && s && !memcmp(s, name, len))
			return &sh[i];
	}
	return NULL;
}

/* The file's .gnu_debuglink (not loaded): name, padding to 4, CRC32. */
static void take_debug_link(const struct file_map *f, struct audit_object *o)
{
	const Elf64_Shdr *sh = find_section(f, ".gnu_debuglink");
	const char *data = sh ? file_at(f, sh->sh_offset, sh->sh_size) : NULL;
	size_t len, crc_at;

	if (!data || !memchr(data, 0, sh->sh_size))
		return;
	len = strlen(data);
	crc_at = (len + 4) & ~(size_t)3;
	if (crc_at + 4 > sh->sh_size || len >= sizeof(o->debug_link))
		return;
	memcpy(o->debug_link, data, len + 1);
	memcpy(&o->debug_link_crc, data + crc_at, 4);
}

int audit_object_read(const struct link_map *map, struct audit_object *o)
{
	bool main = !map->l_name || !map->l_name[0], vdso = is_vdso(map);
	struct phdrs p = { .bias = map->l_addr };
	struct file_map f = { 0 };
	int err;

	memset(o, 0, sizeof(*o));
	if (vdso) {
		snprintf(o->path, sizeof(o->path), "%s", map->l_name);
		err = phdrs_from_memory(map->l_addr, &p);
	} else {
		map_file(map, main, o, &f);
		/* ET_DYN objects have their ELF header at the load base; else ask the file */
		err = main ? main_phdrs(&p) : phdrs_from_memory(map->l_addr, &p);
		if (err)
			err = phdrs_from_file(&f, &p);
	}
	if (!err) {
		take_segments(&p, o);
		take_build_id(&p, o);
		take_debug_link(&f, o);
	}
	if (f.data)
		munmap((void *)f.data, f.size);
	return err ? -1 : 0;
}
