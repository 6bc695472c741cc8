// SPDX-License-Identifier: GPL-2.0
/* The sample-walking thread and its lock (walk_worker.h). */
#include <errno.h>

#include "walk_worker.h"

static void *run(void *arg)
{
	struct walk_worker *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		if (atomic_load(&w->loop_waits) || !w->has_work(w->ctx))
			pthread_cond_wait(&w->wake, &w->lock);
		else
			w->walk_one(w->ctx);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int walk_worker_start(struct walk_worker *w, bool (*has_work)(void *ctx),
		      void (*walk_one)(void *ctx), void *ctx)
{
	int err;

	*w = (struct walk_worker){ .has_work = has_work, .walk_one = walk_one, .ctx = ctx };
	atomic_init(&w->loop_waits, false);
	if (pthread_mutex_init(&w->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&w->wake, NULL)) {
		pthread_mutex_destroy(&w->lock);
		return -ENOMEM;
	}
	pthread_mutex_lock(&w->lock);
	/* the caller's signal mask: the signals its signalfd reads stay blocked */
	err = pthread_create(&w->thread, NULL, run, w);
	if (err) {
		pthread_mutex_unlock(&w->lock);
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		return -err;
	}
	w->running = true;
	return 0;
}

void walk_worker_stop(struct walk_worker *w)
{
	if (!w->running)
		return;
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->running = false;
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
}

void walk_worker_lock(struct walk_worker *w)
{
	if (!w->running)
		return;
	atomic_store(&w->loop_waits, true);
	pthread_mutex_lock(&w->lock);
	atomic_store(&w->loop_waits, false);
}

void walk_worker_unlock(struct walk_worker *w)
{
	if (!w->running)
		return;
	if (w->has_work(w->ctx))
		pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}
