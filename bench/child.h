/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmarks' children: every process a benchmark starts dies with it,
 * whatever ends the benchmark (a crash, a signal, exit), so no target is left
 * spinning.
 */
#ifndef BENCH_CHILD_H
#define BENCH_CHILD_H

#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

/*
 * bench_fork() - fork(2), the child getting SIGKILL when the benchmark dies
 * (PR_SET_PDEATHSIG; kept across execve). Return: as fork(2).
 */
static inline pid_t bench_fork(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent))
		_exit(127);	/* the benchmark is gone already */
	return pid;
}

/*
 * bench_spawn_to() - run @argv with environment @envp (NULL: ours) in a
 * bench_fork() child, its standard output to @out (-1: ours).
 * Return: the child's pid, or -1.
 */
static inline pid_t bench_spawn_to(char *const argv[], char *const envp[], int out)
{
	extern char **environ;
	pid_t pid = bench_fork();

	if (pid)
		return pid;
	if (out >= 0)
		dup2(out, STDOUT_FILENO);
	execve(argv[0], argv, envp ? envp : environ);
	_exit(127);
}

/* bench_spawn() - bench_spawn_to(), the output to /dev/null when @quiet. */
static inline pid_t bench_spawn(char *const argv[], char *const envp[], bool quiet)
{
	int null = quiet ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
	pid_t pid = bench_spawn_to(argv, envp, null);

	if (null >= 0)
		close(null);
	return pid;
}
#endif /* BENCH_CHILD_H */
