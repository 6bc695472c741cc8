/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the tests keep their files: under $TMPDIR, which make test sets to a
 * directory of each suite's own (removed when the suite passes, named when it
 * fails), else /tmp.
 */
#ifndef TESTS_TEST_TMP_H
#define TESTS_TEST_TMP_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* $TMPDIR, or /tmp. */
static inline const char *test_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

/*
 * test_mkdtemp() - make a fresh directory "$TMPDIR/@prefix-XXXXXX"
 * @buf: receives its path (@size bytes)
 * Returns @buf, or NULL (errno set) when it could not be made.
 */
static inline char *test_mkdtemp(char *buf, size_t size, const char *prefix)
{
	if ((size_t)snprintf(buf, size, "%s/%s-XXXXXX", test_tmpdir(), prefix) >= size)
		return NULL;
	return mkdtemp(buf);
}

/*
 * test_mkstemp() - create and open a fresh file "$TMPDIR/@prefix-XXXXXX"
 * @buf: receives its path (@size bytes)
 * Returns its descriptor, or -1 (errno set).
 */
static inline int test_mkstemp(char *buf, size_t size, const char *prefix)
{
	if ((size_t)snprintf(buf, size, "%s/%s-XXXXXX", test_tmpdir(), prefix) >= size)
		return -1;
	return mkstemp(buf);
}

/*
 * test_mkdtemp_shared() - test_mkdtemp(), made searchable by others (0755),
 * and $TMPDIR too when it is ours: a child running as nobody looks in it
 * Returns @buf, or NULL (errno set).
 */
static inline char *test_mkdtemp_shared(char *buf, size_t size, const char *prefix)
{
	struct stat st;

	if (!test_mkdtemp(buf, size, prefix) || chmod(buf, 0755) || stat(test_tmpdir(), &st))
		return NULL;
	if (!(st.st_mode & S_IXOTH) && st.st_uid == geteuid() &&
	    chmod(test_tmpdir(), (st.st_mode & 07777) | S_IXOTH))
		return NULL;
	return buf;
}

/* test_rmtree() - remove @dir and all it holds. Returns 0, or -1. */
static inline int test_rmtree(const char *dir)
{
	char cmd[PATH_MAX + 16];

	if ((size_t)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir) >= sizeof(cmd))
		return -1;
	return system(cmd) ? -1 : 0;
}

#endif /* TESTS_TEST_TMP_H */
