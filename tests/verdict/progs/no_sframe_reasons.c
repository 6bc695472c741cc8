// SPDX-License-Identifier: GPL-2.0
/*
 * Why unwind data is missing, in copies of one library
 * (tests/verdict/libs/libreasons.c, frame pointers kept):
 *
 *	main -> run_gc -> reason_spin -> reason_inner	(libreasons-gc.so)
 *	main -> run_order -> reason_spin -> reason_inner	(libreasons-order.so)
 *	main -> run_stale -> reason_spin -> reason_inner	(libreasons-new.so)
 *
 * (a) libreasons-gc.so is linked with --gc-sections and dlopened; the
 *     loader module registers what it has: ld 2.40 and 2.44 drop its
 *     .sframe (the identity alone), ld 2.47 keeps it (registered).
 * (b) libreasons-order.so is not dlopened: the program maps its file
 *     itself (selfmap.h) and registers its executable segment by hand
 *     (CODE_REGISTER_SFRAME) with a copy of its .sframe whose first two
 *     FDEs are swapped, every function start re-encoded for the copy's
 *     address (an anonymous mapping near the library): refused, EINVAL
 *     (rule sframe-fde-order). The program says so and spins in that
 *     code all the same.
 * (c) libreasons-stale.so is mapped by the program and registered with its
 *     own .sframe (accepted), then unmapped without a word; a registration
 *     codectl-run refuses by the mappings (text in a writable page) makes
 *     it read them, and drop the registration as stale. Then
 *     libreasons-new.so, the same bytes in another file, is mapped where
 *     the first was and never registered.
 */
#include <codectl.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verdict_prog.h"
#include "selfmap.h"

typedef unsigned long spin_fn(unsigned long);

DEFINE_RUNNER(run_gc, unsigned long)
DEFINE_RUNNER(run_stale, unsigned long)

DEFINE_RUNNER(run_order, unsigned long)

static uint64_t get_le(const uint8_t *p, unsigned int size)
{
	uint64_t v = 0;

	while (size--)
		v = v << 8 | p[size];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, unsigned int size)
{
	for (unsigned int i = 0; i < size; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/*
 * Copy the SFrame section @src (@len bytes, at @src) to @dst with FDEs 0
 * and 1 swapped, each function start re-encoded for where it now is.
 */
static int unsorted_copy(const uint8_t *src, size_t len, uint8_t *dst)
{
	unsigned int version = src[2], pcrel = src[3] & 0x4;
	unsigned int fde_size = version == 1 ? 17 : version == 2 ? 20 : 16;
	unsigned int start_size = version == 3 ? 8 : 4;
	size_t fdes = 28 + src[7] + get_le(src + 20, 4), pos[2];
	uint64_t start[2];

	if (get_le(src + 8, 4) < 2 || fdes + 2 * fde_size > len)
		return -1;
	memcpy(dst, src, len);
	for (int i = 0; i < 2; i++) {
		int64_t off = (int64_t)get_le(src + fdes + i * fde_size, start_size);

		if (start_size == 4)
			off = (int32_t)off;
		pos[i] = fdes + i * fde_size;
		start[i] = (uint64_t)(uintptr_t)src + (pcrel ? pos[i] : 0) + (uint64_t)off;
	}
	for (int i = 0; i < 2; i++) {
		uint64_t anchor = (uint64_t)(uintptr_t)dst + (pcrel ? pos[i] : 0);
		int64_t off = (int64_t)(start[1 - i] - anchor);

		if (start_size == 4 && off != (int32_t)off)
			return -1;	/* v1/v2: the copy must be within 2 GiB of the text */
		memcpy(dst + pos[i], src + pos[1 - i], fde_size);
		put_le(dst + pos[i], (uint64_t)off, start_size);
	}
	return 0;
}

/* Map file @name (beside the program) whole, at @at unless NULL, and parse it. */
static int map_named(struct lib *l, const char *name, void *at)
{
	char path[PATH_MAX];
	int fd, err;

	if (beside_prog(path, sizeof(path), name))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	err = selfmap_map_fd(l, fd, at);
	close(fd);
	if (err)
		fprintf(stderr, "no_sframe_reasons: %s: cannot map it, or not laid out as expected\n",
			path);
	return err;
}

/* (b): map @name, register its text with an unsorted .sframe copy; its reason_spin. */
static spin_fn *refused_lib(const char *name)
{
	struct code_sframe_info info;
	struct lib l;
	uint8_t *copy;
	size_t len;

	if (map_named(&l, name, NULL))
		return NULL;
	len = l.sframe_end - l.sframe_start;
	/* an anonymous mapping: near the library, as v1/v2 function starts need */
	copy = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED ||
	    unsorted_copy((const uint8_t *)(uintptr_t)l.sframe_start, len, copy)) {
		fprintf(stderr, "no_sframe_reasons: %s: cannot copy its .sframe\n", name);
		return NULL;
	}
	info = (struct code_sframe_info){
		.text_start = l.text_start, .text_end = l.text_end,
		.sframe_start = (uintptr_t)copy, .sframe_end = (uintptr_t)copy + len,
	};
	if (!codectl(CODE_REGISTER_SFRAME, &info, sizeof(info), 0)) {
		fprintf(stderr, "no_sframe_reasons: the unsorted copy was accepted\n");
		return NULL;
	}
	printf("no_sframe_reasons: unsorted .sframe refused: %s\n",
	       errno == EINVAL ? "EINVAL" : strerror(errno));
	return (spin_fn *)(uintptr_t)selfmap_symbol(&l, "reason_spin");
}

/*
 * (c): map @old, register its text with its .sframe, unmap it without a
 * word, make codectl-run read the mappings (a registration it must refuse
 * by them: text in a page that is not executable), and map @new (the same
 * bytes, another file) where @old was: the registration went as stale,
 * nothing is registered for @new. Its reason_spin.
 */
static spin_fn *stale_lib(const char *old, const char *new)
{
	struct code_sframe_info info;
	struct lib l, replaced;
	uint8_t *page;

	if (map_named(&l, old, NULL))
		return NULL;
	info = (struct code_sframe_info){
		.text_start = l.text_start, .text_end = l.text_end,
		.sframe_start = l.sframe_start, .sframe_end = l.sframe_end,
	};
	if (codectl(CODE_REGISTER_SFRAME, &info, sizeof(info), 0)) {
		perror("no_sframe_reasons: CODE_REGISTER_SFRAME");
		return NULL;
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || munmap((void *)l.base, l.size))
		return NULL;
	/* refused (text-not-exec), by fresh mappings: the unmapped text's registration goes */
	info.text_start = (uintptr_t)page;
	info.text_end = (uintptr_t)page + 4096;
	if (!codectl(CODE_REGISTER_SFRAME, &info, sizeof(info), 0) || errno != EINVAL) {
		fprintf(stderr, "no_sframe_reasons: text in a writable page: not EINVAL\n");
		return NULL;
	}
	munmap(page, 4096);
	if (map_named(&replaced, new, (void *)l.base) || replaced.size != l.size ||
	    replaced.text_start != l.text_start) {
		fprintf(stderr, "no_sframe_reasons: %s is not where %s was\n", new, old);
		return NULL;
	}
	return (spin_fn *)(uintptr_t)selfmap_symbol(&replaced, "reason_spin");
}

int main(void)
{
	spin_fn *gc_spin, *order_spin, *stale_spin;
	char path[PATH_MAX];
	void *h;

	stale_spin = stale_lib("libreasons-stale.so", "libreasons-new.so");
	if (!stale_spin || beside_prog(path, sizeof(path), "libreasons-gc.so"))
		return 1;
	h = dlopen(path, RTLD_NOW);
	gc_spin = h ? (spin_fn *)dlsym(h, "reason_spin") : NULL;
	if (!gc_spin) {
		fprintf(stderr, "no_sframe_reasons: %s: %s\n", path, dlerror());
		return 1;
	}
	order_spin = refused_lib("libreasons-order.so");
	if (!order_spin)
		return 1;
	run_gc(gc_spin, 0.4);
	run_order(order_spin, 0.4);
	run_stale(stale_spin, 0.4);
	printf("no_sframe_reasons: done\n");
	return 0;
}
