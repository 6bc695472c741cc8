// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-v1-copy IN OUT: a copy of the ELF program IN whose .sframe section
 * is written again as SFrame version 1, in place, by the test writer.
 *
 * The end-to-end tests need a program with v1 SFrame data (what binutils 2.40
 * emits, and what the kernel profiles refuse) on every toolchain, including
 * those whose assembler emits v2 or v3. The same functions and FREs are
 * written: a v1 FDE (17 bytes) is smaller than a v2 (20) or v3 (16 + 5)
 * one and the FREs are encoded alike, so the new section fits where the old
 * one was; .sframe's size and PT_GNU_SFRAME's are set to it, the rest of the
 * old bytes is zeroed. v3 FLEX FDEs (which v1 cannot express) are left out.
 * Exit status 0, or 1 with a message.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_sframe.h"
#include "emu/emu.h"
#include "emu/sframe_internal.h"
#include "sframe_writer.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

/* Where .sframe's bytes and sizes live in the file. */
struct sframe_place {
	off_t data;		/* the section's bytes */
	off_t shdr_size;	/* its section header's sh_size */
	off_t phdr_filesz;	/* PT_GNU_SFRAME's p_filesz (p_memsz follows) */
	size_t len;
};

static int find_place(const char *path, struct sframe_place *pl)
{
	int fd = open(path, O_RDONLY), err = -1;
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t shstrndx, n;

	elf_version(EV_CURRENT);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) ||
	    elf_getphdrnum(elf, &n))
		goto out;
	while ((scn = elf_nextscn(elf, scn)) && gelf_getshdr(scn, &sh)) {
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);

		if (!name || strcmp(name, ".sframe"))
			continue;
		pl->data = (off_t)sh.sh_offset;
		pl->len = sh.sh_size;
		pl->shdr_size = (off_t)(eh.e_shoff + elf_ndxscn(scn) * eh.e_shentsize +
					offsetof(Elf64_Shdr, sh_size));
	}
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_SFRAME)
			pl->phdr_filesz = (off_t)(eh.e_phoff + i * eh.e_phentsize +
						  offsetof(Elf64_Phdr, p_filesz));
	err = pl->len && pl->phdr_filesz ? 0 : -1;
out:
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return err;
}

/* The FREs of @fde, in the writer's terms; @out holds @fde->num_fres. */
static int read_fres(const struct emu_sframe_section *s, const struct emu_sframe_fde *fde,
		     struct sfw_fre *out)
{
	size_t pos = fde->fres_pos;

	for (uint32_t j = 0; j < fde->num_fres; j++) {
		struct emu_sframe_fre fre;

		if (emu_sf_decode_fre(s, fde, &pos, &fre))
			return -1;
		out[j] = (struct sfw_fre){ .start = fre.start, .sp_base = fre.info & 1,
					   .mangled_ra = fre.info >> 7, .count = fre.count,
					   .word_size = fre.word_size };
		memcpy(out[j].words, fre.word, sizeof(out[j].words));
	}
	return 0;
}

/* @es's section, every FDE but FLEX ones, written as v1 into @buf. */
static size_t to_v1(const struct elf_sframe *es, uint8_t *buf, size_t cap)
{
	struct emu_sframe_params p = { .arch = EMU_ARCH_X86_64, .sframe_addr = es->addr,
				       .text_start = es->text_start, .text_end = es->text_end };
	static struct sfw_fde fdes[SFW_MAX_FDES];
	struct sfw_section out = sfw_amd64(1, false, es->addr);
	struct emu_sframe_section *s = NULL;
	struct emu_verdict v;
	struct sfw_layout lay;
	uint8_t *copy = malloc(es->len);
	size_t len = 0;
	unsigned int n = 0;

	emu_verdict_init(&v);
	if (!copy)
		return 0;
	memcpy(copy, es->data, es->len);
	if (emu_sframe_load(copy, es->len, &p, &s, &v)) {
		fprintf(stderr, "sframe-v1-copy: .sframe refused: %s\n", v.reason);
		return 0;
	}
	for (uint32_t i = 0; i < emu_sframe_header(s)->num_fdes && n < SFW_MAX_FDES; i++) {
		struct emu_sframe_fde fde;
		struct sfw_fre *fres;

		if (emu_sframe_fde_at(s, i, &fde) || fde.type != 0)
			continue;
		fres = calloc(fde.num_fres + 1, sizeof(*fres));
		if (!fres || read_fres(s, &fde, fres))
			goto out;
		fdes[n++] = (struct sfw_fde){ .func_start = fde.func_start,
					      .func_size = fde.func_size, .fre_type = -1,
					      .pcmask = fde.pcmask, .nfres = fde.num_fres,
					      .fres = fres };
	}
	out.fdes = fdes;
	out.nfdes = n;
	len = sfw_write(&out, buf, cap, &lay);
out:
	while (n)
		free((void *)fdes[--n].fres);
	emu_sframe_put(s);
	return len;
}

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY), out = -1, err = -1;
	struct stat st;
	off_t off = 0;

	if (in >= 0 && !fstat(in, &st))
		out = open(to, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777);
	if (out >= 0 && sendfile(out, in, &off, (size_t)st.st_size) == st.st_size)
		err = 0;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err;
}

int main(int argc, char **argv)
{
	struct elf_sframe es;
	struct sframe_place pl = { 0 };
	uint8_t *buf;
	uint64_t size;
	size_t len;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: sframe-v1-copy IN OUT\n");
		return 1;
	}
	if (elf_sframe_read(argv[1], &es) || find_place(argv[1], &pl) || pl.len != es.len) {
		fprintf(stderr, "sframe-v1-copy: %s: no .sframe and PT_GNU_SFRAME\n", argv[1]);
		return 1;
	}
	buf = calloc(1, es.len);
	len = buf ? to_v1(&es, buf, es.len) : 0;
	if (!len) {
		fprintf(stderr, "sframe-v1-copy: %s: could not write v1 in %zu bytes\n", argv[1],
			es.len);
		return 1;
	}
	size = len;
	if (copy_file(argv[1], argv[2]) || (fd = open(argv[2], O_WRONLY)) < 0 ||
	    pwrite(fd, buf, es.len, pl.data) != (ssize_t)es.len ||
	    pwrite(fd, &size, 8, pl.shdr_size) != 8 || pwrite(fd, &size, 8, pl.phdr_filesz) != 8 ||
	    pwrite(fd, &size, 8, pl.phdr_filesz + 8) != 8 || close(fd)) {
		fprintf(stderr, "sframe-v1-copy: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	free(buf);
	elf_sframe_free(&es);
	return 0;
}
