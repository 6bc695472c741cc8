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
 * bench_spawn() - run @argv with environment @envp (NULL: ours) in a
 * bench_fork() child, its standard output to /dev/null when @quiet.
 * Return: the child's pid, or -1.
 */
static inline pid_t bench_spawn(char *const argv[], char *const envp[], bool quiet)
{
	extern char **environ;
	pid_t pid = bench_fork();
	int null;

	if (pid)
		return pid;
	if (quiet && (null = open("/dev/null", O_WRONLY)) >= 0)
		dup2(null, STDOUT_FILENO);
	execve(argv[0], argv, envp ? envp : environ);
	_exit(127);
}
#endif /* BENCH_CHILD_H */
