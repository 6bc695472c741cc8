/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --html: the report as one self-contained page. The page (page.html, in
 * this directory, built into codectl-run) holds its style and script; the
 * report's data goes into it as JSON, which its script draws: a flame graph
 * coloured by verdict, the profile, coverage, the places with their
 * examples side by side, the registrations. Nothing is loaded from
 * elsewhere.
 */
#ifndef SUPERVISOR_REPORT_PAGE_H
#define SUPERVISOR_REPORT_PAGE_H

#include <jansson.h>
#include <stdio.h>

/**
 * page_write() - the page with @data (the --json report's object, with
 * "flame": [[folded stack, count, samples whose libunwind walk was wrong],
 * ...] and "flame_root": whether each stack starts with its thread) to @f
 * Return: 0, or -1 (a write error or no memory).
 */
int page_write(FILE *f, const json_t *data);

#endif /* SUPERVISOR_REPORT_PAGE_H */
