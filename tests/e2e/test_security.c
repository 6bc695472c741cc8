// SPDX-License-Identifier: GPL-2.0
/*
 * The files codectl-run opens on a traced program's behalf (codectl-run(1),
 * SECURITY), end to end. SECURITY_LIB is a library stripped of its debug
 * info, with a .gnu_debuglink naming SECURITY_LIB.debug; SECURITY_PROG
 * dlopens a copy of it and spins in it. A FIFO of the debug file's name
 * beside it must not stop codectl-run; a root codectl-run tracing the
 * program running as nobody must not open a debug file nobody cannot read;
 * a debug link naming a directory is not followed. Each run is killed
 * after LIMIT seconds: one that blocks fails.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_helper.h"
#include "test_tmp.h"

#define LIB_NAME "libsecurity-test.so"
#define DEBUG_NAME LIB_NAME ".debug"
#define LIMIT 60

TestSuite(security, .timeout = 240);

__attribute__((format(printf, 1, 2)))
static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* Stacks (--json-all) whose frame 0 is named by the library's own symbols. */
static size_t in_library(const char *json_path)
{
	json_error_t e;
	json_t *j = json_load_file(json_path, 0, &e), *s;
	size_t i, n = 0;
	const char *sym;

	cr_assert(j, "%s: %s", json_path, e.text);
	json_array_foreach(json_object_get(j, "stacks"), i, s) {
		sym = json_string_value(json_object_get(
			json_array_get(json_object_get(s, "frames"), 0), "symbol"));
		n += sym && !strncmp(sym, "security_lib_", 13);
	}
	json_decref(j);
	return n;
}

/*
 * codectl-run -F 999 on SECURITY_PROG spinning 1 s in @lib (as nobody when
 * @as_nobody): it must end by itself, the program too, and most samples
 * be named in the library.
 */
static void run_on(const char *dir, const char *lib, bool as_nobody)
{
	char json[PATH_MAX];
	struct run r;

	snprintf(json, sizeof(json), "%s/report.json", dir);
	if (as_nobody)
		run_codectl_within(&r, (const char *const[]){ "-F", "999", "--json-all", json, "--",
				   SECURITY_PROG, "--as-nobody", lib, "1", NULL }, LIMIT);
	else
		run_codectl_within(&r, (const char *const[]){ "-F", "999", "--json-all", json, "--",
				   SECURITY_PROG, lib, "1", NULL }, LIMIT);
	cr_assert(!r.timed_out, "codectl-run still ran after %d s:\n%s", LIMIT, r.log);
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "spun\n");
	cr_assert_geq(in_library(json), 400, "%s", r.log);	/* of ~999 */
	run_free(&r);
}

/* IN_OPEN events waiting on @fd. */
static int opens(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *e;
	int n = 0;
	ssize_t len;

	while ((len = read(fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + len; p += sizeof(*e) + e->len) {
			e = (const struct inotify_event *)p;
			n += !!(e->mask & IN_OPEN);
		}
	cr_assert(len < 0 && errno == EAGAIN);
	return n;
}

/* Watch @path for opens; the watch is checked to see one. */
static int watch_opens(const char *path)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), probe;

	cr_assert_geq(fd, 0);
	cr_assert_geq(inotify_add_watch(fd, path, IN_OPEN), 0);
	probe = open(path, O_RDONLY);
	cr_assert_geq(probe, 0);
	close(probe);
	cr_assert_eq(opens(fd), 1);
	return fd;
}

Test(security, a_fifo_named_by_the_debug_link_does_not_stop_codectl_run)
{
	char dir[256], lib[PATH_MAX];

	cr_assert(test_mkdtemp_shared(dir, sizeof(dir), "codectl-security"));
	snprintf(lib, sizeof(lib), "%s/" LIB_NAME, dir);
	sh("cp '%s' '%s' && mkfifo '%s/" DEBUG_NAME "'", SECURITY_LIB, lib, dir);
	run_on(dir, lib, false);
	cr_assert_eq(test_rmtree(dir), 0);
}

/*
 * The real debug file, as root's, mode 0600, where the debug link names it:
 * codectl-run as root could open it, the program running as nobody cannot.
 * Without root, the program runs as us and the file is mode 0000 to us.
 */
Test(security, a_debug_file_the_program_cannot_read_is_never_opened)
{
	char dir[256], lib[PATH_MAX], secret[PATH_MAX];
	bool root = geteuid() == 0;
	int fd, n;

	cr_assert(test_mkdtemp_shared(dir, sizeof(dir), "codectl-security"));
	snprintf(lib, sizeof(lib), "%s/" LIB_NAME, dir);
	snprintf(secret, sizeof(secret), "%s/" DEBUG_NAME, dir);
	sh("cp '%s' '%s' && cp '%s.debug' '%s'", SECURITY_LIB, lib, SECURITY_LIB, secret);
	fd = watch_opens(secret);
	cr_assert_eq(chmod(secret, root ? 0600 : 0), 0);
	if (!root)
		cr_log_info("not root: the program runs as us, not as nobody");
	run_on(dir, lib, root);
	n = opens(fd);
	cr_assert_eq(n, 0, "codectl-run opened %s %d times", secret, n);
	close(fd);
	cr_assert_eq(test_rmtree(dir), 0);
}

/* A debug link "../secret/NAME" names a readable file with the right build ID: not followed. */
Test(security, a_debug_link_naming_another_directory_is_not_followed)
{
	char dir[256], link[PATH_MAX], secret[PATH_MAX];
	static const char name[] = "../secret/" DEBUG_NAME;
	char section[sizeof(name) + 8] = { 0 };
	FILE *f;
	int fd, n;

	cr_assert(test_mkdtemp_shared(dir, sizeof(dir), "codectl-security"));
	snprintf(link, sizeof(link), "%s/link.bin", dir);
	snprintf(secret, sizeof(secret), "%s/secret/" DEBUG_NAME, dir);
	memcpy(section, name, sizeof(name));	/* the name, padded to 4 bytes, and a CRC */
	f = fopen(link, "w");
	cr_assert(f);
	cr_assert_eq(fwrite(section, 1, (sizeof(name) + 3) / 4 * 4 + 4, f),
		     (sizeof(name) + 3) / 4 * 4 + 4);
	cr_assert_eq(fclose(f), 0);
	sh("cd '%s' && mkdir -m 755 lib secret && cp '%s.debug' secret/ && "
	   "objcopy --remove-section .gnu_debuglink --add-section .gnu_debuglink=link.bin '%s' "
	   "lib/" LIB_NAME, dir, SECURITY_LIB, SECURITY_LIB);
	sh("readelf -p .gnu_debuglink '%s/lib/" LIB_NAME "' | grep -q '%s'", dir, name);
	fd = watch_opens(secret);
	snprintf(link, sizeof(link), "%s/lib/" LIB_NAME, dir);
	run_on(dir, link, geteuid() == 0);
	n = opens(fd);
	cr_assert_eq(n, 0, "codectl-run opened %s %d times", secret, n);
	close(fd);
	cr_assert_eq(test_rmtree(dir), 0);
}
