// SPDX-License-Identifier: GPL-2.0
/*
 * bench/table_bytes: the unwind tables a kernel is given per object, in
 * bytes, SFrame (.sframe) against the .eh_frame proposal (.eh_frame_hdr and
 * the .eh_frame it points to), with the text they describe, for real objects:
 * this program and the libraries named on the command line (default: the
 * demo's libraries, libc, libm, ld.so and libstdc++ where present).
 * Usage: table_bytes [--quick] [FILE...]
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const defaults[] = {
	"/proc/self/exe",
	DEMO_DIR "/libdemo_shapes.so",
	DEMO_DIR "/libdemo_sort.so",
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libm.so.6",
	"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
};

/* Sizes of the sections by name; executable sections' total in @text. */
struct sizes {
	size_t sframe, eh_frame_hdr, eh_frame, text;
};

static int read_sizes(const char *path, struct sizes *s)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	*s = (struct sizes){ 0 };
	if (!e || elf_getshdrstrndx(e, &shstrndx)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &sh)) {
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);

		if (!name)
			continue;
		if (!strcmp(name, ".sframe"))
			s->sframe = sh.sh_size;
		else if (!strcmp(name, ".eh_frame_hdr"))
			s->eh_frame_hdr = sh.sh_size;
		else if (!strcmp(name, ".eh_frame"))
			s->eh_frame = sh.sh_size;
		else if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type == SHT_PROGBITS)
			s->text += sh.sh_size;
	}
	elf_end(e);
	close(fd);
	return 0;
}

static void row(const char *path, const struct sizes *s, size_t *sum_sf, size_t *sum_eh)
{
	char self[4096];
	ssize_t len = strcmp(path, "/proc/self/exe") ? -1 : readlink(path, self, sizeof(self) - 1);
	const char *base;

	if (len > 0) {
		self[len] = '\0';
		path = self;
	}
	base = strrchr(path, '/');
	size_t eh = s->eh_frame_hdr + s->eh_frame;

	printf("  %-24s %10zu %10zu %10zu %10zu", base ? base + 1 : path, s->text, s->sframe,
	       s->eh_frame_hdr, s->eh_frame);
	if (s->sframe && eh) {
		printf("   %6.2f\n", (double)eh / (double)s->sframe);
		*sum_sf += s->sframe;
		*sum_eh += eh;
	} else {
		printf("   %6s\n", s->sframe ? "no .eh" : "no .sf");
	}
}

int main(int argc, char **argv)
{
	const char *const *files = defaults;
	int n = sizeof(defaults) / sizeof(defaults[0]), done = 0;
	size_t sum_sf = 0, sum_eh = 0;
	struct sizes s;

	if (argc > 1 && !strcmp(argv[1], "--quick"))
		argc--, argv++;
	if (argc > 1) {
		files = (const char *const *)argv + 1;
		n = argc - 1;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	printf("bench/table_bytes: bytes the kernel is given per object\n");
	printf("  %-24s %10s %10s %10s %10s   %6s\n", "object", "text", ".sframe", ".eh_hdr",
	       ".eh_frame", "eh/sf");
	for (int i = 0; i < n; i++) {
		if (read_sizes(files[i], &s))
			continue;
		row(files[i], &s, &sum_sf, &sum_eh);
		done++;
	}
	if (sum_sf)
		printf("  objects with both: .eh_frame_hdr + .eh_frame / .sframe = %.2f "
		       "(%zu / %zu bytes)\n", (double)sum_eh / (double)sum_sf, sum_eh, sum_sf);
	return done ? 0 : 1;
}
