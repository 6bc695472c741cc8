// SPDX-License-Identifier: GPL-2.0
/*
 * A library the program maps itself: libselfmap.so (built with
 * -Wa,--gsframe, never dlopened, so the loader module never sees it) is
 * mapped whole, read and execute, MAP_PRIVATE, from its file ("file"), or
 * from the program's own copy of it, a memfd ("copy", shown in the
 * mappings as "/memfd:libselfmap.so (deleted)"); the program
 * reads its program headers, section headers and dynamic symbols from the
 * mapping, registers its executable segment with its .sframe, path and
 * build id (CODE_REGISTER_ELF; the path is the library file's, also for
 * the copy), and calls spin_a, found by its symbol:
 *
 *	main -> run_spin -> spin_a (libselfmap.so) -> spin_b (spins)
 *
 * The mapping is the file's from offset 0, so every address in it is the
 * mapping's start plus the file's virtual address (the executable
 * segment's and .sframe's offsets equal their addresses: checked). The
 * library needs no relocation. Symbols come from the file behind the
 * mapping: spin_b+0x.., spin_a+0x.., whoever mapped it.
 */
#include <codectl.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verdict_prog.h"
#include "selfmap.h"

typedef unsigned long spin_fn(unsigned long);

DEFINE_RUNNER(run_spin, unsigned long)

/* A copy of @fd's file in a memfd named after it, or -1. */
static int copy_of(int fd)
{
	int copy = memfd_create("libselfmap.so", MFD_CLOEXEC);
	char buf[65536];
	ssize_t n;

	while (copy >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		if (write(copy, buf, (size_t)n) != n)
			return -1;
	return copy;
}

/* Map @path, or (@copy) a copy of it, whole, read and execute, and parse it. */
static int map_lib(struct lib *l, const char *path, bool copy)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), src = fd, err;

	if (fd < 0) {
		perror(path);
		return -1;
	}
	if (copy)
		fd = copy_of(src);
	if (fd < 0) {
		perror("self_mapped_lib: copy");
		return -1;
	}
	err = selfmap_map_fd(l, fd, NULL);
	close(fd);
	if (copy)
		close(src);
	if (err)
		fprintf(stderr, "self_mapped_lib: %s: cannot map it, or not laid out as expected\n",
			path);
	return err;
}

/* self_mapped_lib file|copy */
int main(int argc, char **argv)
{
	char path[PATH_MAX];
	struct code_elf_info info;
	struct lib l;
	spin_fn *spin_a;
	bool copy;

	if (argc != 2 || (strcmp(argv[1], "file") && strcmp(argv[1], "copy"))) {
		fprintf(stderr, "usage: self_mapped_lib file|copy\n");
		return 2;
	}
	copy = !strcmp(argv[1], "copy");
	if (beside_prog(path, sizeof(path), "libselfmap.so") || map_lib(&l, path, copy))
		return 1;
	spin_a = (spin_fn *)(uintptr_t)selfmap_symbol(&l, "spin_a");
	if (!spin_a) {
		fprintf(stderr, "self_mapped_lib: no spin_a in %s\n", path);
		return 1;
	}
	info = (struct code_elf_info){
		.elf_start = (uintptr_t)l.base, .elf_end = l.elf_end,
		.text_start = l.text_start, .text_end = l.text_end,
		.sframe_start = l.sframe_start, .sframe_end = l.sframe_end,
		.pathname = (uintptr_t)path,
		.build_id = (uintptr_t)l.build_id, .build_id_len = l.build_id_len,
	};
	if (codectl(CODE_REGISTER_ELF, &info, sizeof(info), 0)) {
		perror("self_mapped_lib: CODE_REGISTER_ELF");
		return 1;
	}
	run_spin(spin_a, 0.4);
	if (codectl(CODE_UNREGISTER, (void *)(uintptr_t)l.text_start, 0, 0)) {
		perror("self_mapped_lib: CODE_UNREGISTER");
		return 1;
	}
	munmap((void *)l.base, l.size);
	printf("self_mapped_lib: %s: done\n", argv[1]);
	return 0;
}
