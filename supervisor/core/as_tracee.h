/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening files on a traced process's behalf, as that process could
 * (codectl-run(1), SECURITY). A path the tracee chose or can influence (the
 * objects it mapped, their debug files, its perf map) is opened only through
 * as_tracee_open(): only a regular file, the last component not followed
 * when it is a symbolic link, never a FIFO or a device (they are looked at
 * through an O_PATH handle and never opened), at most AS_TRACEE_MAX_BYTES,
 * and with the tracee's file-system credentials when they differ from
 * codectl-run's, so that a root codectl-run never opens for a tracee a
 * file it could not open itself. Where a library opens files on its own
 * (libunwind-ptrace), as_tracee_enter() and as_tracee_leave() wrap the call.
 */
#ifndef SUPERVISOR_CORE_AS_TRACEE_H
#define SUPERVISOR_CORE_AS_TRACEE_H

#include <linux/capability.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Larger files are refused: no debug file or perf map comes near it. */
#define AS_TRACEE_MAX_BYTES (1ll << 30)

/**
 * struct as_tracee_creds - what decides which files a process may open
 * @fsuid, @fsgid: its file-system user and group ids
 * @groups, @ngroups: its supplementary groups, sorted (malloc'd, NULL when none)
 * @dac_caps: the bits of CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH in its
 *	effective capabilities (1 << CAP_...)
 */
struct as_tracee_creds {
	uid_t fsuid;
	gid_t fsgid;
	gid_t *groups;
	size_t ngroups;
	uint64_t dac_caps;
};

/**
 * struct as_tracee_id - the process files are opened for, and its credentials
 * @pid: the process
 * @start_time: its start time (/proc/PID/stat, clock ticks), 0 until read:
 *	another process with the same pid later is not taken for it
 * @known: @last holds its credentials when last read
 * @fresh: @last was read during this sample: used without reading again
 * @ours: @last equals codectl-run's credentials (read with it): nothing to
 *	take, no system call made
 * @last: those, used once it is gone (symbols are read after it exits)
 */
struct as_tracee_id {
	pid_t pid;
	unsigned long long start_time;
	bool known;
	bool fresh;
	bool ours;
	struct as_tracee_creds last;
};

/**
 * struct as_tracee - codectl-run's own credentials while a tracee's are worn
 * @worn: as_tracee_enter() changed this thread's credentials
 * @own: ours, restored by as_tracee_leave()
 * @groups_set: our supplementary groups were replaced
 * @own_caps: our capabilities (capget(2), version 3), set back as they were
 */
struct as_tracee {
	bool worn;
	bool groups_set;
	struct as_tracee_creds own;
	struct __user_cap_data_struct own_caps[2];
};

/**
 * as_tracee_creds_of() - the file-system credentials of process @pid, from
 * /proc/PID/status (its thread-group leader's), or ours when @pid is 0
 * @c: filled; release with as_tracee_creds_free()
 *
 * Return: 0, -ESRCH when the process is gone, -EINVAL when its status
 * cannot be parsed, -ENOMEM.
 */
int as_tracee_creds_of(pid_t pid, struct as_tracee_creds *c);

/** as_tracee_creds_free() - release @c's groups (an all-zero @c is fine). */
void as_tracee_creds_free(struct as_tracee_creds *c);

/**
 * as_tracee_enter_creds() - make this thread open files with credentials @c
 * @s: receives what as_tracee_leave() restores
 *
 * Nothing changes when @c equals our own credentials. Otherwise this thread
 * (only: raw system calls, not glibc's all-threads wrappers) takes @c's
 * supplementary groups, fsgid and fsuid, and drops the effective
 * CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH that @c lacks. On success, call
 * as_tracee_leave() before anything else opens a file (calling it after a
 * failure is harmless).
 * Return: 0, or -EPERM when codectl-run cannot take @c (it is not root):
 * then nothing is changed and the caller must not open the file; or the
 * negative errno of reading our own (-ENOMEM).
 */
int as_tracee_enter_creds(struct as_tracee *s, const struct as_tracee_creds *c);

/** as_tracee_id_init() - process @pid, its credentials not read yet. */
void as_tracee_id_init(struct as_tracee_id *t, pid_t pid);

/** as_tracee_id_free() - release what @t keeps (an all-zero @t is fine). */
void as_tracee_id_free(struct as_tracee_id *t);

/**
 * as_tracee_id_new_sample() - a new sample: read @t's credentials again at
 * the next open (within one sample they are read once)
 */
void as_tracee_id_new_sample(struct as_tracee_id *t);

/**
 * as_tracee_enter() - as_tracee_enter_creds() with @t's credentials: read
 * from /proc/PID/status once per sample while the process lives, else (it
 * exited, or its pid is another process's now) the ones read last
 *
 * Return: 0, or the negative errno of as_tracee_creds_of() (-ESRCH: gone
 * before they were ever read) or as_tracee_enter_creds(); nothing is
 * changed then.
 */
int as_tracee_enter(struct as_tracee *s, struct as_tracee_id *t);

/**
 * as_tracee_leave() - restore the credentials as_tracee_enter() changed
 *
 * Restoring what we had cannot fail for a process that could change it;
 * if it does, codectl-run aborts rather than go on with credentials it did
 * not choose.
 */
void as_tracee_leave(struct as_tracee *s);

/**
 * as_tracee_open() - open @path read-only on behalf of process @t
 *
 * The file is looked up with O_PATH|O_NOFOLLOW (a symbolic link as the last
 * component is refused, a FIFO or device is never opened), must be a
 * regular file of at most AS_TRACEE_MAX_BYTES, and is then opened through
 * that handle (O_NONBLOCK while opening, so a lease cannot make it wait),
 * all with @t's credentials (as_tracee_enter()) when they differ from ours.
 * Return: a descriptor (O_CLOEXEC, blocking reads; the caller closes it), or
 * -ELOOP (a symbolic link), -EINVAL (not a regular file), -EFBIG (too
 * large), -EPERM (credentials that cannot be taken), -ESRCH (the process
 * is gone and its credentials were never read), or open(2)'s negative
 * errno (-ENOENT, -EACCES, -EWOULDBLOCK, ...).
 */
int as_tracee_open(struct as_tracee_id *t, const char *path);

#endif /* SUPERVISOR_CORE_AS_TRACEE_H */
