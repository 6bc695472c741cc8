// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of each kernel interface over the life of an address space:
 * fork (v16 inherits: sframe_dup_mm; v13 started empty), threads, exec
 * (emptied, then the program's own PT_GNU_SFRAME registered again when the
 * series accepts it), and the unwind-time removal of a registration whose
 * section turned out broken. Child results come back as exit statuses.
 */
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "self_sframe.h"
#include "sframe_samples.h"

#define SEC_MAX 2048

/* A v3 section of 4 functions of 64 bytes over a fresh 256-byte chunk, in @buf. */
static size_t section_for(struct abi_ctx *ctx, uint64_t text, uint8_t **buf)
{
	*buf = abi_data(ctx, SEC_MAX);
	return abi_section(3, true, text, 4, 64, *buf, SEC_MAX);
}

/* 0 when the child exited 0, else the line of its first failed check in ctx->msg. */
static enum abi_result child_result(struct abi_ctx *ctx, pid_t pid, const char *what)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		snprintf(ctx->msg, sizeof(ctx->msg), "%s: fork/wait failed", what);
		return ABI_FAIL;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return ABI_PASS;
	snprintf(ctx->msg, sizeof(ctx->msg), "%s: child check %d failed (status %#x)", what,
		 WIFEXITED(status) ? WEXITSTATUS(status) : -1, status);
	return ABI_FAIL;
}

#define CHILD_CHECK(n, cond) do { if (!(cond)) _exit(n); } while (0)

/* v16 copies the registrations into a forked child (sframe_dup_mm); v13 did not. */
static enum abi_result fork_lifecycle(struct abi_ctx *ctx)
{
	uint64_t t = abi_text(ctx, 256);
	uint8_t *a, *b;
	size_t len = section_for(ctx, t, &a), len_b = section_for(ctx, t, &b);
	bool v16 = ctx->kernel == ABI_KERNEL_V16;
	pid_t pid;

	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)a, len, t, 256), 0);
	pid = fork();
	if (pid == 0) {
		long r = abi_kreg(ctx, (uintptr_t)b, len_b, t, 256);

		CHILD_CHECK(1, v16 ? r == -1 && errno == EEXIST : r == 0);
		r = abi_kunreg(ctx, (uintptr_t)a);
		CHILD_CHECK(2, v16 ? r == 0 : r == -1 && errno == EINVAL);
		_exit(0);
	}
	if (child_result(ctx, pid, v16 ? "fork child (inherits)" : "fork child (starts empty)"))
		return ABI_FAIL;
	/* the child's changes were its own; its registration is foreign here */
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)b, len_b, t, 256), EEXIST);
	EXPECT(ctx, abi_kunreg(ctx, (uintptr_t)b), EINVAL);
	EXPECT(ctx, abi_kunreg(ctx, (uintptr_t)a), 0);
	return ABI_PASS;
}

struct thread_arg {
	const struct abi_ctx *ctx;
	uint64_t sframe, len, text;
	long ret;
	int err;
};

static void *thread_register(void *p)
{
	struct thread_arg *a = p;

	a->ret = abi_kreg(a->ctx, a->sframe, a->len, a->text, 256);
	a->err = errno;
	return NULL;
}

static enum abi_result threads_share(struct abi_ctx *ctx)
{
	struct thread_arg a = { .ctx = ctx, .text = abi_text(ctx, 256) };
	pthread_t th;
	uint8_t *sec;

	a.len = section_for(ctx, a.text, &sec);
	a.sframe = (uintptr_t)sec;
	if (pthread_create(&th, NULL, thread_register, &a) || pthread_join(th, NULL))
		return ABI_FAIL;
	if (!abi_expect(ctx, a.ret, a.err, 0, "thread: register", __LINE__))
		return ABI_FAIL;
	EXPECT(ctx, abi_kunreg(ctx, a.sframe), 0);	/* the thread registered it for us */
	return ABI_PASS;
}

/* Does the series in @kernel take the section whose header is at @hdr at exec? */
static bool exec_accepts(const uint8_t *hdr, enum abi_kernel kernel)
{
	bool sorted_pcrel = (hdr[3] & 0x5) == 0x5 && hdr[7] == 0;

	if (hdr[0] != 0xe2 || hdr[1] != 0xde || !sorted_pcrel)
		return false;
	return hdr[2] == 3 || (kernel == ABI_KERNEL_V13 && hdr[2] == 2);
}

/*
 * Re-executed as "abi-conformance --exec-check-kernel IFACE KERNEL SFRAME":
 * the old image's registration is gone; the program's own PT_GNU_SFRAME was
 * registered at exec exactly when the series accepts its version (the
 * assembler decides: v1 on Debian 12, v2 on 13, v3 on sid), and can be
 * removed and registered again. Returns 0, or the number of the failed check.
 */
int abi_kernel_exec_check(int argc, char **argv)
{
	struct abi_ctx ctx = { 0 };
	struct code_sframe_info self;
	unsigned long long old;
	bool accepted;
	long r;

	if (argc < 5 || sscanf(argv[4], "%llx", &old) != 1)
		return 10;
	ctx.iface = (enum abi_iface)atoi(argv[2]);
	ctx.kernel = (enum abi_kernel)atoi(argv[3]);
	abi_numbers(&ctx);
	if (abi_kunreg(&ctx, old) != -1 || errno != EINVAL)
		return 11;
	self_sframe(&self);
	accepted = self.sframe_end - self.sframe_start >= 28 &&
		   exec_accepts((const uint8_t *)(uintptr_t)self.sframe_start, ctx.kernel);
	r = self.sframe_start ? abi_kunreg(&ctx, self.sframe_start) : -1;
	if (!accepted)
		return r == -1 && (errno == EINVAL || !self.sframe_start) ? 0 : 12;
	if (r)
		return 13;
	if (abi_kreg(&ctx, self.sframe_start, self.sframe_end - self.sframe_start,
		     self.text_start, self.text_end - self.text_start))
		return 14;
	return abi_kunreg(&ctx, self.sframe_start) ? 15 : 0;
}

static enum abi_result exec_re_registration(struct abi_ctx *ctx)
{
	uint64_t t = abi_text(ctx, 256);
	char iface[8], kernel[8], old[32];
	uint8_t *sec;
	size_t len = section_for(ctx, t, &sec);
	pid_t pid;

	snprintf(iface, sizeof(iface), "%d", (int)ctx->iface);
	snprintf(kernel, sizeof(kernel), "%d", (int)ctx->kernel);
	snprintf(old, sizeof(old), "%lx", (unsigned long)(uintptr_t)sec);
	pid = fork();
	if (pid == 0) {
		CHILD_CHECK(1, abi_kreg(ctx, (uintptr_t)sec, len, t, 256) == 0);
		execl(ctx->argv0, ctx->argv0, "--exec-check-kernel", iface, kernel, old,
		      (char *)NULL);
		_exit(2);
	}
	return child_result(ctx, pid, "exec'd child");
}

/* dec %rdi; jnz .-3; ret: a leaf whose CFA is SP + 8 throughout */
static const uint8_t spin_code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };

/* Is [text, text + len) still registered? A valid copy of the section says (EEXIST). */
static int still_registered(struct abi_ctx *ctx, const uint8_t *copy, size_t len, uint64_t text)
{
	long r = abi_kreg(ctx, (uintptr_t)copy, len, text, sizeof(spin_code));

	if (r == 0)
		return abi_kunreg(ctx, (uintptr_t)copy) ? -1 : 0;
	return r == -1 && errno == EEXIST ? 1 : -1;
}

/* @text's spin function run, and the registration probed, until it goes or @rounds pass. */
static int spin_until_removed(struct abi_ctx *ctx, uint8_t *copy, size_t len, uint64_t text,
			      int rounds)
{
	void (*spin)(unsigned long) = (void (*)(unsigned long))(uintptr_t)text;
	int r = 1;

	for (int i = 0; i < rounds && r == 1; i++) {
		spin(20000000ul);
		r = still_registered(ctx, copy, len, text);
	}
	return r;
}

/*
 * The unwind-time policy (v16: any lookup error but "no FDE" removes the
 * registration): a section registered for code that runs is broken in
 * memory afterwards (its FRE's data-word size becomes 3, invalid); the next
 * unwind in that code removes it. Needs an unwinder to sample the process:
 * codectl-run does; on a kernel, run the suite under perf record --call-graph
 * with deferred user callchains, else the case is skipped.
 */
static enum abi_result unwind_time_removal(struct abi_ctx *ctx)
{
	const struct sfw_fre fre = { .start = 0, .sp_base = true, .count = 1, .words = { 8 } };
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
	struct sfw_fde fde = { .func_size = sizeof(spin_code), .fre_type = 0, .nfres = 1,
			       .fres = &fre };
	struct sfw_section s = sfw_amd64(3, true, 0);
	uint8_t *sec = abi_data(ctx, 256), *copy = abi_data(ctx, 256);
	struct sfw_layout lay;
	size_t len;
	int r;

	if (code == MAP_FAILED)
		return ABI_FAIL;
	memcpy(code, spin_code, sizeof(spin_code));
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC))
		return ABI_FAIL;
	fde.func_start = (uintptr_t)code;
	s.fdes = &fde;
	s.nfdes = 1;
	s.addr = (uintptr_t)copy;
	sfw_write(&s, copy, 256, &lay);
	s.addr = (uintptr_t)sec;
	len = sfw_write(&s, sec, 256, &lay);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)sec, len, (uintptr_t)code, sizeof(spin_code)), 0);
	sec[lay.fre_block_pos[0] + 5 + 1] |= 0x60;	/* attribute record, FRE start, info */
	r = spin_until_removed(ctx, copy, len, (uintptr_t)code, 300);
	if (r == 1) {
		EXPECT(ctx, abi_kunreg(ctx, (uintptr_t)sec), 0);
		munmap(code, 4096);
		snprintf(ctx->msg, sizeof(ctx->msg), "no unwind removed it: nothing sampled the "
			 "process (run under perf record --call-graph, or codectl-run)");
		return ABI_SKIP;
	}
	EXPECT(ctx, r, 0);
	EXPECT(ctx, abi_kunreg(ctx, (uintptr_t)sec), EINVAL);	/* removed whole */
	munmap(code, 4096);
	return ABI_PASS;
}

const struct abi_case abi_kernel_life_cases[] = {
	{ "kernel-fork", fork_lifecycle },
	{ "kernel-threads-share", threads_share },
	{ "kernel-exec-re-registration", exec_re_registration },
	{ "kernel-unwind-time-removal", unwind_time_removal },
	{ NULL, NULL },
};
