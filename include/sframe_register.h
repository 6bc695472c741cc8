/* SPDX-License-Identifier: MIT */
/*
 * sframe_register() and sframe_unregister() wrappers for programs: 0 on
 * success, -1 with errno set on failure (libc syscall() style). Outside
 * codectl-run (and on every kernel so far) they fail with ENOSYS: callers
 * treat that as "not supported" and go on. See sframe_register(2).
 */
#ifndef SFRAME_REGISTER_H
#define SFRAME_REGISTER_H

#include <stddef.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/sframe_setup.h>

/*
 * <unistd.h> declares syscall() only under _DEFAULT_SOURCE or _GNU_SOURCE
 * (the default of gnu11 and of g++), and a header cannot define those: the
 * includer's system headers may already be in. So in strict ISO C (-std=c11)
 * the prototype is given here, libc's own (glibc, musl), unless glibc's
 * <unistd.h> declared it (__USE_MISC).
 */
#if !defined(__cplusplus) && !defined(__USE_MISC) && !defined(CODECTL_SYSCALL_DECLARED)
#define CODECTL_SYSCALL_DECLARED
extern long syscall(long number, ...);
#endif

#ifdef __NR_sframe_register
#define SFRAME_REGISTER_NR __NR_sframe_register
#else
#define SFRAME_REGISTER_NR SFRAME_REGISTER_NR_DEFAULT
#endif
#ifdef __NR_sframe_unregister
#define SFRAME_UNREGISTER_NR __NR_sframe_unregister
#else
#define SFRAME_UNREGISTER_NR SFRAME_UNREGISTER_NR_DEFAULT
#endif

/**
 * sframe_register() - register the section and text @setup describes
 * @size: sizeof(*@setup), SFRAME_SETUP_SIZE_VER0 (any other: EINVAL)
 * Return: 0, or -1 with errno (EINVAL, EFAULT, EEXIST, ENOMEM, ENOSYS; see
 * sframe_register(2)).
 */
static inline long sframe_register(const struct sframe_setup *setup, size_t size)
{
	return syscall(SFRAME_REGISTER_NR, setup, size);
}

/**
 * sframe_unregister() - remove every text range registered with
 *	@setup->sframe_start (the other fields 0)
 * Return: 0, or -1 with errno (EINVAL: size, a field set, or nothing
 * registered with that sframe_start; EFAULT; ENOSYS).
 */
static inline long sframe_unregister(const struct sframe_setup *setup, size_t size)
{
	return syscall(SFRAME_UNREGISTER_NR, setup, size);
}

#endif /* SFRAME_REGISTER_H */
