// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-verify [--json FILE] [--quiet] [--all] [--skip-missing] [--dump]
 * ELF...: does each SFrame row of each file match the code it describes?
 * (sframe-verify(1)). Exit status 0 when nothing is wrong, 1 when a row
 * contradicts the code (or covers no function, or a function has no row),
 * 2 on an error (a file unreadable, without .sframe unless --skip-missing,
 * or with one the emulator refuses). With several files, a totals line.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_file.h"
#include "report.h"
#include "supervisor/core/version.h"

enum { OPT_JSON = 256, OPT_VERSION, OPT_SKIP_MISSING, OPT_DUMP };

/**
 * struct sv_opts - the command line
 * @json: --json FILE ("-": standard output, the text then on standard error)
 * @quiet: only mismatches, no summaries (and no text at all with --json -)
 * @all: the unknown findings too
 * @skip_missing: a file without .sframe (or not an ELF executable) is skipped, not an error
 * @dump: each row beside the code's state at its first instruction
 */
struct sv_opts {
	const char *json;
	bool quiet;
	bool all;
	bool skip_missing;
	bool dump;
};

/**
 * struct sv_totals - what every file gave (the totals line, JSON "totals")
 * @st: the checked files' counts summed
 * @findings: findings kept or dropped (0: "no findings")
 * @checked, @skipped: files checked, and skipped by --skip-missing
 */
struct sv_totals {
	struct verify_stats st;
	size_t findings;
	unsigned long checked;
	unsigned long skipped;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: sframe-verify [--json FILE] [--quiet] [--all] [--skip-missing] "
		   "[--dump]\n                     ELF...\n"
		   "Check every SFrame row of each ELF file against the machine code it "
		   "describes.\n\n"
		   "      --json FILE  the report as JSON ('-': standard output, the text then on\n"
		   "                   standard error, or none with --quiet)\n"
		   "  -q, --quiet      print only the mismatches (no summaries, no unknowns)\n"
		   "  -a, --all        print the unknown findings too\n"
		   "      --skip-missing\n"
		   "                   a file without .sframe (or not an x86-64 ELF executable or\n"
		   "                   shared object) is named and skipped, not an error\n"
		   "      --dump       each row beside what the code implies at its first\n"
		   "                   instruction\n"
		   "  -h, --help       this help\n"
		   "      --version    version\n\n"
		   "Exit status: 0 nothing wrong, 1 findings (mismatches, rows beyond a "
		   "function,\nfunctions without FDE), 2 an error (a file skipped by "
		   "--skip-missing: 0). See\nsframe-verify(1).\n");
}

static int parse(int argc, char **argv, struct sv_opts *o)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "all", no_argument, NULL, 'a' },
		{ "skip-missing", no_argument, NULL, OPT_SKIP_MISSING },
		{ "dump", no_argument, NULL, OPT_DUMP },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "qah", opts, NULL)) != -1) {
		if (c == OPT_JSON)
			o->json = optarg;
		else if (c == 'q')
			o->quiet = true;
		else if (c == 'a')
			o->all = true;
		else if (c == OPT_SKIP_MISSING)
			o->skip_missing = true;
		else if (c == OPT_DUMP)
			o->dump = true;
		else if (c == OPT_VERSION)
			return printf("sframe-verify (codectl-emu) %s\n", CODECTL_EMU_VERSION) < 0 ? 2 : -1;
		else {
			usage(c == 'h' ? stdout : stderr);
			return c == 'h' ? -1 : 2;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return 2;
	}
	return 0;
}

/*
 * Where the text report goes: standard output, unless --json writes there
 * (then standard error, or nowhere with --quiet). NULL: nowhere.
 */
static FILE *text_out(const struct sv_opts *o)
{
	if (!o->json || strcmp(o->json, "-"))
		return stdout;
	return o->quiet ? NULL : stderr;
}

/*
 * --skip-missing: @path has no .sframe, or is no x86-64 ELF executable
 * (@ret, from verify_elf_open() or verify_elf_sframe()): named, counted,
 * and its JSON appended to @files.
 */
static bool skipped(const char *path, int ret, const char *err, const struct sv_opts *o,
		    json_t *files, struct sv_totals *tot)
{
	if (!o->skip_missing || (ret != -ENODATA && ret != -ENOEXEC))
		return false;
	tot->skipped++;
	if (text_out(o) && !o->quiet)
		fprintf(text_out(o), "no .sframe: %s\n", path);
	json_array_append_new(files, json_pack("{s:s,s:s}", "file", path, "skipped", err));
	return true;
}

/* A file checked: its report, JSON appended to @files, counts into @tot; 0 or 1. */
static int report_file(const struct verify_object_info *info, const struct verify_result *r,
		       const struct sv_opts *o, json_t *files, struct sv_totals *tot)
{
	FILE *f = text_out(o);

	if (f && (!o->quiet || verify_mismatches(&r->st)))
		verify_print(f, info, r, o->all && !o->quiet);
	if (f && o->dump)
		verify_dump(f, info, r);
	json_array_append_new(files, verify_result_json(info, r));
	tot->checked++;
	tot->findings += r->n + r->dropped;
	verify_stats_add(&tot->st, &r->st);
	return verify_mismatches(&r->st) ? 1 : 0;
}

/* One file: 0 nothing wrong (or skipped), 1 findings, 2 an error; its JSON appended to @files. */
static int verify_file(const char *path, const struct sv_opts *o, json_t *files,
		       struct sv_totals *tot)
{
	struct verify_object_info info = { .name = path };
	struct emu_sframe_section *s = NULL;
	struct verify_result r = { 0 };
	struct verify_target t;
	struct verify_elf e;
	char err[512];
	int ret = verify_elf_open(path, &e, err, sizeof(err));

	if (!ret)
		ret = verify_elf_sframe(&e, &s, err, sizeof(err));
	if (!ret) {
		t = verify_elf_target(&e, s);
		t.dump = o->dump;
		ret = verify_run(&t, &r);
		if (ret)
			snprintf(err, sizeof(err), "%s", strerror(-ret));
	}
	if (ret && skipped(path, ret, err, o, files, tot)) {
		ret = 0;
	} else if (ret) {
		fprintf(stderr, "sframe-verify: %s: %s\n", path, err);
		json_array_append_new(files, json_pack("{s:s,s:s}", "file", path, "error", err));
	} else {
		info.version = emu_sframe_header(s)->version;
		info.fdes = emu_sframe_header(s)->num_fdes;
		info.fres = emu_sframe_header(s)->num_fres;
		ret = report_file(&info, &r, o, files, tot);
	}
	verify_result_free(&r);
	emu_sframe_put(s);
	verify_elf_close(&e);
	return ret ? (ret == 1 ? 1 : 2) : 0;
}

/* The totals line, as a file's summary says its counts. */
static void print_totals(FILE *f, const struct sv_totals *tot, const struct sv_opts *o)
{
	struct verify_result sum = { .st = tot->st, .n = tot->findings };
	char line[1024], skip[48] = "";

	verify_summary_text(&sum, line, sizeof(line));
	if (o->skip_missing)
		snprintf(skip, sizeof(skip), ", %lu skipped", tot->skipped);
	fprintf(f, "total: %lu file%s checked%s: %s\n", tot->checked, tot->checked == 1 ? "" : "s",
		skip, line);
}

/* The totals as JSON: the per-file object's names for the same counts. */
static json_t *totals_json(const struct sv_totals *tot)
{
	const struct verify_stats *st = &tot->st;
	json_t *k = verify_counts_json(st);

	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:o,s:I}",
			 "files_checked", (json_int_t)tot->checked,
			 "files_skipped", (json_int_t)tot->skipped, "fdes_checked",
			 (json_int_t)st->fdes, "rows", (json_int_t)st->rows,
			 "instructions", (json_int_t)st->instructions,
			 "decided", (json_int_t)st->decided, "undecided", (json_int_t)st->undecided,
			 "unreachable", (json_int_t)st->unreachable,
			 "not_checked", (json_int_t)st->not_checked,
			 "share_decided", verify_share_decided(st),
			 "findings_by_kind", k ? k : json_object(),
			 "mismatches", (json_int_t)verify_mismatches(st));
}

static int write_json(const char *path, json_t *files, json_t *totals)
{
	json_t *root = json_pack("{s:O}", "files", files);
	FILE *f = strcmp(path, "-") ? fopen(path, "we") : stdout;
	int err = !root || !f;

	if (root && totals)
		json_object_set(root, "totals", totals);
	err = err || json_dumpf(root, f, JSON_INDENT(1)) || fputc('\n', f) == EOF;
	if (f && f != stdout && fclose(f))
		err = 1;
	if (err)
		fprintf(stderr, "sframe-verify: --json %s: %s\n", path, strerror(errno));
	json_decref(root);
	return err ? 2 : 0;
}

int main(int argc, char **argv)
{
	struct sv_opts o = { 0 };
	struct sv_totals tot = { 0 };
	int status = parse(argc, argv, &o), s;
	bool several;
	json_t *files, *totals = NULL;

	if (status)
		return status < 0 ? 0 : status;
	several = argc - optind > 1;
	files = json_array();
	for (int i = optind; i < argc; i++) {
		s = verify_file(argv[i], &o, files, &tot);
		status = s > status ? s : status;
	}
	if (several && text_out(&o) && !o.quiet)
		print_totals(text_out(&o), &tot, &o);
	if (several)
		totals = totals_json(&tot);
	if (o.json && write_json(o.json, files, totals))
		status = 2;
	json_decref(totals);
	json_decref(files);
	return status;
}
