/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What codectl-run reads of a tracee in /proc: which process a thread
 * belongs to, its parent, its start time (which tells a reused pid apart),
 * the program it runs, and its mappings as an emu_mappings model.
 */
#ifndef SUPERVISOR_CORE_PROCFS_H
#define SUPERVISOR_CORE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/mappings.h"

/** procfs_tgid_of() - the process thread @tid belongs to (/proc/TID/status); 0 when gone. */
pid_t procfs_tgid_of(pid_t tid);

/** procfs_blocks() - does thread @tid block signal @sig now (its SigBlk)? false when gone. */
bool procfs_blocks(pid_t tid, int sig);

/** procfs_comm() - thread @tid's name into @buf ("" when gone). */
void procfs_comm(pid_t tid, char *buf, size_t size);

/** procfs_ppid_of() - the parent process of task @tid (/proc/TID/status); 0 when gone. */
pid_t procfs_ppid_of(pid_t tid);

/** procfs_start_time() - field 22 of /proc/PID/stat (clock ticks); 0 when the process is gone. */
unsigned long long procfs_start_time(pid_t pid);

/** procfs_exe() - /proc/PID/exe into @buf (@size bytes); empty when unreadable. */
void procfs_exe(pid_t pid, char *buf, size_t size);

/**
 * procfs_cmdline() - the arguments of process @pid (/proc/PID/cmdline: each
 * ends with a NUL), at most @size bytes into @buf
 * Return: bytes read (0 when the process is gone or has none).
 */
size_t procfs_cmdline(pid_t pid, char *buf, size_t size);

/**
 * procfs_maps_read() - replace @m with the mappings of process @pid
 * Return: 0, or a negative errno (-ENOENT: the process is gone; -ESRCH: it
 * has no mappings left, as while it exits; -ENOMEM; -EINVAL: a line /proc
 * did not write).
 */
int procfs_maps_read(pid_t pid, struct emu_mappings *m);

/**
 * procfs_map_ident() - a file mapping's identity (emu_vma.ident): its
 * device, inode and file offset hashed; 0 for anonymous memory (@inode 0)
 */
uint64_t procfs_map_ident(uint64_t offset, uint64_t dev_major, uint64_t dev_minor, uint64_t inode);

/**
 * procfs_maps_parse_line() - the range, EMU_PROT_* bits (EMU_VMA_VDSO for
 *	the vDSO) and file identity (device, inode, offset; 0 for anonymous
 *	memory) of one maps line
 * Return: 0, or -EINVAL.
 */
int procfs_maps_parse_line(const char *line, uint64_t *start, uint64_t *end, unsigned int *prot,
			   uint64_t *ident);

#endif /* SUPERVISOR_CORE_PROCFS_H */
