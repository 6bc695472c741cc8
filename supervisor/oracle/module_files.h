/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files of a traced process's modules, as libdwfl is given them
 * (codectl-run(1), SECURITY): the objects it mapped, and their separate
 * debug files, each opened through as_tracee_open() with the process's
 * credentials. Debug files are found only by build ID under
 * MODULE_FILES_DEBUG_DIR/.build-id, or by a debug-link name without a '/'
 * in the standard places, and taken only when their build ID (without one,
 * the debug link's CRC) matches the module's. These replace libdwfl's
 * dwfl_linux_proc_find_elf and dwfl_standard_find_debuginfo, which open
 * any path they are given, FIFOs included, with codectl-run's credentials.
 */
#ifndef SUPERVISOR_ORACLE_MODULE_FILES_H
#define SUPERVISOR_ORACLE_MODULE_FILES_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MODULE_FILES_DEBUG_DIR "/usr/lib/debug"

struct as_tracee_id;

/**
 * module_files_tag() - mark every module of @dwfl as process @who's (its
 * userdata: @who must outlive @dwfl), which the callbacks below open files
 * for; call it after every dwfl_report_end(): a module not tagged gets no file
 */
void module_files_tag(Dwfl *dwfl, struct as_tracee_id *who);

/**
 * module_files_find_elf() - libdwfl's find_elf callback: the module's file
 * by the path libdwfl read in /proc/PID/maps, through as_tracee_open();
 * the vDSO and a file since deleted ("... (deleted)") from the process's
 * memory, as dwfl_linux_proc_find_elf() reads them.
 *
 * Return: a descriptor (*@file_name: its path, malloc'd), or -1 with
 * *@file_name left NULL (libdwfl would open a name left there itself).
 */
int module_files_find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
			  char **file_name, Elf **elfp);

/**
 * module_files_find_debuginfo() - libdwfl's find_debuginfo callback
 * @file_name: the module's file (or, for a supplementary file, the file
 *	whose DWARF names it)
 * @debuglink_file, @debuglink_crc: the main file's .gnu_debuglink, or the
 *	DWARF's .gnu_debugaltlink name (dwz) when libdwfl asks for that
 *
 * A debug file: MODULE_FILES_DEBUG_DIR/.build-id/xx/rest.debug by the
 * module's build ID; else the debug link's name (the module's file name
 * and ".debug" when it has none but a build ID), when it has no '/' and is
 * not "." or "..", in the module's directory, its .debug/ subdirectory,
 * and MODULE_FILES_DEBUG_DIR followed by the module's directory (and that
 * directory with its leading components taken off one by one, as libdwfl
 * does). A supplementary file: by its build ID, or by its name when that is
 * under MODULE_FILES_DEBUG_DIR/.dwz/ without "..". A candidate is taken only
 * when its build ID is the one wanted or, without one, its CRC is the
 * debug link's. When no supplementary file is found, libdw is told so (it
 * would otherwise open the name itself).
 * Return: a descriptor (*@debuginfo_file_name: its path, malloc'd), or -1.
 */
int module_files_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
				Dwarf_Addr base, const char *file_name, const char *debuglink_file,
				GElf_Word debuglink_crc, char **debuginfo_file_name);

/**
 * module_files_crc32() - the CRC-32 of @len bytes at @buf, continuing @crc
 * (0 to start), as .gnu_debuglink records it (zlib's crc32())
 */
uint32_t module_files_crc32(uint32_t crc, const void *buf, size_t len);

#endif /* SUPERVISOR_ORACLE_MODULE_FILES_H */
