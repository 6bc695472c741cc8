// SPDX-License-Identifier: GPL-2.0
/*
 * libdemo_shapes: integer polygons for the sampling demo, built like the
 * program with -O2 -Wa,--gsframe and no frame pointers. It is where most of
 * the demo's time is spent: at the leaves of the deep tree walk, in the
 * rasterizer thread and in the SIGALRM handler; and shapes_for_each() calls
 * back into the program, which calls into libdemo_sort.
 *
 * The functions call each other through the PLT (they are exported, so
 * interposable), which keeps each one a frame of its own at -O2.
 */
#include "libdemo_shapes.h"

void shape_bounds(const struct shape *s, struct point *lo, struct point *hi)
{
	*lo = s->v[0];
	*hi = s->v[0];
	for (int i = 1; i < s->nr; i++) {
		const struct point *p = &s->v[i];

		if (p->x < lo->x)
			lo->x = p->x;
		if (p->y < lo->y)
			lo->y = p->y;
		if (p->x > hi->x)
			hi->x = p->x;
		if (p->y > hi->y)
			hi->y = p->y;
	}
}

/* The shoelace formula. */
long shape_area2(const struct shape *s)
{
	long a = 0;

	for (int i = 0; i < s->nr; i++) {
		const struct point *p = &s->v[i];
		const struct point *q = &s->v[(i + 1) % s->nr];

		a += (long)p->x * q->y - (long)q->x * p->y;
	}
	return a < 0 ? -a : a;
}

/*
 * Count the edges that a ray from p towards +x crosses: an edge (a, b) that
 * straddles the line y = p.y is crossed if p lies left of it, which for
 * dy = b.y - a.y is (p.x - a.x) * dy < (p.y - a.y) * (b.x - a.x) when dy > 0,
 * the other way round when dy < 0. All in integers, so exact.
 */
int shape_contains(const struct shape *s, struct point p)
{
	int inside = 0;

	for (int i = 0, j = s->nr - 1; i < s->nr; j = i++) {
		const struct point *a = &s->v[i], *b = &s->v[j];
		long dy = b->y - a->y, lhs, rhs;

		if ((a->y > p.y) == (b->y > p.y))
			continue;
		lhs = (long)(p.x - a->x) * dy;
		rhs = (long)(p.y - a->y) * (b->x - a->x);
		if (dy > 0 ? lhs < rhs : lhs > rhs)
			inside = !inside;
	}
	return inside;
}

long shape_raster(const struct shape *s)
{
	struct point lo, hi;
	long n = 0;

	shape_bounds(s, &lo, &hi);
	for (int y = lo.y; y <= hi.y; y++)
		for (int x = lo.x; x <= hi.x; x++)
			n += shape_contains(s, (struct point){ x, y });
	return n;
}

void shapes_for_each(const struct shape *shapes, int nr, shape_visit_fn fn, void *arg)
{
	for (int i = 0; i < nr; i++)
		fn(&shapes[i], arg);
}
