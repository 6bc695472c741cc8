/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Samples the kernel takes itself, as perf record --call-graph dwarf has
 * them taken: one CPU-clock perf event per CPU on the program, inherited by
 * every thread and process it starts, each writing into a ring buffer the
 * supervisor maps. At each overflow the kernel copies the thread's user
 * registers and the top of its user stack into a record; no signal is sent,
 * the thread's signal mask does not matter and the thread is never stopped.
 */
#ifndef SUPERVISOR_SAMPLE_RING_H
#define SUPERVISOR_SAMPLE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/*
 * The longest records with a stack may wait in a buffer before the
 * supervisor drains it (ms): it polls at this interval, as the kernel wakes
 * it only when a buffer is a quarter full.
 */
#define RING_DRAIN_MS 10
/* ... when a process keeps its own chain (its records are stops to ask for). */
#define RING_TRUTH_DRAIN_MS 1

/* The most stack one record can hold (its size is 16 bits, header and registers included). */
#define RING_MAX_STACK 65336u

/**
 * struct ring_record - one sample record, valid during the callback only
 * @pid, @tid: the process and thread
 * @time_ns: when it was taken (CLOCK_MONOTONIC)
 * @regs: the user registers (those a record carries; the others 0)
 * @stack, @stack_len: the user stack from SP up, as the kernel copied it (a
 *	copy stops at the first page it cannot read)
 * @in_syscall: taken in a system call, so @regs.rip is the address after
 *	its syscall instruction: in the kernel (the record's cpumode) with RAX
 *	-ENOSYS, the value a system call's entry gives it until the call
 *	returns (x86 do_syscall_64())
 */
struct ring_record {
	pid_t pid;
	pid_t tid;
	uint64_t time_ns;
	struct user_regs_struct regs;
	const uint8_t *stack;
	size_t stack_len;
	bool in_syscall;
};

typedef void (*ring_record_fn)(void *ctx, const struct ring_record *rec);

/**
 * struct sample_ring - the per-CPU events and their buffers
 * @fd, @base, @data_size: per CPU: the event (readable when its buffer is a
 *	quarter full, or at each record without a stack: it wakes the event
 *	loop), its mapping (a control page, then @data_size bytes of records),
 *	-1/NULL when that CPU is offline
 * @ncpu: entries of each array
 * @stack_bytes: stack bytes each record asks for
 * @lost: records the kernel could not write (a full buffer)
 * @user_only: only user time is sampled (perf_event_paranoid forbids more)
 * @scratch: a record that wraps around a buffer's end, made whole
 */
struct sample_ring {
	unsigned int ncpu;
	int *fd;
	uint8_t **base;
	size_t data_size;
	size_t stack_bytes;
	uint64_t lost;
	bool user_only;
	uint8_t *scratch;
};

/**
 * ring_open() - sample the process @pid (and every task it starts from now
 * on) every @period_ns of its CPU time from its next execve on, with
 * @stack_bytes of stack per record (at most RING_MAX_STACK; less when the
 * buffers the memory-lock limits allow are too small for it); 0: records of
 * a thread and a time only, no registers (what --sampler stop needs)
 * Return: 0, or the negative errno of perf_event_open or mmap (@r empty).
 */
int ring_open(struct sample_ring *r, pid_t pid, uint64_t period_ns, size_t stack_bytes);

/** ring_close() - close every event and unmap the buffers (an empty @r is fine). */
void ring_close(struct sample_ring *r);

/**
 * ring_drain() - hand every record written so far to @fn, in each CPU's
 * order, and free their room
 * Return: the records handed.
 */
unsigned int ring_drain(struct sample_ring *r, ring_record_fn fn, void *ctx);

/** ring_pending() - the sample records ring_drain() would hand now (none freed). */
unsigned int ring_pending(struct sample_ring *r);

/**
 * ring_keeps() - whether a drain of @n records with room for @room keeps its
 * @i-th (from 0): all when they fit, else @room of them spread evenly over
 * the drain (Bresenham), so that a busy supervisor drops samples of every
 * CPU and thread alike, not the tail of the last buffer drained (which can
 * be all of one thread's)
 */
static inline bool ring_keeps(uint64_t i, uint64_t room, uint64_t n)
{
	return n <= room || (i + 1) * room / n > i * room / n;
}

#endif /* SUPERVISOR_SAMPLE_RING_H */
