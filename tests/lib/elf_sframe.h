/* SPDX-License-Identifier: GPL-2.0 */
/* Read the .sframe section of an ELF file (libelf), for tests and benchmarks. */
#ifndef TESTS_ELF_SFRAME_H
#define TESTS_ELF_SFRAME_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct elf_sframe - a file's .sframe section and its executable segment
 * @data, @len: malloc'd copy of the section bytes
 * @addr: the section's link-time address (sh_addr)
 * @text_start, @text_end: the PF_X PT_LOAD segment holding the code
 */
struct elf_sframe {
	uint8_t *data;
	size_t len;
	uint64_t addr;
	uint64_t text_start;
	uint64_t text_end;
};

/** elf_sframe_read() - 0, or -1 when the file cannot be read or has no .sframe. */
int elf_sframe_read(const char *path, struct elf_sframe *out);

void elf_sframe_free(struct elf_sframe *es);

#endif /* TESTS_ELF_SFRAME_H */
