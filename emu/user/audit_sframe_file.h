/* SPDX-License-Identifier: MIT */
/*
 * SFrame kept apart from its object (CODECTL_SFRAME_PATH): the file of an
 * object without a .sframe of its own, found by its build id under one of
 * the directories given, as debuggers find debug files.
 */
#ifndef CODECTL_AUDIT_SFRAME_FILE_H
#define CODECTL_AUDIT_SFRAME_FILE_H

#include <stddef.h>
#include <codectl_sframe_file.h>

#include "audit_object.h"

/**
 * audit_sframe_file_open() - DIR/.build-id/xx/rest.sframe for @o's build id,
 *	DIR each directory of @dirs (colon-separated) in turn, the first whose
 *	header is one this module reads and names the same build id
 * @h: the file's header; @name: its path (@len bytes)
 * Return: the file, open for reading (the caller closes it), or -1 when no
 * directory has one.
 */
int audit_sframe_file_open(const char *dirs, const struct audit_object *o,
			   struct codectl_sframe_file *h, char *name, size_t len);

#endif /* CODECTL_AUDIT_SFRAME_FILE_H */
