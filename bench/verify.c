// SPDX-License-Identifier: GPL-2.0
/*
 * bench/verify [-t SECONDS] [ELF...]: how fast sframe-verify's core checks
 * rows against code. For each file: its .sframe loaded once, then
 * verify_run() repeated for at least SECONDS (default 1) of CPU time;
 * printed: the text its FDEs cover, the instructions decoded and decided,
 * the time per run, instructions verified per second and time per MB of
 * text. Without files: the largest objects the tests build (by text its
 * FDEs cover: the five largest of the corpus, the verdict programs, the
 * loader's and start-up benchmark's), and build/lua's lua5.4 and
 * liblua5.4.so.0 when bench/lua/build.sh made them (bench/verify/run.sh
 * does both).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu/emu.h"
#include "supervisor/verify/elf_file.h"

#define MAX_FILES 64

struct bfile {
	char path[4096];
	uint64_t text;		/* bytes of code the FDEs in the text cover */
};

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Bytes of code the FDEs of @s in @e's text describe. */
static uint64_t fde_text(const struct verify_elf *e, const struct emu_sframe_section *s)
{
	struct emu_sframe_fde fde;
	uint64_t n = 0;

	for (uint32_t i = 0; i < emu_sframe_header(s)->num_fdes; i++)
		if (!emu_sframe_fde_at(s, i, &fde) &&
		    emu_mappings_covers(&e->text, fde.func_start, fde.func_start + fde.func_size,
					EMU_PROT_EXEC))
			n += fde.func_size;
	return n;
}

/* @path's FDE-covered text; 0 when it cannot be verified. */
static uint64_t text_of(const char *path)
{
	struct emu_sframe_section *s = NULL;
	struct verify_elf e;
	char err[256];
	uint64_t n = 0;

	if (verify_elf_open(path, &e, err, sizeof(err)))
		return 0;
	if (!verify_elf_sframe(&e, &s, err, sizeof(err)))
		n = fde_text(&e, s);
	emu_sframe_put(s);
	verify_elf_close(&e);
	return n;
}

static void add(struct bfile *f, size_t *n, const char *path)
{
	uint64_t t = text_of(path);

	if (!t || *n == MAX_FILES)
		return;
	snprintf(f[*n].path, sizeof(f[*n].path), "%s", path);
	f[(*n)++].text = t;
}

static void add_dir(struct bfile *f, size_t *n, const char *dir)
{
	char path[4096];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || strstr(de->d_name, ".d"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		add(f, n, path);
	}
	if (d)
		closedir(d);
}

static int by_text(const void *a, const void *b)
{
	const struct bfile *x = a, *y = b;

	return x->text > y->text ? -1 : x->text < y->text;
}

/* The five largest objects the tests build, then lua's when built. */
static size_t defaults(struct bfile *f)
{
	size_t n = 0;

	add_dir(f, &n, BUILD_DIR "/tests/corpus");
	add_dir(f, &n, BUILD_DIR "/tests/verdict");
	add_dir(f, &n, BUILD_DIR "/tests/loader");
	add_dir(f, &n, BUILD_DIR "/bench/startup-libs");
	qsort(f, n, sizeof(*f), by_text);
	n = n > 5 ? 5 : n;
	add(f, &n, LUA_DIR "/lua5.4");
	add(f, &n, LUA_DIR "/liblua5.4.so.0");
	return n;
}

static int bench_one(const struct bfile *bf, double seconds)
{
	struct emu_sframe_section *s = NULL;
	struct verify_result r = { 0 };
	struct verify_target t;
	struct verify_elf e;
	unsigned long runs = 0;
	double t0, dt;
	char err[256];

	if (verify_elf_open(bf->path, &e, err, sizeof(err)) ||
	    verify_elf_sframe(&e, &s, err, sizeof(err))) {
		fprintf(stderr, "bench/verify: %s: %s\n", bf->path, err);
		verify_elf_close(&e);
		return 1;
	}
	t = verify_elf_target(&e, s);
	t0 = cpu_now();
	do {
		verify_result_free(&r);
		memset(&r, 0, sizeof(r));
		verify_run(&t, &r);
		runs++;
		dt = cpu_now() - t0;
	} while (dt < seconds);
	printf("%-44.44s %6lu %8.1f %8lu %6.1f%% %8.2f %8.2f %9.1f %5zu\n",
	       strrchr(bf->path, '/') ? strrchr(bf->path, '/') + 1 : bf->path, r.st.fdes,
	       (double)bf->text / 1024, r.st.instructions, 100.0 * verify_share_decided(&r.st),
	       dt / (double)runs * 1e3, (double)r.st.instructions * (double)runs / dt / 1e6,
	       dt / (double)runs * 1e3 / ((double)bf->text / (1 << 20)), r.n);
	verify_result_free(&r);
	emu_sframe_put(s);
	verify_elf_close(&e);
	return 0;
}

int main(int argc, char **argv)
{
	static struct bfile files[MAX_FILES];
	double seconds = 1.0;
	size_t n = 0;
	int c, err = 0;

	while ((c = getopt(argc, argv, "t:")) != -1) {
		if (c != 't' || (seconds = atof(optarg)) <= 0) {
			fprintf(stderr, "usage: bench/verify [-t SECONDS] [ELF...]\n");
			return 2;
		}
	}
	for (int i = optind; i < argc; i++)
		add(files, &n, argv[i]);
	if (optind == argc)
		n = defaults(files);
	printf("bench/verify: verify_run() per file, repeated for %.1f s of CPU time\n", seconds);
	printf("%-44s %6s %8s %8s %7s %8s %8s %9s %5s\n", "file", "FDEs", "text KB", "insns",
	       "decided", "ms/run", "Minsn/s", "ms/MB", "finds");
	for (size_t i = 0; i < n; i++)
		err |= bench_one(&files[i], seconds);
	return err;
}
