/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seccomp user-notification side: the filter that traps the entry points'
 * numbers, and the listener that receives calls and answers them
 * (seccomp_unotify(2)).
 */
#ifndef SUPERVISOR_CALLS_NOTIFY_H
#define SUPERVISOR_CALLS_NOTIFY_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

/**
 * struct notify_filter - the BPF program, built before fork (libseccomp)
 * Traps the numbers of struct notify_traps on the native architecture only;
 * every other call and every other architecture (i386, x32) is allowed.
 */
struct notify_filter {
	struct sock_fprog prog;
};

/* Up to this many system call numbers trapped whole. */
#define NOTIFY_MAX_NRS 6

/**
 * struct notify_traps - what the filter traps
 * @nr, @n: system call numbers trapped whatever their arguments
 * @prctl_options: also prctl(2) when its option (the low 32 bits of its first
 *	argument, an int) is one of these @nprctl values; every other prctl
 *	runs natively (an argument-matching rule)
 */
struct notify_traps {
	long nr[NOTIFY_MAX_NRS];
	unsigned int n;
	int prctl_options[2];
	unsigned int nprctl;
};

/** notify_filter_build() - 0, or a negative errno; @f->prog.filter is malloc'd. */
int notify_filter_build(struct notify_filter *f, const struct notify_traps *t);
void notify_filter_free(struct notify_filter *f);

/**
 * notify_filter_load() - install the filter on the calling thread
 * @killable: in: try SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV first; out: set
 *	when the kernel took it (Linux >= 5.19)
 * Return: the listener fd, or a negative errno. Async-signal-safe (runs in
 * the child between fork and exec).
 */
int notify_filter_load(const struct notify_filter *f, bool *killable);

/**
 * struct notifier - the listener and its buffers
 * @req, @resp: sized by SECCOMP_GET_NOTIF_SIZES (libseccomp allocates them)
 * @sync_wakeup: SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP is on (Linux >= 6.6)
 */
struct notifier {
	int fd;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	size_t req_size;
	size_t resp_size;
	bool sync_wakeup;
	bool wait_killable;
};

/** notifier_init() - take @fd; 0 or -ENOMEM. @sync: try sync wake-ups. */
int notifier_init(struct notifier *n, int fd, bool sync);
void notifier_free(struct notifier *n);

/**
 * notifier_receive() - receive one notification into @n->req
 * Call only when poll says the fd is readable (RECV blocks otherwise).
 * Return: 0, -ENOENT or -EINTR (nothing to do: the caller is gone or the
 * wait was interrupted), or another negative errno.
 */
int notifier_receive(struct notifier *n);

/** notifier_id_valid() - is notification @id still waiting for its answer? */
bool notifier_id_valid(const struct notifier *n, uint64_t id);

/**
 * notifier_respond() - answer @id with 0 (@err == 0) or -1 and errno -@err
 * Return: 0 (delivered), -ENOENT (the caller is gone or was interrupted:
 * the answer was not delivered), or another negative errno.
 */
int notifier_respond(struct notifier *n, uint64_t id, int err);

#endif /* SUPERVISOR_CALLS_NOTIFY_H */
