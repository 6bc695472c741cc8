// SPDX-License-Identifier: GPL-2.0
/* A program's own chain of return addresses (codectl_truth.h), read at the stop. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "codectl_truth.h"
#include "truth.h"

struct truth_table *truth_table_new(void)
{
	return calloc(1, sizeof(struct truth_table));
}

void truth_table_free(void *t)
{
	free(t);
}

void truth_table_find(struct truth_table *t, struct symbols *sym, const char *exe,
		      size_t exe_size)
{
	/* an executable's path unknown, or too long for @exe: every module looked at */
	bool whole = exe[0] && strnlen(exe, exe_size) + 1 < exe_size;

	if (!t || t->looked)
		return;
	t->looked = true;
	if (symbols_object_address(sym, "codectl_truth", whole ? exe : NULL, &t->addr))
		t->addr = 0;
}

static bool read_at(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len },
		     remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/* The slot of @tid in the table's header, or -1. */
static int slot_of(const struct truth_table *t, pid_t tid)
{
	struct {
		uint32_t magic;
		int32_t tid[CODECTL_TRUTH_THREADS];
	} head;

	if (!read_at(tid, t->addr, &head, sizeof(head)) || head.magic != CODECTL_TRUTH_MAGIC)
		return -1;
	for (int i = 0; i < CODECTL_TRUTH_THREADS; i++)
		if (head.tid[i] == tid)
			return i;
	return -1;
}

void truth_read(const struct truth_table *t, struct sample *smp)
{
	uint64_t chain;
	uint32_t depth, n;
	int i;

	smp->truth_depth = 0;
	smp->n_truth = 0;
	if (!t || !t->addr || (i = slot_of(t, smp->tid)) < 0)
		return;
	chain = t->addr + offsetof(struct codectl_truth, chain) +
		(uint64_t)i * sizeof(struct codectl_truth_chain);
	if (!read_at(smp->tid, chain, &depth, sizeof(depth)) || !depth)
		return;
	smp->truth_depth = depth;
	if (depth > CODECTL_TRUTH_DEPTH)
		return;	/* deeper than the chain keeps: its innermost are not known */
	n = depth < SAMPLE_TRUTH_MAX ? depth : SAMPLE_TRUTH_MAX;
	if (!read_at(smp->tid, chain + offsetof(struct codectl_truth_chain, site) +
			       (uint64_t)(depth - n) * sizeof(uint64_t), smp->truth, n * sizeof(uint64_t)))
		return;
	/* innermost first */
	for (uint32_t k = 0; k < n / 2; k++) {
		uint64_t v = smp->truth[k];

		smp->truth[k] = smp->truth[n - 1 - k];
		smp->truth[n - 1 - k] = v;
	}
	smp->n_truth = n;
}
