// SPDX-License-Identifier: GPL-2.0
/*
 * codectl-run end to end with the kernel's own proposals (tests/e2e/kernel_prog.c):
 * a program registering itself through each interface is unwound as through
 * codectl; --trace names each entry point; --registry-dump says which made
 * each registration (the split model included); --strict is v16: forks
 * inherit, and a section broken after registration is removed at the next
 * unwind, reported with its bytes; sections changing under the call; options.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_helper.h"
#include "test_tmp.h"

#define KRUN(r, ...) run_codectl((r), (const char *const[]){ "--no-loader-module", __VA_ARGS__, NULL })

TestSuite(kernel, .timeout = 120);

/* The log has a line matching the extended regex @pattern. */
static bool log_matches(const char *log, const char *pattern)
{
	regex_t re;
	bool m;

	cr_assert_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE), 0, "%s", pattern);
	m = !regexec(&re, log, 0, NULL, 0);
	regfree(&re);
	return m;
}

/*
 * Stacks with frame 0 in the program's code (kp_*), and those whose kp_
 * callers were all steps by @source ("sframe", "eh_frame").
 */
static void walked_by(json_t *j, const char *source, size_t *in_prog, size_t *walked)
{
	json_t *stacks = json_object_get(j, "stacks"), *s, *f;
	size_t i, k;

	*in_prog = *walked = 0;
	json_array_foreach(stacks, i, s) {
		json_t *frames = json_object_get(s, "frames");
		const char *sym = json_string_value(json_object_get(json_array_get(frames, 0),
								    "symbol"));
		bool all = true;

		if (!sym || strncmp(sym, "kp_", 3))
			continue;
		(*in_prog)++;
		json_array_foreach(frames, k, f) {
			sym = json_string_value(json_object_get(f, "symbol"));
			if (k && sym && !strncmp(sym, "kp_", 3))
				all &= !strcmp(json_string_value(json_object_get(f, "source")),
					       source);
		}
		*walked += all;
	}
}

/* Stacks whose verdict says our walk is wrong. */
static size_t wrong_stacks(json_t *j)
{
	json_t *s;
	size_t i, n = 0;

	json_array_foreach(json_object_get(j, "stacks"), i, s) {
		const char *o = json_string_value(json_object_get(s, "outcome"));

		n += o && (!strcmp(o, "ours-wrong") || !strcmp(o, "both-wrong"));
	}
	return n;
}

/*
 * A program registering its own .sframe through each interface (no exec
 * registration, no loader module) is unwound as through codectl: every sample
 * in its code reaches its callers by SFrame steps; registering its
 * .eh_frame_hdr, by .eh_frame steps, each verified.
 */
Test(kernel, self_registration_unwinds_as_with_codectl)
{
	static const char *const ifaces[] = { "codectl", "sframe_register", "prctl",
					      "stacktrace_setup", "eh_frame_register" };
	char dir[256], json[300], want[64];
	size_t in_prog, walked;
	struct run r;
	json_t *j;

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-kernel"));
	snprintf(json, sizeof(json), "%s/report.json", dir);
	for (int i = 0; i < 5; i++) {
		KRUN(&r, "--no-exec-registration", "--prctl-sframe", "-q", "--json-all", json, "--",
		     KERNEL_PROG, "self", ifaces[i]);
		snprintf(want, sizeof(want), "self %s: registered, ran, unregistered\n", ifaces[i]);
		cr_assert_eq(r.status, 0, "%s", r.log);
		cr_assert_str_eq(r.out, want);
		j = json_load_file(json, 0, NULL);
		cr_assert(j);
		walked_by(j, i == 4 ? "eh_frame" : "sframe", &in_prog, &walked);
		cr_assert_gt(in_prog, 100, "%s: %zu samples in its code", ifaces[i], in_prog);
		cr_assert_eq(walked, in_prog, "%s: %zu of %zu", ifaces[i], walked, in_prog);
		cr_assert_eq(wrong_stacks(j), 0, "%s: stacks called wrong", ifaces[i]);
		json_decref(j);
		run_free(&r);
	}
}

Test(kernel, trace_names_each_entry_point)
{
	static const char *const lines[] = {
		"sframe_register\\(\\{sframe_start=@S, sframe_size=52 v3 1 FDEs, text_start=@T, "
		"text_size=64\\}, 32\\) = 0$",
		"sframe_unregister\\(\\{sframe_start=@S, sframe_size=0, text_start=0, text_size=0\\}, "
		"32\\) = 0$",
		"sframe_register\\(0x[0-9a-f]+, 31\\) = -1 EINVAL \\(size 31, not 32\\)$",
		"prctl\\(PR_ADD_SFRAME, @S, 0x[0-9a-f]+ v3 1 FDEs, @T, 0x[0-9a-f]+\\) = 0$",
		"prctl\\(PR_REMOVE_SFRAME, @S, 0x1, 0, 0\\) = -1 EINVAL \\(PR_REMOVE_SFRAME with arg3 "
		"0x1, arg4 0x0, arg5 0x0 \\(must be 0\\)\\)$",
		"prctl\\(PR_REMOVE_SFRAME, @S, 0, 0, 0\\) = 0$",
		"stacktrace_setup\\(STACKTRACE_REGISTER_SFRAME, @S, 52 v3 1 FDEs, @T, 64\\) = 0$",
		"stacktrace_setup\\(STACKTRACE_UNREGISTER_SFRAME, @S, 0, 0, 0\\) = 0$",
		"stacktrace_setup\\(9, @S, 0x34, @T, 0x40\\) = -1 EINVAL \\(op 9 \\(1 or 2\\)\\)$",
		"    pid [0-9]+: 1 rejected with EINVAL \\(setup-size\\)$",
		"    pid [0-9]+: 1 rejected with EINVAL \\(prctl-unused-args\\)$",
		"    pid [0-9]+: 1 rejected with EINVAL \\(stacktrace-op\\)$",
	};
	unsigned long s, t;
	char pat[512], sx[32], tx[32];
	const char *p;
	struct run r;

	KRUN(&r, "--prctl-sframe", "--trace", "--freq", "0", "--", KERNEL_PROG, "calls");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_eq(sscanf(r.out, "calls: sframe %lx+52 text %lx", &s, &t), 2, "%s", r.out);
	snprintf(sx, sizeof(sx), "%#lx", s);
	snprintf(tx, sizeof(tx), "%#lx", t);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char *o = pat;

		for (p = lines[i]; *p && o < pat + sizeof(pat) - 32; p++) {
			if (p[0] == '@' && (p[1] == 'S' || p[1] == 'T'))
				o += sprintf(o, "%s", *++p == 'S' ? sx : tx);
			else
				*o++ = *p;
		}
		*o = '\0';
		cr_assert(log_matches(r.log, pat), "no line '%s' in\n%s", pat, r.log);
	}
	cr_assert_eq(run_first_row(&r)->accepted, 3);
	cr_assert_eq(run_first_row(&r)->unregistered, 3);
	cr_assert_eq(run_first_row(&r)->rejected, 3);
	run_free(&r);
}

/* The split model, and every registration named by the entry point that made it. */
Test(kernel, registry_dump_names_the_entry_point)
{
	unsigned long t, s[3];
	char want[512];
	struct run r;

	KRUN(&r, "--prctl-sframe", "--registry-dump", "-q", "--", KERNEL_PROG, "split");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_eq(sscanf(r.out, "split: text %lx sframe %lx+52 %lx+52 %lx+52", &t, &s[0], &s[1],
			    &s[2]), 4, "%s", r.out);
	cr_assert(log_matches(r.log, "registry pid [0-9]+: 5 registrations$"), "%s", r.log);
	snprintf(want, sizeof(want), "text=%#lx-%#lx sframe_register unwind sframe=%#lx-%#lx v3 1 "
		 "FDEs from=memory resident=52/52\n", t, t + 64, s[0], s[0] + 52);
	cr_assert(strstr(r.log, want), "no '%s' in\n%s", want, r.log);
	snprintf(want, sizeof(want), "text=%#lx-%#lx codectl identity elf=0-0 "
		 "path=\"/kernel-prog/split\"\n", t, t + 64);
	cr_assert(strstr(r.log, want), "no '%s' in\n%s", want, r.log);
	snprintf(want, sizeof(want), "text=%#lx-%#lx prctl unwind sframe=%#lx-%#lx v3 1 FDEs "
		 "from=memory resident=52/52\n", t + 64, t + 128, s[1], s[1] + 52);
	cr_assert(strstr(r.log, want), "no '%s' in\n%s", want, r.log);
	snprintf(want, sizeof(want), "text=%#lx-%#lx stacktrace_setup unwind sframe=%#lx-%#lx v3 1 "
		 "FDEs from=memory resident=52/52\n", t + 128, t + 192, s[2], s[2] + 52);
	cr_assert(strstr(r.log, want), "no '%s' in\n%s", want, r.log);
	cr_assert(log_matches(r.log, "text=0x[0-9a-f]+-0x[0-9a-f]+ exec unwind sframe="), "%s",
		  r.log);
	run_free(&r);
}

/*
 * The kernel profiles' unwind-time policy: the section broken in memory after
 * registration is removed at the first unwind in its code, and the log names
 * the rule, the FDE and FRE (v13, which reads the copy while its bytes are
 * unchanged, also the bytes that changed). The emulator profile reads the
 * copy validated at registration: nothing is removed.
 */
static void expect_removed(const char *profile, const char *tail)
{
	unsigned long s, t, at;
	char want[512];
	struct run r;

	KRUN(&r, "--kernel", profile, "--", KERNEL_PROG, "corrupt", "300");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_eq(sscanf(r.out, "corrupt: sframe %lx text %lx byte +%lx", &s, &t, &at), 3);
	cr_assert(strstr(r.out, "corrupt: removed\n"), "%s", r.out);
	snprintf(want, sizeof(want), "unwind (%s): registration removed (sframe %#lx, 1 text "
		 "range; lookup in text %#lx): sframe-fre-offset-size: FDE 0: FRE 0: ", profile, s,
		 t);
	snprintf(want + strlen(want), sizeof(want) - strlen(want), tail, at);
	cr_assert(strstr(r.log, want), "no '%s' in\n%s", want, r.log);
	cr_assert(log_matches(r.log, "pid [0-9]+: 1 registrations removed at unwind"), "%s",
		  r.log);
	run_free(&r);
}

Test(kernel, strict_removes_a_section_broken_since_registration)
{
	struct run r;

	expect_removed("v16", "data-word size 3 (info 0x63)\n");
	expect_removed("v13", "invalid offset size (info 0x63); changed since registration at "
		       "+%#lx: 0308 -> 6308\n");
	KRUN(&r, "--", KERNEL_PROG, "corrupt", "30");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert(strstr(r.out, "corrupt: still registered\n"), "%s", r.out);
	cr_assert_null(strstr(r.log, "registration removed"), "%s", r.log);
	run_free(&r);
}

/* --strict is v16: a fork child inherits; v13's child started empty. */
Test(kernel, strict_is_v16_forks_inherit)
{
	static const char *const runs[][3] = {
		{ "--strict", "EEXIST" }, { "--kernel=v16", "EEXIST" }, { "--kernel=v13", "0" },
		{ "--kernel=emulator", "EEXIST" },
	};
	char want[128];
	struct run r;

	for (int i = 0; i < 4; i++) {
		KRUN(&r, "-q", runs[i][0], "--", KERNEL_PROG, "fork");
		cr_assert_eq(r.status, 0, "%s", r.log);
		snprintf(want, sizeof(want), "fork: the child's registration of the same text: %s\n",
			 runs[i][1]);
		cr_assert_str_eq(r.out, want, "%s", runs[i][0]);
		run_free(&r);
	}
}

/* A log line ending in @tail: how many. */
static int count_lines(const char *log, const char *tail)
{
	int n = 0;

	for (const char *p = log; (p = strstr(p, tail)); p += strlen(tail))
		n++;
	return n;
}

/*
 * The section changes while the call reads it: each call sees one copy, read
 * once, so every answer is 0 or EINVAL for its magic; each refusal has its
 * trace line and is counted under its rule.
 */
Test(kernel, a_section_changing_under_the_call)
{
	int n, ok, refused;
	char want[128];
	struct run r;

	KRUN(&r, "--trace", "--freq", "0", "--", KERNEL_PROG, "race", "300");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_eq(sscanf(r.out, "race: %d calls, %d accepted, %d refused", &n, &ok, &refused), 3);
	cr_assert_eq(n, 300);
	cr_assert_eq(ok + refused, 300);
	cr_assert_eq(count_lines(r.log, "text_size=64}, 32) = 0\n"), ok);
	cr_assert_eq(count_lines(r.log, "= -1 EINVAL (magic 0xde00, not 0xdee2)\n"), refused,
		     "%s", r.log);
	cr_assert_eq(count_lines(r.log, "sframe_size=0, text_start=0, text_size=0}, 32) = 0\n"), ok);
	if (refused) {
		snprintf(want, sizeof(want), ": %d rejected with EINVAL (sframe-magic)\n", refused);
		cr_assert(strstr(r.log, want), "%s", r.log);
	}
	run_free(&r);
}

Test(kernel, options_checked_before_the_program_runs)
{
	static const char *const bad[][2] = {
		{ "--sframe-nr=1001", "codectl-run: invalid --sframe-nr '1001' (REG,UNREG)\n" },
		{ "--sframe-nr=1,1002", "codectl-run: --sframe-nr 1 is the system call write; choose a "
					"number the kernel does not use\n" },
		{ "--stacktrace-setup-nr=1001", "codectl-run: system call number 1001 given to two "
						"entry points (--nr, --sframe-nr, "
						"--stacktrace-setup-nr, --eh-frame-nr)\n" },
		{ "--eh-frame-nr=1005,1003", "codectl-run: system call number 1003 given to two "
					     "entry points (--nr, --sframe-nr, "
					     "--stacktrace-setup-nr, --eh-frame-nr)\n" },
		{ "--eh-frame-nr=2004", "codectl-run: invalid --eh-frame-nr '2004' (REG,UNREG)\n" },
		{ "--kernel=v12", "codectl-run: invalid --kernel 'v12' (emulator, v16 or v13)\n" },
		{ "--loader-abi=stacktrace_setup", "codectl-run: invalid --loader-abi "
						   "'stacktrace_setup' (codectl, sframe_register, "
						   "prctl, eh_frame or both)\n" },
		{ "-F 20000", "codectl-run: invalid --freq '20000': a whole number from 0 to 10000\n" },
	};
	char cmd[512], out[512];
	size_t n;
	FILE *f;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s %s -- true 2>&1", CODECTL_RUN, bad[i][0]);
		f = popen(cmd, "r");
		cr_assert(f);
		n = fread(out, 1, sizeof(out) - 1, f);
		out[n] = '\0';
		cr_assert_eq(pclose(f), 2 << 8, "%s", bad[i][0]);
		cr_assert_str_eq(out, bad[i][1]);
	}
}

/* The sizes of @path's .sframe, .eh_frame_hdr and .eh_frame sections (libelf). */
static void section_sizes(const char *path, json_int_t size[3])
{
	static const char *const names[3] = { ".sframe", ".eh_frame_hdr", ".eh_frame" };
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t strndx;

	cr_assert(fd >= 0 && elf_version(EV_CURRENT) != EV_NONE);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert(e && !elf_getshdrstrndx(e, &strndx));
	size[0] = size[1] = size[2] = 0;
	while ((scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &sh))
		for (int i = 0; i < 3; i++)
			if (!strcmp(elf_strptr(e, strndx, sh.sh_name), names[i]))
				size[i] = (json_int_t)sh.sh_size;
	elf_end(e);
	close(fd);
}

static json_int_t jint(json_t *o, const char *a, const char *b)
{
	return json_integer_value(json_object_get(b ? json_object_get(o, a) : o, b ? b : a));
}

/*
 * --compare-formats on a program whose code has both formats, its .sframe
 * registered at exec and its .eh_frame_hdr by itself: every sample walked
 * both ways and judged, none wrong; the program's row gives its file's table
 * bytes; the walks differ only where one format was not registered yet
 * (before main's registration: no recursion frame in them).
 */
Test(kernel, compare_formats_walks_and_judges_both)
{
	char dir[256], json[300];
	json_t *j, *f, *o, *d;
	json_int_t size[3], walked;
	size_t i, k, rows = 0;
	struct run r;

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-kernel"));
	snprintf(json, sizeof(json), "%s/report.json", dir);
	KRUN(&r, "-q", "--compare-formats", "--json", json, "--", KERNEL_PROG, "self",
	     "eh_frame_register");
	cr_assert_eq(r.status, 0, "%s", r.log);
	j = json_load_file(json, 0, NULL);
	cr_assert(j);
	f = json_object_get(j, "formats");
	walked = jint(j, "samples", "total");	/* the samples walked (dropped ones apart) */
	cr_assert_gt(walked, 100);
	for (int x = 0; x < 2; x++) {
		json_t *c = json_object_get(f, x ? "eh_frame" : "sframe");

		cr_assert_eq(jint(c, "samples", NULL), walked);
		cr_assert_eq(jint(c, "wrong", NULL), 0);
		cr_assert_eq(jint(c, "verified", NULL) + jint(c, "unverifiable", NULL) +
			     jint(c, "past_copy", NULL), walked);
	}
	section_sizes(KERNEL_PROG, size);
	json_array_foreach(json_object_get(f, "objects"), i, o) {
		if (strcmp(json_string_value(json_object_get(o, "object")), KERNEL_PROG))
			continue;
		rows++;
		cr_assert_eq(jint(o, "table_bytes", "sframe"), size[0]);
		cr_assert_eq(jint(o, "table_bytes", "eh_frame_hdr"), size[1]);
		cr_assert_eq(jint(o, "table_bytes", "eh_frame"), size[2]);
		cr_assert_gt(jint(o, "sframe", "samples"), 100);
	}
	cr_assert_eq(rows, 1);
	json_array_foreach(json_object_get(f, "differences"), i, d) {
		json_t *fr;

		json_array_foreach(json_object_get(d, "sframe"), k, fr)
			cr_assert_null(strstr(json_string_value(fr), "kp_recurse"));
	}
	json_decref(j);
	run_free(&r);
}
