/* SPDX-License-Identifier: MIT */
/*
 * eh_frame_register() and eh_frame_unregister() wrappers for programs: 0 on
 * success, -1 with errno set on failure (libc syscall() style). Outside
 * codectl-run (and on every kernel so far) they fail with ENOSYS: callers
 * treat that as "not supported" and go on. See eh_frame_register(2).
 */
#ifndef EH_FRAME_REGISTER_H
#define EH_FRAME_REGISTER_H

#include <stddef.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/eh_frame_setup.h>

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

#ifdef __NR_eh_frame_register
#define EH_FRAME_REGISTER_NR __NR_eh_frame_register
#else
#define EH_FRAME_REGISTER_NR EH_FRAME_REGISTER_NR_DEFAULT
#endif
#ifdef __NR_eh_frame_unregister
#define EH_FRAME_UNREGISTER_NR __NR_eh_frame_unregister
#else
#define EH_FRAME_UNREGISTER_NR EH_FRAME_UNREGISTER_NR_DEFAULT
#endif

/**
 * eh_frame_register() - register the .eh_frame_hdr and text @setup describes
 * @size: sizeof(*@setup), EH_FRAME_SETUP_SIZE_VER0 (any other: EINVAL)
 * Return: 0, or -1 with errno (EINVAL, EFAULT, EEXIST, EOPNOTSUPP, ENOMEM,
 * ENOSYS; see eh_frame_register(2)).
 */
static inline long eh_frame_register(const struct eh_frame_setup *setup, size_t size)
{
	return syscall(EH_FRAME_REGISTER_NR, setup, size);
}

/**
 * eh_frame_unregister() - remove every text range registered with
 *	@setup->eh_frame_hdr_start (the other fields 0)
 * Return: 0, or -1 with errno (EINVAL: size, a field set, or nothing
 * registered with that header; EFAULT; ENOSYS).
 */
static inline long eh_frame_unregister(const struct eh_frame_setup *setup, size_t size)
{
	return syscall(EH_FRAME_UNREGISTER_NR, setup, size);
}

#endif /* EH_FRAME_REGISTER_H */
