/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference unwinder: libunwind's remote unwinding of a sample, as an
 * oracle for ours. Registers come from the sample, memory from the sample's
 * reader (stack copy, then process_vm_readv); unwind info is found by
 * libunwind-ptrace's _UPT_find_proc_info (DWARF .eh_frame from the files).
 */
#ifndef SUPERVISOR_REF_UNWIND_H
#define SUPERVISOR_REF_UNWIND_H

#include <stdint.h>
#include <sys/types.h>

#include "sample.h"
#include "sample_mem.h"

/**
 * struct ref_unwinder - one process's libunwind state
 * @as: a remote address space with UNW_CACHE_GLOBAL (flush on exec, unmap)
 * @upt: _UPT_create(@pid): the argument every _UPT_* callback gets, and
 *	the ELF image cache it keeps
 */
struct ref_unwinder {
	void *as;
	void *upt;
	pid_t pid;
	unsigned long retries;	/* walks tried again with fresh state */
};

/**
 * ref_unwinder_init() - libunwind state for process @pid
 * Return: 0, -ENOMEM, or -ENOTSUP when this libunwind's _UPT_create does not
 * keep the pid where its callbacks expect it (see ref_unwind.c).
 */
int ref_unwinder_init(struct ref_unwinder *r, pid_t pid);

/** ref_unwinder_free() - release @r (an all-zero @r is fine). */
void ref_unwinder_free(struct ref_unwinder *r);

/** ref_unwinder_flush() - forget cached unwind info (mappings changed). */
void ref_unwinder_flush(struct ref_unwinder *r);

/**
 * ref_unwind() - walk @smp's stack with libunwind
 * @ips: room for @max addresses: frame 0's IP, then return addresses
 * @n: frames written
 * Return: 0 when libunwind reached the stack's end (or @max), else the
 * negative libunwind error (-UNW_*) of the init or step that failed.
 */
int ref_unwind(struct ref_unwinder *r, struct sample_mem *mem, const struct sample *smp,
	       uint64_t *ips, unsigned int max, unsigned int *n);

#endif /* SUPERVISOR_REF_UNWIND_H */
