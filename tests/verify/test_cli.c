// SPDX-License-Identifier: GPL-2.0
/*
 * The programs: sframe-verify's exit statuses (0 nothing wrong, 1 findings,
 * 2 an error), its text and --json; and codectl-run --verify, which checks
 * the sections a traced program registers: the finding in the log, in the
 * exit summary and in --json's "verify" array, and linked from the wrong
 * samples it explains; once per object however many processes run it; and
 * whichever entry point registered the section.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_helper.h"
#include "supervisor/verify/verify.h"
#include "test_tmp.h"

/* Run @cmd with its output in a file; return its exit status, *@out its output (malloc'd). */
static int run_cmd(const char *cmd, char **out)
{
	char path[4096], full[8192];
	int fd = test_mkstemp(path, sizeof(path), "sframe-verify-out"), st;

	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(full, sizeof(full), "%s >'%s' 2>&1", cmd, path);
	st = system(full);
	cr_assert(WIFEXITED(st), "%s", cmd);
	*out = read_file(path);
	unlink(path);
	return WEXITSTATUS(st);
}

Test(cli, nothing_wrong_is_0)
{
	char *out;
	int st = run_cmd(SFRAME_VERIFY " " VECTOR_DIR "/v1/basic-O2-nofp", &out);

	cr_assert_eq(st, 0, "%s", out);
	cr_assert(strstr(out, "no findings"), "%s", out);
	free(out);
}

Test(cli, findings_are_1)
{
	char *out;
	int st = run_cmd(SFRAME_VERIFY " " VERDICT_DIR "/missing_remember_state", &out);

	cr_assert_eq(st, 1, "%s", out);
	cr_assert(strstr(out, "cfa-mismatch spin_early_return+0x8:"), "%s", out);
	free(out);
}

Test(cli, errors_are_2)
{
	char *out;
	int st = run_cmd(SFRAME_VERIFY " " VECTOR_DIR "/README.md", &out);

	cr_assert_eq(st, 2, "%s", out);
	cr_assert(strstr(out, "not an ELF file"), "%s", out);
	free(out);
	st = run_cmd(SFRAME_VERIFY " " CORPUS_DIR "/libcorpus_nosf-fp.so", &out);
	cr_assert_eq(st, 2, "%s", out);
	cr_assert(strstr(out, "no .sframe"), "%s", out);
	free(out);
	st = run_cmd(SFRAME_VERIFY " /nonexistent " VECTOR_DIR "/v1/basic-O2-nofp", &out);
	cr_assert_eq(st, 2, "an error wins over the other file's 0: %s", out);
	free(out);
	st = run_cmd(SFRAME_VERIFY, &out);
	cr_assert_eq(st, 2, "no file: usage");
	free(out);
}

Test(cli, a_fifo_is_an_error_not_a_wait)
{
	char fifo[4096], cmd[8192], *out;
	int st;

	snprintf(fifo, sizeof(fifo), "%s/sframe-verify-fifo-%d", test_tmpdir(), (int)getpid());
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(cmd, sizeof(cmd), "timeout 10 " SFRAME_VERIFY " '%s'", fifo);
	st = run_cmd(cmd, &out);
	unlink(fifo);
	cr_assert_eq(st, 2, "%s", out);
	cr_assert(strstr(out, "not a regular file"), "%s", out);
	free(out);
}

Test(cli, json)
{
	char path[4096], cmd[8192], *out;
	json_t *root, *files, *f, *fd;
	int fdn = test_mkstemp(path, sizeof(path), "sframe-verify-json"), st;

	close(fdn);
	snprintf(cmd, sizeof(cmd), SFRAME_VERIFY " --quiet --json '%s' %s %s %s", path,
		 VERDICT_DIR "/missing_remember_state", VECTOR_DIR "/v1/basic-O2-nofp",
		 "/nonexistent");
	st = run_cmd(cmd, &out);
	cr_assert_eq(st, 2, "%s", out);
	cr_assert_null(strstr(out, "basic-O2-nofp"), "--quiet: no summary of a clean file: %s",
		       out);
	root = json_load_file(path, 0, NULL);
	cr_assert_not_null(root);
	files = json_object_get(root, "files");
	cr_assert_eq(json_array_size(files), 3);
	f = json_array_get(files, 0);
	cr_assert_geq(json_integer_value(json_object_get(f, "mismatches")), 1);
	cr_assert_gt(json_real_value(json_object_get(f, "share_decided")), 0.9);
	fd = json_array_get(json_object_get(f, "findings"), json_array_size(json_object_get(f,
									    "findings")) - 1);
	cr_assert_str_eq(json_string_value(json_object_get(fd, "kind")), "cfa-mismatch");
	cr_assert_str_eq(json_string_value(json_object_get(fd, "function")), "spin_early_return");
	cr_assert_str_eq(json_string_value(json_object_get(fd, "offset")), "0x8");
	cr_assert_str_eq(json_string_value(json_object_get(fd, "dwarf")), "sframe");
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(files, 1), "mismatches")), 0);
	cr_assert_not_null(json_object_get(json_array_get(files, 2), "error"));
	json_decref(root);
	unlink(path);
	free(out);
}

/* Is @line (without its newline) one whole line of @out? */
static bool has_line(const char *out, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, line, len) && (p[len] == '\n' || !p[len]))
			return true;
	return false;
}

/*
 * --skip-missing: a file without .sframe, and one not ELF, are each named on
 * one line and counted, not errors; a file that cannot be read still is.
 * Without the option both stay errors (errors_are_2).
 */
Test(cli, skip_missing_names_and_counts)
{
	const char *nosf = CORPUS_DIR "/libcorpus_nosf-fp.so", *text = VECTOR_DIR "/README.md";
	char cmd[8192], *out;
	int st;

	snprintf(cmd, sizeof(cmd), SFRAME_VERIFY " %s %s", nosf, VECTOR_DIR "/v1/basic-O2-nofp");
	st = run_cmd(cmd, &out);
	cr_assert_eq(st, 2, "without --skip-missing: an error, as before: %s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), SFRAME_VERIFY " --skip-missing %s %s %s", nosf, text,
		 VECTOR_DIR "/v1/basic-O2-nofp");
	st = run_cmd(cmd, &out);
	cr_assert_eq(st, 0, "%s", out);
	cr_assert(has_line(out, "no .sframe: " CORPUS_DIR "/libcorpus_nosf-fp.so"), "%s", out);
	cr_assert(has_line(out, "no .sframe: " VECTOR_DIR "/README.md"), "%s", out);
	cr_assert(has_line(out, "total: 1 file checked, 2 skipped: 9 FDEs, 20 rows, 120 "
				"instructions: 116 decided, 0 undecided (100.0% decided), 4 "
				"unreachable, 0 not checked; no findings"), "%s", out);
	cr_assert_null(strstr(out, "sframe-verify:"), "no error printed: %s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), SFRAME_VERIFY " --skip-missing %s /nonexistent", nosf);
	st = run_cmd(cmd, &out);
	cr_assert_eq(st, 2, "a file not there is still an error: %s", out);
	cr_assert(strstr(out, "sframe-verify: /nonexistent: "), "%s", out);
	free(out);
}

/* The totals line sums the files' summaries; one file: no totals. */
Test(cli, totals_line)
{
	char *out;
	int st = run_cmd(SFRAME_VERIFY " " VECTOR_DIR "/v2/basic-O2-nofp " VECTOR_DIR
			 "/v1/drap-O2-nofp /nonexistent", &out);

	cr_assert_eq(st, 2, "%s", out);
	cr_assert(has_line(out, "total: 2 files checked: 13 FDEs, 27 rows, 136 instructions: "
				"131 decided, 0 undecided (100.0% decided), 5 unreachable, 0 not "
				"checked; cfa-mismatch 1, unknown 1"), "%s", out);
	free(out);
	st = run_cmd(SFRAME_VERIFY " " VECTOR_DIR "/v2/basic-O2-nofp", &out);
	cr_assert_eq(st, 1, "%s", out);
	cr_assert_null(strstr(out, "total:"), "one file, no totals: %s", out);
	free(out);
}

/* JSON integer @name of @o. */
static json_int_t jint(json_t *o, const char *name)
{
	json_t *v = json_object_get(o, name);

	cr_assert(json_is_integer(v), "%s", name);
	return json_integer_value(v);
}

/*
 * JSON "totals": each count the sum of the files' (a file with undecided
 * instructions among them: a binutils vector, the same on every machine), the
 * share decided of the sums as a file's is computed, the skipped file counted.
 */
Test(cli, totals_json)
{
	static const char *const counts[] = { "fdes_checked", "rows", "instructions", "decided",
					      "undecided", "unreachable", "not_checked",
					      "mismatches" };
	char path[4096], cmd[8192], *out;
	json_t *root, *files, *tot;
	json_int_t sum, dec, und;
	int fdn = test_mkstemp(path, sizeof(path), "sframe-verify-json"), st;
	size_t i;

	close(fdn);
	snprintf(cmd, sizeof(cmd), SFRAME_VERIFY " --skip-missing --json '%s' %s %s %s", path,
		 VECTOR_DIR "/v3/drap-O2-nofp", VECTOR_DIR "/v2/basic-O2-nofp",
		 CORPUS_DIR "/libcorpus_nosf-fp.so");
	st = run_cmd(cmd, &out);
	cr_assert_eq(st, 1, "%s", out);
	root = json_load_file(path, 0, NULL);
	cr_assert_not_null(root);
	files = json_object_get(root, "files");
	tot = json_object_get(root, "totals");
	cr_assert_not_null(tot, "no totals");
	cr_assert_eq(jint(tot, "files_checked"), 2);
	cr_assert_eq(jint(tot, "files_skipped"), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(files, 2), "skipped")),
			 "no .sframe section");
	for (unsigned int c = 0; c < sizeof(counts) / sizeof(*counts); c++) {
		sum = 0;
		for (i = 0; i < 2; i++)
			sum += jint(json_array_get(files, i), counts[c]);
		cr_assert_eq(jint(tot, counts[c]), sum, "%s", counts[c]);
	}
	for (unsigned int k = 0; k < VERIFY_KIND_COUNT; k++) {
		sum = 0;
		for (i = 0; i < 2; i++)
			sum += jint(json_object_get(json_array_get(files, i), "findings_by_kind"),
				    verify_kind_name(k));
		cr_assert_eq(jint(json_object_get(tot, "findings_by_kind"), verify_kind_name(k)),
			     sum, "%s", verify_kind_name(k));
	}
	dec = jint(tot, "decided");
	und = jint(tot, "undecided");
	cr_assert_gt(und, 0, "the test wants a file with undecided instructions");
	cr_assert_eq(json_real_value(json_object_get(tot, "share_decided")),
		     (double)dec / (double)(dec + und));
	json_decref(root);
	unlink(path);
	free(out);
}

/*
 * --dump: each FDE, then each row beside the code's state at its first
 * instruction; the row the code contradicts marked, its column too.
 */
Test(cli, dump_rows_beside_code)
{
	char *out;
	int st = run_cmd(SFRAME_VERIFY " --dump " VECTOR_DIR "/v2/basic-O2-nofp", &out);

	cr_assert_eq(st, 1, "%s", out);
	cr_assert(has_line(out, "  at     row CFA  RA       FP       |  code CFA     RA        FP"
				"            verdict"), "%s", out);
	cr_assert(has_line(out, "fde#2 0x1050, 0x8 bytes, 1 row"), "%s", out);
	cr_assert(has_line(out, "! +0x0   SP+16    [CFA-8]  same     | !SP+8         [CFA-8]   "
				"same          cfa-mismatch; 1 later"), "%s", out);
	cr_assert(has_line(out, "fde#6 use_alloca at 0x1260, 0x54 bytes, 4 rows"), "%s", out);
	cr_assert(has_line(out, "  +0x1   SP+16    [CFA-8]  [CFA-16] |  SP+16        [CFA-8]   "
				"same=[CFA-16] ok"), "%s", out);
	cr_assert(has_line(out, "  +0x10  FP+16    [CFA-8]  [CFA-16] |  SP+16=FP+16  [CFA-8]   "
				"[CFA-16]      ok"), "%s", out);
	for (const char *l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t len = strchr(l, '\n') ? (size_t)(strchr(l, '\n') - l) : strlen(l);

		if (strncmp(l, "  0x", 4) && strncmp(l, VECTOR_DIR, strlen(VECTOR_DIR)))
			cr_assert_leq(len, 100, "wider than 100 columns: %.*s", (int)len, l);
	}
	free(out);
	st = run_cmd(SFRAME_VERIFY " " VECTOR_DIR "/v2/basic-O2-nofp", &out);
	cr_assert_null(strstr(out, "fde#2 0x1050"), "no dump without --dump: %s", out);
	free(out);
}

/* Run @cmd; return its exit status, *@out its standard output, *@err its standard error. */
static int run_split(const char *cmd, char **out, char **err)
{
	char po[4096], pe[4096], full[12288];
	int fo = test_mkstemp(po, sizeof(po), "sframe-verify-out");
	int fe = test_mkstemp(pe, sizeof(pe), "sframe-verify-err"), st;

	cr_assert(fo >= 0 && fe >= 0);
	close(fo);
	close(fe);
	snprintf(full, sizeof(full), "%s >'%s' 2>'%s'", cmd, po, pe);
	st = system(full);
	cr_assert(WIFEXITED(st), "%s", cmd);
	*out = read_file(po);
	*err = read_file(pe);
	cr_assert(*out && *err);
	unlink(po);
	unlink(pe);
	return WEXITSTATUS(st);
}

/* The first finding of kind @kind in the first file of sframe-verify's JSON @root. */
/*
 * The first file's first finding of @kind in @function, or at @start (each
 * when not NULL); NULL if none. (Debian 13's linker also writes a wrong
 * .plt.got row, found before the program's own.)
 */
static json_t *finding_of(json_t *root, const char *kind, const char *function,
			  const char *start)
{
	json_t *files = json_object_get(root, "files"), *fd;
	size_t i;

	json_array_foreach(json_object_get(json_array_get(files, 0), "findings"), i, fd)
		if (!strcmp(json_string_value(json_object_get(fd, "kind")), kind) &&
		    (!function ||
		     !strcmp(json_string_value(json_object_get(fd, "function")), function)) &&
		    (!start || !strcmp(json_string_value(json_object_get(fd, "start")), start)))
			return fd;
	return NULL;
}

/* --json -: standard output is the JSON alone; the text on standard error (-q: none). */
Test(cli, json_to_stdout_is_only_json)
{
	char *out, *err;
	json_error_t jerr;
	json_t *root, *fd;
	int st = run_split(SFRAME_VERIFY " --json - " VERDICT_DIR "/missing_remember_state", &out,
			   &err);

	cr_assert_eq(st, 1, "%s%s", out, err);
	root = json_loads(out, 0, &jerr);
	cr_assert_not_null(root, "stdout is not JSON (%s at %d): %s", jerr.text, jerr.position,
			   out);
	fd = finding_of(root, "cfa-mismatch", "spin_early_return", NULL);
	cr_assert_not_null(fd, "%s", out);
	cr_assert_str_eq(json_string_value(json_object_get(fd, "offset")), "0x8");
	cr_assert(strstr(err, "  0x") && strstr(err, " cfa-mismatch spin_early_return+0x8: "),
		  "the text goes to stderr: %s", err);
	json_decref(root);
	free(out);
	free(err);
	st = run_split(SFRAME_VERIFY " -q --json - " VERDICT_DIR "/missing_remember_state", &out,
		       &err);
	cr_assert_eq(st, 1, "%s%s", out, err);
	root = json_loads(out, 0, &jerr);
	cr_assert_not_null(root, "-q: stdout is not JSON (%s at %d): %s", jerr.text, jerr.position,
			   out);
	cr_assert_eq(json_array_size(json_object_get(root, "files")), 1);
	cr_assert_str_eq(err, "", "-q --json -: no text at all");
	json_decref(root);
	free(out);
	free(err);
}

/* The address of section @name of ELF file @path (libelf, not the verifier's reader). */
static uint64_t section_addr(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	uint64_t addr = 0;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *e;

	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert(e && !elf_getshdrstrndx(e, &shstrndx));
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(e, shstrndx, sh.sh_name), name))
			addr = sh.sh_addr;
	elf_end(e);
	close(fd);
	cr_assert_neq(addr, 0, "no %s in %s", name, path);
	return addr;
}

/* sframe-verify's JSON report on @path (--json FILE: independent of --json -). */
static json_t *report_of(const char *path)
{
	char json[4096], cmd[12288], *out;
	int fdn = test_mkstemp(json, sizeof(json), "sframe-verify-json");
	json_t *root;

	close(fdn);
	snprintf(cmd, sizeof(cmd), SFRAME_VERIFY " --json '%s' '%s'", json, path);
	cr_assert_eq(run_cmd(cmd, &out), 1, "%s", out);
	free(out);
	root = json_load_file(json, 0, NULL);
	cr_assert_not_null(root);
	unlink(json);
	return root;
}

/*
 * Stripped: the finding is named by its FDE and the offset in the FDE's
 * function, and by its offset in .text: the address the unstripped file's
 * finding has, minus .text's address.
 */
Test(cli, stripped_location_is_fde_and_section_offset)
{
	const char *prog = VERDICT_DIR "/missing_remember_state";
	char dir[4096], copy[4200], cmd[12288], label[64], at[40], *out;
	unsigned long long start, text, fde_start, off, sec_off;
	json_t *root, *fd;
	unsigned int idx;
	const char *line;

	cr_assert(test_mkdtemp(dir, sizeof(dir), "sframe-verify-strip"));
	snprintf(copy, sizeof(copy), "%s/stripped", dir);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-all '%s' '%s'", prog, copy);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	text = section_addr(prog, ".text");
	root = report_of(prog);
	fd = finding_of(root, "cfa-mismatch", "spin_early_return", NULL);
	cr_assert_not_null(fd);
	start = strtoull(json_string_value(json_object_get(fd, "start")), NULL, 16);
	cr_assert_eq(strtoull(json_string_value(json_object_get(fd, "section_offset")), NULL, 16),
		     start - text);
	json_decref(root);

	snprintf(cmd, sizeof(cmd), SFRAME_VERIFY " '%s'", copy);
	cr_assert_eq(run_cmd(cmd, &out), 1, "%s", out);
	snprintf(at, sizeof(at), "  %#llx-", start);
	line = strstr(out, at);
	line = line ? strstr(line, " cfa-mismatch fde#") : NULL;
	cr_assert_not_null(line, "no FDE label at %s: %s", at, out);
	cr_assert_eq(sscanf(line, " cfa-mismatch fde#%u (%llx)+%llx (.text+%llx): ", &idx,
			    &fde_start, &off, &sec_off), 4, "%s", out);
	cr_assert_eq(sec_off, start - text, "%s: .text+%#llx", out, start - text);
	cr_assert_eq(fde_start + off, start, "%s", out);
	cr_assert_eq(off, 0x8, "%s", out);
	snprintf(label, sizeof(label), "fde#%u (%#llx)+0x8 (.text+%#llx): ", idx, fde_start,
		 start - text);
	cr_assert(strstr(out, label), "%s: %s", label, out);
	free(out);

	root = report_of(copy);
	snprintf(at, sizeof(at), "%#llx", start);
	fd = finding_of(root, "cfa-mismatch", NULL, at);
	cr_assert_not_null(fd, "no finding at %s", at);
	cr_assert_str_eq(json_string_value(json_object_get(fd, "function")), "");
	cr_assert_eq(json_integer_value(json_object_get(fd, "fde")), idx);
	cr_assert_eq(strtoull(json_string_value(json_object_get(fd, "section_offset")), NULL, 16),
		     start - text);
	json_decref(root);
	test_rmtree(dir);
}

/* The finding of the "verify" array's object @prog at file address @off past @fn, or NULL. */
static json_t *verify_finding(json_t *root, const char *prog, const char *fn, const char *off)
{
	size_t i, j;
	json_t *o, *f;

	json_array_foreach(json_object_get(root, "verify"), i, o) {
		if (strcmp(json_string_value(json_object_get(o, "file")), prog))
			continue;
		json_array_foreach(json_object_get(o, "findings"), j, f)
			if (!strcmp(json_string_value(json_object_get(f, "function")), fn) &&
			    !strcmp(json_string_value(json_object_get(f, "offset")), off))
				return f;
	}
	return NULL;
}

/* A wrong sample's example linked to the finding (main.c's link_verify()). */
static bool linked(json_t *root)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(root, "places"), i, p)
		if (json_object_get(json_object_get(p, "example"), "verify_finding"))
			return true;
	return false;
}

Test(cli, codectl_run_verify)
{
	const char *prog = VERDICT_DIR "/missing_remember_state";
	char json[4096], real[4096];
	const char *argv[] = { "--verify", "--json", json, "--", prog, NULL };
	struct run r;
	json_t *root, *fd;
	int fdn = test_mkstemp(json, sizeof(json), "codectl-run-json");

	close(fdn);
	cr_assert(realpath(prog, real));
	run_codectl(&r, argv);
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert(strstr(r.log, "verify: ") && strstr(r.log, "cfa-mismatch spin_early_return+0x8"),
		  "%s", r.log);
	/* on binutils 2.44+ the .plt.got rows are a second finding (known_bug()) */
	cr_assert(strstr(r.log, "codectl-run: verify: 1 object checked, "), "%s", r.log);
	root = json_load_file(json, 0, NULL);
	cr_assert_not_null(root);
	fd = verify_finding(root, real, "spin_early_return", "0x8");
	cr_assert_not_null(fd, "no finding at spin_early_return+0x8 in --json");
	cr_assert_str_eq(json_string_value(json_object_get(fd, "kind")), "cfa-mismatch");
	cr_assert(linked(root), "no wrong sample linked to the finding");
	json_decref(root);
	unlink(json);
	run_free(&r);
}

/* The lines of @log that start with @prefix. */
static size_t count_lines(const char *log, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (const char *l = log; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		n += !strncmp(l, prefix, len);
	return n;
}

/* How many times @s is in @log. */
static int count_in(const char *log, const char *s)
{
	int n = 0;

	for (const char *p = log; (p = strstr(p, s)); p += strlen(s))
		n++;
	return n;
}

/* The objects of the "verify" array named @prog. */
static size_t verify_objects(json_t *root, const char *prog)
{
	size_t i, n = 0;
	json_t *o;

	json_array_foreach(json_object_get(root, "verify"), i, o)
		n += !strcmp(json_string_value(json_object_get(o, "file")), prog);
	return n;
}

/* Two processes of one program: checked once, in the first; both linked. */
Test(cli, codectl_run_verify_once_per_object)
{
	const char *prog = VERDICT_DIR "/missing_remember_state";
	char json[4096], real[4096], script[8192], prefix[4200];
	const char *argv[] = { "--verify", "--json", json, "--", "/bin/sh", "-c", script, NULL };
	struct run r;
	json_t *root;
	int plt_got, fdn = test_mkstemp(json, sizeof(json), "codectl-run-json");

	close(fdn);
	cr_assert(realpath(prog, real));
	snprintf(script, sizeof(script), "'%s' && '%s'", prog, prog);
	run_codectl(&r, argv);
	cr_assert_eq(r.status, 0, "%s", r.log);
	snprintf(prefix, sizeof(prefix), "codectl-run: verify: %s (pid ", real);
	cr_assert_eq(count_lines(r.log, prefix), 1, "%s", r.log);
	/* ld 2.44+ adds its .plt.got row (CFA = SP+16: verify_util.c's known_bug()) */
	plt_got = count_in(r.log, "+0 (.plt.got+0): the code says CFA = SP+8, "
				     "the row (FRE at +0) CFA = SP+16;");
	cr_assert_leq(plt_got, 1, "%s", r.log);
	cr_assert_eq((int)count_lines(r.log, "codectl-run: verify:   0x") - plt_got, 1, "%s", r.log);
	cr_assert(strstr(r.log, "codectl-run: verify: 1 object checked, "), "%s", r.log);
	root = json_load_file(json, 0, NULL);
	cr_assert_not_null(root);
	cr_assert_eq(verify_objects(root, real), 1);
	cr_assert_not_null(verify_finding(root, real, "spin_early_return", "0x8"));
	json_decref(root);
	unlink(json);
	run_free(&r);
}

/*
 * A section registered by each entry point (kernel-prog registers its own
 * .sframe; no exec registration, no loader module) is checked as one
 * registered at exec: once, with the program's symbols.
 */
Test(cli, codectl_run_verify_every_entry_point)
{
	static const char *const ifaces[] = { "codectl", "sframe_register", "prctl",
					      "stacktrace_setup" };
	char real[4096], prefix[4200];
	struct run r;

	cr_assert(realpath(KERNEL_PROG, real));
	snprintf(prefix, sizeof(prefix), "codectl-run: verify: %s (pid ", real);
	for (int i = 0; i < 4; i++) {
		const char *argv[] = { "--verify", "--no-loader-module", "--no-exec-registration",
				       "--prctl-sframe", "-F", "0", "--", KERNEL_PROG, "self",
				       ifaces[i], NULL };

		run_codectl(&r, argv);
		cr_assert_eq(r.status, 0, "%s: %s", ifaces[i], r.log);
		cr_assert_eq(count_lines(r.log, prefix), 1, "%s: %s", ifaces[i], r.log);
		cr_assert(strstr(r.log, "codectl-run: verify: 1 object checked, "), "%s: %s",
			  ifaces[i], r.log);
		run_free(&r);
	}
}

/*
 * --dump's block for function @name in @out: its header from the size on
 * ("0x20 bytes, 3 rows") and its row lines, without the addresses, which
 * differ between an object and its linked program (malloc'd; NULL if none).
 */
static char *fde_block(const char *out, const char *name)
{
	char head[256];
	const char *p, *q, *end;

	snprintf(head, sizeof(head), " %s at 0x", name);
	for (p = out; (p = strstr(p, head)); p++) {
		const char *bol = p;

		while (bol > out && bol[-1] != '\n')
			bol--;
		if (!strncmp(bol, "fde#", 4))
			break;
	}
	if (!p || !(q = strstr(p, ", ")))
		return NULL;
	q += 2;
	for (end = strchr(q, '\n'); end && (!strncmp(end + 1, "  +", 3) ||
					    !strncmp(end + 1, "! +", 3));)
		end = strchr(end + 1, '\n');
	return strndup(q, end ? (size_t)(end - q) : strlen(q));
}

/*
 * A relocatable object (.o, as gas writes it: FDEs in source order, each
 * start relocated against its section) is checked as its linked program is:
 * every function's rows, and what the code implies at each, as --dump shows
 * them, are the same in r.o and in the program linked from it. The source
 * puts functions in .text, .text.unlikely and .text.startup (main at -O2), so
 * the sections are laid out apart and the FDEs sorted across them.
 */
Test(cli, relocatable_object_checked_as_its_linked_program)
{
	static const char *const names[] = { "leaf", "with_frame", "rarely", "main" };
	static const char src[] =
		"#include <alloca.h>\n#include <string.h>\n"
		"__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }\n"
		"__attribute__((noinline)) int with_frame(int n)\n"
		"{ char *b = alloca(n + 16); memset(b, n, n + 16); return leaf(b[n]); }\n"
		"__attribute__((noinline, cold)) int rarely(int x) { return with_frame(x) + 7; }\n"
		"int main(int argc, char **argv)\n"
		"{ (void)argv; return argc > 5 ? rarely(argc) : with_frame(argc) & 1; }\n";
	char dir[4096], cmd[16384], *out_o, *out_x;
	int st_o, st_x;
	FILE *f;

	cr_assert(test_mkdtemp(dir, sizeof(dir), "sframe-verify-reloc"));
	snprintf(cmd, sizeof(cmd), "%s/r.c", dir);
	f = fopen(cmd, "w");
	cr_assert(f && fputs(src, f) >= 0 && !fclose(f));
	snprintf(cmd, sizeof(cmd), "cd '%s' && cc -O2 -Wa,--gsframe -c r.c -o r.o && cc r.o -o r",
		 dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(cmd, sizeof(cmd), SFRAME_VERIFY " --dump '%s/r.o'", dir);
	st_o = run_cmd(cmd, &out_o);
	snprintf(cmd, sizeof(cmd), SFRAME_VERIFY " --dump '%s/r'", dir);
	st_x = run_cmd(cmd, &out_x);
	/* not an error (2); r may have findings r.o has not (Debian 13's ld: .plt.got) */
	cr_assert(st_o < 2 && st_x < 2, "r.o: %s\nr: %s", out_o, out_x);
	cr_assert(strstr(out_o, "r.o: SFrame v"), "%s", out_o);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *a = fde_block(out_o, names[i]);

		cr_assert(a, "no FDE for %s: %s", names[i], out_o);
		free(a);
	}
	/* every FDE of r.o (main may have a main.cold part too) as in r */
	for (const char *p = out_o; (p = strstr(p, "\nfde#")); p++) {
		char name[128], *a, *b;

		cr_assert_eq(sscanf(p, "\nfde#%*u %127s at", name), 1, "%s", p);
		a = fde_block(out_o, name);
		b = fde_block(out_x, name);
		cr_assert(a && b, "%s: r.o %s, r %s", name, out_o, out_x);
		cr_assert_str_eq(a, b, "%s in r.o and r", name);
		free(a);
		free(b);
	}
	free(out_o);
	free(out_x);
}
