// SPDX-License-Identifier: GPL-2.0
/*
 * Loader-module tests: build/codectl-run loads libcodectl-audit.so into
 * tests/loader/loader_prog, and the registrations it makes are compared with
 * what readelf says of every loaded object. The program's registry is read
 * from --registry-dump snapshots (children forked at its two markers, around
 * a dlopen/dlclose loop) and the calls from --trace.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "readelf_expect.h"
#include "run_helper.h"
#include "test_tmp.h"

#define RUN(r, ...) run_codectl((r), (const char *const[]){ __VA_ARGS__, NULL })
#define LOADER_PROG LOADER_DIR "/loader-prog"
#define LOADER_PROG_NOPIE LOADER_DIR "/loader-prog-nopie"
#define STATIC_PROG LOADER_DIR "/static-prog"
#define LIBDL LOADER_DIR "/libdl.so"
#define MAX_LINES 4096
#define DUMP_PREFIX "codectl-run: registry pid "

TestSuite(loader, .timeout = 180);

/** struct lines - copies of some log lines (registry entries without prefix) */
struct lines {
	char *v[MAX_LINES];
	int n;
};

static void lines_free(struct lines *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

/* The next line of @p (a malloc'd copy) and where the one after starts. */
static char *next_line(const char **p)
{
	const char *end = strchr(*p, '\n');
	size_t n = end ? (size_t)(end - *p) : strlen(*p);
	char *line = strndup(*p, n);

	*p = end ? end + 1 : *p + n;
	return line;
}

/*
 * The @k-th registry dump (0: first) of a process other than @main_pid: the
 * loader program's registry at its @k-th marker. Returns its stated count.
 */
static long snapshot(const char *log, int main_pid, int k, struct lines *out)
{
	const char *p = log;
	long count = -1;
	int pid, cur = -1, seen = -1, at;

	out->n = 0;
	while (*p) {
		char *line = next_line(&p);
		long n;

		if (sscanf(line, DUMP_PREFIX "%d: %ld registrations", &pid, &n) == 2 &&
		    pid != main_pid) {
			cur = pid;
			if (++seen == k)
				count = n;
		} else if (seen == k && sscanf(line, DUMP_PREFIX "%d: %n", &pid, &at) == 1 &&
			   pid == cur && out->n < MAX_LINES) {
			out->v[out->n++] = strdup(line + at);
		}
		free(line);
	}
	return count;
}

/* The registry entry of text @start..@end whose aspects start with @aspects, or NULL. */
static const char *find_entry(const struct lines *l, uint64_t start, uint64_t end,
			      const char *aspects)
{
	char want[256];

	snprintf(want, sizeof(want), "text=%#lx-%#lx %s", (unsigned long)start,
		 (unsigned long)end, aspects);
	for (int i = 0; i < l->n; i++)
		if (!strncmp(l->v[i], want, strlen(want)))
			return l->v[i];
	return NULL;
}

/*
 * The registrations of @path, loaded at @bias, are what readelf says: per
 * executable segment one entry with both aspects, or two entries when the
 * section was registered apart (@unwind_origin: "exec" for the program, whose
 * section the kernel registers at exec; "codectl" in split mode; NULL if not).
 * Returns how many entries that is.
 */
static int check_object(const struct lines *snap, const char *path, uint64_t bias,
			const char *unwind_origin)
{
	struct object_expect e;
	char unwind[128], ident[4300], aspects[64];
	bool apart;
	const char *line;

	cr_assert_eq(readelf_expect(path, bias, &e), 0, "readelf %s", path);
	apart = e.has_sframe && unwind_origin;
	snprintf(unwind, sizeof(unwind), " sframe=%#lx-%#lx ", (unsigned long)e.sframe_start,
		 (unsigned long)e.sframe_end);
	snprintf(ident, sizeof(ident), " elf=%#lx-%#lx path=\"%s\"%s%s",
		 (unsigned long)e.elf_start, (unsigned long)e.elf_end, path,
		 e.build_id[0] ? " build_id=" : "", e.build_id);
	snprintf(aspects, sizeof(aspects), "%s unwind", apart ? unwind_origin : "codectl");
	for (int i = 0; i < e.ntext; i++) {
		uint64_t t0 = e.text_start[i], t1 = e.text_end[i];

		if (e.has_sframe) {
			line = find_entry(snap, t0, t1, aspects);
			cr_assert(line && strstr(line, unwind), "%s: no '%s' '%s'", path, aspects,
				  unwind);
		}
		line = find_entry(snap, t0, t1, e.has_sframe && !apart ? "codectl unwind identity" :
								   "codectl identity");
		cr_assert(line && strstr(line, ident), "%s: text %#lx-%#lx: no '%s'", path,
			  (unsigned long)t0, (unsigned long)t1, ident);
	}
	return apart ? 2 * e.ntext : e.ntext;
}

/* Every object the program printed as "map PATH BIAS" is registered as readelf says. */
static void check_all_objects(const struct run *r, const char *prog, bool split)
{
	const struct summary_row *row = run_first_row(r);
	const char *p = r->out;
	struct lines snap;
	long count;
	int want = 0, objects = 0;

	cr_assert_eq(r->status, 0, "%s", r->log);
	cr_assert(row);
	count = snapshot(r->log, row->pid, 0, &snap);
	while (*p) {
		char *line = next_line(&p), path[4096];
		unsigned long bias;

		if (sscanf(line, "map %4095s %lx", path, &bias) == 2) {
			want += check_object(&snap, path, bias,
					     !strcmp(path, prog) ? "exec" : split ? "codectl" : NULL);
			objects++;
		}
		free(line);
	}
	/* the program (2 entries), liba, libb (2), libnosf, libc, ld.so; and the vDSO */
	cr_assert_eq(objects, 6, "%s", r->out);
	cr_assert_eq(want, split ? 8 + 3 : 8);
	cr_assert_eq(count, want + 1, "%s", r->log);
	cr_assert_eq(snap.n, want + 1);
	for (int i = 0; i < snap.n; i++)
		if (strstr(snap.v[i], "path=\"linux-vdso.so.1\""))
			want++;
	cr_assert_eq(snap.n, want, "the vDSO's identity is registered");
	lines_free(&snap);
}

Test(loader, every_object_registered_as_readelf_says)
{
	struct run r;

	RUN(&r, "--registry-dump", "--", LOADER_PROG, "--map", "3");
	check_all_objects(&r, LOADER_PROG, false);
	run_free(&r);
}

Test(loader, non_pie_program)
{
	struct run r;

	RUN(&r, "--registry-dump", "--", LOADER_PROG_NOPIE, "--map", "3");
	check_all_objects(&r, LOADER_PROG_NOPIE, false);
	run_free(&r);
}

Test(loader, split_mode_registers_the_same)
{
	struct run r;

	setenv("CODECTL_AUDIT_MODE", "split", 1);
	RUN(&r, "--registry-dump", "--trace", "--", LOADER_PROG, "--map", "3");
	check_all_objects(&r, LOADER_PROG, true);
	/*
	 * two calls for each of liba, libb's two segments and libdl (3 times); one
	 * for the program (section registered at exec), libnosf, libc, ld.so, vDSO
	 */
	cr_assert_eq(run_first_row(&r)->accepted, 2 * (1 + 2 + 3) + 5, "%s", r.log);
	run_free(&r);
}

/* Calls with @what in the trace between the two markers that returned 0. */
static int count_between_markers(const char *log, const char *what)
{
	const char *p = log;
	int markers = 0, n = 0;

	while (*p) {
		char *line = next_line(&p);

		if (strstr(line, "codectl(CODE_UNREGISTER, 0x1, 0, 0) = -1 ENOENT"))
			markers++;
		else if (markers == 1 && strstr(line, what) && strstr(line, ") = 0"))
			n++;
		free(line);
	}
	cr_assert_eq(markers, 2);
	return n;
}

/* Every libdl registration in the trace has libdl's layout, at one bias. */
static void check_libdl_calls(const char *log)
{
	struct object_expect e;
	const char *p = log;
	unsigned long t0, t1, s0, s1;
	int n = 0;

	cr_assert_eq(readelf_expect(LIBDL, 0, &e), 0);
	cr_assert_eq(e.ntext, 1);
	cr_assert(e.has_sframe);
	while ((p = strstr(p, "codectl(CODE_REGISTER_ELF, {text="))) {
		const char *end = strchr(p, '\n');

		p += strlen("codectl(CODE_REGISTER_ELF, {text=");
		if (sscanf(p, "%lx-%lx, sframe=%lx-%lx", &t0, &t1, &s0, &s1) != 4 ||
		    !memmem(p, (size_t)(end - p), "libdl.so\"", strlen("libdl.so\"")))
			continue;
		cr_assert_eq(t1 - t0, e.text_end[0] - e.text_start[0]);
		cr_assert_eq(s0 - (t0 - e.text_vaddr), e.sframe_start);
		cr_assert_eq(s1 - (t0 - e.text_vaddr), e.sframe_end);
		n++;
	}
	cr_assert_eq(n, 1000);
}

Test(loader, dlopen_loop_leaves_the_registry_as_it_started)
{
	struct lines before, after;
	const struct summary_row *row;
	struct run r;
	long nb, na;

	RUN(&r, "--registry-dump", "--trace", "--", LOADER_PROG, "1000");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert(strstr(r.out, "dlopen loop: 1000 rounds, sum 599500\n"), "%s", r.out);
	row = run_first_row(&r);
	nb = snapshot(r.log, row->pid, 0, &before);
	na = snapshot(r.log, row->pid, 1, &after);
	cr_assert_eq(nb, 9);
	cr_assert_eq(na, nb);
	cr_assert_eq(after.n, before.n);
	for (int i = 0; i < before.n; i++)
		cr_assert_str_eq(after.v[i], before.v[i]);
	cr_assert_eq(count_between_markers(r.log, "libdl.so\""), 1000);
	cr_assert_eq(count_between_markers(r.log, "codectl(CODE_UNREGISTER, 0x7"), 1000);
	check_libdl_calls(r.log);
	for (int i = 0; i < r.nrows; i++)
		cr_assert_eq(r.rows[i].stale, 0, "%s", r.log);
	/* never unloaded, so kept at exit: the program (exec + identity), ld.so, vDSO */
	cr_assert_eq(row->left, 4, "%s", r.log);
	lines_free(&before);
	lines_free(&after);
	run_free(&r);
}

Test(loader, no_loader_module)
{
	struct lines snap;
	struct run r;

	RUN(&r, "--no-loader-module", "--registry-dump", "--trace", "--", LOADER_PROG, "3");
	cr_assert_eq(r.status, 0);
	cr_assert_null(strstr(r.log, "CODE_REGISTER_ELF"), "%s", r.log);
	cr_assert_eq(snapshot(r.log, run_first_row(&r)->pid, 0, &snap), 1, "%s", r.log);
	cr_assert(strstr(snap.v[0], " exec unwind sframe="), "%s", snap.v[0]);
	lines_free(&snap);
	run_free(&r);
}

/* Output and exit status of @prog ARG run natively, stdout and stderr together. */
static char *run_native(const char *prog, const char *arg, int *status);

/*
 * With sframe_register or the prctl there is no identity: an object with a
 * .sframe gets one unwind entry per executable segment, made by @origin
 * (the program's: "exec"), one without gets none. Returns how many.
 */
static int check_object_kernel(const struct lines *snap, const char *path, uint64_t bias,
			       const char *origin)
{
	struct object_expect e;
	char aspects[64], unwind[128];
	const char *line;

	cr_assert_eq(readelf_expect(path, bias, &e), 0, "readelf %s", path);
	snprintf(aspects, sizeof(aspects), "%s unwind", origin);
	snprintf(unwind, sizeof(unwind), " sframe=%#lx-%#lx ", (unsigned long)e.sframe_start,
		 (unsigned long)e.sframe_end);
	for (int i = 0; i < e.ntext; i++) {
		line = find_entry(snap, e.text_start[i], e.text_end[i], aspects);
		cr_assert_eq(!!line, e.has_sframe, "%s: text %#lx: '%s'", path,
			     (unsigned long)e.text_start[i], aspects);
		cr_assert(!line || strstr(line, unwind), "%s: '%s'", line, unwind);
	}
	return e.has_sframe ? e.ntext : 0;
}

/*
 * --loader-abi sframe_register|prctl: the module registers every object's
 * section through that call, per executable segment (the program's section
 * the kernel registered at exec: EEXIST), and at dlclose removes the object
 * by its sframe_start, one call for all its segments.
 */
static void check_kernel_abi(const char *abi, const char *origin, const char *reg,
			     const char *unreg)
{
	const struct summary_row *row;
	struct lines snap, after;
	const char *p;
	struct run r;
	int want = 0;

	RUN(&r, "--loader-abi", abi, "--registry-dump", "--trace", "--", LOADER_PROG, "--map", "20");
	cr_assert_eq(r.status, 0, "%s", r.log);
	row = run_first_row(&r);
	cr_assert(row);
	cr_assert_eq(snapshot(r.log, row->pid, 0, &snap), snapshot(r.log, row->pid, 1, &after));
	for (p = r.out; *p;) {
		char *line = next_line(&p), path[4096];
		unsigned long bias;

		if (sscanf(line, "map %4095s %lx", path, &bias) == 2)
			want += check_object_kernel(&snap, path, bias,
						    !strcmp(path, LOADER_PROG) ? "exec" : origin);
		free(line);
	}
	/* the program, liba, libb's two segments: libnosf, libc, ld.so and the vDSO have none */
	cr_assert_eq(want, 4);
	cr_assert_eq(snap.n, want, "%s", r.log);
	for (int i = 0; i < snap.n; i++)
		cr_assert_str_eq(after.v[i], snap.v[i]);
	cr_assert_eq(count_between_markers(r.log, reg), 20);
	cr_assert_eq(count_between_markers(r.log, unreg), 20);
	cr_assert_null(strstr(r.log, "CODE_REGISTER"), "%s", r.log);
	lines_free(&snap);
	lines_free(&after);
	run_free(&r);
}

Test(loader, loader_abi_sframe_register)
{
	check_kernel_abi("sframe_register", "sframe_register", "] sframe_register({",
			 "] sframe_unregister({");
}

Test(loader, loader_abi_prctl)
{
	check_kernel_abi("prctl", "prctl", "] prctl(PR_ADD_SFRAME,", "] prctl(PR_REMOVE_SFRAME,");
}

/*
 * --loader-abi eh_frame: every object with a PT_GNU_EH_FRAME (libc, ld.so and
 * the vDSO included) gets one .eh_frame registration per executable segment
 * beside its codectl identity, no SFrame from the module (the program's from
 * exec stays); each dlclose removes its object's by the header, one call.
 */
Test(loader, loader_abi_eh_frame)
{
	const struct summary_row *row;
	struct object_expect e;
	struct lines snap;
	char want[128];
	const char *p;
	struct run r;
	int n = 0;

	RUN(&r, "--loader-abi", "eh_frame", "--registry-dump", "--trace", "--", LOADER_PROG, "--map",
	    "20");
	cr_assert_eq(r.status, 0, "%s", r.log);
	row = run_first_row(&r);
	cr_assert(row);
	cr_assert_gt(snapshot(r.log, row->pid, 0, &snap), 0);
	for (p = r.out; *p;) {
		char *line = next_line(&p), path[4096];
		unsigned long bias;

		if (sscanf(line, "map %4095s %lx", path, &bias) == 2) {
			cr_assert_eq(readelf_expect(path, bias, &e), 0, "readelf %s", path);
			cr_assert(e.eh_frame_hdr_start, "%s has no .eh_frame_hdr", path);
			snprintf(want, sizeof(want), " eh_frame_hdr=%#lx-%#lx ",
				 (unsigned long)e.eh_frame_hdr_start, (unsigned long)e.eh_frame_hdr_end);
			for (int i = 0; i < e.ntext; i++, n++) {
				const char *l = find_entry(&snap, e.text_start[i], e.text_end[i],
							   "eh_frame_register eh_frame");

				cr_assert(l && strstr(l, want), "%s: text %#lx: %s", path,
					  (unsigned long)e.text_start[i], r.log);
			}
		}
		free(line);
	}
	cr_assert_geq(n, 6, "the program, liba, libb's two segments, libnosf, libc");
	for (int i = 0; i < snap.n; i++)
		cr_assert_null(strstr(snap.v[i], " codectl unwind"), "no .sframe from the module: %s",
			       snap.v[i]);
	cr_assert_eq(count_between_markers(r.log, "] eh_frame_register({"), 20);
	cr_assert_eq(count_between_markers(r.log, "] eh_frame_unregister({"), 20);
	lines_free(&snap);
	run_free(&r);
}

/* CODECTL_AUDIT_ABI without codectl-run: ENOSYS (sframe_register) or EINVAL (prctl), and nothing changes. */
Test(loader, natively_every_abi_changes_nothing)
{
	static const char *const abis[] = { "sframe_register", "prctl", "eh_frame", "both" };
	char *out;
	int status;

	setenv("LD_AUDIT", AUDIT_SO, 1);
	for (int i = 0; i < 4; i++) {
		setenv("CODECTL_AUDIT_ABI", abis[i], 1);
		out = run_native(LOADER_PROG, "200", &status);
		cr_assert_eq(status, 0);
		cr_assert_str_eq(out, "work: 99 7 86\ndlopen loop: 200 rounds, sum 39900\n");
		free(out);
	}
}

/* Output and exit status of @prog ARG run natively, stdout and stderr together. */
static char *run_native(const char *prog, const char *arg, int *status)
{
	char path[PATH_MAX], *out;
	int fd = test_mkstemp(path, sizeof(path), "codectl-loader-out");
	pid_t pid = fork();

	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		execl(prog, prog, arg, (char *)NULL);
		_exit(120);
	}
	waitpid(pid, status, 0);
	out = read_file(path);
	close(fd);
	unlink(path);
	return out;
}

Test(loader, natively_the_module_changes_nothing)
{
	char *plain, *audited, *debug;
	int s1, s2, s3;

	unsetenv("LD_AUDIT");
	plain = run_native(LOADER_PROG, "200", &s1);
	setenv("LD_AUDIT", AUDIT_SO, 1);
	audited = run_native(LOADER_PROG, "200", &s2);
	cr_assert_eq(s2, s1);
	cr_assert_str_eq(audited, plain);
	cr_assert_str_eq(plain, "work: 99 7 86\ndlopen loop: 200 rounds, sum 39900\n");
	/* debug: the first call says ENOSYS, and the module is quiet from then on */
	setenv("CODECTL_AUDIT_DEBUG", "1", 1);
	debug = run_native(LOADER_PROG, "200", &s3);
	cr_assert_eq(s3, s1);
	cr_assert(!strncmp(debug, "codectl-audit: CODE_REGISTER_ELF " LOADER_PROG " text=0x",
			   strlen("codectl-audit: CODE_REGISTER_ELF " LOADER_PROG " text=0x")),
		  "%s", debug);
	cr_assert_str_eq(strchr(debug, '\n') - strlen(" = ENOSYS"), " = ENOSYS\n" "work: 99 7 86\n"
			 "dlopen loop: 200 rounds, sum 39900\n");
	free(plain);
	free(audited);
	free(debug);
}

Test(loader, program_output_unchanged_under_codectl_run)
{
	struct run r;

	RUN(&r, "-q", "--", LOADER_PROG, "200");
	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(r.out, "work: 99 7 86\ndlopen loop: 200 rounds, sum 39900\n");
	run_free(&r);
}

/* Lines of "codectl-run -q -- PROG ARG" stderr (the module's debug lines) that start with @want. */
static int count_debug_lines(const char *prog, const char *arg, const char *want)
{
	char cmd[1024], line[4096];
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "%s -q -- %s %s 2>&1 >/dev/null", CODECTL_RUN, prog, arg);
	f = popen(cmd, "r");
	cr_assert(f);
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, want, strlen(want)) && strstr(line, " = 0\n");
	cr_assert_eq(pclose(f), 0);
	return n;
}

Test(loader, debug_lines_under_codectl_run)
{
	setenv("CODECTL_AUDIT_DEBUG", "1", 1);
	cr_assert_eq(count_debug_lines(LOADER_PROG, "2", "codectl-audit: CODE_REGISTER_ELF "
				       LOADER_DIR "/liba.so text=0x"), 1);
	cr_assert_eq(count_debug_lines(LOADER_PROG, "2", "codectl-audit: CODE_REGISTER_ELF "
				       LOADER_DIR "/libdl.so text=0x"), 2);
	/* libdl twice; at exit liba, libb (2), libnosf, libc, but not the program, ld.so, vDSO */
	cr_assert_eq(count_debug_lines(LOADER_PROG, "2", "codectl-audit: CODE_UNREGISTER text=0x"),
		     2 + 5);
}

/* A copy of libdl.so in a fresh directory, with its PT_GNU_SFRAME changed by @patch. */
static void patched_libdl(char *path, size_t size, void (*patch)(uint8_t *elf, Elf64_Phdr *sf))
{
	char dir[256];
	uint8_t *elf = malloc(1 << 20);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)elf;
	Elf64_Phdr *sf = NULL;
	int fd = open(LIBDL, O_RDONLY);
	ssize_t n = read(fd, elf, 1 << 20);

	close(fd);
	cr_assert(n > (ssize_t)sizeof(*eh) && test_mkdtemp(dir, sizeof(dir), "codectl-loader"));
	for (int i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(elf + eh->e_phoff) + i;

		if (ph->p_type == 0x6474e554)
			sf = ph;
	}
	cr_assert(sf);
	patch(elf, sf);
	snprintf(path, size, "%s/libdl.so", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_eq(write(fd, elf, (size_t)n), n);
	close(fd);
	free(elf);
}

static void remove_patched(const char *path)
{
	char dir[4096];

	unlink(path);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
}

static void sframe_empty(uint8_t *elf, Elf64_Phdr *sf)
{
	(void)elf;
	sf->p_filesz = sf->p_memsz = 0;
}

static void sframe_truncated(uint8_t *elf, Elf64_Phdr *sf)
{
	(void)elf;
	sf->p_filesz = sf->p_memsz = 12;
}

static void sframe_bad_magic(uint8_t *elf, Elf64_Phdr *sf)
{
	elf[sf->p_offset] ^= 0xff;
}

/* dlopen of a copy of libdl.so with a broken .sframe: EINVAL, identity only, program goes on. */
static void check_bad_sframe(void (*patch)(uint8_t *elf, Elf64_Phdr *sf), const char *reason)
{
	char path[4096], ok[4200], ident[4200];
	const char *line, *p;
	struct run r;

	patched_libdl(path, sizeof(path), patch);
	RUN(&r, "--trace", "--", LOADER_PROG, "--dlopen", path);
	remove_patched(path);
	snprintf(ok, sizeof(ok), "dlopen %s: ok\n", path);
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, ok);
	snprintf(ident, sizeof(ident), "path=\"%s\"", path);
	line = strstr(r.log, ident);
	cr_assert(line, "%s", r.log);
	p = strchr(line, '\n');
	cr_assert(p && memmem(line, (size_t)(p + 1 - line), reason, strlen(reason)), "want %s: %.*s",
		  reason, (int)(p - line), line);
	line = strstr(p, ident);
	cr_assert(line, "an identity-only registration follows: %s", r.log);
	p = strchr(line, '\n');
	cr_assert(!strncmp(p - strlen(") = 0"), ") = 0\n", strlen(") = 0\n")), "%.*s",
		  (int)(p - line), line);
	run_free(&r);
}

Test(loader, empty_sframe)
{
	check_bad_sframe(sframe_empty, "= -1 EINVAL (empty sframe range at 0x");
}

Test(loader, truncated_sframe)
{
	check_bad_sframe(sframe_truncated,
			 "= -1 EINVAL (section of 12 bytes shorter than the 28-byte header)\n");
}

Test(loader, sframe_bad_magic)
{
	check_bad_sframe(sframe_bad_magic, "= -1 EINVAL (magic 0xde1d, not 0xdee2)\n");
}

Test(loader, appended_to_an_existing_ld_audit)
{
	struct run r;

	setenv("LD_AUDIT", OTHER_AUDIT_SO, 1);
	RUN(&r, "--trace", "--", LOADER_PROG, "2");
	cr_assert_eq(r.status, 0, "%s", r.log);
	/* codectl-run itself runs with the user's LD_AUDIT too, and says so on stdout */
	cr_assert_str_eq(r.out, "other-audit: loaded in codectl-run\n"
			 "other-audit: loaded in loader-prog\nwork: 99 7 86\n"
			 "dlopen loop: 2 rounds, sum 201\n");
	cr_assert(strstr(r.log, "/liba.so\", build_id="), "%s", r.log);
	run_free(&r);
}

Test(loader, static_program)
{
	struct run r;

	RUN(&r, "--trace", "--", STATIC_PROG);
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert(strstr(r.log, STATIC_PROG " is statically linked: the loader module cannot run "
			 "in it, only its own codectl calls will be seen"), "%s", r.log);
	cr_assert(strstr(r.log, "codectl(CODE_UNREGISTER, 0x1, 0, 0) = -1 ENOENT"), "%s", r.log);
	cr_assert_null(strstr(r.log, "CODE_REGISTER_ELF"), "%s", r.log);
	run_free(&r);
}

static int count_containing(const struct lines *l, const char *what)
{
	int n = 0;

	for (int i = 0; i < l->n; i++)
		n += !!strstr(l->v[i], what);
	return n;
}

Test(loader, dlmopen_namespace_with_its_own_libc)
{
	struct lines open, closed;
	struct run r;
	int pid;

	RUN(&r, "--registry-dump", "--", LOADER_PROG, "--dlmopen", "libm.so.6");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "dlmopen libm.so.6: ok\n");
	pid = run_first_row(&r)->pid;
	/* the 9 of the start, and libm with a second libc in the new namespace */
	cr_assert_eq(snapshot(r.log, pid, 0, &open), 9 + 2, "%s", r.log);
	cr_assert_eq(snapshot(r.log, pid, 1, &closed), 9, "%s", r.log);
	cr_assert_eq(count_containing(&open, "/libm.so.6\""), 1);
	cr_assert_eq(count_containing(&open, "/libc.so.6\""), 2);
	cr_assert_eq(count_containing(&closed, "/libm.so.6\""), 0);
	cr_assert_eq(count_containing(&closed, "/libc.so.6\""), 1);
	for (int i = 0; i < closed.n; i++)
		cr_assert_eq(count_containing(&open, closed.v[i]), 1, "%s", closed.v[i]);
	cr_assert_eq(run_first_row(&r)->stale, 0);
	lines_free(&open);
	lines_free(&closed);
	run_free(&r);
}

Test(loader, exit_keeps_what_the_kernel_registered_at_exec)
{
	struct lines at_exit;
	struct run r;
	int pid;

	RUN(&r, "--registry-dump", "--", LOADER_PROG, "0");
	cr_assert_eq(r.status, 0, "%s", r.log);
	pid = run_first_row(&r)->pid;
	/* the main process's own dump: the third, after the two snapshots */
	cr_assert_eq(snapshot(r.log, -1, 2, &at_exit), 4, "%s", r.log);
	cr_assert_eq(count_containing(&at_exit, " exec unwind sframe="), 1);
	cr_assert_eq(count_containing(&at_exit, "/loader-prog\""), 1);
	cr_assert_eq(count_containing(&at_exit, "/ld-linux-x86-64.so.2\""), 1);
	cr_assert_eq(count_containing(&at_exit, "\"linux-vdso.so.1\""), 1);
	cr_assert_eq(run_row(&r, pid)->left, 4);
	lines_free(&at_exit);
	run_free(&r);
}

/* How many lines of @log contain @what. */
static int lines_with(const char *log, const char *what)
{
	int n = 0;

	for (const char *p = log; (p = strstr(p, what)); n++)
		p = strchrnul(p, '\n');
	return n;
}

/* The text_start of the first registration call naming @path_end. */
static unsigned long text_of(const char *log, const char *path_end)
{
	const char *p = log, *key = "codectl(CODE_REGISTER_ELF, {text=";
	unsigned long start = 0;

	while ((p = strstr(p, key))) {
		const char *end = strchr(p, '\n');

		p += strlen(key);
		if (memmem(p, (size_t)(end - p), path_end, strlen(path_end)) &&
		    sscanf(p, "%lx", &start) == 1)
			return start;
	}
	return 0;
}

/* A library loaded where another was: its registration stays when the maps are re-read. */
Test(loader, library_loaded_where_another_was)
{
	struct run r;

	RUN(&r, "--trace", "--", LOADER_PROG, "--reuse", LOADER_DIR "/libdl.so",
	    LOADER_DIR "/libdl2.so", LOADER_DIR "/libdl3.so");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "reuse: ok\n");
	cr_assert_eq(text_of(r.log, "/libdl2.so\""), text_of(r.log, "/libdl.so\""),
		     "libdl2.so is where libdl.so was");
	cr_assert_null(strstr(r.log, "stale registration dropped"), "%s", r.log);
	cr_assert_eq(run_first_row(&r)->stale, 0);
	/*
	 * The module registering the program's text again, which exec registered,
	 * is answered EEXIST and is not the program's error.
	 */
	cr_assert_eq(lines_with(r.log, ") = -1 EEXIST ("), 1, "%s", r.log);
	cr_assert_eq(run_first_row(&r)->rejected, 0, "%s", r.log);
	run_free(&r);
}

Test(loader, dlopen_on_a_small_thread_stack)
{
	struct run r;

	RUN(&r, "--trace", "--", LOADER_PROG, "--small-stack", LIBDL);
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "small stack: ok\n");
	cr_assert_eq(text_of(r.log, "/libdl.so\"") != 0, true, "%s", r.log);
	run_free(&r);
}

/* ld.so PROGRAM: the program's identity is PROGRAM's, and ld.so is no static program. */
Test(loader, program_run_through_ld_so)
{
	struct object_expect e;
	char want[4200];
	struct run r;

	RUN(&r, "--trace", "--", "/lib64/ld-linux-x86-64.so.2", LOADER_PROG, "0");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_null(strstr(r.log, "statically linked"), "%s", r.log);
	cr_assert_eq(readelf_expect(LOADER_PROG, 0, &e), 0);
	/* loaded by ld.so, not by the kernel: section and identity in one call */
	snprintf(want, sizeof(want), " FDEs, path=\"%s\", build_id=%s}, 80, 0) = 0",
		 LOADER_PROG, e.build_id);
	cr_assert(strstr(r.log, want), "want '%s': %s", want, r.log);
	run_free(&r);
}

Test(loader, module_already_in_ld_audit_is_not_added_twice)
{
	struct run r;

	setenv("LD_AUDIT", AUDIT_SO, 1);
	RUN(&r, "--trace", "--", LOADER_PROG, "1");
	cr_assert_eq(r.status, 0, "%s", r.log);
	/*
	 * one EEXIST (the program's section, registered at exec: not counted as
	 * rejected), not one per object; the two rejected are the program's own
	 */
	cr_assert_eq(lines_with(r.log, ") = -1 EEXIST ("), 1, "%s", r.log);
	cr_assert_eq(run_first_row(&r)->rejected, 2, "%s", r.log);
	run_free(&r);
}

/* Does a frame of @frames (a JSON array of {"object": PATH}) lie in the loader module? */
static bool frames_in_module(json_t *frames)
{
	size_t i;
	json_t *f;

	json_array_foreach(frames, i, f) {
		const char *o = json_string_value(json_object_get(f, "object")) ?: "";

		if (!strcmp(strrchr(o, '/') ? strrchr(o, '/') + 1 : o, "libcodectl-audit.so"))
			return true;
	}
	return false;
}

/*
 * Samples in codectl-run's own loader module (a dlopen loop spends much of
 * its time in it) are counted apart and said so, never among the program's
 * places: no place's example has a frame in it, in either walk. Runs until
 * there are such samples (longer loops each time).
 */
Test(loader, samples_in_the_loader_module_are_not_the_programs_places)
{
	long in_module = 0;
	char dir[PATH_MAX], json[PATH_MAX + 16], line[128];
	const char *rounds[] = { "2000", "8000", "32000" };

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-loader"));
	snprintf(json, sizeof(json), "%s/run.json", dir);
	for (size_t k = 0; k < 3 && !in_module; k++) {
		json_t *root, *places, *p;
		struct run r;
		size_t i;

		RUN(&r, "-F", "2000", "--json", json, "--", LOADER_PROG, rounds[k]);
		cr_assert_eq(r.status, 0, "%s", r.log);
		root = json_load_file(json, 0, NULL);
		cr_assert(root, "%s", json);
		in_module = json_integer_value(json_object_get(json_object_get(root, "samples"),
							       "in_loader_module"));
		places = json_object_get(root, "places");
		cr_assert(json_array_size(places) > 0, "the loop has places of its own");
		json_array_foreach(places, i, p) {
			json_t *ex = json_object_get(p, "example");

			cr_assert_not(frames_in_module(json_object_get(ex, "frames")) ||
				      frames_in_module(json_object_get(ex, "libunwind")),
				      "place %zu (%s) is in the loader module", i,
				      json_string_value(json_object_get(p, "function")));
		}
		snprintf(line, sizeof(line), "\n  %ld samples in codectl-run's own loader module ",
			 in_module);
		cr_assert_eq(strstr(r.log, line) != NULL, in_module > 0, "%s", r.log);
		json_decref(root);
		run_free(&r);
	}
	cr_assert_gt(in_module, 0, "no sample in the loader module in 3 runs");
}

/* ---- SFrame kept apart from its object (--sframe-path, CODE_REGISTER_SFRAME_FILE) ---- */

static const char *const demo_libs[] = { "libdemo_shapes.so", "libdemo_sort.so" };

static void sh(const char *cmd)
{
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/*
 * The sampling demo in @dir with its libraries stripped of .sframe
 * (objcopy -R, as a distribution would ship them), and the sections
 * extracted into @dir/plain and @dir/zstd by build id.
 */
static void stripped_demo(const char *dir)
{
	char cmd[4 * PATH_MAX], demo_dir[PATH_MAX];

	snprintf(demo_dir, sizeof(demo_dir), "%s", SAMPLING_DEMO);
	*strrchr(demo_dir, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "cp %s %s/", SAMPLING_DEMO, dir);
	sh(cmd);
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "objcopy -R .sframe %s/%s %s/%s", demo_dir, demo_libs[i],
			 dir, demo_libs[i]);
		sh(cmd);
	}
	for (int z = 0; z < 2; z++) {
		snprintf(cmd, sizeof(cmd), "cd %s && %s -z %s -d %s/%s %s %s >/dev/null", demo_dir,
			 SFRAME_EXTRACT, z ? "zstd" : "none", dir, z ? "zstd" : "plain",
			 demo_libs[0], demo_libs[1]);
		sh(cmd);
	}
}

/*
 * One run of @prog (--sframe-path @path unless NULL), --check --verify: its
 * status; for each library, its samples, those whose walk took an SFrame
 * step, those without one whose frame 0 no function of the library's
 * .sframe covers (its crt code: _init, frame_dummy, ...), the FDEs --verify
 * checked; the wrong walks, the mismatches; the file registrations made.
 */
struct demo_run {
	int status;
	json_int_t samples[2], stepped[2], no_fde[2], wrong, verified[2], mismatches;
	int file_regs;
};

/* Did the walk of @stack take a step by registered unwind data? */
static bool stepped_by_tables(json_t *stack)
{
	size_t k;
	json_t *f;

	json_array_foreach(json_object_get(stack, "frames"), k, f) {
		const char *src = json_string_value(json_object_get(f, "source")) ?: "";

		if (!strcmp(src, "sframe") || !strcmp(src, "jit") || !strcmp(src, "eh_frame"))
			return true;
	}
	return false;
}

/*
 * Is @frame (its "symbol", NAME+0xOFF) of library @lib outside every
 * function of the library's .sframe, as readelf and nm tell (the library as
 * built, with its section)?
 */
static bool outside_fdes(json_t *frame, const char *lib)
{
	const char *sym = json_string_value(json_object_get(frame, "symbol")) ?: "";
	char path[PATH_MAX], name[256];
	unsigned long long off;
	uint64_t value;

	snprintf(path, sizeof(path), "%s", SAMPLING_DEMO);
	snprintf(strrchr(path, '/') + 1, sizeof(path) - (size_t)(strrchr(path, '/') + 1 - path),
		 "%s", lib);
	return sscanf(sym, "%255[^+]+0x%llx", name, &off) == 2 && !nm_symbol(path, name, &value) &&
	       readelf_fde_covers(path, value + off) == 0;
}

/* The samples of @d whose walk took no step by tables and whose frame 0 no FDE covers. */
static void count_no_fde(json_t *stacks, struct demo_run *d)
{
	size_t k;
	json_t *s, *f0;

	json_array_foreach(stacks, k, s) {
		f0 = json_array_get(json_object_get(s, "frames"), 0);
		for (int i = 0; i < 2; i++) {
			const char *obj = json_string_value(json_object_get(f0, "object")) ?: "";
			size_t n = strlen(obj), m = strlen(demo_libs[i]);

			if (n > m && obj[n - m - 1] == '/' && !strcmp(obj + n - m, demo_libs[i]) &&
			    !stepped_by_tables(s) && outside_fdes(f0, demo_libs[i]))
				d->no_fde[i]++;
		}
	}
}

/* --verify's result for each library: FDEs checked against the code, and its mismatches. */
static void demo_verified(json_t *verify, struct demo_run *d)
{
	size_t k;
	json_t *o;

	json_array_foreach(verify, k, o) {
		const char *file = json_string_value(json_object_get(o, "file")) ?: "";

		for (int i = 0; i < 2; i++)
			if (strstr(file, demo_libs[i]))
				d->verified[i] = json_integer_value(json_object_get(o, "fdes_checked"));
		d->mismatches += json_integer_value(json_object_get(o, "mismatches"));
	}
}

/* The run into @d, asserting nothing (it runs in a child); its log on stderr if it failed. */
static void run_demo(const char *json, const char *prog, const char *path, struct demo_run *d)
{
	json_t *root, *cov, *s;
	struct run r;
	const char *p;

	if (path)
		RUN(&r, "-q", "--trace", "--check", "--verify", "--json-all", json, "--sframe-path",
		    path, "--", prog);
	else
		RUN(&r, "-q", "--trace", "--check", "--verify", "--json-all", json, "--", prog);
	root = r.status ? NULL : json_load_file(json, 0, NULL);
	*d = (struct demo_run){ .status = r.status ? r.status : root ? 0 : -1 };
	if (!root) {
		fprintf(stderr, "%s: status %d, %s\n%s", prog, r.status, json, r.log);
		run_free(&r);
		return;
	}
	cov = json_object_get(root, "coverage");
	s = json_object_get(root, "samples");
	d->wrong = json_integer_value(json_object_get(s, "ours_wrong")) +
		   json_integer_value(json_object_get(s, "both_wrong"));
	for (int i = 0; i < 2; i++) {
		json_t *o = json_object_get(cov, demo_libs[i]);

		d->samples[i] = json_integer_value(json_object_get(o, "samples"));
		d->stepped[i] = json_integer_value(json_object_get(o, "with_sframe_step"));
	}
	demo_verified(json_object_get(root, "verify"), d);
	/* runs with SFrame for the libraries: few samples without a step (each costs nm, readelf) */
	if (path || !strcmp(prog, SAMPLING_DEMO))
		count_no_fde(json_object_get(root, "stacks"), d);
	for (p = r.log; (p = strstr(p, "codectl(CODE_REGISTER_SFRAME_FILE, ")); p++)
		d->file_regs += !strncmp(strstr(p, ") = ") ?: "", ") = 0", 5);
	json_decref(root);
	run_free(&r);
}

/* The @n runs side by side, each in a child of its own (samples count CPU time, not wall). */
static void run_demos(const char *dir, const char *const *progs, const char *const *paths, int n,
		      struct demo_run *out)
{
	struct demo_run *shared = mmap(NULL, n * sizeof(*shared), PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char json[PATH_MAX + 32];
	pid_t pid[8];

	cr_assert(shared != MAP_FAILED && n <= 8);
	for (int k = 0; k < n; k++) {
		snprintf(json, sizeof(json), "%s/run%d.json", dir, k);
		pid[k] = fork();
		cr_assert(pid[k] >= 0);
		if (!pid[k]) {
			run_demo(json, progs[k], paths[k], &shared[k]);
			_exit(0);
		}
	}
	for (int k = 0; k < n; k++)
		cr_assert_eq(waitpid(pid[k], NULL, 0), pid[k]);
	memcpy(out, shared, n * sizeof(*shared));
	munmap(shared, n * sizeof(*shared));
}

/*
 * Done when of the file-backed registration: the libraries stripped of
 * .sframe, their sections in a build-id tree (plain, zstd), are covered as
 * with the sections in place (every sample with frame 0 in them walked by
 * SFrame, but for frame 0 in code no FDE covers, which the toolchain leaves
 * out: crt code) with no wrong walk, and --verify checks the same FDEs against
 * their code with the same findings; without the tree, no SFrame step there
 * at all.
 */
Test(loader, stripped_libraries_unwound_from_sframe_files)
{
	char dir[PATH_MAX], prog[PATH_MAX + 16], plain[PATH_MAX + 8], zstd[PATH_MAX + 8];
	const char *progs[] = { SAMPLING_DEMO, prog, prog, prog };
	const char *paths[] = { NULL, plain, zstd, NULL };
	struct demo_run d[4];

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-sframe-path"));
	stripped_demo(dir);
	snprintf(prog, sizeof(prog), "%s/sampling-demo", dir);
	snprintf(plain, sizeof(plain), "%s/plain", dir);
	snprintf(zstd, sizeof(zstd), "%s/zstd", dir);
	run_demos(dir, progs, paths, 4, d);
	for (int k = 0; k < 3; k++) {
		cr_assert_eq(d[k].status, 0, "run %d (its log is on stderr)", k);
		cr_assert_eq(d[k].file_regs, k ? 2 : 0, "run %d", k);
		cr_assert_eq(d[k].wrong, 0, "run %d", k);
		/* toolchain bugs (ld 2.44's .plt.got rows) are found alike, in place or not */
		cr_assert_eq(d[k].mismatches, d[0].mismatches, "run %d", k);
		for (int i = 0; i < 2; i++) {
			cr_assert_gt(d[k].samples[i], 20, "run %d: %s", k, demo_libs[i]);
			cr_assert_eq(d[k].stepped[i] + d[k].no_fde[i], d[k].samples[i],
				     "run %d: %s: %lld stepped, %lld outside the FDEs", k, demo_libs[i],
				     (long long)d[k].stepped[i], (long long)d[k].no_fde[i]);
			cr_assert(d[k].verified[i] > 0 && d[k].verified[i] == d[0].verified[i],
				  "run %d: %s: %lld FDEs verified, %lld in place", k, demo_libs[i],
				  (long long)d[k].verified[i], (long long)d[0].verified[i]);
		}
	}
	cr_assert_eq(d[3].status, 0, "stripped, no files (its log is on stderr)");
	for (int i = 0; i < 2; i++)
		cr_assert_eq(d[3].stepped[i], 0, "stripped, no files: %s", demo_libs[i]);
	test_rmtree(dir);
}
