/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The thread that walks queued samples (the references, the verdict) while
 * the event loop answers calls and stops. One lock guards every piece of
 * sampling state and what the walks read of the tracees (their address
 * spaces, registries, oracles): the event loop holds it except while it
 * waits for events, and it comes first: the worker lets the lock go after
 * each walk when the loop waits for it. So a stop or a call waits for one
 * walk at most, as it did when the loop made the walks itself, and the walks
 * run on a CPU of their own instead of the program's.
 */
#ifndef SUPERVISOR_SAMPLE_WALK_WORKER_H
#define SUPERVISOR_SAMPLE_WALK_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/**
 * struct walk_worker - the walking thread and the lock it shares
 * @thread, @running: the thread, started
 * @lock: the sampling state's lock
 * @wake: signalled when the loop lets the lock go and @has_work says so, or to stop
 * @loop_waits: the event loop wants the lock (the worker yields it)
 * @stop: the worker is to return
 * @has_work, @walk_one, @ctx: is a sample to walk now; walk one (under @lock)
 */
struct walk_worker {
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	atomic_bool loop_waits;
	bool stop;
	bool (*has_work)(void *ctx);
	void (*walk_one)(void *ctx);
	void *ctx;
};

/**
 * walk_worker_start() - start the thread (with the caller's signal mask:
 * the signals a signalfd reads stay blocked, synchronous ones are not), the
 * caller holding the lock from now on, as walk_worker_lock() takes it
 * Return: 0, or a negative errno (nothing started: the caller walks itself).
 */
int walk_worker_start(struct walk_worker *w, bool (*has_work)(void *ctx),
		      void (*walk_one)(void *ctx), void *ctx);

/**
 * walk_worker_stop() - stop and join the thread, the caller holding the
 * lock; the caller is alone after it (no lock: it walks what is left
 * itself). Nothing when not running.
 */
void walk_worker_stop(struct walk_worker *w);

/** walk_worker_lock() - take the lock before the worker's next walk (not running: nothing). */
void walk_worker_lock(struct walk_worker *w);

/** walk_worker_unlock() - let it go, waking the worker when work is queued. */
void walk_worker_unlock(struct walk_worker *w);

#endif /* SUPERVISOR_SAMPLE_WALK_WORKER_H */
