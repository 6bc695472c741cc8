// SPDX-License-Identifier: GPL-2.0
/*
 * Two libraries of one file name from two directories
 * (tests/verdict/libs/libreasons.c built without SFrame, frame pointers
 * kept, as same-a/libsame.so and same-b/libsame.so), both dlopened by path:
 *
 *	main -> run_a -> reason_spin -> reason_inner	(same-a/libsame.so)
 *	main -> run_b -> reason_spin -> reason_inner	(same-b/libsame.so)
 *
 * Where SFrame coverage ends in either, the report must say which file:
 * "no .sframe in libsame.so" would name both.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>

#include "verdict_prog.h"

typedef unsigned long spin_fn(unsigned long);

DEFINE_RUNNER(run_a, unsigned long)
DEFINE_RUNNER(run_b, unsigned long)

/* reason_spin of the library @name beside the program, dlopened; NULL on failure. */
static spin_fn *load(const char *name)
{
	char path[PATH_MAX];
	void *h, *fn;

	if (beside_prog(path, sizeof(path), name))
		return NULL;
	h = dlopen(path, RTLD_NOW);
	fn = h ? dlsym(h, "reason_spin") : NULL;
	if (!fn)
		fprintf(stderr, "same_name_libs: %s: %s\n", path, dlerror());
	return (spin_fn *)fn;
}

int main(void)
{
	spin_fn *a = load("same-a/libsame.so"), *b = load("same-b/libsame.so");

	if (!a || !b || a == b)
		return 1;
	run_a(a, 0.3);
	run_b(b, 0.3);
	printf("same_name_libs: done\n");
	return 0;
}
