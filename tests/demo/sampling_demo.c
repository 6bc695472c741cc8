// SPDX-License-Identifier: GPL-2.0
/*
 * sampling-demo: the program codectl-run's sampler is shown on.
 *
 * codectl-run samples the threads of a program with SIGPROF and unwinds each
 * stack with the SFrame data of every object. This program and its two
 * libraries, libdemo_shapes.so and libdemo_sort.so, are compiled with
 * -O2 -Wa,--gsframe and, as Debian compiles everything, without frame
 * pointers: SFrame is what unwinds them. Debian's libc has no .sframe, so
 * its frames (qsort, start_thread, the signal trampoline, pthread_join) are
 * left to the frame-pointer fallback, and libc's -O2 code keeps no frame
 * pointers: that is where unwinding may stop short or go astray.
 *
 * Five phases run one after another, about 2 s of wall and CPU time in all.
 * Each prints a line of results (so that no work can be optimized away), the
 * same on every run; the program exits 0, or 1 if phase 5's checks fail.
 * The stacks of each phase, outermost first; [shapes], [sort] and [libc]
 * mark the frames of the libraries, the others are here:
 *
 * 1. recursion: a recursive walk of a tree 200 levels deep, over and over.
 *    Each leaf counts the lattice points inside a polygon, in a library:
 *	main > run_recursion > tree_walk (up to 200 nested)
 *	     > shape_raster [shapes] > shape_contains [shapes]
 *
 * 2. callbacks: function pointers across libraries. The program passes a
 *    callback to libdemo_shapes, which calls it for each shape; the callback
 *    sorts points with libdemo_sort, which calls the program's comparator:
 *	main > run_callbacks > shapes_for_each [shapes] > measure_shape
 *	     > sort_array [sort] > quicksort (recursive) [sort]
 *	     > partition [sort] > by_distance
 *    and, in the final pass over the short runs quicksort leaves,
 *	... > sort_array [sort] > insertion_sort [sort] > by_distance
 *
 * 3. qsort: libc's qsort() calling the program's comparator. Unwinding
 *    from cmp_points outwards has to get through libc without SFrame:
 *	main > run_qsort > qsort [libc] > qsort_r [libc]
 *	     > msort_with_tmp (about 15 nested) [libc] > cmp_points > point_key
 *
 * 4. threads: two threads doing different work while main waits in
 *    pthread_join(). They are named, for the sampler's output:
 *	demo-raster: clone3 [libc] > start_thread [libc] > raster_thread
 *	     > shape_raster [shapes] > shape_contains [shapes]
 *	demo-sort:   clone3 [libc] > start_thread [libc] > sort_thread
 *	     > sort_array [sort] > quicksort [sort] > partition [sort] > cmp_u32
 *
 * 5. signal: the tree walk of phase 1 again, interrupted every 10 ms by
 *    SIGALRM (setitimer(ITIMER_REAL)), 40 times. The handler makes nested
 *    calls of its own, on top of the signal frame, on top of the walk:
 *	main > run_signal > tree_walk (up to 200 nested)
 *	     [> shape_raster [shapes] [> shape_contains [shapes]]]
 *	     > the signal frame (return address: __restore_rt [libc])
 *	     > on_alarm > alarm_digest > digest_shape
 *	     > shape_raster [shapes] > shape_contains [shapes]
 *
 * noinline keeps a function a frame of its own at -O2 and noclone keeps its
 * name (no .constprop or .isra copies); functions called through a pointer,
 * and the libraries' exported functions, are frames of their own anyway.
 * No call that matters is a tail call, so no frame is missing from a stack.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "libdemo_shapes.h"
#include "libdemo_sort.h"

#define noinline __attribute__((noinline, noclone))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The work of each phase: about 0.4 s of it on a current x86-64. */
#define TREE_DEPTH	200
#define RECURSION_WALKS	160
#define CALLBACK_ROUNDS	180
#define CALLBACK_POINTS	2048
#define QSORT_ROUNDS	100
#define QSORT_POINTS	20000
#define RASTER_ROUNDS	400
#define SORT_ROUNDS	40
#define SORT_VALUES	65536
#define NR_ALARMS	40
#define ALARM_USEC	10000

static const struct shape shapes[] = {
	{ "triangle", 3, { { 0, 0 }, { 40, 0 }, { 20, 35 } } },
	{ "square", 4, { { 0, 0 }, { 36, 0 }, { 36, 36 }, { 0, 36 } } },
	{ "kite", 4, { { 20, 0 }, { 35, 15 }, { 20, 40 }, { 5, 15 } } },
	{ "pentagon", 5, { { 20, 0 }, { 40, 15 }, { 32, 40 }, { 8, 40 }, { 0, 15 } } },
	{ "hexagon", 6, { { 10, 0 }, { 30, 0 }, { 40, 20 }, { 30, 40 }, { 10, 40 }, { 0, 20 } } },
	{ "chevron", 6, { { 0, 0 }, { 20, 15 }, { 40, 0 }, { 40, 20 }, { 20, 35 }, { 0, 20 } } },
	{ "arrow", 7, { { 0, 15 }, { 25, 15 }, { 25, 5 }, { 40, 20 }, { 25, 35 }, { 25, 25 },
			{ 0, 25 } } },
	{ "star", 8, { { 20, 0 }, { 25, 15 }, { 40, 20 }, { 25, 25 }, { 20, 40 }, { 15, 25 },
		       { 0, 20 }, { 15, 15 } } },
};

#define NR_SHAPES ((int)ARRAY_SIZE(shapes))

/* One FNV-1a step: results are folded so that their order matters. */
static inline unsigned long mix(unsigned long h, unsigned long v)
{
	return (h ^ v) * 0x100000001b3UL;
}

/* The same pseudo-random numbers on every run. */
static unsigned int next_random(unsigned int *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/* The shapes at three times the size, for the rasterizer thread and the SIGALRM handler. */
static struct shape big_shapes[NR_SHAPES];

static void make_big_shapes(void)
{
	for (int i = 0; i < NR_SHAPES; i++) {
		big_shapes[i] = shapes[i];
		for (int k = 0; k < big_shapes[i].nr; k++) {
			big_shapes[i].v[k].x *= 3;
			big_shapes[i].v[k].y *= 3;
		}
	}
}

/*
 * Phase 1: recursion. The tree is a spine of nodes, each with one leaf
 * hanging off it, ending in a leaf at depth 200. Each leaf holds a shape.
 * Spine node d (at depth d + 1) is tree[2 * d], its leaf tree[2 * d + 1].
 */
struct node {
	const struct node *leaf, *spine;	/* the children of a spine node */
	const struct shape *shape;		/* what a leaf holds */
};

static struct node tree[2 * TREE_DEPTH - 1];
static int tree_max_depth;
static unsigned long tree_checksum;

static void build_tree(void)
{
	int d;

	for (d = 0; d < TREE_DEPTH - 1; d++) {
		tree[2 * d].leaf = &tree[2 * d + 1];
		tree[2 * d].spine = &tree[2 * d + 2];
		tree[2 * d + 1].shape = &shapes[d % NR_SHAPES];
	}
	tree[2 * d].shape = &shapes[d % NR_SHAPES];
}

/* Neither recursive call is a tail call: the walk keeps one frame a level. */
static noinline unsigned long tree_walk(const struct node *n, int depth)
{
	unsigned long h = depth;

	if (depth > tree_max_depth)
		tree_max_depth = depth;
	if (n->shape)
		return mix(h, shape_raster(n->shape));
	h = mix(h, tree_walk(n->leaf, depth + 1));
	return mix(h, tree_walk(n->spine, depth + 1));
}

static noinline void run_recursion(void)
{
	for (int i = 0; i < RECURSION_WALKS; i++)
		tree_checksum = tree_walk(&tree[0], 1);
	printf("recursion: %d walks of a tree %d levels deep: deepest recursion %d, checksum %016lx\n",
	       RECURSION_WALKS, TREE_DEPTH, tree_max_depth, tree_checksum);
}

/*
 * Phase 2: callbacks. For each shape, scatter points over its bounding box
 * and a margin, sort them by distance from its first vertex and count how
 * many of the nearer half are inside.
 */
struct measure {
	const struct shape *shape;
	unsigned int seed;
	long inside;
	unsigned long compares;
	struct point pts[CALLBACK_POINTS];
};

static struct measure measure;

/* The comparator libdemo_sort calls. */
static int by_distance(const void *a, const void *b, void *arg)
{
	const struct measure *m = arg;
	const struct point *p = a, *q = b, *o = &m->shape->v[0];
	long dp = (long)(p->x - o->x) * (p->x - o->x) + (long)(p->y - o->y) * (p->y - o->y);
	long dq = (long)(q->x - o->x) * (q->x - o->x) + (long)(q->y - o->y) * (q->y - o->y);

	if (dp != dq)
		return dp < dq ? -1 : 1;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->y > q->y) - (p->y < q->y);
}

/* The callback shapes_for_each() calls. */
static void measure_shape(const struct shape *s, void *arg)
{
	struct measure *m = arg;
	struct point lo, hi;

	shape_bounds(s, &lo, &hi);
	m->shape = s;
	for (int i = 0; i < CALLBACK_POINTS; i++) {
		m->pts[i].x = lo.x - 8 + (int)(next_random(&m->seed) % (unsigned int)(hi.x - lo.x + 17));
		m->pts[i].y = lo.y - 8 + (int)(next_random(&m->seed) % (unsigned int)(hi.y - lo.y + 17));
	}
	m->compares += sort_array(m->pts, CALLBACK_POINTS, sizeof(m->pts[0]), by_distance, m);
	for (int i = 0; i < CALLBACK_POINTS / 2; i++)
		m->inside += shape_contains(s, m->pts[i]);
}

static noinline void run_callbacks(void)
{
	measure.seed = 1;
	for (int i = 0; i < CALLBACK_ROUNDS; i++)
		shapes_for_each(shapes, NR_SHAPES, measure_shape, &measure);
	printf("callbacks: %d rounds over %d shapes: %ld of the nearer points inside, %lu comparisons\n",
	       CALLBACK_ROUNDS, NR_SHAPES, measure.inside, measure.compares);
}

/* Phase 3: qsort. Points sorted by a key the comparator computes. */
static struct point qsort_pts[QSORT_POINTS];

static noinline long point_key(const struct point *p)
{
	long dx = p->x - 50, dy = p->y - 30;

	return 3 * dx * dx + 2 * dy * dy + dx * dy;
}

/* The comparator libc's qsort() calls. */
static int cmp_points(const void *a, const void *b)
{
	const struct point *p = a, *q = b;
	long kp = point_key(p), kq = point_key(q);

	if (kp != kq)
		return kp < kq ? -1 : 1;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->y > q->y) - (p->y < q->y);
}

static noinline void run_qsort(void)
{
	unsigned int seed = 2;
	unsigned long h = 0;

	for (int r = 0; r < QSORT_ROUNDS; r++) {
		for (int i = 0; i < QSORT_POINTS; i++) {
			qsort_pts[i].x = (int)(next_random(&seed) % 100);
			qsort_pts[i].y = (int)(next_random(&seed) % 60);
		}
		qsort(qsort_pts, QSORT_POINTS, sizeof(qsort_pts[0]), cmp_points);
		h = mix(h, point_key(&qsort_pts[QSORT_POINTS / 2]));
	}
	printf("qsort:     %d sorts of %d points by libc's qsort: median keys checksum %016lx\n",
	       QSORT_ROUNDS, QSORT_POINTS, h);
}

/* Phase 4: threads. One rasterizes the big shapes, the other sorts numbers. */
static long raster_inside;

static void *raster_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "demo-raster");
	for (int r = 0; r < RASTER_ROUNDS; r++)
		for (int i = 0; i < NR_SHAPES; i++)
			raster_inside += shape_raster(&big_shapes[i]);
	return NULL;
}

static unsigned int sort_values[SORT_VALUES];
static unsigned long sort_compares, sort_checksum;

/* The comparator libdemo_sort calls in the sorting thread. */
static int cmp_u32(const void *a, const void *b, void *arg)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	(void)arg;
	return (x > y) - (x < y);
}

static void *sort_thread(void *arg)
{
	unsigned int seed = 3;

	(void)arg;
	pthread_setname_np(pthread_self(), "demo-sort");
	for (int r = 0; r < SORT_ROUNDS; r++) {
		for (int i = 0; i < SORT_VALUES; i++)
			sort_values[i] = next_random(&seed);
		sort_compares += sort_array(sort_values, SORT_VALUES, sizeof(sort_values[0]),
					    cmp_u32, NULL);
		sort_checksum = mix(sort_checksum, sort_values[SORT_VALUES / 2]);
	}
	return NULL;
}

static noinline void run_threads(void)
{
	pthread_t raster, sort;
	int err;

	err = pthread_create(&raster, NULL, raster_thread, NULL);
	if (!err)
		err = pthread_create(&sort, NULL, sort_thread, NULL);
	if (err) {
		fprintf(stderr, "sampling-demo: pthread_create: %s\n", strerror(err));
		exit(1);
	}
	pthread_join(raster, NULL);
	pthread_join(sort, NULL);
	printf("threads:   demo-raster %ld points inside, demo-sort %lu comparisons, checksum %016lx\n",
	       raster_inside, sort_compares, sort_checksum);
}

/*
 * Phase 5: signal. The SIGALRM handler digests the big shapes (about 1 ms of
 * every 10). Alarms still on their way once the timer is stopped are ignored.
 */
static volatile sig_atomic_t alarms;
static volatile unsigned long alarm_result;

static noinline unsigned long digest_shape(const struct shape *s)
{
	return mix(shape_area2(s), shape_raster(s));
}

static noinline unsigned long alarm_digest(void)
{
	unsigned long h = 0;

	for (int i = 0; i < NR_SHAPES; i++)
		h = mix(h, digest_shape(&big_shapes[i]));
	return h;
}

static void on_alarm(int sig)
{
	(void)sig;
	if (alarms == NR_ALARMS)
		return;
	alarm_result = alarm_digest();
	alarms++;
}

static noinline int run_signal(void)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval every = { { 0, ALARM_USEC }, { 0, ALARM_USEC } }, off = { 0 };
	unsigned long h = 0;
	int ok;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &every, NULL)) {
		fprintf(stderr, "sampling-demo: SIGALRM timer: %s\n", strerror(errno));
		exit(1);
	}
	while (alarms < NR_ALARMS)
		h = tree_walk(&tree[0], 1);
	setitimer(ITIMER_REAL, &off, NULL);
	/* Interrupted or interrupting, both computed what they compute undisturbed. */
	ok = h == tree_checksum && alarm_result == alarm_digest();
	printf("signal:    %d SIGALRMs during the tree walk: handler digest %016lx, %s\n",
	       NR_ALARMS, alarm_result, ok ? "both results as without signals" : "WRONG RESULTS");
	return ok;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	build_tree();
	make_big_shapes();
	run_recursion();
	run_callbacks();
	run_qsort();
	run_threads();
	return run_signal() ? 0 : 1;
}
