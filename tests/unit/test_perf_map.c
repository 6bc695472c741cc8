// SPDX-License-Identifier: GPL-2.0
/* perf maps (supervisor/oracle/perf_map.c): an untrusted file read by the symbols. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/oracle/perf_map.h"
#include "test_tmp.h"

static char dir[100];

static void make_dir(void)
{
	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-perfmap"));
}

static void remove_dir(void)
{
	cr_assert_eq(test_rmtree(dir), 0);
}

TestSuite(perf_map, .init = make_dir, .fini = remove_dir);

/* "DIR/NAME"; two buffers in turn, so that a call may take two paths. */
static const char *path_of(const char *name)
{
	static char buf[2][128];
	static unsigned int next;
	char *b = buf[next++ % 2];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

static void write_file(const char *name, const char *mode, const char *text)
{
	FILE *f = fopen(path_of(name), mode);

	cr_assert(f);
	cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	cr_assert_eq(fclose(f), 0);
}

/* The name at @addr, "-" for none; start checked against @start when found. */
static const char *at(struct perf_map *m, uint64_t addr, uint64_t start)
{
	uint64_t s = 0;
	const char *name = perf_map_lookup(m, addr, &s);

	if (!name)
		return "-";
	cr_assert_eq(s, start, "0x%llx: start 0x%llx", (unsigned long long)addr,
		     (unsigned long long)s);
	return name;
}

static int parse(const char *line, uint64_t *start, uint64_t *size, char *name, size_t cap)
{
	const char *n;
	size_t len;
	int err = perf_map_parse_line(line, strlen(line), start, size, &n, &len);

	if (!err)
		snprintf(name, cap, "%.*s", (int)len, n);
	return err;
}

Test(perf_map, lines_parse_as_perf_reads_them)
{
	uint64_t start, size;
	char name[64];

	cr_assert_eq(parse("7f0010 2a foo bar", &start, &size, name, sizeof(name)), 0);
	cr_assert_eq(start, 0x7f0010);
	cr_assert_eq(size, 0x2a);
	cr_assert_str_eq(name, "foo bar");
	cr_assert_eq(parse("0x10 0X20\t\tf\r", &start, &size, name, sizeof(name)), 0);
	cr_assert_eq(start, 0x10);
	cr_assert_eq(size, 0x20);
	cr_assert_str_eq(name, "f");
	cr_assert_eq(parse("00000000000000000001000 FF x", &start, &size, name, sizeof(name)), 0);
	cr_assert_eq(start, 0x1000);
	cr_assert_eq(size, 0xff);
	cr_assert_eq(parse("fffffffffffffffe 1 last", &start, &size, name, sizeof(name)), 0);
}

Test(perf_map, malformed_lines_are_refused)
{
	static const char *const bad[] = {
		"", "zz 10 f", "10 f", "10 20", "10 20 ", "10 20 \r", "10 0 f", "0x 10 f",
		"10 0x f", "10,20 f", "ffffffffffffffff 1 f", "fffffffffffffff0 10 f",
		"10000000000000000 1 f", " 10 20 f", "10 -20 f",
	};
	uint64_t start, size;
	char name[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(parse(bad[i], &start, &size, name, sizeof(name)), -EINVAL, "\"%s\"",
			     bad[i]);
}

Test(perf_map, entries_sorted_later_line_wins_bad_lines_skipped)
{
	struct perf_map m;

	write_file("m", "w",
		   "3000 100 third\n"
		   "1000 100 first\n"
		   "garbage line\n"
		   "2000 80 second\n"
		   "2000 100 second_again\n"
		   "1000 0 empty\n"
		   "4000 10 esc\x1b[31m;x\x80y\n");
	perf_map_init(&m, getpid(), path_of("m"));
	cr_assert_str_eq(at(&m, 0x1000, 0x1000), "first");
	cr_assert_eq(m.n, 5);
	cr_assert_eq(m.lines, 7);
	cr_assert_str_eq(at(&m, 0x10ff, 0x1000), "first");
	cr_assert_str_eq(at(&m, 0x1100, 0), "-");
	cr_assert_str_eq(at(&m, 0x2090, 0x2000), "second_again");
	cr_assert_str_eq(at(&m, 0x30ff, 0x3000), "third");
	cr_assert_str_eq(at(&m, 0xfff, 0), "-");
	cr_assert_str_eq(at(&m, 0x4005, 0x4000), "esc?[31m?x?y");
	cr_assert_eq(m.reads, 1);
	perf_map_free(&m);
}

Test(perf_map, appended_lines_read_at_a_miss_once_per_sample)
{
	struct perf_map m;
	off_t first;

	write_file("m", "w", "1000 10 a\n2000 10 b");	/* the last line is not complete */
	perf_map_init(&m, getpid(), path_of("m"));
	cr_assert_str_eq(at(&m, 0x1000, 0x1000), "a");
	cr_assert_str_eq(at(&m, 0x2000, 0), "-");
	cr_assert_eq(m.n, 1);
	first = m.read_off;
	cr_assert_eq(first, 10);
	write_file("m", "a", "b\n3000 10 c\n");
	cr_assert_str_eq(at(&m, 0x3000, 0), "-", "looked at once per sample");
	cr_assert_eq(m.reads, 1);
	perf_map_new_sample(&m);
	cr_assert_str_eq(at(&m, 0x1000, 0x1000), "a");
	cr_assert_eq(m.reads, 1, "a hit does not look at the file");
	cr_assert_str_eq(at(&m, 0x3000, 0x3000), "c");
	cr_assert_eq(m.reads, 2);
	cr_assert_str_eq(at(&m, 0x2000, 0x2000), "bb");
	cr_assert_eq(m.n, 3);
	cr_assert_eq(m.lines, 3);
	cr_assert_eq(m.read_off, 31);
	perf_map_new_sample(&m);
	cr_assert_str_eq(at(&m, 0x5000, 0), "-");
	cr_assert_eq(m.reads, 2, "unchanged: not read again");
	perf_map_free(&m);
}

Test(perf_map, lines_appended_out_of_order_are_merged_in)
{
	static const uint64_t want[] = { 0x1000, 0x1800, 0x2000, 0x2800, 0x3000, 0x4000 };
	struct perf_map m;

	write_file("m", "w", "2000 10 b\n4000 10 d\n");
	perf_map_init(&m, getpid(), path_of("m"));
	cr_assert_str_eq(at(&m, 0x2000, 0x2000), "b");
	/* a JIT's threads append in any order, before and between the entries read */
	write_file("m", "a", "3000 10 c\n1800 10 a2\n2800 10 b2\n1000 10 a\n");
	perf_map_new_sample(&m);
	cr_assert_str_eq(at(&m, 0x1000, 0x1000), "a");
	cr_assert_eq(m.n, 6);
	for (size_t i = 0; i < m.n; i++)
		cr_assert_eq(m.v[i].start, want[i], "entry %zu", i);
	cr_assert_str_eq(at(&m, 0x1805, 0x1800), "a2");
	cr_assert_str_eq(at(&m, 0x2805, 0x2800), "b2");
	cr_assert_str_eq(at(&m, 0x4005, 0x4000), "d");
	perf_map_free(&m);
}

Test(perf_map, a_replaced_or_shorter_file_is_read_again_whole)
{
	struct perf_map m;

	write_file("m", "w", "1000 10 old\n");
	perf_map_init(&m, getpid(), path_of("m"));
	cr_assert_str_eq(at(&m, 0x1000, 0x1000), "old");
	write_file("m2", "w", "2000 10 new\n");
	cr_assert_eq(rename(path_of("m2"), path_of("m")), 0);
	perf_map_new_sample(&m);
	cr_assert_str_eq(at(&m, 0x2000, 0x2000), "new");
	cr_assert_str_eq(at(&m, 0x1000, 0), "-");
	cr_assert_eq(m.n, 1);
	write_file("m", "w", "3000 1 x\n");	/* truncated, shorter */
	perf_map_new_sample(&m);
	cr_assert_str_eq(at(&m, 0x3000, 0x3000), "x");
	cr_assert_str_eq(at(&m, 0x2000, 0), "-");
	cr_assert_eq(m.n, 1);
	perf_map_free(&m);
}

Test(perf_map, too_long_lines_are_skipped_to_their_end)
{
	size_t len = PERF_MAP_CHUNK + 5000;
	char *text = malloc(len + 64);
	struct perf_map m;
	int n;

	cr_assert(text);
	n = sprintf(text, "1000 10 ");
	memset(text + n, 'x', len);
	sprintf(text + n + len, "\n2000 10 ok\n");
	write_file("m", "w", text);
	memset(text, 'y', PERF_MAP_MAX_LINE + 1);	/* one byte too long, then a good line */
	memcpy(text, "3000 10 ", 8);
	strcpy(text + PERF_MAP_MAX_LINE + 1, "\n4000 10 fine\n");
	write_file("m", "a", text);
	perf_map_init(&m, getpid(), path_of("m"));
	cr_assert_str_eq(at(&m, 0x2000, 0x2000), "ok");
	cr_assert_str_eq(at(&m, 0x4000, 0x4000), "fine");
	cr_assert_str_eq(at(&m, 0x1000, 0), "-");
	cr_assert_str_eq(at(&m, 0x3000, 0), "-");
	cr_assert_eq(m.n, 2);
	perf_map_free(&m);
	free(text);
}

Test(perf_map, read_up_to_the_size_cap)
{
	struct perf_map m;

	write_file("m", "w", "1000 10 a\n2000 10 b\n3000 10 c\n");
	perf_map_init(&m, getpid(), path_of("m"));
	m.max_bytes = 25;	/* the first two lines and half the third */
	cr_assert_str_eq(at(&m, 0x3000, 0), "-");
	cr_assert_str_eq(at(&m, 0x2000, 0x2000), "b");
	cr_assert_eq(m.n, 2);
	cr_assert_eq(m.read_off, 20);
	cr_assert_str_eq(m.problem, "larger than the 64 MiB read: the rest is not read");
	perf_map_free(&m);
}

Test(perf_map, links_fifos_and_directories_are_refused)
{
	struct perf_map m;

	write_file("real", "w", "1000 10 a\n");
	cr_assert_eq(symlink(path_of("real"), path_of("link")), 0);
	perf_map_init(&m, getpid(), path_of("link"));
	cr_assert_str_eq(at(&m, 0x1000, 0), "-");
	cr_assert_eq(m.reads, 0);
	cr_assert_str_eq(m.problem, "a symbolic link: not followed");
	perf_map_free(&m);
	cr_assert_eq(mkfifo(path_of("fifo"), 0600), 0);
	perf_map_init(&m, getpid(), path_of("fifo"));	/* opened without blocking */
	cr_assert_str_eq(at(&m, 0x1000, 0), "-");
	cr_assert_eq(m.reads, 0);
	cr_assert_str_eq(m.problem, "not a regular file: not read");
	perf_map_free(&m);
	perf_map_init(&m, getpid(), dir);
	cr_assert_str_eq(at(&m, 0x1000, 0), "-");
	cr_assert_eq(m.reads, 0);
	perf_map_free(&m);
}

Test(perf_map, a_file_of_another_user_is_refused)
{
	struct perf_map m;

	if (geteuid() != 0)
		cr_skip_test("needs root to give the file away");
	write_file("m", "w", "1000 10 a\n");
	cr_assert_eq(chown(path_of("m"), 4242, 4242), 0);
	perf_map_init(&m, getpid(), path_of("m"));
	cr_assert_str_eq(at(&m, 0x1000, 0), "-");
	cr_assert_eq(m.reads, 0);
	cr_assert_str_eq(m.problem, "owned by a user other than the program's or ours: not read");
	perf_map_free(&m);
}

/* A child running as nobody when we are root; else (not root) ourselves. */
static pid_t child_as_nobody(void)
{
	pid_t pid, parent = getpid();
	char c = 0;
	int p[2];

	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		c = setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) ? 'n' : 'y';
		/* gone with the test, whatever it asserts (set after: new uids clear it) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		if (write(p[1], &c, 1) == 1)
			pause();
		_exit(0);
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	cr_assert_eq(c, 'y');
	return pid;
}

/*
 * Opened with the program's credentials (as_tracee_open()): root's file,
 * mode 0600, is not read for a program running as nobody, though it would
 * pass the owner rule (ours). Without root: our own file, mode 0000.
 */
Test(perf_map, a_file_the_program_cannot_read_is_not_read)
{
	bool root = geteuid() == 0;
	pid_t pid = root ? child_as_nobody() : getpid();
	struct perf_map m;
	int st;

	write_file("m", "w", "1000 10 a\n");
	cr_assert_eq(chmod(path_of("m"), root ? 0600 : 0), 0);
	cr_assert_eq(chmod(dir, 0755), 0);
	perf_map_init(&m, pid, path_of("m"));
	cr_assert_str_eq(at(&m, 0x1000, 0), "-");
	cr_assert_eq(m.reads, 0);
	cr_assert_str_eq(m.problem, "not readable by the program: not read");
	perf_map_free(&m);
	if (root) {
		kill(pid, SIGKILL);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
	}
}

Test(perf_map, a_file_over_1_gib_is_not_read)
{
	struct perf_map m;

	write_file("m", "w", "1000 10 a\n");
	cr_assert_eq(truncate(path_of("m"), (1ll << 30) + 1), 0);
	perf_map_init(&m, getpid(), path_of("m"));
	cr_assert_str_eq(at(&m, 0x1000, 0), "-");
	cr_assert_eq(m.reads, 0);
	cr_assert_str_eq(m.problem, "larger than 1 GiB: not read");
	perf_map_free(&m);
}

Test(perf_map, default_path_and_missing_file)
{
	struct perf_map m;

	perf_map_init(&m, 4242, NULL);
	cr_assert_str_eq(m.path, "/tmp/perf-4242.map");
	perf_map_free(&m);
	perf_map_init(&m, getpid(), path_of("none"));
	cr_assert_str_eq(at(&m, 0x1000, 0), "-");
	cr_assert_eq(m.reads, 0);
	perf_map_free(&m);
}
