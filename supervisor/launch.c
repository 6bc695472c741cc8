// SPDX-License-Identifier: GPL-2.0
/*
 * Program start-up. Order matters: the parent seizes the child before the
 * child loads the filter, so that no call between filter load and exec can
 * be trapped (the child makes none), and the exec is seen as a ptrace event.
 * PTRACE_O_EXITKILL is not set: if codectl-run dies, the program goes on
 * and its codectl calls get ENOSYS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"

long launch_ptrace_options(void)
{
	return PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
	       PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
}

static int send_fd(int sock, int fd, bool killable)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char flag = killable ? 'k' : 'n';
	struct iovec iov = { .iov_base = &flag, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static int recv_fd(int sock, bool *killable)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, flag = 0;
	struct iovec iov = { .iov_base = &flag, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -EPIPE;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	*killable = flag == 'k';
	return fd;
}

/* In the child: tell the parent which stage failed, and exit. */
static void __attribute__((noreturn)) fail(int errfd, int stage, int err)
{
	struct launch_error e = { .stage = stage, .err = err };

	if (write(errfd, &e, sizeof(e)) != sizeof(e))
		_exit(127);
	if (stage == LAUNCH_STAGE_SETUP)
		_exit(LAUNCH_SETUP_STATUS);
	_exit(err == ENOENT ? 127 : 126);
}

struct child_args {
	char **argv;
	const struct notify_filter *filter;
	const sigset_t *sigmask;
	const struct sigaction *sigpipe;
	const char *audit;
	const char *const *audit_env;
};

/* @list (colon-separated, as ld.so reads LD_AUDIT) holds @item. */
static bool list_has(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = list; p; p = strchr(p, ':'), p = p ? p + 1 : NULL)
		if (!strncmp(p, item, n) && (p[n] == ':' || !p[n]))
			return true;
	return false;
}

/*
 * Append @audit to LD_AUDIT, unless it is there already (the child is
 * single-threaded: malloc and setenv are fine). Returns 0 or an errno.
 */
static int add_audit(const char *audit)
{
	const char *old = getenv("LD_AUDIT");
	char *value;
	int err;

	if (!old || !*old)
		return setenv("LD_AUDIT", audit, 1) ? errno : 0;
	if (list_has(old, audit))
		return 0;
	if (asprintf(&value, "%s:%s", old, audit) < 0)
		return ENOMEM;
	err = setenv("LD_AUDIT", value, 1) ? errno : 0;
	free(value);
	return err;
}

/* The module's NAME=VALUE settings into the environment; 0 or an errno. */
static int add_audit_env(const char *const *env)
{
	char name[64];
	const char *eq;

	for (; env && *env; env++) {
		eq = strchr(*env, '=');
		if (!eq || (size_t)(eq - *env) >= sizeof(name))
			return EINVAL;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *env), *env);
		if (setenv(name, eq + 1, 1))
			return errno;
	}
	return 0;
}

/* The child: wait to be seized, filter, hand over the listener, exec. */
static void __attribute__((noreturn)) child(const struct child_args *a, int go, int sock,
					    int errfd)
{
	bool killable = true;
	char byte;
	int fd, err;

	if (read(go, &byte, 1) != 1)
		_exit(127);
	close(go);
	/* no-new-privs only when not privileged, so setuid programs keep working as root */
	if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		fail(errfd, LAUNCH_STAGE_SETUP, errno);
	fd = notify_filter_load(a->filter, &killable);
	if (fd < 0)
		fail(errfd, LAUNCH_STAGE_SETUP, -fd);
	if (send_fd(sock, fd, killable))
		fail(errfd, LAUNCH_STAGE_SETUP, errno);
	close(fd);
	close(sock);
	if (a->audit && ((err = add_audit(a->audit)) || (err = add_audit_env(a->audit_env))))
		fail(errfd, LAUNCH_STAGE_SETUP, err);
	sigaction(SIGPIPE, a->sigpipe, NULL);
	sigprocmask(SIG_SETMASK, a->sigmask, NULL);
	execvp(a->argv[0], a->argv);
	fail(errfd, LAUNCH_STAGE_EXEC, errno);
}

static int seize(pid_t pid, struct launch *out)
{
	if (!ptrace(PTRACE_SEIZE, pid, 0, launch_ptrace_options())) {
		out->traced = true;
		return 0;
	}
	out->seize_errno = errno;
	return -errno;
}

static void close_pair(int *p)
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

int launch_program(char **argv, const struct notify_filter *filter, const sigset_t *sigmask,
		   const struct sigaction *sigpipe, const char *audit,
		   const char *const *audit_env, bool require_ptrace,
		   void (*before_exec)(void *ctx, pid_t pid), void *ctx, struct launch *out)
{
	const struct child_args a = { argv, filter, sigmask, sigpipe, audit, audit_env };
	int go[2] = { -1, -1 }, sock[2] = { -1, -1 }, errp[2] = { -1, -1 }, err;

	memset(out, 0, sizeof(*out));
	out->listener = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock)) {
		err = -errno;
		goto out_close;
	}
	out->pid = fork();
	if (out->pid < 0) {
		err = -errno;
		goto out_close;
	}
	if (out->pid == 0) {
		close(go[1]);
		close(sock[0]);
		close(errp[0]);
		child(&a, go[0], sock[1], errp[1]);
	}
	close(go[0]);
	close(sock[1]);
	close(errp[1]);
	go[0] = sock[1] = errp[1] = -1;
	err = seize(out->pid, out);
	if (err && require_ptrace)
		goto out_kill;
	if (before_exec)
		before_exec(ctx, out->pid);
	if (write(go[1], "g", 1) != 1) {
		err = -errno;
		goto out_kill;
	}
	err = recv_fd(sock[0], &out->wait_killable);
	if (err < 0)
		goto out_wait;
	out->listener = err;
	out->exec_err_fd = errp[0];
	errp[0] = -1;
	err = 0;
	goto out_close;
out_wait:
	/* the child failed before exec and reported it on errp */
	out->exec_err_fd = errp[0];
	errp[0] = -1;
	err = 0;
	goto out_close;
out_kill:
	kill(out->pid, SIGKILL);
	waitpid(out->pid, NULL, __WALL);
out_close:
	close_pair(go);
	close_pair(sock);
	close_pair(errp);
	return err;
}
