// SPDX-License-Identifier: GPL-2.0
/*
 * security-prog [--as-nobody] LIBRARY SECONDS: dlopen LIBRARY and spin in
 * its security_lib_spin() for SECONDS of CPU time. --as-nobody first drops
 * every credential to nobody (65534), as a service would, so that a root
 * codectl-run traces a program whose files are not root's to choose.
 */
#include <dlfcn.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOBODY 65534

int main(int argc, char **argv)
{
	unsigned long (*spin)(double);
	int i = 1;
	void *lib;

	if (argc > i && !strcmp(argv[i], "--as-nobody")) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY)) {
			perror("security-prog: dropping to nobody");
			return 2;
		}
		i++;
	}
	if (argc != i + 2) {
		fprintf(stderr, "usage: security-prog [--as-nobody] LIBRARY SECONDS\n");
		return 2;
	}
	lib = dlopen(argv[i], RTLD_NOW);
	spin = lib ? (unsigned long (*)(double))dlsym(lib, "security_lib_spin") : NULL;
	if (!spin) {
		fprintf(stderr, "security-prog: %s\n", dlerror());
		return 2;
	}
	spin(atof(argv[i + 1]));
	printf("spun\n");
	return 0;
}
