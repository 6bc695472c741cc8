// SPDX-License-Identifier: GPL-2.0
/*
 * The sample-walking thread (supervisor/sample/walk_worker.c): it walks only
 * while the loop does not hold the lock, walks everything queued once the
 * lock is let go, and at stop leaves what is still queued to the caller.
 */
#include <criterion/criterion.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/sample/walk_worker.h"

struct queue {
	unsigned int queued;
	unsigned int walked;
};

static bool has_work(void *ctx)
{
	return ((struct queue *)ctx)->queued > 0;
}

static void walk_one(void *ctx)
{
	struct queue *q = ctx;

	q->queued--;
	q->walked++;
}

/* Wait (at most 10 s) until @q has walked @n, reading it under the lock. */
static unsigned int walked_by(struct walk_worker *w, struct queue *q, unsigned int n)
{
	unsigned int seen = 0;

	for (int i = 0; i < 10000 && seen < n; i++) {
		usleep(1000);
		walk_worker_lock(w);
		seen = q->walked;
		walk_worker_unlock(w);
	}
	return seen;
}

Test(walk_worker, walks_only_without_the_loop_holding_the_lock)
{
	struct queue q = { 0 };
	struct walk_worker w;

	cr_assert_eq(walk_worker_start(&w, has_work, walk_one, &q), 0);
	q.queued = 5;		/* the lock is the caller's from the start */
	usleep(20000);
	cr_assert_eq(q.walked, 0);
	walk_worker_unlock(&w);
	cr_assert_eq(walked_by(&w, &q, 5), 5);
	walk_worker_lock(&w);
	cr_assert_eq(q.queued, 0);
	q.queued = 3;
	walk_worker_stop(&w);	/* the lock held: nothing more is walked */
	cr_assert_eq(q.walked, 5);
	cr_assert_eq(q.queued, 3);
	cr_assert(!w.running);
}

Test(walk_worker, not_started_locks_nothing)
{
	struct walk_worker w = { 0 };

	walk_worker_lock(&w);
	walk_worker_unlock(&w);
	walk_worker_stop(&w);
	cr_assert(!w.running);
}
