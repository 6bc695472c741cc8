// SPDX-License-Identifier: GPL-2.0
/*
 * libdemo_sort: a recursive quicksort with a qsort_r()-style comparator, for
 * the sampling demo, built with -O2 -Wa,--gsframe and no frame pointers. Its
 * comparators are in the program, so its stacks go program > libdemo_sort >
 * program. Deliberately plain: median-of-three pivot, Hoare partition, and
 * one insertion sort pass at the end over the short runs quicksort leaves.
 * It calls nothing in libc, so every frame between the program's call and
 * its comparator has SFrame data.
 */
#include "libdemo_sort.h"

#define noinline __attribute__((noinline, noclone))

struct sort_ctx {
	size_t size;
	sort_cmp_fn cmp;
	void *arg;
	unsigned long compares;
};

static inline int compare(struct sort_ctx *c, const char *a, const char *b)
{
	c->compares++;
	return c->cmp(a, b, c->arg);
}

static void swap(char *a, char *b, size_t size)
{
	while (size--) {
		char t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

static noinline void insertion_sort(struct sort_ctx *c, char *base, size_t n)
{
	size_t size = c->size;

	for (size_t i = 1; i < n; i++)
		for (char *p = base + i * size; p > base && compare(c, p - size, p) > 0; p -= size)
			swap(p - size, p, size);
}

/*
 * Puts the median of the first, middle and last elements at base[0] as the
 * pivot, then moves everything not after it to its left and everything not
 * before it to its right. Returns the pivot's final index.
 */
static noinline size_t partition(struct sort_ctx *c, char *base, size_t n)
{
	size_t size = c->size, i = 0, j = n;
	char *mid = base + n / 2 * size, *last = base + (n - 1) * size;

	if (compare(c, mid, base) < 0)
		swap(mid, base, size);
	if (compare(c, last, base) < 0)
		swap(last, base, size);
	if (compare(c, last, mid) < 0)
		swap(last, mid, size);
	swap(base, mid, size);
	for (;;) {
		do
			i++;
		while (i < n && compare(c, base + i * size, base) < 0);
		do
			j--;
		while (compare(c, base + j * size, base) > 0);
		if (i >= j)
			break;
		swap(base + i * size, base + j * size, size);
	}
	swap(base, base + j * size, size);
	return j;
}

/* Leaves runs shorter than 8 unsorted, in their place. */
static noinline void quicksort(struct sort_ctx *c, char *base, size_t n)
{
	size_t p;

	if (n < 8)
		return;
	p = partition(c, base, n);
	quicksort(c, base, p);
	quicksort(c, base + (p + 1) * c->size, n - p - 1);
}

unsigned long sort_array(void *base, size_t nmemb, size_t size, sort_cmp_fn cmp, void *arg)
{
	struct sort_ctx c = { .size = size, .cmp = cmp, .arg = arg };

	quicksort(&c, base, nmemb);
	insertion_sort(&c, base, nmemb);
	return c.compares;
}
