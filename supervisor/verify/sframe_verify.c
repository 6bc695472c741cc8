// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-verify [--json FILE] [--quiet] ELF...: does each SFrame row of
 * each file match the code it describes? (sframe-verify(1)). Exit status 0
 * when nothing is wrong, 1 when a row contradicts the code (or covers no
 * function, or a function has no row), 2 on an error (a file unreadable,
 * without .sframe, or with one the emulator refuses).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_file.h"
#include "report.h"
#include "supervisor/core/version.h"

enum { OPT_JSON = 256, OPT_VERSION };

/**
 * struct sv_opts - the command line
 * @json: --json FILE ("-": standard output, the text then on standard error)
 * @quiet: only mismatches, no summaries (and no text at all with --json -)
 * @all: the unknown findings too
 */
struct sv_opts {
	const char *json;
	bool quiet;
	bool all;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: sframe-verify [--json FILE] [--quiet] [--all] ELF...\n"
		   "Check every SFrame row of each ELF file against the machine code it "
		   "describes.\n\n"
		   "      --json FILE  the report as JSON ('-': standard output, the text then on\n"
		   "                   standard error, or none with --quiet)\n"
		   "  -q, --quiet      print only the mismatches (no summaries, no unknowns)\n"
		   "  -a, --all        print the unknown findings too\n"
		   "  -h, --help       this help\n"
		   "      --version    version\n\n"
		   "Exit status: 0 nothing wrong, 1 findings (mismatches, rows beyond a "
		   "function,\nfunctions without FDE), 2 an error. See sframe-verify(1).\n");
}

static int parse(int argc, char **argv, struct sv_opts *o)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "all", no_argument, NULL, 'a' },
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

/* One file: 0 nothing wrong, 1 findings, 2 an error; its JSON appended to @files. */
static int verify_file(const char *path, const struct sv_opts *o, json_t *files)
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
		ret = verify_run(&t, &r);
		if (ret)
			snprintf(err, sizeof(err), "%s", strerror(-ret));
	}
	if (ret) {
		fprintf(stderr, "sframe-verify: %s: %s\n", path, err);
		json_array_append_new(files, json_pack("{s:s,s:s}", "file", path, "error", err));
	} else {
		info.version = emu_sframe_header(s)->version;
		info.fdes = emu_sframe_header(s)->num_fdes;
		info.fres = emu_sframe_header(s)->num_fres;
		if (text_out(o) && (!o->quiet || verify_mismatches(&r.st)))
			verify_print(text_out(o), &info, &r, o->all && !o->quiet);
		json_array_append_new(files, verify_result_json(&info, &r));
		ret = verify_mismatches(&r.st) ? 1 : 0;
	}
	verify_result_free(&r);
	emu_sframe_put(s);
	verify_elf_close(&e);
	return ret ? (ret == 1 ? 1 : 2) : 0;
}

static int write_json(const char *path, json_t *files)
{
	json_t *root = json_pack("{s:O}", "files", files);
	FILE *f = strcmp(path, "-") ? fopen(path, "we") : stdout;
	int err = !root || !f || json_dumpf(root, f, JSON_INDENT(1)) || fputc('\n', f) == EOF;

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
	int status = parse(argc, argv, &o), s;
	json_t *files;

	if (status)
		return status < 0 ? 0 : status;
	files = json_array();
	for (int i = optind; i < argc; i++) {
		s = verify_file(argv[i], &o, files);
		status = s > status ? s : status;
	}
	if (o.json && write_json(o.json, files))
		status = 2;
	json_decref(files);
	return status;
}
