// SPDX-License-Identifier: GPL-2.0
/*
 * The loader test program: linked against liba (.sframe), libb (.sframe, two
 * executable segments) and libnosf (no .sframe); dlopens and dlcloses libdl
 * N times between two marker calls (CODE_UNREGISTER of address 1, answered
 * ENOENT, visible in codectl-run --trace). At each marker it forks a child
 * that exits at once: under codectl-run --registry-dump the child's registry,
 * a copy of the program's, is printed, a snapshot of the program's registry.
 *
 *   loader-prog [--map] [N]     --map: print "map PATH BIAS" for every object
 *   loader-prog --dlopen PATH   dlopen one library and exit
 *   loader-prog --dlmopen PATH  dlmopen it in a new namespace, marker, dlclose, marker
 *   loader-prog --reuse A B C   dlopen A, dlclose A, dlopen B (where A was), dlopen C,
 *                               dlclose both
 *   loader-prog --small-stack PATH   dlopen/dlclose PATH in a thread with a 16 KiB stack
 */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <codectl.h>

int la_work(int (*cb)(int), int x);
int lb_work(int x);
int ln_work(int x);

static int times_two(int x)
{
	return 2 * x;
}

static int print_map(struct dl_phdr_info *i, size_t size, void *data)
{
	char real[4096];
	const char *name = i->dlpi_name[0] ? i->dlpi_name : "/proc/self/exe";

	(void)size;
	(void)data;
	if (realpath(name, real))
		printf("map %s %#lx\n", real, (unsigned long)i->dlpi_addr);
	return 0;
}

/* A marker call, and a snapshot of the registry (a forked child's, at its exit). */
static void marker(void)
{
	pid_t pid;

	codectl(CODE_UNREGISTER, (void *)1, 0, 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static int dl_loop(const char *self_dir, int n)
{
	char path[4096 + 16];
	long sum = 0;

	snprintf(path, sizeof(path), "%s/libdl.so", self_dir);
	marker();	/* before the loop */
	for (int i = 0; i < n; i++) {
		void *h = dlopen(path, RTLD_NOW);
		int (*fn)(int) = h ? (int (*)(int))dlsym(h, "ld_work") : NULL;

		if (!fn) {
			fprintf(stderr, "loader-prog: %s\n", dlerror());
			return 1;
		}
		sum += fn(i);
		dlclose(h);
	}
	marker();	/* after the loop */
	printf("dlopen loop: %d rounds, sum %ld\n", n, sum);
	return 0;
}

/* A library in a namespace of its own (with its own libc), then closed again. */
static int dlmopen_once(const char *path)
{
	void *h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW);

	if (!h) {
		fprintf(stderr, "loader-prog: %s\n", dlerror());
		return 1;
	}
	marker();
	dlclose(h);
	marker();
	printf("dlmopen %s: ok\n", path);
	return 0;
}

/* B is loaded where A was: its registration must not take A's place in the records. */
static int reuse(char **paths)
{
	void *a = dlopen(paths[0], RTLD_NOW), *b, *c;

	if (!a)
		return 1;
	dlclose(a);
	b = dlopen(paths[1], RTLD_NOW);
	c = dlopen(paths[2], RTLD_NOW);
	if (!b || !c)
		return 1;
	dlclose(c);
	dlclose(b);
	printf("reuse: ok\n");
	return 0;
}

static void *dlopen_thread(void *path)
{
	void *h = dlopen(path, RTLD_NOW);

	if (!h)
		return NULL;
	dlclose(h);
	return path;
}

/* Loader hooks run on the stack of the thread that loads: a small one must do. */
static int small_stack(const char *path)
{
	pthread_attr_t attr;
	pthread_t t;
	void *ret = NULL;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
	if (pthread_create(&t, &attr, dlopen_thread, (void *)path) || pthread_join(t, &ret))
		return 1;
	printf("small stack: %s\n", ret ? "ok" : dlerror());
	return ret ? 0 : 1;
}

int main(int argc, char **argv)
{
	char dir[4096], *slash;
	int n = 1000, arg = 1;

	if (argc > 2 && !strcmp(argv[1], "--dlmopen"))
		return dlmopen_once(argv[2]);
	if (argc > 4 && !strcmp(argv[1], "--reuse"))
		return reuse(argv + 2);
	if (argc > 2 && !strcmp(argv[1], "--small-stack"))
		return small_stack(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "--dlopen")) {
		void *h = dlopen(argv[2], RTLD_NOW);

		printf("dlopen %s: %s\n", argv[2], h ? "ok" : dlerror());
		return h ? 0 : 1;
	}
	if (argc > arg && !strcmp(argv[arg], "--map")) {
		dl_iterate_phdr(print_map, NULL);
		arg++;
	}
	if (argc > arg)
		n = atoi(argv[arg]);
	printf("work: %d %d %d\n", la_work(times_two, 7), lb_work(5), ln_work(3));
	if (!realpath("/proc/self/exe", dir) || !(slash = strrchr(dir, '/')))
		return 1;
	*slash = '\0';
	return dl_loop(dir, n);
}
