/* SPDX-License-Identifier: GPL-2.0 */
/* The tracee's mappings from /proc/PID/maps, as an emu_mappings model. */
#ifndef SUPERVISOR_PROC_MAPS_H
#define SUPERVISOR_PROC_MAPS_H

#include <sys/types.h>

#include "emu/mappings.h"

/**
 * proc_maps_read() - replace @m with the mappings of process @pid
 * Return: 0, or a negative errno (-ENOENT: the process is gone; -ENOMEM;
 * -EINVAL: a line /proc did not write).
 */
int proc_maps_read(pid_t pid, struct emu_mappings *m);

/**
 * proc_maps_parse_line() - the range and EMU_PROT_* bits of one maps line
 * Return: 0, or -EINVAL.
 */
int proc_maps_parse_line(const char *line, uint64_t *start, uint64_t *end, unsigned int *prot,
			 uint64_t *ident);

#endif /* SUPERVISOR_PROC_MAPS_H */
