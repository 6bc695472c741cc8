/* SPDX-License-Identifier: MIT */
/*
 * stacktrace_setup() wrapper (the April 2026 RFC): 0 on success, -1 with errno
 * set on failure; ENOSYS outside codectl-run. See sframe_register(2).
 */
#ifndef STACKTRACE_SETUP_H
#define STACKTRACE_SETUP_H

#include <unistd.h>
#include <sys/syscall.h>
#include <linux/stacktrace_setup.h>

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

#ifdef __NR_stacktrace_setup
#define STACKTRACE_SETUP_NR __NR_stacktrace_setup
#else
#define STACKTRACE_SETUP_NR STACKTRACE_SETUP_NR_DEFAULT
#endif

/**
 * stacktrace_setup() - STACKTRACE_REGISTER_SFRAME: register the section
 *	[@addr, @addr + @len) for the text [@text, @text + @text_len);
 *	STACKTRACE_UNREGISTER_SFRAME: remove every range registered with @addr
 *	(the other arguments are ignored)
 * Return: 0, or -1 with errno (EINVAL: unknown @op, or as sframe_register()).
 */
static inline long stacktrace_setup(int op, unsigned long addr, unsigned long len,
				    unsigned long text, unsigned long text_len)
{
	return syscall(STACKTRACE_SETUP_NR, op, addr, len, text, text_len);
}

#endif /* STACKTRACE_SETUP_H */
