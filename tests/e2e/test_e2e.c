// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests: build/codectl-run driving tests/e2e/e2e_prog scenarios.
 * Each checks the exit status, what the program verified itself, and
 * codectl-run's exit summary (exact counts).
 */
#include <criterion/criterion.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_helper.h"
#include "test_tmp.h"

/* The program's own calls only: the loader module's are tested in tests/loader. */
#define RUN(r, ...) run_codectl((r), (const char *const[]){ "--no-loader-module", __VA_ARGS__, NULL })

/* codectl-run traced by strace: a sanitized build's LeakSanitizer cannot run under ptrace */
#define NO_LSAN "ASAN_OPTIONS=detect_leaks=0 "

TestSuite(e2e, .timeout = 120);

Test(e2e, exit_status_passes_through)
{
	struct run r;
	int raw;

	RUN(&r, "-q", "--", E2E_PROG, "exit", "7");
	cr_assert_eq(r.status, 7);
	run_free(&r);
	RUN(&r, "-q", "--", E2E_PROG, "abort");
	cr_assert_eq(r.status, 128 + SIGABRT);
	run_free(&r);
	/* a parent sees the signal itself, as without codectl-run */
	raw = system(CODECTL_RUN " -q -- " E2E_PROG " abort 2>/dev/null");
	cr_assert(WIFEXITED(raw) && WEXITSTATUS(raw) == 128 + SIGABRT, "sh reports 128+N");
	r.status = fork();
	if (r.status == 0) {
		execl(CODECTL_RUN, CODECTL_RUN, "-q", "--", E2E_PROG, "abort", (char *)NULL);
		_exit(120);
	}
	cr_assert_eq(waitpid(r.status, &raw, 0), r.status);
	cr_assert(WIFSIGNALED(raw) && WTERMSIG(raw) == SIGABRT);
}

Test(e2e, exec_failure_like_a_shell)
{
	char path[PATH_MAX];
	struct run r;
	int fd = test_mkstemp(path, sizeof(path), "codectl-e2e-noexec");

	/* one line, the error: no summary, no empty report */
	RUN(&r, "--", "codectl-no-such-program");
	cr_assert_eq(r.status, 127);
	cr_assert_str_eq(r.log, "codectl-run: codectl-no-such-program: No such file or directory\n");
	run_free(&r);
	RUN(&r, "-q", "--", path);		/* not executable */
	cr_assert_eq(r.status, 126);
	cr_assert(strstr(r.log, "Permission denied"), "%s", r.log);
	run_free(&r);
	close(fd);
	unlink(path);
}

Test(e2e, live_registrations_are_left_at_exit)
{
	struct run r;
	const struct summary_row *row;

	RUN(&r, "--", E2E_PROG, "live", "3");
	cr_assert_eq(r.status, 0, "%s", r.log);
	row = run_first_row(&r);
	cr_assert_not_null(row, "%s", r.log);
	cr_assert_eq(row->exec, 1, "the program's own .sframe, registered at exec");
	cr_assert_eq(row->accepted, 3);
	cr_assert_eq(row->left, 4);
	run_free(&r);
}

Test(e2e, sixteen_threads_register_concurrently)
{
	struct run r;
	const struct summary_row *row;

	RUN(&r, "--", E2E_PROG, "threads", "16", "500");
	cr_assert_eq(r.status, 0, "%s", r.log);
	row = run_first_row(&r);
	cr_assert_eq(r.nrows, 1);
	cr_assert_eq(row->accepted, 8000);
	cr_assert_eq(row->unregistered, 8000);
	cr_assert_eq(row->rejected, 16000, "one EEXIST and one ENOENT per round");
	cr_assert_eq(row->left, 1);
	run_free(&r);
}

Test(e2e, hundred_forked_children_register)
{
	struct run r;
	const struct summary_row *parent;

	RUN(&r, "--", E2E_PROG, "forks", "100");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_eq(r.nrows, 101);
	parent = run_first_row(&r);
	cr_assert_eq(parent->accepted, 1);
	cr_assert_eq(parent->rejected, 1, "the ENOENT check of a child's range");
	for (int i = 1; i < r.nrows; i++) {
		cr_assert_eq(r.rows[i].accepted, 1, "child %d", r.rows[i].pid);
		cr_assert_eq(r.rows[i].rejected, 1, "child %d: EEXIST on the inherited range",
			     r.rows[i].pid);
		cr_assert_eq(r.rows[i].left, 3, "child %d: exec's, the parent's and its own",
			     r.rows[i].pid);
	}
	run_free(&r);
}

Test(e2e, exec_chain_clears_and_reregisters)
{
	struct run r;
	const struct summary_row *row;

	RUN(&r, "--", E2E_PROG, "exec-chain", "3");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_eq(r.nrows, 1);
	row = run_first_row(&r);
	cr_assert_eq(row->exec, 4);
	cr_assert_eq(row->accepted, 4);
	cr_assert_eq(row->left, 2);
	cr_assert(strstr(r.log, "6 registrations dropped by execve"), "%s", r.log);
	run_free(&r);
}

Test(e2e, program_without_codectl_calls)
{
	struct run r;
	const struct summary_row *row;

	RUN(&r, "--", E2E_PROG, "none");
	cr_assert_eq(r.status, 0);
	row = run_first_row(&r);
	cr_assert_eq(row->accepted + row->rejected + row->unregistered, 0);
	run_free(&r);
}

Test(e2e, tracee_killed_during_calls)
{
	struct run r;

	RUN(&r, "--", E2E_PROG, "kill-during-call", "40");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_eq(r.nrows, 41);
	run_free(&r);
}

Test(e2e, vfork_child_exit_keeps_shared_registrations)
{
	struct run r;

	RUN(&r, "--", E2E_PROG, "vfork-exit");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_eq(run_first_row(&r)->unregistered, 2);
	run_free(&r);
}

static void check_restart(const char *mode)
{
	struct run r;
	long registered = -1, interrupted = -1;
	const struct summary_row *row;

	RUN(&r, "--", E2E_PROG, "restart", mode, "1500");
	cr_assert_eq(r.status, 0, "%s: %s", mode, r.log);
	cr_assert(r.out && sscanf(r.out, "registrations: %ld interrupted: %ld", &registered,
				  &interrupted) == 2, "%s", r.out);
	row = run_first_row(&r);
	/* exactly one registration per successful call */
	cr_assert_eq(row->accepted, (unsigned long)registered, "%s", mode);
	cr_assert_eq(row->unregistered, (unsigned long)registered, "%s", mode);
	/* a trapped call restarts after any handler: never EINTR (test_restart.c) */
	cr_assert_eq(interrupted, 0, "%s", mode);
	cr_assert_eq(registered, 1500, "%s", mode);
	run_free(&r);
}

Test(e2e, signal_with_sa_restart)
{
	check_restart("restart");
}

Test(e2e, signal_without_sa_restart)
{
	check_restart("norestart");
}

Test(e2e, sigstop_sigcont)
{
	check_restart("stopcont");
}

Test(e2e, other_architectures_not_trapped)
{
	struct run r;
	int native;

	RUN(&r, "-q", "--", E2E_PROG, "x32");
	cr_assert_eq(r.status, 0, "%s", r.log);
	run_free(&r);
	native = system(E2E_PROG " int80 2>/dev/null");
	if (!WIFEXITED(native) || WEXITSTATUS(native))
		cr_skip_test("no i386 syscall entry on this kernel");
	RUN(&r, "-q", "--", E2E_PROG, "int80");
	cr_assert_eq(r.status, 0, "%s", r.log);
	run_free(&r);
}

Test(e2e, listener_not_inherited)
{
	struct run r;

	RUN(&r, "-q", "--", E2E_PROG, "fd-scan");
	cr_assert_eq(r.status, 0, "%s", r.log);
	run_free(&r);
}

Test(e2e, exec_registers_program_sframe)
{
	struct run r;

	RUN(&r, "-q", "--", E2E_PROG, "self-register", "eexist");
	cr_assert_eq(r.status, 0, "%s", r.log);
	run_free(&r);
	RUN(&r, "-q", "--no-exec-registration", "--", E2E_PROG, "self-register", "ok");
	cr_assert_eq(r.status, 0, "%s", r.log);
	run_free(&r);
}

/* --strict is --kernel v16: v3 only; v13 (as --strict was before) took v2 with PCREL too. */
Test(e2e, kernel_profiles_refuse_version_1_at_exec)
{
	struct run r;

	/* e2e-prog's .sframe as binutils 2.40 writes it, whatever this assembler emits */
	RUN(&r, "--strict", "--", E2E_PROG_V1, "none");
	cr_assert_eq(r.status, 0);
	cr_assert_eq(run_first_row(&r)->exec, 0);
	cr_assert(strstr(r.log, "exec registration of the program's .sframe"), "%s", r.log);
	cr_assert(strstr(r.log, "EINVAL (v16: the kernel requires version 3 (the v15/v16 "
				"series))"), "%s", r.log);
	run_free(&r);
	RUN(&r, "--kernel", "v13", "--", E2E_PROG_V1, "none");
	cr_assert_eq(r.status, 0);
	cr_assert_eq(run_first_row(&r)->exec, 0);
	cr_assert(strstr(r.log, "EINVAL (v13: the kernel requires version 2 with "
				"FDE_FUNC_START_PCREL (v12) or version 3 (v13+))"), "%s", r.log);
	run_free(&r);
}

Test(e2e, trace_lines)
{
	struct run r;
	regex_t re;

	RUN(&r, "--trace", "-q", "--", E2E_PROG, "live", "1");
	cr_assert_eq(r.status, 0);
	cr_assert_eq(regcomp(&re, "\\[pid [0-9]+\\] codectl\\(CODE_REGISTER_ELF, \\{text=0x[0-9a-f]+-"
				  "0x[0-9a-f]+, path=\"/e2e/object\"\\}, 80, 0\\) = 0\n",
			     REG_EXTENDED), 0);
	cr_assert_eq(regexec(&re, r.log, 0, NULL, 0), 0, "%s", r.log);
	regfree(&re);
	cr_assert(strstr(r.log, "exec: program text="), "%s", r.log);
	cr_assert_null(strstr(r.log, "summary"), "-q: no summary");
	run_free(&r);
}

/*
 * Said as strace says them: with --trace, each execve with the path and
 * arguments and each process's end; without it, an end by a signal all the
 * same, in the log and in the summary.
 */
Test(e2e, execs_and_ends_said_as_strace_says_them)
{
	char path[PATH_MAX], want[PATH_MAX + 256];
	const struct summary_row *row;
	struct run r;

	cr_assert(realpath(E2E_PROG, path));
	RUN(&r, "--trace", "-F", "0", "--", E2E_PROG, "exit", "7");
	cr_assert_eq(r.status, 7);
	row = run_first_row(&r);
	cr_assert(row, "%s", r.log);
	snprintf(want, sizeof(want), "[pid %d] execve(\"%s\", [\"%s\", \"exit\", \"7\"]) = 0\n",
		 row->pid, path, E2E_PROG);
	cr_assert(strstr(r.log, want), "%s\nin\n%s", want, r.log);
	snprintf(want, sizeof(want), "[pid %d] +++ exited with 7 +++\n", row->pid);
	cr_assert(strstr(r.log, want), "%s", r.log);
	run_free(&r);

	RUN(&r, "-F", "0", "--", E2E_PROG, "abort");
	cr_assert_eq(r.status, 128 + SIGABRT);
	row = run_first_row(&r);
	cr_assert(row, "%s", r.log);
	snprintf(want, sizeof(want), "codectl-run: pid %d (%s): killed by SIGABRT", row->pid, path);
	cr_assert(strstr(r.log, want), "%s", r.log);
	snprintf(want, sizeof(want), "    pid %d: +++ killed by SIGABRT", row->pid);
	cr_assert(strstr(r.log, want), "%s", r.log);
	cr_assert_null(strstr(r.log, "exited with"), "%s", r.log);
	run_free(&r);
}

/* How many times @needle is in @hay. */
static int occurrences(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/*
 * Registrations the kernel patches would refuse are said once, in the
 * summary, with what to do; never as notes before it too. (The assembler
 * decides whether there are any: Debian 12's SFrame v1 is, sid's v3 is not.)
 */
Test(e2e, kernel_patch_refusals_said_once_with_what_to_do)
{
	const char *summary;
	struct run r;
	int accepted;

	RUN(&r, "-F", "0", "--", E2E_PROG, "none");
	cr_assert_eq(r.status, 0, "%s", r.log);
	summary = strstr(r.log, "codectl-run: summary:");
	cr_assert(summary, "%s", r.log);
	cr_assert_eq(occurrences(r.log, "patches would refuse"),
		     occurrences(summary, "patches would refuse"), "%s", r.log);
	accepted = occurrences(summary, "accepted that the Linux SFrame patches would refuse");
	cr_assert_leq(accepted, 1, "one line for the one process: %s", r.log);
	cr_assert_eq(occurrences(summary, "(--kernel v16 answers as a kernel with those patches"),
		     accepted, "%s", r.log);
	run_free(&r);
}

Test(e2e, max_registrations)
{
	struct run r;

	/* the exec registration takes one of the two */
	RUN(&r, "--trace", "--max-registrations", "2", "--", E2E_PROG, "live", "2");
	cr_assert_eq(r.status, 99, "the program's second registration failed");
	cr_assert(strstr(r.log, "= -1 ENOSPC (limit of 2 registrations reached)"), "%s", r.log);
	run_free(&r);
}

Test(e2e, killed_forking_process_does_not_hang)
{
	struct run r;

	RUN(&r, "-q", "--", E2E_PROG, "fork-storm");
	cr_assert_eq(r.status, 0, "%s", r.log);
	run_free(&r);
}

Test(e2e, clone_flags_decide_sharing)
{
	struct run r;

	RUN(&r, "-q", "--", E2E_PROG, "clone-kinds");
	cr_assert_eq(r.status, 0, "%s", r.log);
	run_free(&r);
}

Test(e2e, closed_log_pipe_does_not_stop_supervision)
{
	int st = system("bash -c '" CODECTL_RUN " --trace -- " E2E_PROG " live 50 2>&1 | true; "
			"exit ${PIPESTATUS[0]}'");

	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

Test(e2e, unprivileged_user_gets_tracing)
{
	int st;

	if (geteuid() != 0 || system("command -v setpriv >/dev/null 2>&1"))
		cr_skip_test("needs root and setpriv to switch to an unprivileged user");
	if (system("test \"$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)\" -lt 2"))
		cr_skip_test("Yama ptrace_scope 2 or 3: unprivileged ptrace is off on this machine");
	/* copies in a directory anyone may enter (not $TMPDIR, which make test keeps private) */
	st = system("set -e; d=$(mktemp -d /tmp/codectl-e2e-unpriv.XXXXXX); chmod 755 $d; "
		    "trap 'rm -rf $d' EXIT; "
		    "cp " CODECTL_RUN " " E2E_PROG " $d/; "
		    "cp $(dirname " CODECTL_RUN ")/libcodectl-audit.so $d/; "
		    "setpriv --reuid=65534 --regid=65534 --clear-groups $d/codectl-run "
		    "-q --require-ptrace -- $d/e2e-prog forks 3");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

Test(e2e, help_version_usage)
{
	cr_assert_eq(WEXITSTATUS(system(CODECTL_RUN " --help >/dev/null")), 0);
	cr_assert_eq(WEXITSTATUS(system(CODECTL_RUN " --version >/dev/null")), 0);
	cr_assert_eq(WEXITSTATUS(system(CODECTL_RUN " --no-such-option x 2>/dev/null")), 2);
	cr_assert_eq(WEXITSTATUS(system(CODECTL_RUN " 2>/dev/null")), 2);
	cr_assert_eq(WEXITSTATUS(system(CODECTL_RUN " --max-registrations x true 2>/dev/null")), 2);
	cr_assert_eq(WEXITSTATUS(system(CODECTL_RUN " --nr 39 true 2>/dev/null")), 2, "getpid");
}

static pid_t waiting_pid;

/* A failed assertion must not leave codectl-run and its program behind. */
static void kill_waiting(void)
{
	if (waiting_pid > 0)
		kill(waiting_pid, SIGKILL);
	waiting_pid = 0;
}

/* Start codectl-run with stdout on a pipe; wait (10 s at most) for the program's "ready". */
static pid_t start_waiting(int *out)
{
	struct pollfd pfd;
	char buf[64] = { 0 };
	size_t got = 0;
	int p[2];

	cr_assert_eq(pipe(p), 0);
	waiting_pid = fork();
	if (waiting_pid == 0) {
		dup2(p[1], 1);
		execl(CODECTL_RUN, CODECTL_RUN, "-q", "--", E2E_PROG, "wait-signal", (char *)NULL);
		_exit(120);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	while (!strstr(buf, "ready") && got < sizeof(buf) - 1 && poll(&pfd, 1, 10000) == 1) {
		ssize_t n = read(p[0], buf + got, sizeof(buf) - 1 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	cr_assert(strstr(buf, "ready"), "program output: '%s'", buf);
	*out = p[0];
	return waiting_pid;
}

static int stop_waiting(pid_t pid, int sig)
{
	int status = 0;

	kill(pid, sig);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	waiting_pid = 0;
	return status;
}

Test(e2e, signals_forwarded, .fini = kill_waiting)
{
	int out, status;
	pid_t pid = start_waiting(&out);

	status = stop_waiting(pid, SIGTERM);
	cr_assert_eq(WEXITSTATUS(status), 40 + SIGTERM);
	close(out);
	pid = start_waiting(&out);
	status = stop_waiting(pid, SIGHUP);
	cr_assert_eq(WEXITSTATUS(status), 40 + SIGHUP);
	close(out);
}

Test(e2e, degraded_without_ptrace)
{
	struct run r;
	char log[PATH_MAX], cmd[2 * PATH_MAX];
	int fd = test_mkstemp(log, sizeof(log), "codectl-e2e-degraded");

	cr_assert_geq(fd, 0);
	close(fd);
	if (system("command -v strace >/dev/null 2>&1"))
		cr_skip_test("strace is not installed");
	/* strace -f seizes the program first: codectl-run's own ptrace fails */
	cr_assert_eq(WEXITSTATUS(system(NO_LSAN "strace -f -o /dev/null " CODECTL_RUN
					" -q --require-ptrace -- " E2E_PROG " none 2>/dev/null")), 1);
	snprintf(cmd, sizeof(cmd), NO_LSAN "strace -f -o /dev/null " CODECTL_RUN " -o %s -- "
		 E2E_PROG " live 2", log);
	r.status = system(cmd);
	cr_assert_eq(WEXITSTATUS(r.status), 0);
	r.log = read_file(log);
	cr_assert(r.log && strstr(r.log, "running without process-tree tracking"), "%s", r.log);
	free(r.log);
	unlink(log);
}
