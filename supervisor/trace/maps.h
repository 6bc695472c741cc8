/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An address space's cached mappings (/proc/PID/maps): re-read when they
 * are old or a call's refusal may come from them, and with them the stale
 * registrations (text no longer mapped) dropped and reported.
 */
#ifndef SUPERVISOR_TRACE_MAPS_H
#define SUPERVISOR_TRACE_MAPS_H

#include <stdbool.h>
#include <sys/types.h>

#include "trace.h"

/*
 * Cached mappings older than this are re-read before they are used (reading
 * /proc/PID/maps costs ~1 us per mapping, so not at every call or sample).
 */
#define MAPS_MAX_AGE_NS (100 * 1000 * 1000ull)

/** maps_old() - @p's cached mappings were never read, or are older than MAPS_MAX_AGE_NS. */
bool maps_old(const struct proc *p);

/**
 * maps_hint_changed() - registration @reg of @p (just committed) may speak
 * of a new file in its mappings (a library loaded where another was): when
 * its text is in a file mapping, the next sample reads them again
 * (maps_old_for_samples()), so the references, which keep state per file,
 * see the new one; calls keep their cache. Text in anonymous memory (JIT
 * code) hints nothing: no reference keeps file state there, and a program
 * registering such text in a loop would otherwise have every sample re-read
 * its mappings.
 */
void maps_hint_changed(struct proc *p, const struct emu_registration *reg);

/** maps_old_for_samples() - maps_old(), or a call hinted that they changed. */
bool maps_old_for_samples(const struct proc *p);

/**
 * maps_refresh() - re-read @p's mappings (through thread @tid), drop the
 * registrations whose text is no longer mapped (counted and logged as
 * stale), and tell the mappings_changed hook when anything moved
 * Return: 0, or the negative errno of the read, or -ESTALE when the process
 * ran an execve whose event is not handled yet (the vDSO moved, or is gone
 * where there was one); the
 * mappings read last then stay (an exiting or exec'ing process has none of
 * them left, and its queued samples are judged by the mappings it had), and
 * are re-read at the next use.
 */
int maps_refresh(struct trace *t, struct proc *p, pid_t tid);

/** struct maps_range - addresses [@start, @end) a call spoke of */
struct maps_range {
	uint64_t start;
	uint64_t end;
};

/**
 * maps_refresh_ranges() - bring @p's cached mappings up to date over the
 * @n ranges @r only (empty ones are skipped), asking the kernel for the
 * mappings there (PROCMAP_QUERY through thread @tid's /proc/TID/maps, kept
 * open in the address space) instead of re-reading all of them; drop the
 * registrations that shows stale and tell the mappings_changed hook, as
 * maps_refresh() does. The mappings' age stays: the others were not read.
 * Return: 0, -ENODATA (no mappings read since the exec: use
 * maps_refresh()), -ENOTTY or -EINVAL (a kernel without PROCMAP_QUERY),
 * -ESTALE (as maps_refresh()), or another negative errno; on an error the
 * caller falls back to maps_refresh().
 */
int maps_refresh_ranges(struct trace *t, struct proc *p, pid_t tid, const struct maps_range *r,
			size_t n);

#endif /* SUPERVISOR_TRACE_MAPS_H */
