// SPDX-License-Identifier: MIT
/* Program headers, build id and debug link of a loaded object, for the audit module. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>

#include "audit_object.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

struct phdrs {
	Elf64_Phdr *ph;		/* the scratch's array */
	unsigned int n;
	uint64_t bias;
};

/* Our own memory, read so that a bad address fails instead of faulting. */
static int self_read(uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

static int file_read(int fd, uint64_t off, void *buf, size_t len)
{
	return fd >= 0 && off <= INT64_MAX && pread(fd, buf, len, (off_t)off) == (ssize_t)len ?
		       0 : -1;
}

static bool ehdr_ok(const Elf64_Ehdr *eh)
{
	return !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_phentsize == sizeof(Elf64_Phdr) && eh->e_phnum && eh->e_phnum <= AUDIT_MAX_PHDRS;
}

/* The ELF header at @addr in memory, then the program headers it points to. */
static int phdrs_from_memory(uint64_t addr, struct phdrs *p)
{
	Elf64_Ehdr eh;

	if (self_read(addr, &eh, sizeof(eh)) || !ehdr_ok(&eh))
		return -1;
	p->n = eh.e_phnum;
	return self_read(addr + eh.e_phoff, p->ph, p->n * sizeof(Elf64_Phdr));
}

static int phdrs_from_file(int fd, struct phdrs *p)
{
	Elf64_Ehdr eh;

	if (file_read(fd, 0, &eh, sizeof(eh)) || !ehdr_ok(&eh))
		return -1;
	p->n = eh.e_phnum;
	return file_read(fd, eh.e_phoff, p->ph, p->n * sizeof(Elf64_Phdr));
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

/* Headers found at the load bias are the object's when its PT_DYNAMIC is at l_ld. */
static bool phdrs_match(const struct phdrs *p, const struct link_map *map)
{
	for (unsigned int i = 0; i < p->n; i++)
		if (p->ph[i].p_type == PT_DYNAMIC)
			return p->bias + p->ph[i].p_vaddr == (uintptr_t)map->l_ld;
	return !map->l_ld;
}

/*
 * Open the object's file and take its real path from /proc/self/fd. The main
 * program is /proc/self/exe, unless there is no interpreter: then ld.so was
 * run as the program (ld.so PROGRAM) and loaded PROGRAM itself.
 */
static int open_file(const struct link_map *map, bool main, uint64_t main_text,
		     struct audit_object *o, struct audit_scratch *s)
{
	const char *name = map->l_name;
	char link[64];
	ssize_t n;
	int fd;

	if (main && !getauxval(AT_BASE) && main_text &&
	    !audit_mapped_path(main_text, o->path, sizeof(o->path), s))
		name = o->path;
	else if (main)
		name = "/proc/self/exe";
	if (!name || !name[0])
		return -1;
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, o->path, sizeof(o->path) - 1);
	o->path[n > 0 ? n : 0] = '\0';
	return fd;
}

static void take_segments(const struct phdrs *p, struct audit_object *o)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	o->bias = p->bias;
	for (unsigned int i = 0; i < p->n; i++) {
		const Elf64_Phdr *ph = &p->ph[i];

		/* an empty section is passed on as it is: the kernel refuses it */
		if (ph->p_type == PT_GNU_SFRAME) {
			o->has_sframe = true;
			o->sframe_start = p->bias + ph->p_vaddr;
			o->sframe_end = o->sframe_start + ph->p_memsz;
		}
		if (ph->p_type == PT_GNU_EH_FRAME && ph->p_memsz) {
			o->eh_frame_hdr_start = p->bias + ph->p_vaddr;
			o->eh_frame_hdr_size = ph->p_memsz;
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

/* NT_GNU_BUILD_ID in @len bytes of notes; true when found. */
static bool take_build_id_note(const uint8_t *notes, size_t len, struct audit_object *o)
{
	size_t pos = 0;

	while (pos + sizeof(Elf64_Nhdr) <= len) {
		Elf64_Nhdr nh;
		size_t name = pos + sizeof(nh), desc;

		memcpy(&nh, notes + pos, sizeof(nh));
		desc = name + ((nh.n_namesz + 3) & ~3u);
		if (desc > len || nh.n_descsz > len - desc)
			return false;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(notes + name, "GNU", 4) && nh.n_descsz <= CODE_BUILD_ID_MAX) {
			memcpy(o->build_id, notes + desc, nh.n_descsz);
			o->build_id_len = nh.n_descsz;
			return true;
		}
		pos = desc + ((nh.n_descsz + 3) & ~3u);
	}
	return false;
}

/* NT_GNU_BUILD_ID from the object's PT_NOTE segments, as loaded. */
static void take_build_id(const struct phdrs *p, struct audit_object *o, struct audit_scratch *s)
{
	for (unsigned int i = 0; i < p->n; i++) {
		const Elf64_Phdr *ph = &p->ph[i];
		size_t len = ph->p_memsz < sizeof(s->notes) ? ph->p_memsz : sizeof(s->notes);

		if (ph->p_type == PT_NOTE && !self_read(p->bias + ph->p_vaddr, s->notes, len) &&
		    take_build_id_note(s->notes, len, o))
			return;
	}
}

/* The file's section named @name (section headers read 64 at a time); -1 if none. */
static int find_section(int fd, const char *name, Elf64_Shdr *out, struct audit_scratch *s)
{
	size_t want = strlen(name) + 1, nnames;
	Elf64_Shdr strtab;
	Elf64_Ehdr eh;

	if (file_read(fd, 0, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum ||
	    file_read(fd, eh.e_shoff + eh.e_shstrndx * sizeof(strtab), &strtab, sizeof(strtab)))
		return -1;
	nnames = strtab.sh_size < sizeof(s->names) ? strtab.sh_size : sizeof(s->names);
	if (file_read(fd, strtab.sh_offset, s->names, nnames))
		return -1;
	for (unsigned int base = 0; base < eh.e_shnum; base += 64) {
		unsigned int n = eh.e_shnum - base < 64 ? eh.e_shnum - base : 64;

		if (file_read(fd, eh.e_shoff + base * sizeof(Elf64_Shdr), s->sh, n * sizeof(*s->sh)))
			return -1;
		for (unsigned int i = 0; i < n; i++) {
			if (s->sh[i].sh_name >= nnames || nnames - s->sh[i].sh_name < want ||
			    memcmp(s->names + s->sh[i].sh_name, name, want))
				continue;
			*out = s->sh[i];
			return 0;
		}
	}
	return -1;
}

/* The file's .gnu_debuglink (not loaded): name, padding to 4, CRC32. */
static void take_debug_link(int fd, struct audit_object *o, struct audit_scratch *s)
{
	char data[sizeof(o->debug_link) + 8];
	size_t len, name_len, crc_at;
	Elf64_Shdr sh;

	if (fd < 0 || find_section(fd, ".gnu_debuglink", &sh, s))
		return;
	len = sh.sh_size < sizeof(data) ? sh.sh_size : sizeof(data);
	if (file_read(fd, sh.sh_offset, data, len) || !memchr(data, 0, len))
		return;
	name_len = strlen(data);
	crc_at = (name_len + 4) & ~(size_t)3;
	if (crc_at + 4 > len || name_len >= sizeof(o->debug_link))
		return;
	memcpy(o->debug_link, data, name_len + 1);
	memcpy(&o->debug_link_crc, data + crc_at, 4);
}

/* The first PT_LOAD's address, to find the main program's file by. */
static uint64_t first_load(const struct phdrs *p)
{
	for (unsigned int i = 0; i < p->n; i++)
		if (p->ph[i].p_type == PT_LOAD)
			return p->bias + p->ph[i].p_vaddr;
	return 0;
}

int audit_object_read(const struct link_map *map, struct audit_object *o,
		      struct audit_scratch *s)
{
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR), interp = getauxval(AT_BASE);
	bool main = !map->l_name || !map->l_name[0], is_vdso = vdso && map->l_addr == vdso;
	struct phdrs p = { .ph = s->ph, .bias = map->l_addr };
	int fd = -1, err;

	memset(o, 0, sizeof(*o));
	o->permanent = main || is_vdso || (interp && map->l_addr == interp);
	/* position-independent objects have their ELF header at the load bias */
	err = main ? main_phdrs(&p) : phdrs_from_memory(map->l_addr, &p);
	if (!err && !main && !phdrs_match(&p, map))
		err = -1;
	if (is_vdso)
		snprintf(o->path, sizeof(o->path), "%s", map->l_name);
	else
		fd = open_file(map, main, err ? 0 : first_load(&p), o, s);
	if (err && fd >= 0) {
		err = phdrs_from_file(fd, &p);
		if (!err && !phdrs_match(&p, map))
			err = -1;
	}
	if (!err) {
		take_segments(&p, o);
		take_build_id(&p, o, s);
		take_debug_link(fd, o, s);
	}
	if (fd >= 0)
		close(fd);
	return err ? -1 : 0;
}
