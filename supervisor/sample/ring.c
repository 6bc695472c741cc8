// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU perf sample buffers (ring.h). The events are opened on the
 * program before its execve (enable_on_exec) with inherit set: threads and
 * child processes get events of their own that write into these buffers.
 * Records: PERF_SAMPLE_TID | TIME | REGS_USER | STACK_USER, timestamps on
 * CLOCK_MONOTONIC. The buffers are as large as the memory-lock limit lets an
 * unprivileged user have (perf_event_mlock_kb, then RLIMIT_MEMLOCK).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"

#define PAGE 4096u
/* x86-64 perf registers: AX BX CX DX SI DI BP SP IP (bits 0-8), R8-R15 (bits 16-23). */
#define REGS_MASK 0xff01ffull
#define NREGS 17
/*
 * Data pages per CPU at most (8 MiB: ~120 records of 64 KiB, the slack while
 * the supervisor is busy), all CPUs together at most RING_ALL_PAGES (32 MiB);
 * fewer when the memory-lock limit says so.
 */
#define RING_MAX_PAGES 2048u
#define RING_ALL_PAGES 8192u
/*
 * Records with a stack wake the supervisor when a buffer is this fraction
 * full (or its RING_DRAIN_MS poll comes first), not at each record: a wakeup
 * from the sampled thread's CPU is an inter-processor interrupt that costs
 * the thread ~14 us per sample in a VM (bench/sample). Records of a thread
 * and a time only (--sampler stop) wake it at each record: each asks for a
 * stop at once.
 */
#define RING_WAKEUP_FRACTION 4u
/* What a record holds besides its stack: header, ids, time, ABI, registers, sizes. */
#define RECORD_OVERHEAD (8 + 8 + 8 + 8 + NREGS * 8 + 8 + 8)

/*
 * Time in the kernel counts (a thread in a system call has its user
 * registers and stack at the entry, as perf record shows them), unless an
 * unprivileged user may only sample user time (perf_event_paranoid >= 2):
 * @user_only then.
 */
static int event_open(pid_t pid, int cpu, uint64_t period_ns, size_t stack_bytes,
		      bool user_only, size_t wakeup_bytes)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = period_ns,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       (stack_bytes ? PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER : 0),
		.sample_regs_user = stack_bytes ? REGS_MASK : 0,
		.sample_stack_user = (uint32_t)stack_bytes,
		.disabled = 1,
		.enable_on_exec = 1,
		.inherit = 1,
		.exclude_kernel = user_only,
		.exclude_hv = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
	};

	if (wakeup_bytes) {
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)wakeup_bytes;
	} else {
		a.wakeup_events = 1;
	}

	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

void ring_close(struct sample_ring *r)
{
	for (unsigned int i = 0; i < r->ncpu; i++) {
		if (r->base && r->base[i])
			munmap(r->base[i], PAGE + r->data_size);
		if (r->fd && r->fd[i] >= 0)
			close(r->fd[i]);
	}
	free(r->fd);
	free(r->base);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}

/* Every CPU's event and buffer of @pages data pages; 0, or an errno (nothing left open). */
static int open_all(struct sample_ring *r, pid_t pid, uint64_t period_ns, unsigned int pages)
{
	int opened = 0, err = 0;
	size_t wakeup;

	r->data_size = (size_t)pages * PAGE;
	wakeup = r->stack_bytes ? r->data_size / RING_WAKEUP_FRACTION : 0;
	for (unsigned int i = 0; i < r->ncpu; i++) {
		r->fd[i] = event_open(pid, (int)i, period_ns, r->stack_bytes, r->user_only, wakeup);
		if (r->fd[i] < 0 && !r->user_only && (errno == EACCES || errno == EPERM)) {
			r->user_only = true;
			r->fd[i] = event_open(pid, (int)i, period_ns, r->stack_bytes, true, wakeup);
		}
		if (r->fd[i] < 0) {
			if (errno != ENODEV && errno != EINVAL)
				err = -errno;
			continue;	/* an offline CPU: no task runs there */
		}
		r->base[i] = mmap(NULL, PAGE + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				  r->fd[i], 0);
		if (r->base[i] == MAP_FAILED) {
			r->base[i] = NULL;
			err = -errno;
			break;
		}
		opened++;
	}
	if (!err && !opened)
		err = -ENODEV;
	return err;
}

/* Close what open_all() made, keep the arrays. */
static void close_all(struct sample_ring *r)
{
	for (unsigned int i = 0; i < r->ncpu; i++) {
		if (r->base[i])
			munmap(r->base[i], PAGE + r->data_size);
		if (r->fd[i] >= 0)
			close(r->fd[i]);
		r->base[i] = NULL;
		r->fd[i] = -1;
	}
}

int ring_open(struct sample_ring *r, pid_t pid, uint64_t period_ns, size_t stack_bytes)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int pages = RING_MAX_PAGES;
	int err = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->ncpu = n > 0 ? (unsigned int)n : 1;
	r->fd = malloc(r->ncpu * sizeof(*r->fd));
	r->base = calloc(r->ncpu, sizeof(*r->base));
	r->scratch = malloc(UINT16_MAX + 1);
	if (!r->fd || !r->base || !r->scratch)
		goto fail;
	for (unsigned int i = 0; i < r->ncpu; i++)
		r->fd[i] = -1;
	/* the largest buffers the lock limit allows; each holds at least two records */
	while (pages > 4 && pages * r->ncpu > RING_ALL_PAGES)
		pages /= 2;
	if (!stack_bytes)
		pages = 16;	/* records of a thread and a time: 64 KiB holds thousands */
	for (; pages >= 4; pages /= 2) {
		size_t fit = (size_t)pages * PAGE / 2 - RECORD_OVERHEAD;

		r->stack_bytes = (stack_bytes < fit ? stack_bytes : fit) & ~(size_t)7;
		if (r->stack_bytes > RING_MAX_STACK)
			r->stack_bytes = RING_MAX_STACK;
		err = open_all(r, pid, period_ns, pages);
		if (!err)
			return 0;
		close_all(r);
		if (err != -EPERM && err != -ENOMEM)
			break;
	}
fail:
	ring_close(r);
	return err;
}

/* The x86-64 registers in their perf order (REGS_MASK) into @regs. */
static void set_regs(struct user_regs_struct *regs, const uint64_t *v)
{
	*regs = (struct user_regs_struct){
		.rax = v[0], .rbx = v[1], .rcx = v[2], .rdx = v[3], .rsi = v[4], .rdi = v[5],
		.rbp = v[6], .rsp = v[7], .rip = v[8], .r8 = v[9], .r9 = v[10], .r10 = v[11],
		.r11 = v[12], .r12 = v[13], .r13 = v[14], .r14 = v[15], .r15 = v[16],
	};
}

/*
 * A sample record of @size bytes at @p: its fields into @rec; false when it
 * has none to give. Without @stack, the record has a thread and a time only.
 */
static bool parse_sample(const uint8_t *p, size_t size, bool stack, struct ring_record *rec)
{
	uint64_t abi, len, dyn, regs[NREGS];
	size_t off = 8;
	uint32_t ids[2];

	if (size < (stack ? RECORD_OVERHEAD - 8 : 24))
		return false;
	memcpy(ids, p + off, 8);
	memcpy(&rec->time_ns, p + off + 8, 8);
	rec->pid = (pid_t)ids[0];
	rec->tid = (pid_t)ids[1];
	if (!stack) {
		memset(&rec->regs, 0, sizeof(rec->regs));
		rec->stack = NULL;
		rec->stack_len = 0;
		rec->in_syscall = false;
		return true;
	}
	memcpy(&abi, p + off + 16, 8);
	off += 24;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return false;	/* no user registers: not in user mode */
	memcpy(regs, p + off, sizeof(regs));
	off += sizeof(regs);
	memcpy(&len, p + off, 8);
	off += 8;
	if (len > size - off || (len && len + 8 > size - off))
		return false;
	dyn = 0;
	if (len)
		memcpy(&dyn, p + off + len, 8);
	set_regs(&rec->regs, regs);
	rec->in_syscall = (((const struct perf_event_header *)p)->misc &
			   PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL &&
			  rec->regs.rax == (uint64_t)-ENOSYS;
	rec->stack = p + off;
	rec->stack_len = dyn < len ? dyn : len;
	return true;
}

/*
 * The sample records of one buffer: handed to @fn and their room freed, or
 * only counted when @fn is NULL.
 */
static unsigned int drain_one(struct sample_ring *r, uint8_t *base, ring_record_fn fn, void *ctx)
{
	struct perf_event_mmap_page *pg = (void *)base;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;
	uint8_t *data = base + PAGE;
	unsigned int n = 0;
	struct perf_event_header h;
	struct ring_record rec;
	const uint8_t *p;
	size_t at;

	while (tail + sizeof(h) <= head) {
		at = tail % r->data_size;
		memcpy(&h, data + at, sizeof(h));	/* the header never wraps: 8-aligned */
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		tail += h.size;
		p = data + at;
		if (at + h.size > r->data_size) {
			memcpy(r->scratch, data + at, r->data_size - at);
			memcpy(r->scratch + (r->data_size - at), data, h.size - (r->data_size - at));
			p = r->scratch;
		}
		if (h.type == PERF_RECORD_LOST && fn)
			r->lost += ((const uint64_t *)p)[2];
		else if (h.type == PERF_RECORD_SAMPLE &&
			 parse_sample(p, h.size, r->stack_bytes, &rec)) {
			if (fn)
				fn(ctx, &rec);
			n++;
		}
	}
	if (fn)
		__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

unsigned int ring_pending(struct sample_ring *r)
{
	return ring_drain(r, NULL, NULL);
}

unsigned int ring_drain(struct sample_ring *r, ring_record_fn fn, void *ctx)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < r->ncpu; i++)
		if (r->base && r->base[i])
			n += drain_one(r, r->base[i], fn, ctx);
	return n;
}
