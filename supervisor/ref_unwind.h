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

#include "emu/registry.h"
#include "sample.h"
#include "sample_mem.h"

/*
 * Why libunwind cannot check frames past the first JIT frame. libunwind
 * 1.6.2's dynamic unwind info (_U_dyn_register) does not work for a remote
 * x86-64 unwinder, whatever the accessors (checked against its source and by
 * experiment; see codectl-run(1), SAMPLING):
 *  - libunwind-ptrace cannot find the tracee's _U_dyn_info_list
 *    (src/ptrace/_UPT_get_dyn_info_list_addr.c: get_list_addr() is "fix me"
 *    outside ia64); our get_dyn_info_list_addr accessor could supply it, but
 *  - UNW_INFO_FORMAT_DYNAMIC op lists are never interpreted on x86-64:
 *    src/dwarf/Gparser.c parse_dynamic() is "Not yet implemented" and returns
 *    -UNW_ENOINFO, so the step falls back to the frame chain (x86_64/Gstep.c);
 *  - UNW_INFO_FORMAT_TABLE's table_data is taken for a local .debug_frame
 *    index (src/dwarf/Gfind_proc_info-lsb.c dwarf_search_unwind_table());
 *  - UNW_INFO_FORMAT_REMOTE_TABLE (DWARF CFI the JIT would have to write as
 *    well) is read one word early: src/mi/Gdyn-remote.c intern_dyn_info()
 *    does not skip unw_dyn_info_t's load_offset; and laid out to match, the
 *    step frees the FDE's unwind info, allocated from libunwind's mempool
 *    (src/dwarf/Gfde.c), through the put_unwind_info accessor
 *    (src/mi/Gput_dynamic_unwind_info.c), which for libunwind-ptrace is
 *    free(): the unwinding process aborts.
 */
#define REF_UNWIND_NO_JIT "libunwind 1.6.2 on x86-64 ignores _U_dyn_register op lists " \
	"and misreads registered tables remotely"

/**
 * struct ref_unwinder - one process's libunwind state
 * @as: a remote address space with UNW_CACHE_GLOBAL (flush on exec, unmap)
 * @upt: _UPT_create(@pid): the argument every _UPT_* callback gets, and
 *	the ELF image cache it keeps
 * @registry: the process's registrations, or NULL: unwind info for an IP in
 *	a JIT registration's code is not looked for in files (set by the
 *	caller before each walk; not owned)
 */
struct ref_unwinder {
	void *as;
	void *upt;
	pid_t pid;
	const struct emu_registry *registry;
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
