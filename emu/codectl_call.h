/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One codectl(2) call, as the emulated kernel handles it: read the caller's
 * struct with copy_struct_from_user() rules, validate every field against
 * the ABI's error table, and apply it to the caller's registry.
 */
#ifndef EMU_CODECTL_CALL_H
#define EMU_CODECTL_CALL_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/codectl.h>
#include <linux/eh_frame_setup.h>
#include <linux/sframe_setup.h>

#include "accessor.h"
#include "arch.h"
#include "mappings.h"
#include "registry.h"
#include "rules.h"
#include "sframe_file.h"
#include "sframe_section.h"

/* Largest SFrame section copied at registration, in bytes (configurable). */
#define EMU_DEFAULT_MAX_SFRAME_SIZE (64u << 20)
/* Bytes of SFrame sections one address space may hold, all registrations together. */
#define EMU_DEFAULT_MAX_SFRAME_TOTAL (1024ull << 20)

/**
 * struct emu_policy - how the emulated kernel behaves
 * @arch: the caller's architecture (SFrame ABI/arch byte, registers)
 * @profile: the kernel emulated (profile.h), for every entry point
 * @max_sframe_size: cap on a section's size, bytes; larger ones get ENOMEM
 * @max_sframe_total: cap on the bytes of all sections registered in one
 *	address space (each registration counts its section); beyond it, ENOMEM
 * @sframe_validation: v16: validate every FDE, FRE and data word at
 *	registration, as a kernel built with CONFIG_SFRAME_VALIDATION does
 *	(off: only the header, as the kernel a user runs); also check an
 *	.eh_frame_hdr's every table entry and FDE at registration
 *	(CONFIG_EH_FRAME_VALIDATION; off: the header only), in any profile
 *	(codectl-run takes the option with --kernel v16 only)
 * @max_sframe_cache: bytes of SFrame read from files (CODE_REGISTER_SFRAME_FILE)
 *	one address space keeps resident, decompressed (block_cache.h)
 *
 * In the v16 profile a section is registered as the kernel registers it; the
 * caps only decide whether the emulator also keeps a copy of it (for
 * --verify and reports), never the answer.
 */
struct emu_policy {
	enum emu_arch arch;
	enum emu_profile profile;
	size_t max_sframe_size;
	uint64_t max_sframe_total;
	uint64_t max_sframe_cache;
	bool sframe_validation;
};

/**
 * emu_policy_default() - x86_64, the emulator profile, 64 MiB sections, 1 GiB
 * in all, 8 MiB of file-backed SFrame resident
 */
struct emu_policy emu_policy_default(void);

/**
 * struct emu_files - the caller's file descriptors, as the kernel's fdget()
 * @get: the file open at @fd in the caller: 0 with @f filled (the callee's
 *	to release or hand on), -EBADF when @fd is not open there, or another
 *	negative errno when the emulator could not take it (EMFILE: answered
 *	EAGAIN, the emulator's own failure)
 */
struct emu_files {
	int (*get)(void *ctx, int fd, struct emu_file *f);
	void *ctx;
};

/**
 * struct emu_space - the calling process as the emulated kernel sees it
 * @registry: its address space's registrations (modified by calls)
 * @mem: reads its memory
 * @maps: its mappings, current as of the call
 * @files: its file descriptors (NULL: none can be taken, every fd is EBADF)
 * @maps_cached: @maps may be older than the call (a supervisor's cache; never
 *	in a kernel): a new registration does not take the identity of the
 *	mapping holding its text from them, but learns it at the next
 *	emu_registry_prune_unmapped() (what was mapped there may have changed)
 */
struct emu_space {
	struct emu_registry *registry;
	const struct emu_accessor *mem;
	const struct emu_mappings *maps;
	const struct emu_files *files;
	bool maps_cached;
};

/** struct emu_call - the system call's four arguments as the caller passed them */
struct emu_call {
	unsigned int option;
	uint64_t info;
	uint64_t info_size;
	unsigned int flags;
};

/*
 * The system calls that reach the emulated kernel: codectl(2) and the kernel's
 * own proposals (codectl-abi.md, "The kernel's own proposals"; kernel_call.h).
 */
enum emu_entry {
	EMU_ENTRY_CODECTL = 0,
	EMU_ENTRY_SFRAME_REGISTER,
	EMU_ENTRY_SFRAME_UNREGISTER,
	EMU_ENTRY_PRCTL,
	EMU_ENTRY_STACKTRACE_SETUP,
	EMU_ENTRY_EH_FRAME_REGISTER,
	EMU_ENTRY_EH_FRAME_UNREGISTER,
};

#define EMU_ENTRY_COUNT 7

/** emu_entry_name() - "codectl", "sframe_register", "sframe_unregister", "prctl", ... */
const char *emu_entry_name(enum emu_entry entry);

/**
 * struct emu_call_result - what a call did, for the log and the trace line
 * @verdict: rule and reason when refused; kernel-patch warnings in any case
 * @entry: the system call (codectl unless a kernel_call.h entry point)
 * @option: codectl: the call's option
 * @have_args: @args holds the caller's struct (read successfully)
 * @args: the struct read (codectl: the member of the call's option;
 *	sframe_register and sframe_unregister: @args.setup; eh_frame_register
 *	and eh_frame_unregister: @args.eh_setup)
 * @sframe_version, @sframe_fdes: of the section registered, when there is one
 * @staged: after a successful emu_codectl_prepare() of a registration, the
 *	registration to insert (owned by the result until committed or discarded)
 * @unregister: the call prepared is an unregistration of @unregister_key, a
 *	text_start (codectl), an sframe_start (the kernel's proposals) or an
 *	eh_frame_hdr_start (eh_frame_unregister)
 * @reg: after commit, the new registration (owned by the registry)
 * @removed: after commit of an unregistration, the registrations changed
 */
struct emu_call_result {
	struct emu_verdict verdict;
	enum emu_entry entry;
	bool have_args;
	union {
		struct code_elf_info elf;
		struct code_sframe_info sframe;
		struct code_sframe_file_info sframe_file;
		struct code_jit_info jit;
		struct sframe_setup setup;
		struct eh_frame_setup eh_setup;
	} args;
	unsigned int option;
	uint8_t sframe_version;
	uint32_t sframe_fdes;
	struct emu_registration *staged;
	bool unregister;
	uint64_t unregister_key;
	const struct emu_registration *reg;
	int removed;
};

/**
 * emu_codectl_prepare() - validate one codectl(2) call without applying it
 * @res: filled in every case; on success it holds what emu_codectl_commit()
 *	applies, and must be committed or discarded
 *
 * Checks, in this order: flags, option, info_size (page cap, VER0 floor),
 * the struct copy, field rules, mappings, overlap and limit, then the tracee
 * strings and the SFrame section or JIT table header. Memory the commit needs
 * is reserved here, so the commit cannot fail. The supervisor answers the
 * call between the two steps and commits only when the answer was delivered.
 * Return: 0, or the negative errno to answer with (EINVAL, E2BIG, EFAULT,
 * ENAMETOOLONG, EEXIST, ENOENT, ENOSPC, ENOMEM); @res->verdict says why.
 */
int emu_codectl_prepare(const struct emu_policy *p, const struct emu_space *sp,
			const struct emu_call *c, struct emu_call_result *res);

/**
 * emu_codectl_commit() - apply a prepared call (of any entry point) to @sp's
 * registry
 * Sets @res->reg (registration) or @res->removed (unregistration). The
 * registry must not have changed since the prepare.
 * Return: 0, or -EEXIST/-ENOENT if it did change (nothing is applied then).
 */
int emu_codectl_commit(const struct emu_space *sp, struct emu_call_result *res);

/** emu_codectl_discard() - drop a prepared call that will not be committed. */
void emu_codectl_discard(struct emu_call_result *res);

/**
 * emu_codectl() - emu_codectl_prepare(), then emu_codectl_commit() on success
 * Return: as emu_codectl_prepare().
 */
int emu_codectl(const struct emu_policy *p, const struct emu_space *sp,
		const struct emu_call *c, struct emu_call_result *res);

/**
 * emu_register_exec_sframe() - register an SFrame section at execve
 * @info: text and sframe ranges taken from PT_GNU_SFRAME and a PF_X segment
 *
 * What binfmt_elf does in the kernel patches: the unwind aspect only, with
 * every check of CODE_REGISTER_SFRAME; the origin is EMU_ORIGIN_EXEC. Applied
 * at once (no answer to wait for).
 * Return: as emu_codectl().
 */
int emu_register_exec_sframe(const struct emu_policy *p, const struct emu_space *sp,
			     const struct code_sframe_info *info, struct emu_call_result *res);

#endif /* EMU_CODECTL_CALL_H */
