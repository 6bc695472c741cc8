// SPDX-License-Identifier: GPL-2.0
/* Extensible-struct and string copies from tracee memory, as the kernel does them. */
#include <stdlib.h>
#include <string.h>

#include "copy_struct.h"

#define PAGE_SIZE 4096u

/* Are the @len bytes at @addr all zero? 0 yes, -E2BIG no, -EFAULT unreadable. */
static int check_zeroed_user(const struct emu_accessor *mem, uint64_t addr, size_t len)
{
	unsigned char buf[256];
	size_t i, n;
	int err;

	while (len) {
		n = len < sizeof(buf) ? len : sizeof(buf);
		err = emu_read(mem, addr, buf, n);
		if (err)
			return err;
		for (i = 0; i < n; i++)
			if (buf[i])
				return -E2BIG;
		addr += n;
		len -= n;
	}
	return 0;
}

int emu_copy_struct_from_user(const struct emu_accessor *mem, void *dst, size_t ksize,
			      uint64_t src, size_t usize)
{
	size_t size = usize < ksize ? usize : ksize;
	int err;

	if (usize > ksize) {
		err = check_zeroed_user(mem, src + ksize, usize - ksize);
		if (err)
			return err;
	}
	memset(dst, 0, ksize);
	return emu_read(mem, src, dst, size);
}

int emu_strndup_user(const struct emu_accessor *mem, uint64_t addr, size_t max, char **out)
{
	char *buf, *nul;
	size_t got = 0, chunk;
	int err;

	buf = malloc(max);
	if (!buf)
		return -ENOMEM;
	while (got < max) {
		chunk = PAGE_SIZE - ((addr + got) & (PAGE_SIZE - 1));
		if (chunk > max - got)
			chunk = max - got;
		err = emu_read(mem, addr + got, buf + got, chunk);
		if (err)
			goto out_free;
		nul = memchr(buf + got, '\0', chunk);
		if (nul) {
			/* keep only the string: a registry holds many of them */
			*out = realloc(buf, (size_t)(nul - buf) + 1) ?: buf;
			return 0;
		}
		got += chunk;
	}
	err = -ENAMETOOLONG;
out_free:
	free(buf);
	return err;
}
