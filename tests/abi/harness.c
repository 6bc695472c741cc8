// SPDX-License-Identifier: GPL-2.0
/*
 * abi-conformance: runs the conformance suite of each interface (codectl,
 * sframe_register, prctl, stacktrace_setup, eh_frame_register) and prints "ok"/"FAIL"/"skip" per
 * case, a count per suite, and "N passed, N failed, N skipped". A suite whose
 * interface is not there (ENOSYS; for the prctl, a valid registration
 * refused) is skipped: natively every case is, and the exit status is 0; a
 * failure gives exit status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <stacktrace_setup.h>

#include "abi.h"
#include "sframe_samples.h"

#define TEXT_LEN (1u << 20)
#define DATA_LEN (4u << 20)

uint64_t abi_text(struct abi_ctx *ctx, size_t len)
{
	size_t at = (ctx->text_used + 255) & ~(size_t)255;

	if (at + len > ctx->text_len) {
		fprintf(stderr, "abi-conformance: text area exhausted\n");
		exit(2);
	}
	ctx->text_used = at + len;
	return (uint64_t)(uintptr_t)ctx->text + at;
}

uint8_t *abi_data(struct abi_ctx *ctx, size_t len)
{
	size_t at = (ctx->data_used + 7) & ~(size_t)7;

	if (at + len > DATA_LEN) {
		fprintf(stderr, "abi-conformance: data area exhausted\n");
		exit(2);
	}
	ctx->data_used = at + len;
	memset(ctx->data + at, 0, len);
	return ctx->data + at;
}

bool abi_expect(struct abi_ctx *ctx, long ret, int err, int want, const char *what, int line)
{
	if (want == 0 && ret == 0)
		return true;
	if (want != 0 && ret == -1 && err == want)
		return true;
	snprintf(ctx->msg, sizeof(ctx->msg), "line %d: %s = %ld%s%s, want %s", line, what, ret,
		 ret == -1 ? " errno " : "", ret == -1 ? strerrorname_np(err) : "",
		 want ? strerrorname_np(want) : "0");
	return false;
}

long abi_sframe_register(const struct abi_ctx *ctx, const void *setup, size_t size)
{
	return syscall(ctx->sframe_nr[0], setup, size);
}

long abi_sframe_unregister(const struct abi_ctx *ctx, const void *setup, size_t size)
{
	return syscall(ctx->sframe_nr[1], setup, size);
}

long abi_eh_frame_register(const struct abi_ctx *ctx, const void *setup, size_t size)
{
	return syscall(ctx->eh_frame_nr[0], setup, size);
}

long abi_eh_frame_unregister(const struct abi_ctx *ctx, const void *setup, size_t size)
{
	return syscall(ctx->eh_frame_nr[1], setup, size);
}

long abi_stacktrace_setup(const struct abi_ctx *ctx, long op, uint64_t a, uint64_t b, uint64_t c,
			  uint64_t d)
{
	return syscall(ctx->stacktrace_nr, op, a, b, c, d);
}

long abi_kreg(const struct abi_ctx *ctx, uint64_t sframe, uint64_t sframe_size, uint64_t text,
	      uint64_t text_size)
{
	struct sframe_setup s = { sframe, sframe_size, text, text_size };

	if (ctx->iface == ABI_IF_PRCTL)
		return prctl(PR_ADD_SFRAME, (unsigned long)sframe,
			     (unsigned long)(sframe + sframe_size), (unsigned long)text,
			     (unsigned long)(text + text_size));
	if (ctx->iface == ABI_IF_STACKTRACE_SETUP)
		return abi_stacktrace_setup(ctx, STACKTRACE_REGISTER_SFRAME, sframe, sframe_size,
					    text, text_size);
	return abi_sframe_register(ctx, &s, sizeof(s));
}

long abi_kunreg(const struct abi_ctx *ctx, uint64_t sframe)
{
	struct sframe_setup s = { .sframe_start = sframe };

	if (ctx->iface == ABI_IF_PRCTL)
		return prctl(PR_REMOVE_SFRAME, (unsigned long)sframe, 0ul, 0ul, 0ul);
	if (ctx->iface == ABI_IF_STACKTRACE_SETUP)
		return abi_stacktrace_setup(ctx, STACKTRACE_UNREGISTER_SFRAME, sframe, 0, 0, 0);
	return abi_sframe_unregister(ctx, &s, sizeof(s));
}

const char *abi_iface_name(enum abi_iface iface)
{
	static const char *const names[] = { "sframe_register", "prctl", "stacktrace_setup",
					     "eh_frame_register" };

	return names[iface];
}

long abi_reg_sframe(uint64_t ts, uint64_t te, const void *sf, size_t len)
{
	struct code_sframe_info i = { .text_start = ts, .text_end = te,
				      .sframe_start = (uintptr_t)sf,
				      .sframe_end = (uintptr_t)sf + len };

	return codectl(CODE_REGISTER_SFRAME, &i, sizeof(i), 0);
}

long abi_reg_ident(uint64_t ts, uint64_t te, const char *path)
{
	struct code_elf_info i = { .text_start = ts, .text_end = te, .pathname = (uintptr_t)path };

	return codectl(CODE_REGISTER_ELF, &i, sizeof(i), 0);
}

long abi_reg_elf(const struct code_elf_info *info)
{
	return codectl(CODE_REGISTER_ELF, (void *)info, sizeof(*info), 0);
}

long abi_unreg(uint64_t ts)
{
	return codectl(CODE_UNREGISTER, (void *)(uintptr_t)ts, 0, 0);
}

size_t abi_section(uint8_t version, bool pcrel, uint64_t func, unsigned int n, uint32_t size,
		   uint8_t *buf, size_t cap)
{
	struct sfw_layout lay;

	return sample_section(version, pcrel, (uint64_t)(uintptr_t)buf, func, n, size, buf, cap,
			      &lay);
}

/* A number from the environment (a kernel's assignment), else @dflt. */
static long env_nr(const char *name, long dflt)
{
	const char *v = getenv(name);
	char *end;
	long nr;

	if (!v || !*v)
		return dflt;
	nr = strtol(v, &end, 0);
	return *end || nr <= 0 ? dflt : nr;
}

/* The numbers called: the environment's, or the headers'. */
void abi_numbers(struct abi_ctx *ctx)
{
	ctx->sframe_nr[0] = env_nr("SFRAME_REGISTER_NR", SFRAME_REGISTER_NR);
	ctx->sframe_nr[1] = env_nr("SFRAME_UNREGISTER_NR", SFRAME_UNREGISTER_NR);
	ctx->stacktrace_nr = env_nr("STACKTRACE_SETUP_NR", STACKTRACE_SETUP_NR);
	ctx->eh_frame_nr[0] = env_nr("EH_FRAME_REGISTER_NR", EH_FRAME_REGISTER_NR);
	ctx->eh_frame_nr[1] = env_nr("EH_FRAME_UNREGISTER_NR", EH_FRAME_UNREGISTER_NR);
}

static int setup(struct abi_ctx *ctx, const char *argv0)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->argv0 = argv0;
	abi_numbers(ctx);
	ctx->text_len = TEXT_LEN;
	/* the RX area, a PROT_NONE guard page (nothing executable right after it), data */
	ctx->text = mmap(NULL, TEXT_LEN + 4096 + DATA_LEN, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ctx->text == MAP_FAILED || mprotect(ctx->text + TEXT_LEN, 4096, PROT_NONE))
		return -1;
	ctx->data = ctx->text + TEXT_LEN + 4096;
	if (mprotect(ctx->data, DATA_LEN, PROT_READ | PROT_WRITE))
		return -1;
	ctx->rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ctx->none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return ctx->text == MAP_FAILED || ctx->rw == MAP_FAILED || ctx->none == MAP_FAILED ? -1 : 0;
}

struct totals {
	unsigned int passed, failed, skipped;
};

static void run_list(struct abi_ctx *ctx, const struct abi_case *list, bool skip_all,
		     struct totals *t)
{
	for (; list->name; list++) {
		enum abi_result r = ABI_SKIP;

		ctx->msg[0] = '\0';
		if (!skip_all)
			r = list->run(ctx);
		if (r == ABI_PASS) {
			t->passed++;
			printf("ok      %s\n", list->name);
		} else if (r == ABI_FAIL) {
			t->failed++;
			printf("FAIL    %s: %s\n", list->name, ctx->msg);
		} else {
			t->skipped++;
			printf("skip    %s%s%s\n", list->name, ctx->msg[0] ? ": " : "", ctx->msg);
		}
	}
}

int abi_exec_check(int argc, char **argv);
int abi_kernel_exec_check(int argc, char **argv);

/*
 * One suite: an interface and its case lists. The kernel suites share
 * abi_kernel_cases and abi_kernel_life_cases, made through their interface.
 */
struct suite {
	const char *name;
	bool kernel;
	enum abi_iface iface;
	const struct abi_case *lists[4];
};

static const struct suite suites[] = {
	{ "codectl", false, 0, { abi_errno_cases, abi_sframe_cases, abi_lifecycle_cases } },
	{ "sframe_register", true, ABI_IF_SFRAME_REGISTER,
	  { abi_kernel_cases, abi_kernel_life_cases, abi_setup_cases } },
	{ "prctl", true, ABI_IF_PRCTL, { abi_kernel_cases, abi_kernel_life_cases, abi_prctl_cases } },
	{ "stacktrace_setup", true, ABI_IF_STACKTRACE_SETUP,
	  { abi_kernel_cases, abi_kernel_life_cases, abi_stacktrace_cases } },
	{ "eh_frame_register", true, ABI_IF_EH_FRAME, { abi_eh_frame_cases } },
	{ "sframe_file", false, 0, { abi_sframe_file_cases } },
};
#define NSUITES (sizeof(suites) / sizeof(suites[0]))

/* A valid v3 section registered and removed again through the prctl. */
static bool prctl_works(struct abi_ctx *ctx)
{
	uint64_t text = abi_text(ctx, 256);
	uint8_t *sec = abi_data(ctx, 1024);
	size_t len = abi_section(3, true, text, 4, 64, sec, 1024);

	if (prctl(PR_ADD_SFRAME, (unsigned long)sec, (unsigned long)(sec + len),
		  (unsigned long)text, (unsigned long)(text + 256)))
		return false;
	return !prctl(PR_REMOVE_SFRAME, (unsigned long)sec, 0ul, 0ul, 0ul);
}

/*
 * Is @s's interface there? ENOSYS says no; the prctl's numbers are prctl
 * options, answered EINVAL by a kernel without them.
 */
static bool available(struct abi_ctx *ctx, const struct suite *s)
{
	if (!strcmp(s->name, "sframe_file"))	/* the option: EFAULT for no struct */
		return codectl(CODE_REGISTER_SFRAME_FILE, NULL, CODE_SFRAME_FILE_INFO_SIZE_VER0,
			       0) == -1 && errno == EFAULT;
	if (!s->kernel)
		return !(abi_unreg(1) == -1 && errno == ENOSYS);
	if (s->iface == ABI_IF_PRCTL)
		return prctl_works(ctx);
	if (s->iface == ABI_IF_STACKTRACE_SETUP)
		return !(abi_stacktrace_setup(ctx, 0, 0, 0, 0, 0) == -1 && errno == ENOSYS);
	if (s->iface == ABI_IF_EH_FRAME)
		return !(abi_eh_frame_register(ctx, NULL, EH_FRAME_SETUP_SIZE_VER0) == -1 &&
			 errno == ENOSYS);
	return !(abi_sframe_register(ctx, NULL, SFRAME_SETUP_SIZE_VER0) == -1 && errno == ENOSYS);
}

static void run_suite(struct abi_ctx *ctx, const struct suite *s, struct totals *all)
{
	struct totals t = { 0 };
	bool ok = available(ctx, s);

	ctx->iface = s->iface;
	printf("# suite %s%s%s\n", s->name, s->iface == ABI_IF_EH_FRAME ?
	       (ctx->eh_validation ? " (expecting the series' checks, validating)" :
		" (expecting the series' checks)") :
	       !s->kernel ? "" : ctx->kernel == ABI_KERNEL_V13 ? " (expecting v13)" :
	       ctx->validation ? " (expecting v16, validating)" : " (expecting v16)",
	       ok ? "" : ": not available: every case skipped");
	for (int i = 0; i < 4 && s->lists[i]; i++)
		run_list(ctx, s->lists[i], !ok, &t);
	printf("# %s: %u passed, %u failed, %u skipped\n", s->name, t.passed, t.failed,
	       t.skipped);
	all->passed += t.passed;
	all->failed += t.failed;
	all->skipped += t.skipped;
}

/* --suite NAME: its index, or -1 (with a message). */
static int suite_index(const char *name)
{
	for (size_t i = 0; i < NSUITES; i++)
		if (!strcmp(suites[i].name, name))
			return (int)i;
	fprintf(stderr, "abi-conformance: unknown suite %s\n", name);
	return -1;
}

/*
 * Options: --no-skip, --kernel v16|v13, --sframe-validation, --suite NAME
 * (repeatable; none: every suite).
 */
static int parse(int argc, char **argv, bool *no_skip, struct abi_ctx *ctx, bool *want)
{
	int k, n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-skip")) {
			*no_skip = true;
		} else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
			ctx->kernel = !strcmp(argv[++i], "v13") ? ABI_KERNEL_V13 : ABI_KERNEL_V16;
		} else if (!strcmp(argv[i], "--sframe-validation")) {
			ctx->validation = true;
		} else if (!strcmp(argv[i], "--eh-frame-validation")) {
			ctx->eh_validation = true;
		} else if (!strcmp(argv[i], "--suite") && i + 1 < argc) {
			if ((k = suite_index(argv[++i])) < 0)
				return -1;
			want[k] = true;
			n++;
		} else {
			fprintf(stderr, "usage: abi-conformance [--no-skip] [--kernel v16|v13] "
					"[--sframe-validation] [--eh-frame-validation] "
					"[--suite codectl|sframe_register|prctl|stacktrace_setup|"
					"eh_frame_register|sframe_file]...\n");
			return -1;
		}
	}
	for (size_t i = 0; !n && i < NSUITES; i++)
		want[i] = true;
	return 0;
}

/*
 * abi-conformance [--no-skip] [--kernel v16|v13] [--sframe-validation]
 * [--eh-frame-validation] [--suite NAME]...: --no-skip makes a skipped case a
 * failure, for runs where
 * the interfaces must be there (under codectl-run, or a kernel with them);
 * --sframe-validation says the v16 kernel under test was built with
 * CONFIG_SFRAME_VALIDATION (codectl-run --kernel v16 --sframe-validation);
 * --eh-frame-validation, that it has CONFIG_EH_FRAME_VALIDATION (codectl-run
 * validates in its own profile, and with --sframe-validation in the others).
 */
int main(int argc, char **argv)
{
	struct abi_ctx ctx, opts = { .kernel = ABI_KERNEL_V16 };
	struct totals t = { 0 };
	bool no_skip = false, want[NSUITES] = { false };

	if (argc > 1 && !strcmp(argv[1], "--exec-check"))
		return abi_exec_check(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "--exec-check-kernel"))
		return abi_kernel_exec_check(argc, argv);
	if (parse(argc, argv, &no_skip, &opts, want))
		return 2;
	if (setup(&ctx, argv[0])) {
		perror("abi-conformance: mmap");
		return 2;
	}
	ctx.kernel = opts.kernel;
	ctx.validation = opts.validation;
	ctx.eh_validation = opts.eh_validation;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < NSUITES; i++)
		if (want[i])
			run_suite(&ctx, &suites[i], &t);
	printf("%u passed, %u failed, %u skipped\n", t.passed, t.failed, t.skipped);
	if (no_skip && t.skipped)
		printf("--no-skip: %u cases skipped\n", t.skipped);
	return t.failed || (no_skip && t.skipped) ? 1 : 0;
}
