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

#endif /* TESTS_TEST_TMP_H */
