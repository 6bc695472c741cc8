/* SPDX-License-Identifier: GPL-2.0 */
/* libdemo_shapes: integer polygons for the sampling demo (sampling_demo.c). */
#ifndef LIBDEMO_SHAPES_H
#define LIBDEMO_SHAPES_H

#define SHAPE_MAX_VERTICES 8

struct point {
	int x, y;
};

/* A simple polygon, convex or not, its vertices in order. */
struct shape {
	const char *name;
	int nr;
	struct point v[SHAPE_MAX_VERTICES];
};

typedef void (*shape_visit_fn)(const struct shape *s, void *arg);

/* The bounding box: lo is the lowest x and y, hi the highest. */
void shape_bounds(const struct shape *s, struct point *lo, struct point *hi);
/* Twice the area: an integer, as the vertices are. */
long shape_area2(const struct shape *s);
/* 1 if p is inside (even-odd rule), 0 if not. */
int shape_contains(const struct shape *s, struct point p);
/* How many lattice points of the bounding box are inside. */
long shape_raster(const struct shape *s);
/* Calls fn(&shapes[i], arg) for each of the nr shapes, in order. */
void shapes_for_each(const struct shape *shapes, int nr, shape_visit_fn fn, void *arg);

#endif /* LIBDEMO_SHAPES_H */
