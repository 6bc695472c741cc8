// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance: the ABI page's lifecycle. Registrations belong to the address
 * space: threads share them, a fork child starts with a copy, a vfork child
 * shares its parent's until it execs, execve starts empty. Child results come
 * back as exit statuses: 0 when every check in the child held.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "abi.h"

/* Exit status of a child: 0 pass, or the line of the first failed check. */
static enum abi_result child_result(struct abi_ctx *ctx, pid_t pid, const char *what)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		snprintf(ctx->msg, sizeof(ctx->msg), "%s: fork/wait failed", what);
		return ABI_FAIL;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return ABI_PASS;
	snprintf(ctx->msg, sizeof(ctx->msg), "%s: child check at line %d failed (status %#x)",
		 what, WIFEXITED(status) ? WEXITSTATUS(status) : -1, status);
	return ABI_FAIL;
}

#define CHILD_CHECK(cond) do { if (!(cond)) _exit(__LINE__ & 0xff ? __LINE__ & 0xff : 1); } while (0)

static enum abi_result fork_inherits(struct abi_ctx *ctx)
{
	uint64_t t = abi_text(ctx, 128);
	pid_t pid;

	EXPECT(ctx, abi_reg_ident(t, t + 64, "/parent"), 0);
	pid = fork();
	if (pid == 0) {
		/* the copy holds the parent's registration */
		CHILD_CHECK(abi_reg_ident(t, t + 64, "/child") == -1 && errno == EEXIST);
		CHILD_CHECK(abi_unreg(t) == 0);
		CHILD_CHECK(abi_reg_ident(t + 64, t + 128, "/child") == 0);
		_exit(0);
	}
	if (child_result(ctx, pid, "fork child"))
		return ABI_FAIL;
	/* the child's changes were its own */
	EXPECT(ctx, abi_reg_ident(t, t + 64, "/parent"), EEXIST);
	EXPECT(ctx, abi_unreg(t + 64), ENOENT);
	EXPECT(ctx, abi_unreg(t), 0);
	return ABI_PASS;
}

static enum abi_result vfork_shares(struct abi_ctx *ctx)
{
	uint64_t t = abi_text(ctx, 128);
	pid_t pid;

	EXPECT(ctx, abi_reg_ident(t, t + 64, "/parent"), 0);
	pid = vfork();
	if (pid == 0) {
		/* only system calls here: the parent's memory and registrations are shared */
		if (abi_reg_ident(t, t + 64, "/child") != -1 || errno != EEXIST)
			_exit(1);
		_exit(abi_reg_ident(t + 64, t + 128, "/vfork-child") ? 2 : 0);
	}
	if (child_result(ctx, pid, "vfork child"))
		return ABI_FAIL;
	EXPECT(ctx, abi_unreg(t + 64), 0);	/* the child's registration is the parent's */
	EXPECT(ctx, abi_unreg(t), 0);
	return ABI_PASS;
}

/* Re-executed as "abi-conformance --exec-check TEXT": the registry must be empty. */
int abi_exec_check(int argc, char **argv)
{
	uint64_t t;
	void *at;

	if (argc < 3 || sscanf(argv[2], "%lx", &t) != 1)
		return 3;
	if (abi_unreg(t) != -1 || errno != ENOENT)
		return 4;
	at = mmap((void *)(uintptr_t)t, 4096, PROT_READ | PROT_EXEC,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (at != (void *)(uintptr_t)t)
		return 0;	/* the address is taken in the new image: the unregister check stands */
	return abi_reg_ident(t, t + 64, "/after-exec") ? 5 : 0;
}

static enum abi_result exec_clears(struct abi_ctx *ctx)
{
	uint64_t t = abi_text(ctx, 4096);
	char arg[32];
	pid_t pid;

	t = (t + 4095) & ~4095ull;
	snprintf(arg, sizeof(arg), "%lx", (unsigned long)t);
	pid = fork();
	if (pid == 0) {
		CHILD_CHECK(abi_reg_ident(t, t + 64, "/before-exec") == 0);
		execl(ctx->argv0, ctx->argv0, "--exec-check", arg, (char *)NULL);
		_exit(6);
	}
	return child_result(ctx, pid, "exec'd child");
}

static enum abi_result vfork_exec_leaves_parent(struct abi_ctx *ctx)
{
	uint64_t t = abi_text(ctx, 4096);
	char arg[32];
	pid_t pid;

	t = (t + 4095) & ~4095ull;
	snprintf(arg, sizeof(arg), "%lx", (unsigned long)t + 2048);
	EXPECT(ctx, abi_reg_ident(t, t + 64, "/parent"), 0);
	pid = vfork();
	if (pid == 0) {
		execl(ctx->argv0, ctx->argv0, "--exec-check", arg, (char *)NULL);
		_exit(6);
	}
	if (child_result(ctx, pid, "vfork+exec child"))
		return ABI_FAIL;
	/* the child's exec gave it a new address space; the parent's is untouched */
	EXPECT(ctx, abi_reg_ident(t, t + 64, "/parent"), EEXIST);
	EXPECT(ctx, abi_unreg(t), 0);
	return ABI_PASS;
}

struct thread_arg {
	uint64_t text;
	long ret;
	int err;
};

static void *thread_unregister(void *p)
{
	struct thread_arg *a = p;

	a->ret = abi_unreg(a->text);
	a->err = errno;
	if (!a->ret) {
		a->ret = abi_reg_ident(a->text + 64, a->text + 128, "/thread");
		a->err = errno;
	}
	return NULL;
}

static enum abi_result threads_share(struct abi_ctx *ctx)
{
	struct thread_arg a = { .text = abi_text(ctx, 128) };
	pthread_t th;

	EXPECT(ctx, abi_reg_ident(a.text, a.text + 64, "/main"), 0);
	if (pthread_create(&th, NULL, thread_unregister, &a) || pthread_join(th, NULL))
		return ABI_FAIL;
	if (!abi_expect(ctx, a.ret, a.err, 0, "thread: unregister, register", __LINE__))
		return ABI_FAIL;
	EXPECT(ctx, abi_unreg(a.text), ENOENT);		/* the thread removed it for us */
	EXPECT(ctx, abi_unreg(a.text + 64), 0);		/* and registered this one for us */
	return ABI_PASS;
}

const struct abi_case abi_lifecycle_cases[] = {
	{ "lifecycle-fork-inherits-a-copy", fork_inherits },
	{ "lifecycle-vfork-shares", vfork_shares },
	{ "lifecycle-exec-clears", exec_clears },
	{ "lifecycle-vfork-exec-leaves-parent", vfork_exec_leaves_parent },
	{ "lifecycle-threads-share", threads_share },
	{ NULL, NULL },
};
