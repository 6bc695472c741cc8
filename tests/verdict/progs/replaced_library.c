// SPDX-License-Identifier: GPL-2.0
/*
 * A library replaced by another at the same base: dlopen libreplaced-a.so,
 * spin in it, dlclose it, dlopen libreplaced-b.so (same size and layout,
 * another lib_loop frame, so different code and CFI at the same offsets:
 * tests/verdict/libs/libreplaced.S), which the kernel maps where A was,
 * and spin in it. RTLD_NOW.
 *
 *	main -> run_a (C) -> lib_spin (A) -> lib_loop (A, spins)
 *	main -> run_b (C) -> lib_spin (B) -> lib_loop (B, spins)
 *
 * The loader module registers each library's .sframe at dlopen and
 * unregisters it at dlclose. A reference unwinder that kept A's image would
 * read B's lib_loop with A's CFI (CFA = SP + 16, where B's is SP + 0x50)
 * and find the copies of its return address B keeps in its frame. Prints
 * whether B landed at A's base.
 */
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "verdict_prog.h"

typedef void spin_fn(unsigned long);

DEFINE_RUNNER(run_a, void)

DEFINE_RUNNER(run_b, void)

/* dlopen @name beside the program (RTLD_NOW), its lib_spin and its base. */
static void *open_lib(const char *name, spin_fn **fn, unsigned long *base)
{
	char path[PATH_MAX];
	struct link_map *map;
	void *h;

	if (beside_prog(path, sizeof(path), name))
		return NULL;
	h = dlopen(path, RTLD_NOW);
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &map)) {
		fprintf(stderr, "replaced_library: %s: %s\n", path, dlerror());
		return NULL;
	}
	*fn = (spin_fn *)dlsym(h, "lib_spin");
	*base = map->l_addr;
	if (!*fn) {
		fprintf(stderr, "replaced_library: %s: no lib_spin\n", path);
		dlclose(h);
		return NULL;
	}
	return h;
}

int main(void)
{
	unsigned long base_a, base_b;
	spin_fn *fn;
	void *h;

	h = open_lib("libreplaced-a.so", &fn, &base_a);
	if (!h)
		return 1;
	run_a(fn, 0.4);
	if (dlclose(h))
		return 1;
	h = open_lib("libreplaced-b.so", &fn, &base_b);
	if (!h)
		return 1;
	run_b(fn, 0.4);
	dlclose(h);
	printf("replaced_library: B loaded %s\n", base_a == base_b ? "at A's base" : "elsewhere");
	return 0;
}
