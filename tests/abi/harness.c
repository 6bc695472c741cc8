// SPDX-License-Identifier: GPL-2.0
/*
 * abi-conformance: runs every case of the codectl(2) ABI page and prints
 * "ok"/"FAIL"/"skip" per case and "N passed, N failed, N skipped". Natively
 * (no codectl), every case is skipped and the exit status is 0; a failure
 * gives exit status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

static int setup(struct abi_ctx *ctx, const char *argv0)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->argv0 = argv0;
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

/*
 * abi-conformance [--no-skip]: --no-skip makes a skipped case a failure, for
 * runs where codectl must be there (under codectl-run, or a kernel with it).
 */
int main(int argc, char **argv)
{
	struct abi_ctx ctx;
	struct totals t = { 0 };
	bool supported, no_skip = argc > 1 && !strcmp(argv[1], "--no-skip");

	if (argc > 1 && !strcmp(argv[1], "--exec-check"))
		return abi_exec_check(argc, argv);
	if (setup(&ctx, argv[0])) {
		perror("abi-conformance: mmap");
		return 2;
	}
	/* ENOSYS: no codectl here (a stock kernel): every case is skipped */
	supported = !(abi_unreg(1) == -1 && errno == ENOSYS);
	if (!supported)
		printf("# codectl(2) is not available (ENOSYS): every case is skipped\n");
	setvbuf(stdout, NULL, _IOLBF, 0);
	run_list(&ctx, abi_errno_cases, !supported, &t);
	run_list(&ctx, abi_sframe_cases, !supported, &t);
	run_list(&ctx, abi_lifecycle_cases, !supported, &t);
	printf("%u passed, %u failed, %u skipped\n", t.passed, t.failed, t.skipped);
	if (no_skip && t.skipped)
		printf("--no-skip: %u cases skipped\n", t.skipped);
	return t.failed || (no_skip && t.skipped) ? 1 : 0;
}
