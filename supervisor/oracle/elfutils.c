// SPDX-License-Identifier: GPL-2.0
/*
 * elfutils' unwinder as an oracle (the third opinion): libdwfl's frame
 * walker over the process's modules (CFI from .eh_frame/.debug_frame), with
 * our own thread callbacks: the one sampled thread, its captured registers,
 * its memory through the sample's reader.
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>

#include "emu/unwind.h"
#include "oracle.h"

/**
 * struct elfutils - one process's walker
 * @mods: the process's modules (owned by its symbols)
 * @attached: the thread callbacks are attached to @mods' Dwfl
 * @in: the thread being walked (set for one walk only)
 */
struct elfutils {
	struct modules *mods;
	pid_t pid;
	bool attached;
	const struct oracle_input *in;
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl, (void)arg, (void)thread_argp;
	return 0;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct elfutils *e = arg;

	(void)dwfl;
	if (!e->in || tid != e->in->tid)
		return false;
	*thread_argp = e;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct elfutils *e = arg;

	(void)dwfl;
	return e->in && !emu_read(e->in->mem, addr, result, sizeof(*result));
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct oracle_input *in = ((struct elfutils *)arg)->in;

	dwfl_thread_state_register_pc(thread, in->regs[ORACLE_REGS - 1]);
	return dwfl_thread_state_registers(thread, 0, ORACLE_REGS, in->regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/*
 * An activation's PC is exact (frame 0, or interrupted by a signal: then the
 * frame before it was the signal trampoline); any other is a return address.
 */
static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct oracle_walk *w = arg;
	bool activation = false;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return -1;
	if (w->flags) {
		w->flags[w->n] = activation ? EMU_FRAME_EXACT : 0;
		if (activation && w->n)
			w->flags[w->n - 1] |= EMU_FRAME_TRAMPOLINE | EMU_FRAME_EXACT;
	}
	w->ips[w->n++] = pc;
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Return: 0 when the walk reached the end (or the limit), -EIO when elfutils
 * stopped with an error, -ENOENT when it could not attach. */
static int walk(void *state, const struct oracle_input *in, struct oracle_walk *w)
{
	struct elfutils *e = state;
	Dwfl *dwfl = modules_dwfl(e->mods);
	int ret;

	w->n = 0;
	if (!dwfl)
		return -ENOENT;
	if (!e->attached) {
		if (!dwfl_attach_state(dwfl, NULL, e->pid, &thread_callbacks, e))
			return -ENOENT;
		e->attached = true;
	}
	e->in = in;
	ret = dwfl_getthread_frames(dwfl, in->tid, on_frame, w);
	e->in = NULL;
	return ret == 0 || ret == DWARF_CB_ABORT ? 0 : -EIO;
}

static int open_state(void **state, pid_t pid, struct modules *mods)
{
	struct elfutils *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	*e = (struct elfutils){ .mods = mods, .pid = pid };
	*state = e;
	return 0;
}

static void close_state(void *state)
{
	free(state);
}

static void mappings_changed(void *state)
{
	(void)state;	/* the modules are the symbols': invalidated with them */
}

static const char *walk_strerror(int err)
{
	return err == -ENOENT ? "cannot attach" : "stopped with an error";
}

const struct oracle_ops oracle_elfutils = {
	.name = "elfutils",
	.open = open_state,
	.close = close_state,
	.mappings_changed = mappings_changed,
	.walk = walk,
	.strerror = walk_strerror,
};
