// SPDX-License-Identifier: GPL-2.0
/*
 * bench/sframe_file: SFrame kept in files (CODE_REGISTER_SFRAME_FILE) against
 * SFrame in the objects, for a program running the code of 20 libraries
 * (bench/sframe_file/), side by side in one run:
 *   disk: the libraries' .sframe bytes, and the files sframe-extract makes
 *	of them: plain, zlib, zstd;
 *   memory: the program's resident memory at its end and codectl-run's (its
 *	peak; and the SFrame bytes it held for the program: copies, or the
 *	files' FDE tables plus the blocks resident at most), with the sections
 *	in the libraries, then with the libraries stripped of .sframe
 *	(objcopy -R) and --sframe-path to each tree; the libraries' coverage in
 *	each (samples with frame 0 in them whose walk took an SFrame step);
 *   lookup: ns per lookup (one per function, each function's middle),
 *	cold (the first of each function: blocks read and decompressed) and
 *	warm, of the same sections in memory and read through a file of this
 *	process's (pidfd_getfd, as codectl-run takes the caller's).
 * Usage: sframe_file [--quick] [--runs N]   (default 3 runs; --quick: 1, 4 libraries)
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "elf_sframe.h"
#include "emu/emu.h"
#include "emu/sframe_file.h"
#include "supervisor/calls/caller_files.h"
#include "supervisor/extract/sframe_pack.h"

#define NLIBS 20
#define PASSES 20

enum { IN_PLACE, PLAIN, ZLIB, ZSTD, ZSTD_16K, NCONFIGS };
#define NCODECS 4	/* the lookup table's: in memory, then the three files */

static const char *const config_names[NCONFIGS] = {
	".sframe in the libraries", "files, plain", "files, zlib", "files, zstd",
	"files, zstd, 16 KiB cache",
};
static const char *const trees[NCONFIGS] = { NULL, "plain", "zlib", "zstd", "zstd" };

/* What one run gave: kB, bytes, samples. */
struct run_result {
	long prog_rss_kb, sup_max_rss_kb;
	long long held_peak, resident_peak, blocks_read;
	long long lib_samples, lib_stepped;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void lib_path(char *buf, size_t len, const char *dir, int i)
{
	snprintf(buf, len, "%s/libsf%02d.so", dir, i + 1);
}

static int sh(const char *cmd)
{
	int status = system(cmd);

	if (status)
		fprintf(stderr, "sframe_file: %s: status %d\n", cmd, status);
	return status ? -1 : 0;
}

/* @tmp: the program, its libraries stripped, and the trees by build id. */
static int prepare(const char *tmp)
{
	char cmd[8192];
	int n;

	n = snprintf(cmd, sizeof(cmd), "cp %s/sframe-file-prog %s/ && cd %s", SFFILE_DIR, tmp,
		     SFFILE_DIR);
	for (int i = 0; i < NLIBS; i++)
		n += snprintf(cmd + n, sizeof(cmd) - n, " && objcopy -R .sframe libsf%02d.so "
			      "%s/libsf%02d.so", i + 1, tmp, i + 1);
	if (sh(cmd))
		return -1;
	for (int c = PLAIN; c <= ZSTD; c++) {
		snprintf(cmd, sizeof(cmd), "cd %s && %s -z %s -d %s/%s libsf*.so >/dev/null",
			 SFFILE_DIR, SFRAME_EXTRACT, c == PLAIN ? "none" : trees[c], tmp, trees[c]);
		if (sh(cmd))
			return -1;
	}
	return 0;
}

/* Bytes of the regular files under @dir (du's apparent size). */
static long long tree_bytes(const char *dir)
{
	char cmd[4400], out[64] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "find %s -type f -printf '%%s\\n' | awk '{ s += $1 } END "
		 "{ print s + 0 }'", dir);
	p = popen(cmd, "r");
	if (!p || !fgets(out, sizeof(out), p))
		out[0] = '\0';
	if (p)
		pclose(p);
	return atoll(out);
}

/* The libraries' samples and SFrame steps in a run's "coverage". */
static void lib_coverage(json_t *cov, struct run_result *r)
{
	const char *key;
	json_t *o;

	json_object_foreach(cov, key, o) {
		if (strncmp(key, "libsf", 5))
			continue;
		r->lib_samples += json_integer_value(json_object_get(o, "samples"));
		r->lib_stepped += json_integer_value(json_object_get(o, "with_sframe_step"));
	}
}

/* One run of configuration @c; 0, or -1 (with a message). */
static int one_run(const char *tmp, int c, const char *ms, struct run_result *r)
{
	char prog[4200], json[4200], out[4200], path[4200], line[256];
	char *argv[14];
	json_t *root, *proc, *mem;
	int n = 0, fd, status;
	FILE *f;
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s/sframe-file-prog", c == IN_PLACE ? SFFILE_DIR : tmp);
	snprintf(json, sizeof(json), "%s/run.json", tmp);
	snprintf(out, sizeof(out), "%s/run.out", tmp);
	snprintf(path, sizeof(path), "%s/%s", tmp, c == IN_PLACE ? "" : trees[c]);
	argv[n++] = CODECTL_RUN;
	argv[n++] = "-q";
	argv[n++] = "--json-all";
	argv[n++] = json;
	if (c != IN_PLACE) {
		argv[n++] = "--sframe-path";
		argv[n++] = path;
	}
	if (c == ZSTD_16K) {
		argv[n++] = "--sframe-cache-size";
		argv[n++] = "16384";
	}
	argv[n++] = "--";
	argv[n++] = prog;
	argv[n++] = (char *)ms;
	argv[n] = NULL;
	pid = bench_fork();
	if (!pid) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "sframe_file: %s failed\n", config_names[c]);
		return -1;
	}
	*r = (struct run_result){ .prog_rss_kb = -1 };
	f = fopen(out, "r");
	if (f && fgets(line, sizeof(line), f))
		sscanf(line, "rss_kb %ld", &r->prog_rss_kb);
	if (f)
		fclose(f);
	root = json_load_file(json, 0, NULL);
	if (!root)
		return -1;
	proc = json_array_get(json_object_get(root, "registrations_by_process"), 0);
	mem = json_object_get(proc, "sframe_memory");
	r->sup_max_rss_kb = (long)json_integer_value(
		json_object_get(json_object_get(root, "supervisor"), "max_rss_kb"));
	r->held_peak = json_integer_value(json_object_get(mem, "held_peak"));
	r->resident_peak = json_integer_value(json_object_get(mem, "file_resident_peak"));
	r->blocks_read = json_integer_value(json_object_get(mem, "file_blocks_read"));
	lib_coverage(json_object_get(root, "coverage"), r);
	json_decref(root);
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Every configuration @runs times, interleaved; the medians of the memory figures. */
static int memory_table(const char *tmp, int runs, const char *ms)
{
	static long prog[NCONFIGS][16], sup[NCONFIGS][16];
	struct run_result r[NCONFIGS];

	for (int k = 0; k < runs; k++)
		for (int c = 0; c < NCONFIGS; c++) {
			if (one_run(tmp, c, ms, &r[c]))
				return -1;
			prog[c][k] = r[c].prog_rss_kb;
			sup[c][k] = r[c].sup_max_rss_kb;
		}
	printf("\nmemory (median of %d runs; the last run's SFrame bytes and coverage):\n", runs);
	printf("  %-27s %10s %12s %12s %12s %8s %12s\n", "", "program kB", "codectl kB",
	       "held bytes", "resident pk", "blocks", "lib coverage");
	for (int c = 0; c < NCONFIGS; c++) {
		qsort(prog[c], runs, sizeof(long), cmp_long);
		qsort(sup[c], runs, sizeof(long), cmp_long);
		printf("  %-27s %10ld %12ld %12lld %12lld %8lld %5lld/%-6lld\n", config_names[c],
		       prog[c][runs / 2], sup[c][runs / 2], r[c].held_peak, r[c].resident_peak,
		       r[c].blocks_read, r[c].lib_stepped, r[c].lib_samples);
	}
	for (int c = PLAIN; c < NCONFIGS; c++)
		printf("  %-27s program %+ld kB, SFrame held by codectl-run %.2fx\n",
		       config_names[c], prog[c][runs / 2] - prog[IN_PLACE][runs / 2],
		       r[IN_PLACE].held_peak ? (double)(r[c].held_peak + r[c].resident_peak) /
					       r[IN_PLACE].held_peak : 0.0);
	return 0;
}

/* @es as codec @c's file in @tmp, loaded through pidfd_getfd of our own descriptor. */
static struct emu_sframe_section *load_file(const char *tmp, const struct elf_sframe *es, int c,
					    const struct emu_sframe_params *p,
					    struct emu_block_cache *cache, struct held_files *held)
{
	struct caller_files self = { getpid(), getpid(), held };
	struct emu_files files = caller_files_of(&self);
	struct emu_sframe_file_params fp = { .size = es->len, .compression = (unsigned int)c - 1,
					     .cache = cache, .room = UINT64_MAX };
	struct emu_sframe_section *s = NULL;
	char path[4200];
	struct emu_verdict v;
	struct emu_file f;
	uint8_t *data;
	size_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/lookup.sframe", tmp);
	if (sframe_pack(es->data, es->len, fp.compression, SFRAME_PACK_BLOCK, &data, &n))
		return NULL;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fp.length = n;
	if (fd >= 0 && write(fd, data, n) == (ssize_t)n && !files.get(files.ctx, fd, &f)) {
		emu_verdict_init(&v);
		if (emu_sframe_load_file(&f, &fp, p, &s, &v))
			fprintf(stderr, "sframe_file: %s: %s\n", path, v.reason);
	}
	if (fd >= 0)
		close(fd);
	free(data);
	return s;
}

static struct emu_sframe_section *load_copy(const struct elf_sframe *es,
					    const struct emu_sframe_params *p)
{
	struct emu_sframe_section *s = NULL;
	uint8_t *copy = malloc(es->len);
	struct emu_verdict v;

	if (!copy)
		return NULL;
	memcpy(copy, es->data, es->len);
	emu_verdict_init(&v);
	return emu_sframe_load(copy, es->len, p, &s, &v) ? NULL : s;
}

/* ns of one pass over @ips in @s; the rules' count added to @found (so nothing is optimized out). */
static double pass(const struct emu_sframe_section *s, const uint64_t *ips, size_t n,
		   unsigned long *found)
{
	struct emu_unwind_rule rule;
	double t0 = now_ns();

	for (size_t i = 0; i < n; i++)
		*found += !emu_sframe_find_rule(s, ips[i], &rule);
	return now_ns() - t0;
}

/* Each function's middle, from the section in memory; the count. */
static size_t middles(const struct emu_sframe_section *s, uint64_t **ips)
{
	uint32_t n = emu_sframe_header(s)->num_fdes;
	struct emu_sframe_fde fde;
	size_t k = 0;

	*ips = calloc(n ? n : 1, sizeof(**ips));
	for (uint32_t j = 0; *ips && j < n; j++)
		if (!emu_sframe_fde_at(s, j, &fde))
			(*ips)[k++] = fde.func_start + fde.func_size / 2;
	return k;
}

/* The lookup table: each configuration over the same functions of @nlibs libraries. */
static int lookup_table(const char *tmp, int nlibs)
{
	static const char *const names[NCODECS] = { "in memory", "file, plain", "file, zlib",
						     "file, zstd" };
	double cold[NCODECS] = { 0 }, warm[NCODECS] = { 0 };
	unsigned long found[NCODECS] = { 0 };
	struct held_files held = { 0 };
	size_t total = 0;
	int err = 0;

	for (int i = 0; i < nlibs; i++) {
		struct elf_sframe es;
		struct emu_sframe_params p;
		struct emu_sframe_section *mem;
		uint64_t *ips = NULL;
		size_t n;
		char path[4200];

		lib_path(path, sizeof(path), SFFILE_DIR, i);
		if (elf_sframe_read(path, &es)) {
			err = -1;
			break;
		}
		p = (struct emu_sframe_params){ .sframe_addr = es.addr, .text_start = es.text_start,
						.text_end = es.text_end, .arch = EMU_ARCH_X86_64,
						.profile = EMU_PROFILE_EMULATOR };
		mem = load_copy(&es, &p);
		n = mem ? middles(mem, &ips) : 0;
		emu_sframe_put(mem);
		for (int c = 0; c < NCODECS && n && !err; c++) {
			struct emu_block_cache *cache = emu_block_cache_new(EMU_BLOCK_CACHE_DEFAULT);
			struct emu_sframe_section *s = c ? load_file(tmp, &es, c, &p, cache, &held) :
						       load_copy(&es, &p);

			err = s ? 0 : -1;
			cold[c] += s ? pass(s, ips, n, &found[c]) : 0;
			for (int k = 1; s && k < PASSES; k++)
				warm[c] += pass(s, ips, n, &found[c]);
			emu_sframe_put(s);
			emu_block_cache_put(cache);
		}
		total += n;
		free(ips);
		elf_sframe_free(&es);
		if (err)
			break;
	}
	held_files_free(&held);
	if (err)
		return err;
	printf("\nlookup (ns per lookup, %zu functions of %d libraries, the middle of each; "
	       "cold: first pass, warm: %d more):\n", total, nlibs, PASSES - 1);
	printf("  %-12s %8s %8s %13s %13s %8s\n", "", "cold", "warm", "cold/memory",
	       "warm/memory", "found");
	for (int c = 0; c < NCODECS; c++)
		printf("  %-12s %8.1f %8.1f %13.2f %13.2f %8lu\n", names[c], cold[c] / total,
		       warm[c] / total / (PASSES - 1), cold[c] / cold[0], warm[c] / warm[0],
		       found[c] / PASSES);
	for (int c = 1; c < NCODECS; c++)
		if (found[c] != found[0]) {
			fprintf(stderr, "sframe_file: %s found %lu rules, memory %lu\n", names[c],
				found[c], found[0]);
			return -1;
		}
	return 0;
}

static void disk_table(const char *tmp)
{
	long long sframe = 0;

	for (int i = 0; i < NLIBS; i++) {
		char path[4200];
		struct elf_sframe es;

		lib_path(path, sizeof(path), SFFILE_DIR, i);
		if (!elf_sframe_read(path, &es)) {
			sframe += (long long)es.len;
			elf_sframe_free(&es);
		}
	}
	printf("disk (bytes, %d libraries):\n  %-26s %10lld\n", NLIBS, ".sframe sections", sframe);
	for (int c = PLAIN; c <= ZSTD; c++) {
		char dir[4200];
		long long b;

		snprintf(dir, sizeof(dir), "%s/%s", tmp, trees[c]);
		b = tree_bytes(dir);
		printf("  %-26s %10lld  (%.2fx)\n", config_names[c], b, sframe ? (double)b / sframe : 0);
	}
}

int main(int argc, char **argv)
{
	const char *base = getenv("TMPDIR") ?: "/tmp";
	bool quick = false;
	int runs = 3, err;
	char tmp[4096], cmd[4200];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else
			goto usage;
	}
	if (quick)
		runs = 1;
	if (runs < 1 || runs > 16)
		goto usage;
	snprintf(tmp, sizeof(tmp), "%s/bench-sframe-file.XXXXXX", base);
	if (!mkdtemp(tmp) || prepare(tmp))
		return 1;
	disk_table(tmp);
	err = memory_table(tmp, runs, quick ? "150" : "600");
	if (!err)
		err = lookup_table(tmp, quick ? 4 : NLIBS);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	sh(cmd);
	return err ? 1 : 0;
usage:
	fprintf(stderr, "usage: sframe_file [--quick] [--runs N]   (N 1..16)\n");
	return 2;
}
