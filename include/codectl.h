/* SPDX-License-Identifier: MIT */
/*
 * codectl() wrapper for programs: the libc-style entry point of codectl(2).
 * Returns 0 on success, -1 with errno set on failure. Outside the codectl-run
 * supervisor (and on every kernel so far) it fails with ENOSYS: callers treat
 * that as "not supported" and go on.
 */
#ifndef CODECTL_H
#define CODECTL_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/codectl.h>

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

#ifdef __NR_codectl
#define CODECTL_NR __NR_codectl
#else
#define CODECTL_NR CODECTL_NR_DEFAULT
#endif

/**
 * codectl() - register or unregister code with the kernel's unwinder
 * @option: one of enum code_opt
 * @info: the option's struct (CODE_UNREGISTER: the text_start, as a pointer)
 * @info_size: bytes of @info (CODE_UNREGISTER: 0)
 * @flags: must be 0
 *
 * Return: 0, or -1 with errno (EINVAL, E2BIG, EFAULT, ENAMETOOLONG, EEXIST,
 * ENOENT, ENOSPC, ENOSYS; see codectl(2)).
 */
static inline long codectl(unsigned int option, void *info, size_t info_size, unsigned int flags)
{
	return syscall(CODECTL_NR, option, info, info_size, flags);
}

#endif /* CODECTL_H */
