// SPDX-License-Identifier: GPL-2.0
/* The report's counting trees, keyed by the string each entry starts with. */
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "keyed.h"

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void *keyed_find(void *const *root, const char *key)
{
	char *k = (char *)key;
	void *slot = tfind(&k, root, cmp_key);

	return slot ? *(void **)slot : NULL;
}

void *keyed_entry(void **root, const char *key, size_t size)
{
	char **e = keyed_find(root, key);

	if (e)
		return e;
	e = calloc(1, size);
	if (!e)
		return NULL;
	*e = strdup(key);
	if (!*e || !tsearch(e, root, cmp_key)) {
		free(*e);
		free(e);
		return NULL;
	}
	return e;
}

/* Collecting a tree's entries into an array, with twalk_r(3). */
struct collect {
	void **v;
	size_t n;
	size_t cap;
};

static void collect_node(const void *node, VISIT which, void *arg)
{
	struct collect *c = arg;
	void **grown;

	if (which != postorder && which != leaf)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		grown = realloc(c->v, c->cap * sizeof(*c->v));
		if (!grown) {
			c->cap = c->n;
			return;
		}
		c->v = grown;
	}
	c->v[c->n++] = *(void *const *)node;
}

void **keyed_sorted(const void *root, size_t *n, int (*cmp)(const void *, const void *))
{
	struct collect c = { 0 };

	twalk_r(root, collect_node, &c);
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp);
	*n = c.n;
	return c.v;
}

static void free_keyed(void *node)
{
	char **key = node;

	free(*key);
	free(node);
}

void keyed_free(void *root)
{
	tdestroy(root, free_keyed);
}
