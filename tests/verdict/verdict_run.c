// SPDX-License-Identifier: GPL-2.0
/* Running a verdict program under codectl-run and reading its report. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_tmp.h"
#include "verdict_run.h"

#define MAX_ARGS 32

void verdict_run(struct verdict_run *v, const char *prog, const char *const *opts,
		 const char *const *args)
{
	char dir[PATH_MAX], json[PATH_MAX + 16], path[PATH_MAX];
	const char *argv[MAX_ARGS];
	json_error_t e;
	size_t n = 0;

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-verdict"));
	snprintf(json, sizeof(json), "%s/report.json", dir);
	snprintf(path, sizeof(path), "%s/%s", VERDICT_DIR, prog);
	argv[n++] = "--check";
	argv[n++] = "-q";
	argv[n++] = "--json-all";
	argv[n++] = json;
	for (; opts && *opts && n < MAX_ARGS - 4; opts++)
		argv[n++] = *opts;
	argv[n++] = "--";
	argv[n++] = path;
	for (; args && *args && n < MAX_ARGS - 1; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	run_codectl(&v->r, argv);
	v->j = json_load_file(json, 0, &e);
	cr_assert(v->j, "%s: no report (%s); log:\n%s", prog, e.text, v->r.log);
	unlink(json);
	rmdir(dir);
}

void verdict_free(struct verdict_run *v)
{
	json_decref(v->j);
	run_free(&v->r);
}

long long verdict_count(const struct verdict_run *v, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(v->j, "samples"), key));
}

json_t *verdict_stacks(const struct verdict_run *v)
{
	return json_object_get(v->j, "stacks");
}

const char *verdict_symbol(json_t *stack, size_t i)
{
	return verdict_str(verdict_frame(stack, false, i), "symbol");
}

bool verdict_frame0_in(json_t *stack, const char *fn)
{
	return verdict_sym_in(verdict_frame(stack, false, 0), fn);
}

bool verdict_class_is(json_t *stack, const char *cls)
{
	return verdict_is(stack, "class", cls);
}

long long verdict_frame0_offset(json_t *stack, const char *fn)
{
	const char *s = verdict_symbol(stack, 0);
	size_t n = strlen(fn);
	char *end;
	long long off;

	if (strncmp(s, fn, n) || strncmp(s + n, "+0x", 3))
		return -1;
	off = strtoll(s + n + 3, &end, 16);
	return *end ? -1 : off;
}

json_t *verdict_frame(json_t *stack, bool ref, size_t i)
{
	return json_array_get(json_object_get(stack, ref ? "libunwind" : "frames"), i);
}

size_t verdict_frames(json_t *stack, bool ref)
{
	return json_array_size(json_object_get(stack, ref ? "libunwind" : "frames"));
}

unsigned long long verdict_ip(json_t *frame)
{
	const char *s = verdict_str(frame, "ip");

	return strtoull(s, NULL, 16);
}

const char *verdict_str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

bool verdict_ended_in_libc(json_t *stack)
{
	long long k = json_integer_value(json_object_get(stack, "wrong_frame"));

	if (verdict_class_is(stack, "ended"))
		return true;
	return verdict_class_is(stack, "astray") && k >= 1 && k >= verdict_covered(stack) &&
	       verdict_sym_in(verdict_frame(stack, false, (size_t)k - 1), "__libc_start_call_main");
}

void verdict_remove_perf_map(const struct verdict_run *v)
{
	json_t *s = json_array_get(verdict_stacks(v), 0);
	char map[64];

	if (!s)
		return;
	snprintf(map, sizeof(map), "/tmp/perf-%lld.map",
		 (long long)json_integer_value(json_object_get(s, "pid")));
	unlink(map);
}

size_t verdict_fde_rows(const char *prog, unsigned long long pc, struct verdict_row *rows,
			size_t max)
{
	char cmd[PATH_MAX + 64], line[256];
	unsigned long long at;
	bool in = false;
	const char *s;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump --sframe=.sframe '%s'", prog);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	while (fgets(line, sizeof(line), p)) {
		if ((s = strstr(line, "func idx [")) && (s = strstr(s, "pc = ")) &&
		    sscanf(s, "pc = %llx", &at) == 1) {
			in = at == pc;
			continue;
		}
		/* a row: "STARTPC CFA FP RA"; the column header is no number */
		if (in && n < max && sscanf(line, " %llx %31s", &at, rows[n].cfa) == 2) {
			rows[n].off = at - pc;
			n++;
		}
	}
	pclose(p);
	return n;
}
