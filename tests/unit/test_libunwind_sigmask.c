// SPDX-License-Identifier: GPL-2.0
/*
 * The signal masks libunwind sets, answered in-process
 * (supervisor/oracle/libunwind_sigmask.c, linked and exported here as in
 * codectl-run): a remote walk makes no rt_sigprocmask system call (a
 * seccomp filter kills the walking process if it makes one), and every
 * other caller's masks are set as it asks.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <libunwind-ptrace.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

Test(libunwind_sigmask, other_callers_set_their_masks)
{
	sigset_t usr1, old, now;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	cr_assert_eq(sigprocmask(SIG_BLOCK, &usr1, &old), 0);
	cr_assert_eq(sigprocmask(SIG_SETMASK, NULL, &now), 0);
	cr_assert_eq(sigismember(&now, SIGUSR1), 1);
	cr_assert_eq(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);
	cr_assert_eq(pthread_sigmask(SIG_SETMASK, NULL, &now), 0);
	cr_assert_eq(sigismember(&now, SIGUSR1), sigismember(&old, SIGUSR1));
	errno = 0;
	cr_assert_eq(sigprocmask(-1, &usr1, NULL), -1);	/* the C library's answer */
	cr_assert_eq(errno, EINVAL);
}

__attribute__((noinline)) static void spin(volatile unsigned long *n)
{
	for (;;)
		(*n)++;
}

__attribute__((noinline)) static void spin_caller(void)
{
	volatile unsigned long n = 0;

	spin(&n);
}

/* This process is killed at its next rt_sigprocmask system call. */
static int forbid_sigprocmask(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigprocmask, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* Stop a child of its own in spin() and walk it with libunwind-ptrace: exit 0 with >= 3 frames. */
static int walker(void)
{
	pid_t t = fork();
	unw_addr_space_t as;
	unw_cursor_t cur;
	int status, n = 0;
	void *upt;

	if (t == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* the walker killed: this too */
		spin_caller();
	}
	if (t < 0 || ptrace(PTRACE_SEIZE, t, 0, 0))
		return 2;
	usleep(20000);
	if (ptrace(PTRACE_INTERRUPT, t, 0, 0) || waitpid(t, &status, __WALL) != t)
		return 2;
	as = unw_create_addr_space(&_UPT_accessors, 0);
	upt = _UPT_create(t);
	if (!as || !upt || unw_set_caching_policy(as, UNW_CACHE_GLOBAL) || forbid_sigprocmask())
		return 2;
	if (unw_init_remote(&cur, as, upt) == 0)
		do
			n++;
		while (unw_step(&cur) > 0 && n < 64);
	kill(t, SIGKILL);
	return n >= 3 ? 0 : 3;
}

Test(libunwind_sigmask, remote_walk_makes_no_mask_system_call)
{
	pid_t w = fork();
	int status;

	cr_assert_geq(w, 0);
	if (w == 0)
		_exit(walker());
	cr_assert_eq(waitpid(w, &status, 0), w);
	cr_assert(!WIFSIGNALED(status), "the walker was killed by signal %d (SIGSYS: libunwind "
		  "made an rt_sigprocmask system call)", WTERMSIG(status));
	cr_assert_eq(WEXITSTATUS(status), 0);
}
