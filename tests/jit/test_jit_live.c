// SPDX-License-Identifier: GPL-2.0
/*
 * The example JIT under codectl-run: every sampled stack through JIT code
 * must be the true call chain (jit-check compares --json-all stacks with the
 * chains jit-demo wrote). The demo itself; tables growing while sampled, with
 * the slots past the published end poisoned; a million functions in 54
 * chained tables and one registration call; an unregistration while a thread
 * is inside JIT code; a forked child with a code area of its own; a table
 * made unsorted mid-run; and the demo without codectl-run.
 *
 * --no-crosscheck everywhere: libunwind cannot see JIT code, and only our
 * unwinder's frames are checked. jit-demo's threads run for an amount of
 * their own CPU time, so a busy machine makes runs longer, not their samples
 * fewer. No run lingers (jit-demo --linger): codectl-run must unwind the
 * samples it still holds for a process at the process's exit event, while
 * its JIT tables can still be read (after it, they would stop as
 * header-unreadable).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_helper.h"
#include "test_tmp.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

TestSuite(jit, .timeout = 180);

/**
 * struct jit_case - one run of jit-demo under codectl-run, then of jit-check
 * @dir: the test's private directory, holding @json and @chains
 * @check: jit-check's output (malloc'd); @check_status its exit status
 */
struct jit_case {
	char dir[256];
	char json[300];
	char chains[300];
	struct run r;
	char *check;
	int check_status;
};

static void case_init(struct jit_case *c)
{
	memset(c, 0, sizeof(*c));
	cr_assert(test_mkdtemp(c->dir, sizeof(c->dir), "codectl-jit"));
	snprintf(c->json, sizeof(c->json), "%s/report.json", c->dir);
	snprintf(c->chains, sizeof(c->chains), "%s/chains", c->dir);
}

/* codectl-run OPTS --json-all JSON -- jit-demo --chains CHAINS ARGS */
static void case_run(struct jit_case *c, const char *const *opts, const char *const *args)
{
	const char *argv[64];
	int n = 0;

	for (int i = 0; opts[i]; i++)
		argv[n++] = opts[i];
	argv[n++] = "--json-all";
	argv[n++] = c->json;
	argv[n++] = "--";
	argv[n++] = JIT_DEMO;
	argv[n++] = "--chains";
	argv[n++] = c->chains;
	for (int i = 0; args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	run_codectl(&c->r, argv);
	cr_assert(c->r.out && c->r.log);
}

/* Run @argv (a NULL-terminated list), its standard output into a malloc'd string. */
static char *capture(const char *const *argv, int *status)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	cr_assert(buf && !pipe(fds));
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execv(argv[0], (char *const *)argv);
		_exit(120);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			buf = realloc(buf, cap *= 2);
			cr_assert(buf);
		}
	}
	buf[len] = '\0';
	close(fds[0]);
	waitpid(pid, &st, 0);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return buf;
}

static void case_check(struct jit_case *c, bool expect_invalid)
{
	const char *plain[] = { JIT_CHECK, c->json, c->chains, NULL };
	const char *invalid[] = { JIT_CHECK, "--expect-invalid", c->json, c->chains, NULL };

	c->check = capture(expect_invalid ? invalid : plain, &c->check_status);
	cr_assert(strstr(c->check, "jit-check: counts "), "jit-check (status %d): %s",
		  c->check_status, c->check);
}

/* A value of jit-check's "counts" line: " KEY=N". */
static long count(const struct jit_case *c, const char *key)
{
	const char *line = strstr(c->check, "jit-check: counts ");
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = line ? strstr(line, pat) : NULL;
	cr_assert(p, "no %s in: %s", key, c->check);
	return strtol(p + strlen(pat), NULL, 10);
}

/* Every JIT stack the true chain, none stopped by an invalid table, at least @min. */
static void assert_all_equal(const struct jit_case *c, long min)
{
	cr_assert_eq(c->check_status, 0, "jit-check: %s\nprogram: %s", c->check, c->r.out);
	cr_assert_eq(count(c, "mismatches"), 0, "%s", c->check);
	cr_assert_eq(count(c, "invalid"), 0, "%s", c->check);
	cr_assert_geq(count(c, "jit_stacks"), min, "%s", c->check);
	cr_assert_eq(count(c, "equal") + count(c, "excluded") + count(c, "past_copy"),
		     count(c, "jit_stacks"), "%s", c->check);
	/*
	 * a stack that differs only in frames read past a ring sample's copy (a
	 * copy the kernel cut short at a page it could not fault in) is the
	 * ring's known limit, not judged: 1 in about 1 300 in a ten-run loop;
	 * more than 1 in 20 would be a walk that reads past the copy as a rule
	 */
	cr_assert_leq(count(c, "past_copy") * 20, count(c, "jit_stacks"), "%s", c->check);
}

static void case_free(struct jit_case *c)
{
	char map[64];

	/* the demo's perf maps, one per process it ran */
	for (int i = 0; i < c->r.nrows; i++) {
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", c->r.rows[i].pid);
		unlink(map);
	}
	unlink(c->json);
	unlink(c->chains);
	rmdir(c->dir);
	free(c->check);
	run_free(&c->r);
}

/* Lines of @text containing @needle. */
static int lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

Test(jit, demo_stacks_are_the_true_chains)
{
	struct jit_case c;

	case_init(&c);
	case_run(&c, ARGS("--no-crosscheck"),
		 ARGS("--threads", "3", "--seconds", "1", "--table-fres", "4096"));
	cr_assert_eq(c.r.status, 0, "%s%s", c.r.out, c.r.log);
	cr_assert(strstr(c.r.out, "jit-demo: demo: 3 threads,"), "%s", c.r.out);
	cr_assert(strstr(c.r.out, ", registered\n"), "%s", c.r.out);
	case_check(&c, false);
	assert_all_equal(&c, 200);
	/* registered: every step from a JIT frame by the JIT tables */
	cr_assert_eq(count(&c, "jit_steps"), count(&c, "equal"), "%s", c.check);
	cr_assert_geq(count(&c, "chains_sampled"), 50, "%s", c.check);
	cr_assert_geq(count(&c, "tables_sampled"), 2, "%s", c.check);
	/* every function spins in its body: walks that start in JIT code */
	cr_assert_geq(count(&c, "frame0_jit"), 50, "%s", c.check);
	case_free(&c);
}

/*
 * --verify holds the demo's JIT entries to its code, each function the
 * first time a sample walks through it: every one true, so the JIT object
 * has rows and instructions checked and no finding, beside the program's
 * own object.
 */
Test(jit, demo_tables_verified_against_the_code)
{
	json_t *root, *o, *jit = NULL;
	struct jit_case c;
	size_t i;

	case_init(&c);
	case_run(&c, ARGS("--no-crosscheck", "--verify"), ARGS("--threads", "2", "--seconds", "1"));
	cr_assert_eq(c.r.status, 0, "%s%s", c.r.out, c.r.log);
	root = json_load_file(c.json, 0, NULL);
	cr_assert_not_null(root);
	json_array_foreach(json_object_get(root, "verify"), i, o)
		if (json_object_get(o, "jit"))
			jit = o;
	cr_assert_not_null(jit, "%s", c.r.log);
	cr_assert_eq(json_integer_value(json_object_get(jit, "mismatches")), 0, "%s", c.r.log);
	cr_assert_eq(json_integer_value(json_object_get(jit, "undecided")), 0, "%s", c.r.log);
	cr_assert_geq(json_integer_value(json_object_get(jit, "rows")), 10);
	cr_assert_geq(json_integer_value(json_object_get(jit, "decided")), 50);
	/* the program's own SFrame may have findings of the toolchain's (gas 2.44's .plt.got) */
	cr_assert(strstr(c.r.log, "codectl-run: verify: 2 objects checked, "), "%s", c.r.log);
	json_decref(root);
	case_free(&c);
}

Test(jit, tables_growing_while_sampled_never_show_unpublished_entries)
{
	unsigned long fns = 0, chains = 0, tables = 0;
	struct jit_case c;
	const char *p;

	case_init(&c);
	case_run(&c, ARGS("--no-crosscheck", "-F", "1000"),
		 ARGS("--mode", "grow", "--threads", "2", "--seconds", "4", "--functions", "100000",
		      "--table-fres", "16384"));
	cr_assert_eq(c.r.status, 0, "%s%s", c.r.out, c.r.log);
	p = strstr(c.r.out, "jit-demo: grow: ");
	cr_assert(p && sscanf(p, "jit-demo: grow: %lu functions appended in %lu chains, %lu tables",
			      &fns, &chains, &tables) == 3, "%s", c.r.out);
	cr_assert_eq(fns, 100000);
	cr_assert(strstr(p, "poisoned ahead"), "%s", c.r.out);
	/* ~3.5 FREs a function, 16384 a table */
	cr_assert_geq(tables, 20, "%s", c.r.out);
	case_check(&c, false);
	assert_all_equal(&c, 200);
	cr_assert_eq(count(&c, "jit_steps"), count(&c, "equal"), "%s", c.check);
	/* samples through chains in several tables: the chaining happened under sampling */
	cr_assert_geq(count(&c, "tables_sampled"), 5, "%s", c.check);
	case_free(&c);
}

Test(jit, million_functions_in_chained_tables_one_registration)
{
	unsigned long fns = 0, chains = 0, tables = 0, per = 0, t[3];
	unsigned long ch[3];
	const struct summary_row *row;
	struct jit_case c;
	const char *p;

	case_init(&c);
	/* a lookup in the last table passes all 54 headers: 500 Hz, so that none is dropped */
	case_run(&c, ARGS("--no-loader-module", "--no-crosscheck", "--trace", "-F", "500"),
		 ARGS("--mode", "big", "--functions", "1000000", "--table-fres", "65536",
		      "--seconds", "1"));
	cr_assert_eq(c.r.status, 0, "%s%s", c.r.out, c.r.log);
	p = strstr(c.r.out, "jit-demo: big: ");
	cr_assert(p && sscanf(p, "jit-demo: big: %lu functions in %lu chains, %lu tables of %lu",
			      &fns, &chains, &tables, &per) == 4, "%s", c.r.out);
	cr_assert_eq(fns, 1000000);
	cr_assert_eq(per, 65536);
	cr_assert_geq(tables, 16, "%s", c.r.out);
	p = strstr(c.r.out, "jit-demo: big: ran chains ");
	cr_assert(p && sscanf(p, "jit-demo: big: ran chains %lu (table %lu), %lu (table %lu), "
			      "%lu (table %lu)", &ch[0], &t[0], &ch[1], &t[1], &ch[2], &t[2]) == 6,
		  "%s", c.r.out);
	cr_assert_eq(t[0], 0);
	cr_assert(t[1] > 0 && t[1] < tables - 1, "%s", c.r.out);
	cr_assert_eq(t[2], tables - 1);
	/* one system call: the registration; the tables were chained without any */
	cr_assert_eq(lines_with(c.r.log, "codectl("), 1, "%s", c.r.log);
	cr_assert_eq(lines_with(c.r.log, "codectl(CODE_REGISTER_JIT, "), 1, "%s", c.r.log);
	cr_assert(strstr(c.r.log, ", 24, 0) = 0\n"), "%s", c.r.log);
	row = run_first_row(&c.r);
	cr_assert(row, "%s", c.r.log);
	cr_assert_eq(row->accepted, 1);
	cr_assert_eq(row->rejected, 0);
	case_check(&c, false);
	assert_all_equal(&c, 100);
	/* the first, the middle and the last table, each sampled */
	cr_assert_eq(count(&c, "chains"), 3, "%s", c.check);
	cr_assert_eq(count(&c, "chains_sampled"), 3, "%s", c.check);
	cr_assert_eq(count(&c, "tables_sampled"), 3, "%s", c.check);
	cr_assert_eq(count(&c, "jit_steps"), count(&c, "equal"), "%s", c.check);
	case_free(&c);
}

Test(jit, unregister_while_a_thread_runs_jit_code)
{
	const struct summary_row *row;
	struct jit_case c;

	case_init(&c);
	case_run(&c, ARGS("--no-loader-module", "--no-crosscheck", "--registry-dump"),
		 ARGS("--mode", "unregister", "--seconds", "2"));
	/* codectl-run exits with the program's status: the thread finished, nothing crashed */
	cr_assert_eq(c.r.status, 0, "%s%s", c.r.out, c.r.log);
	cr_assert(strstr(c.r.out, "codectl(CODE_UNREGISTER) = 0 while a thread was in chain 0; "
			 "then chain 1;"), "%s", c.r.out);
	row = run_first_row(&c.r);
	cr_assert(row, "%s", c.r.log);
	cr_assert_eq(row->accepted, 1);
	cr_assert_eq(row->unregistered, 1);
	cr_assert_eq(row->rejected, 0);
	/* the registry at exit: the exec-time registration, no JIT code area */
	cr_assert(strstr(c.r.log, "codectl-run: registry pid "), "%s", c.r.log);
	cr_assert_null(strstr(c.r.log, " jit=0x"), "%s", c.r.log);
	case_check(&c, false);
	assert_all_equal(&c, 100);
	/* chain 0 by the tables before, chain 1 (compiled after) by frame pointers only */
	cr_assert_gt(count(&c, "jit_steps"), 0, "%s", c.check);
	cr_assert_gt(count(&c, "fp_steps"), 0, "%s", c.check);
	cr_assert_gt(count(&c, "expect_fp"), 0, "%s", c.check);
	case_free(&c);
}

Test(jit, forked_child_registers_its_own_area)
{
	const struct summary_row *parent, *child;
	int child_pid = 0;
	struct jit_case c;
	const char *p;

	case_init(&c);
	case_run(&c, ARGS("--no-loader-module", "--no-crosscheck"),
		 ARGS("--mode", "fork", "--threads", "2", "--seconds", "1"));
	cr_assert_eq(c.r.status, 0, "%s%s", c.r.out, c.r.log);
	p = strstr(c.r.out, "jit-demo: fork: child ");
	cr_assert(p && sscanf(p, "jit-demo: fork: child %d:", &child_pid) == 1, "%s", c.r.out);
	cr_assert(strstr(p, "the parent's chain run too; registered"), "%s", c.r.out);
	parent = run_first_row(&c.r);
	child = run_row(&c.r, child_pid);
	cr_assert(parent && child && parent != child, "%s", c.r.log);
	/* each registered one area: the child's own call, the parent's copied at fork */
	cr_assert_eq(parent->accepted, 1);
	cr_assert_eq(child->accepted, 1);
	cr_assert_eq(child->rejected, 0);
	case_check(&c, false);
	/* the chains file is the child's: only its stacks are compared */
	assert_all_equal(&c, 100);
	cr_assert_eq(count(&c, "jit_steps"), count(&c, "equal"), "%s", c.check);
	/* through its own area and through the parent's (inherited registration) */
	cr_assert_eq(count(&c, "areas_sampled"), 2, "%s", c.check);
	case_free(&c);
}

/* Stops in the JSON that start with @prefix, and of those, how many are exactly @name. */
static void count_stops(const char *path, const char *prefix, const char *name, size_t *with,
			size_t *exact)
{
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e), *s;
	size_t i;

	cr_assert(j, "%s: %s", path, e.text);
	*with = *exact = 0;
	json_array_foreach(json_object_get(j, "stacks"), i, s) {
		const char *stop = json_string_value(json_object_get(s, "stop"));

		if (!stop || strncmp(stop, prefix, strlen(prefix)))
			continue;
		(*with)++;
		*exact += !strcmp(stop, name);
	}
	json_decref(j);
}

/* samples.jit_table_invalid.@what of the report JSON, -1 when missing */
static long json_stop_count(const char *path, const char *what)
{
	json_t *j = json_load_file(path, 0, NULL);
	json_t *n = json_object_get(json_object_get(json_object_get(j, "samples"),
						    "jit_table_invalid"), what);
	long v = json_is_integer(n) ? (long)json_integer_value(n) : -1;

	json_decref(j);
	return v;
}

Test(jit, unsorted_table_stops_walks_and_the_run_goes_on)
{
	size_t invalid, unsorted;
	struct jit_case c;

	case_init(&c);
	case_run(&c, ARGS("--no-crosscheck", "--check"),
		 ARGS("--mode", "corrupt", "--threads", "2", "--seconds", "2"));
	cr_assert_eq(c.r.status, 3, "--check fails: %s%s", c.r.out, c.r.log);
	cr_assert(strstr(c.r.out, "set to ip_off 0 (unsorted) halfway"), "%s", c.r.out);
	cr_assert(strstr(c.r.log, " walks stopped at a table breaking codectl(2)'s rules: "
			 "jit-table-invalid: unsorted "), "%s", c.r.log);
	case_check(&c, true);
	cr_assert_eq(c.check_status, 0, "%s", c.check);
	cr_assert_eq(count(&c, "mismatches"), 0, "%s", c.check);
	/* before the corruption: the true chains; after it: walks stopped at the table */
	cr_assert_gt(count(&c, "equal"), 0, "%s", c.check);
	cr_assert_gt(count(&c, "invalid"), 0, "%s", c.check);
	count_stops(c.json, "jit-table-invalid", "jit-table-invalid: unsorted", &invalid,
		    &unsorted);
	/* the checker counts those of JIT stacks; every walk that stopped, on the corruption */
	cr_assert_geq((long)invalid, count(&c, "invalid"));
	cr_assert_eq(unsorted, invalid, "%zu of %zu invalid stops are \"unsorted\"", unsorted,
		     invalid);
	cr_assert_eq(json_stop_count(c.json, "unsorted"), (long)invalid, "JSON jit_table_invalid");
	case_free(&c);
}

Test(jit, demo_runs_without_codectl_run)
{
	int status;
	char *out = capture(ARGS(JIT_DEMO, "--threads", "2", "--seconds", "0.5", "--no-perf-map"),
			    &status);

	cr_assert_eq(status, 0, "%s", out);
	cr_assert(strstr(out, "jit-demo: registration unavailable (codectl: Function not "
			      "implemented): running unregistered\n"), "%s", out);
	cr_assert(strstr(out, "jit-demo: demo: 2 threads,"), "%s", out);
	free(out);
}
