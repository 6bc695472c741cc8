/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build id of the ELF object whose code is at an address, read from the
 * process's memory as the kernel's build_id_parse() reads a mapping's file:
 * the object's ELF header at the start of its first mapping, its program
 * headers, the NT_GNU_BUILD_ID note of a PT_NOTE segment.
 */
#ifndef EMU_BUILD_ID_H
#define EMU_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

#include "accessor.h"
#include "mappings.h"

/* Longest build id read (CODE_BUILD_ID_MAX). */
#define EMU_BUILD_ID_MAX 64

/**
 * emu_text_build_id() - the build id of the object mapped at @addr
 * @id: EMU_BUILD_ID_MAX bytes; @len: set to the id's length
 *
 * The object's first mapping is the nearest one at or below @addr's that
 * begins with an ELF header, reached through mappings of files that follow
 * one another without a gap, and whose program headers put an executable
 * segment at @addr.
 * Return: 0, -ENOENT (no ELF object there, or it has no build id), -EFAULT
 * (its headers, or every note segment, unreadable).
 */
int emu_text_build_id(const struct emu_accessor *mem, const struct emu_mappings *maps,
		      uint64_t addr, uint8_t *id, size_t *len);

#endif /* EMU_BUILD_ID_H */
