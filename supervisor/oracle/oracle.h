/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracles: other unwinders, with unwind information of their own (DWARF
 * CFI from the files), that a sample's walk is compared with, and the
 * symbols that name its frames. Each unwinder is a back-end behind struct
 * oracle_ops (one file each: libunwind.c, elfutils.c); a process's state for
 * all of them lives in its struct oracles, made at its first sample.
 */
#ifndef SUPERVISOR_ORACLE_ORACLE_H
#define SUPERVISOR_ORACLE_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/accessor.h"
#include "emu/registry.h"
#include "plausible.h"
#include "symbols.h"

/* DWARF registers 0-16 of x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, RA (rip). */
#define ORACLE_REGS 17

/**
 * struct oracle_walker - what the walks ask of the oracles between walks
 * @libunwind_flush: flush libunwind's register-state cache before the next
 *	walk: keyed by IP alone, it also hands a rule cached for an IP looked
 *	up exactly (frame 0, after a signal frame) to the same IP as a return
 *	address (looked up at IP - 1), and the other way round; a walk that
 *	went wrong is made again so (sample/walk.c). (Which address space a
 *	thread walked last, for a libunwind whose cache is per thread, is kept
 *	per thread by oracle/libunwind.c.)
 */
struct oracle_walker {
	bool libunwind_flush;
};

/**
 * struct oracle_input - one stopped thread, as every oracle gets it
 * @tid: the thread
 * @regs: its registers by DWARF number (ORACLE_REGS; the last is its IP)
 * @mem: its process's memory as of the stop (not owned)
 * @registry: its process's registrations: no unwind info is looked for in
 *	files for code in a JIT registration (not owned)
 * @walker: the calling thread's walker state (not owned; one per thread of
 *	ours that walks)
 * @taken_ns: when the sample was taken (CLOCK_MONOTONIC): mappings read
 *	after it are not read again for an address they do not hold
 */
struct oracle_input {
	pid_t tid;
	const uint64_t *regs;
	const struct emu_accessor *mem;
	const struct emu_registry *registry;
	struct oracle_walker *walker;
	uint64_t taken_ns;
};

#define ORACLE_CFI_CACHE 4096	/* PCs whose CFI coverage is kept per process */

/*
 * A reference frame reached by a step from a frame its unwinder had no
 * unwind information for (a guess from the frame chain), in struct
 * oracle_walk's @flags beside the EMU_FRAME_* bits (oracles_mark_guesses()).
 */
#define ORACLE_FRAME_GUESS 0x80
/*
 * A reference frame its back-end reached without unwind information of its
 * own for the frame before (libunwind: no file it could read there, as the
 * vDSO; or no CFI in it): its step used nothing a cache could keep.
 */
#define ORACLE_FRAME_NO_INFO 0x40

/**
 * struct oracle_walk - room for a walk and what it found
 * @ips: room for @max addresses: frame 0's IP, then return addresses
 * @flags: room for @max EMU_FRAME_* flags (what the back-end knows of signal
 *	frames: EXACT for IPs that are not return addresses), or NULL
 * @n: frames written
 * @retries: walks the back-end tried again with fresh state
 */
struct oracle_walk {
	uint64_t *ips;
	uint8_t *flags;
	unsigned int max;
	unsigned int n;
	unsigned int retries;
};

/**
 * struct oracle_ops - one reference unwinder
 * @name: as reports call it
 * @open: its state for process @pid into *@state (@mods: the process's
 *	modules, shared with the symbols); 0 or a negative errno
 * @close: release the state (NULL is fine)
 * @mappings_changed: forget what was cached of the old mappings
 * @walk: unwind @in's thread into @w; 0 when it reached the stack's end (or
 *	@w->max frames), else the back-end's negative error (see @strerror)
 * @strerror: text for one of @walk's errors
 */
struct oracle_ops {
	const char *name;
	int (*open)(void **state, pid_t pid, struct modules *mods);
	void (*close)(void *state);
	void (*mappings_changed)(void *state);
	int (*walk)(void *state, const struct oracle_input *in, struct oracle_walk *w);
	const char *(*strerror)(int err);
};

enum oracle_id {
	ORACLE_LIBUNWIND,	/* the cross-check of every sample */
	ORACLE_ELFUTILS,	/* the third opinion when the other two disagree */
	ORACLE_COUNT,
};

extern const struct oracle_ops oracle_libunwind;
extern const struct oracle_ops oracle_elfutils;

/*
 * Why libunwind cannot check frames past the first JIT frame (libunwind.c
 * has the details): its remote unwinder on x86-64 has no use for
 * _U_dyn_register's unwind info.
 */
#define ORACLE_LIBUNWIND_NO_JIT "libunwind 1.6.2 on x86-64 ignores _U_dyn_register op lists " \
	"and misreads registered tables remotely"

/**
 * struct oracles - one process's oracles and symbols
 * @state: each back-end's state, NULL when it is not used
 * @err: why a back-end could not be opened (-EPERM: not asked for)
 * @plaus: the frame-plausibility oracle (asked with or without the
 *	back-ends; NULL when it could not be made)
 * @sym: names for the process's addresses
 * @cfi: whether the CFI describe a PC, by PC (direct-mapped; 0: empty, 1:
 *	no, 2: yes), until the mappings change
 */
struct oracles {
	pid_t pid;
	void *state[ORACLE_COUNT];
	int err[ORACLE_COUNT];
	struct plausibility *plaus;
	struct symbols sym;
	struct oracle_cfi_slot {
		uint64_t pc;
		uint8_t known;
	} cfi[ORACLE_CFI_CACHE];
};

/**
 * oracles_new() - state for process @pid: its symbols, the plausibility
 * oracle, and the unwinders when @crosscheck (else each one's @err is
 * -EPERM). NULL with errno ENOMEM, or ELIBACC (libcapstone cannot be loaded).
 */
struct oracles *oracles_new(pid_t pid, bool crosscheck);

/** oracles_free() - release everything (NULL is fine; a tracees_free_fn). */
void oracles_free(void *o);

/** oracles_mappings_changed() - the process's mappings changed: every cache goes. */
void oracles_mappings_changed(struct oracles *o);

/** oracles_ready() - back-end @id can walk this process's samples. */
bool oracles_ready(const struct oracles *o, enum oracle_id id);

/** oracles_walk() - walk @in with back-end @id (see struct oracle_ops' @walk). */
int oracles_walk(struct oracles *o, enum oracle_id id, const struct oracle_input *in,
		 struct oracle_walk *w);

/**
 * oracles_mark_guesses() - set ORACLE_FRAME_GUESS on the frames of a
 * reference walk (@ips, @flags, @n) reached from a frame the process's DWARF
 * CFI do not describe (looked up at its IP when exact, else at IP - 1): JIT
 * code, code without unwind tables
 */
void oracles_mark_guesses(struct oracles *o, const uint64_t *ips, uint8_t *flags, unsigned int n);

/** oracles_strerror() - back-end @id's text for its error @err. */
const char *oracles_strerror(enum oracle_id id, int err);

#endif /* SUPERVISOR_ORACLE_ORACLE_H */
