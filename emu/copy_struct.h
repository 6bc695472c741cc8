/* SPDX-License-Identifier: GPL-2.0 */
/* copy_struct_from_user() and strndup_user(): reading call arguments. */
#ifndef EMU_COPY_STRUCT_H
#define EMU_COPY_STRUCT_H

#include "accessor.h"

/* Largest info_size a call may pass: one page, as the kernel caps it. */
#define EMU_INFO_SIZE_MAX 4096
/* PATH_MAX: a pathname's bytes including the NUL. */
#define EMU_PATH_MAX 4096

/**
 * emu_copy_struct_from_user() - copy an extensible struct, kernel rules
 * @mem: tracee memory
 * @dst: the emulator's struct, @ksize bytes
 * @src: tracee address of the caller's struct, @usize bytes
 *
 * @usize < @ksize: the caller's struct is older; the rest of @dst is zeroed.
 * @usize > @ksize: the caller's struct is newer; the bytes past @ksize must be 0.
 * Return: 0, -EFAULT (some byte unreadable), -E2BIG (non-zero byte past @ksize).
 */
int emu_copy_struct_from_user(const struct emu_accessor *mem, void *dst, size_t ksize,
			      uint64_t src, size_t usize);

/**
 * emu_strndup_user() - copy a NUL-terminated string of at most @max bytes
 * @out: on success a malloc'd copy, owned by the caller
 *
 * Reads page by page, so a string ending just before an unmapped page is read.
 * Return: 0, -EFAULT (unreadable before the NUL), -ENAMETOOLONG (no NUL within
 * @max bytes), -ENOMEM.
 */
int emu_strndup_user(const struct emu_accessor *mem, uint64_t addr, size_t max, char **out);

#endif /* EMU_COPY_STRUCT_H */
