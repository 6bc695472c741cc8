/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's counting trees (tsearch(3)): each entry is a struct whose
 * first member is its key, a malloc'd string, followed by its counts.
 */
#ifndef SUPERVISOR_REPORT_KEYED_H
#define SUPERVISOR_REPORT_KEYED_H

#include <stddef.h>

/** keyed_find() - the entry keyed @key in @root, or NULL. */
void *keyed_find(void *const *root, const char *key);

/**
 * keyed_entry() - the entry keyed @key in @root, created zeroed (@size
 * bytes, its key a copy of @key) when new; NULL on ENOMEM
 */
void *keyed_entry(void **root, const char *key, size_t size);

/**
 * keyed_sorted() - every entry of @root in an array sorted by @cmp (which
 * compares pointers to entry pointers), *@n of them; the caller frees the
 * array (not the entries). NULL when empty or on ENOMEM.
 */
void **keyed_sorted(const void *root, size_t *n, int (*cmp)(const void *, const void *));

/** keyed_free() - free every entry of @root and its key (entries holding nothing else). */
void keyed_free(void *root);

#endif /* SUPERVISOR_REPORT_KEYED_H */
