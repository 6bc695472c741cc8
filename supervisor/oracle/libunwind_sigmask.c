// SPDX-License-Identifier: GPL-2.0
/*
 * The signal masks libunwind sets, answered without a system call.
 *
 * libunwind masks every signal around each use of its register-state cache
 * and of its memory pools (lock_acquire() in its include/libunwind_i.h:
 * sigprocmask(2) before 1.8, pthread_sigmask(3) from 1.8), two system calls
 * per unwind step. Its per-thread cache, which takes no lock, is never
 * enabled by the Debian builds (1.6.2, 1.8.1): unw_set_caching_policy()
 * turns UNW_CACHE_PER_THREAD into UNW_CACHE_GLOBAL unless HAVE___THREAD is
 * defined, and its configure never defines it. Where a system call costs
 * ~1 us those calls are 85 % of a remote walk (bench/sample: 189 us a
 * sample with them, 22 us without).
 *
 * The masking keeps a signal handler that unwinds from deadlocking on those
 * locks. codectl-run installs no signal handler: its signals arrive on a
 * signalfd (main.c), every other one keeps its default action, so the masks
 * libunwind sets change nothing it depends on. A call made from libunwind's
 * code is answered at once: success, the "old" mask full (libunwind only
 * hands it back to the matching call, answered the same way; were it ever
 * handed to the C library instead, it would block signals, never unblock
 * one the signalfd reads). Every other caller gets the C library's
 * function. This file defines the two functions in codectl-run itself,
 * which the dynamic linker binds libunwind's calls to (the link exports
 * them: Makefile, --export-dynamic-symbol).
 *
 * With CODECTL_LIBUNWIND_SIGMASK=libunwind in the environment, libunwind's
 * masks are set as it asks (bench/sample measures it so, as shipped).
 *
 * What it keeps is found once and never changes: the C library's functions
 * and libunwind's code ranges (its objects are loaded with codectl-run).
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANGES 16

typedef int (*mask_fn)(int how, const sigset_t *set, sigset_t *old);

static struct {
	pthread_once_t once;
	mask_fn libc_sigprocmask;
	mask_fn libc_pthread_sigmask;
	unsigned int n;
	uintptr_t lo[MAX_RANGES];
	uintptr_t hi[MAX_RANGES];
} found = { .once = PTHREAD_ONCE_INIT };

/* The executable segments of every object named libunwind*. */
static int note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *name = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;

	(void)size, (void)arg;
	if (!name || strncmp(name + 1, "libunwind", 9))
		return 0;
	for (unsigned int i = 0; i < info->dlpi_phnum && found.n < MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		found.lo[found.n] = info->dlpi_addr + ph->p_vaddr;
		found.hi[found.n] = found.lo[found.n] + ph->p_memsz;
		found.n++;
	}
	return 0;
}

static void find_all(void)
{
	found.libc_sigprocmask = (mask_fn)dlsym(RTLD_NEXT, "sigprocmask");
	found.libc_pthread_sigmask = (mask_fn)dlsym(RTLD_NEXT, "pthread_sigmask");
	if (!getenv("CODECTL_LIBUNWIND_SIGMASK") ||
	    strcmp(getenv("CODECTL_LIBUNWIND_SIGMASK"), "libunwind"))
		dl_iterate_phdr(note_object, NULL);
}

static bool from_libunwind(const void *caller)
{
	uintptr_t pc = (uintptr_t)caller;

	pthread_once(&found.once, find_all);
	for (unsigned int i = 0; i < found.n; i++)
		if (pc >= found.lo[i] && pc < found.hi[i])
			return true;
	return false;
}

/* Is @caller libunwind's code? Then its call is answered: success, @old full. */
static bool answered(const void *caller, sigset_t *old)
{
	if (!from_libunwind(caller))
		return false;
	if (old)
		sigfillset(old);
	return true;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (answered(__builtin_return_address(0), old))
		return 0;
	return found.libc_sigprocmask(how, set, old);
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (answered(__builtin_return_address(0), old))
		return 0;
	return found.libc_pthread_sigmask(how, set, old);
}
