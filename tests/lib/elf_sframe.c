// SPDX-License-Identifier: GPL-2.0
/* .sframe section and executable segment of an ELF file, through libelf. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_sframe.h"

static int find_text(Elf *elf, struct elf_sframe *out)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		out->text_start = ph.p_vaddr;
		out->text_end = ph.p_vaddr + ph.p_memsz;
		return 0;
	}
	return -1;
}

static int find_sframe(Elf *elf, struct elf_sframe *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -1;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".sframe"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_size)
			return -1;
		out->data = malloc(d->d_size);
		if (!out->data)
			return -1;
		memcpy(out->data, d->d_buf, d->d_size);
		out->len = d->d_size;
		out->addr = sh.sh_addr;
		return 0;
	}
	return -1;
}

int elf_sframe_read(const char *path, struct elf_sframe *out)
{
	Elf *elf;
	int fd, err = -1;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !find_sframe(elf, out))
		err = find_text(elf, out);
	elf_end(elf);
	close(fd);
	if (err)
		elf_sframe_free(out);
	return err;
}

void elf_sframe_free(struct elf_sframe *es)
{
	free(es->data);
	memset(es, 0, sizeof(*es));
}
