/* SPDX-License-Identifier: GPL-2.0 */
/* libdemo_sort: a recursive quicksort for the sampling demo (sampling_demo.c). */
#ifndef LIBDEMO_SORT_H
#define LIBDEMO_SORT_H

#include <stddef.h>

/* As qsort_r's: <0, 0 or >0 as a sorts before, with or after b. */
typedef int (*sort_cmp_fn)(const void *a, const void *b, void *arg);

/*
 * Sorts nmemb elements of size bytes at base, as qsort_r() does (not stable).
 * Returns the number of comparisons made.
 */
unsigned long sort_array(void *base, size_t nmemb, size_t size, sort_cmp_fn cmp, void *arg);

#endif /* LIBDEMO_SORT_H */
