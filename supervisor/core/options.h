/* SPDX-License-Identifier: GPL-2.0 */
/* codectl-run's command line. */
#ifndef SUPERVISOR_CORE_OPTIONS_H
#define SUPERVISOR_CORE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/profile.h"

/**
 * struct run_opts - what the user asked for
 * @nr: the codectl system call number trapped (--nr; default CODECTL_NR_DEFAULT)
 * @kernel: the kernel emulated (--kernel; --strict: v16)
 * @strict: @kernel is a kernel series' (v16, v13): its acceptance rules, fork,
 *	callers looked up at their return address, signal frames end a walk
 * @sframe_nr: sframe_register's and sframe_unregister's numbers (--sframe-nr)
 * @stacktrace_nr: stacktrace_setup's number (--stacktrace-setup-nr)
 * @eh_frame_nr: eh_frame_register's and eh_frame_unregister's numbers (--eh-frame-nr)
 * @sframe_validation: v16: validate each section whole at registration
 * @prctl_sframe: trap prctl(PR_ADD_SFRAME) and prctl(PR_REMOVE_SFRAME)
 * @loader_abi: the interface the loader module registers with (--loader-abi:
 *	"codectl", "sframe_register" or "prctl"), NULL: the module's default
 * @log_path: -o FILE, or NULL for stderr
 * @trace: one line per codectl call
 * @quiet: no exit summary and no notes (errors still print)
 * @max_registrations: per-process limit (ENOSPC beyond it)
 * @max_sframe_size: largest section copied at registration, bytes
 * @max_sframe_total: bytes of sections one process may hold in all
 * @exec_registration: register PT_GNU_SFRAME at every execve, as binfmt_elf does
 * @require_ptrace: refuse to run without process-tree tracking
 * @loader_module: load libcodectl-audit.so into dynamically linked programs
 * @registry_dump: print each process's registrations when it exits
 * @freq: samples per second and thread (--freq; 0: no sampling)
 * @sampler: how samples are taken (--sampler; --clock wall takes SIGPROF)
 * @wall_clock: --clock wall: every thread on the supervisor's wall-clock timer
 * @stack_bytes: bytes of stack copied per sample, from SP up (--stack-size)
 * @max_frames: frames per walk at most (--max-frames)
 * @crosscheck: unwind every sample with libunwind too (--no-crosscheck: off)
 * @compare_formats: walk every sample with the SFrame registrations alone
 *	and with the .eh_frame ones alone too, and judge both (--compare-formats);
 *	with @synthesize_sframe also with the synthesized SFrame
 * @sframe_path: --sframe-path, the loader module's CODECTL_SFRAME_PATH, or NULL
 * @sframe_cache: bytes of file-backed SFrame one process keeps resident
 * @synthesize_sframe: SFrame made from .eh_frame for objects without .sframe
 *	(--synthesize-sframe; emulator profile)
 * @json_path, @json_all: --json FILE (--json-all: with every sample's stack)
 * @folded_path, @folded_all_path: --folded FILE, --folded-all FILE (uncut)
 * @folded_no_root: --no-folded-root
 * @html_path: --html FILE
 * @report: --report
 * @check: exit status 3 when a covered prefix disagrees (see supervisor/report/classify.h)
 * @verify: check every registered SFrame section against its code (supervisor/verify)
 * @argv: PROGRAM and its arguments (NULL-terminated, points into main's argv)
 */
/* How samples are taken (--sampler). */
enum opts_sampler {
	OPTS_SAMPLER_RING = 0,	/* the kernel's records in perf ring buffers: no signal, no stop */
	OPTS_SAMPLER_STOP,	/* PTRACE_INTERRUPT at each record; our walk during the stop */
	OPTS_SAMPLER_SIGPROF,	/* SIGPROF to each thread, the copy taken at its stop */
};

/* What the text report shows (--report). */
enum opts_report {
	OPTS_REPORT_ALL = 0,
	OPTS_REPORT_PROFILE,	/* where the time goes: functions, objects, processes, threads */
	OPTS_REPORT_COVERAGE,	/* where SFrame coverage ends, the verdicts */
};

struct run_opts {
	long nr;
	enum emu_profile kernel;
	bool strict;
	bool sframe_validation;
	long sframe_nr[2];
	long stacktrace_nr;
	long eh_frame_nr[2];
	bool prctl_sframe;
	const char *loader_abi;
	const char *log_path;
	bool trace;
	bool quiet;
	size_t max_registrations;
	size_t max_sframe_size;
	uint64_t max_sframe_total;
	bool exec_registration;
	bool require_ptrace;
	bool loader_module;
	bool registry_dump;
	unsigned int freq;
	enum opts_sampler sampler;
	bool wall_clock;
	size_t stack_bytes;
	unsigned int max_frames;
	bool crosscheck;
	bool compare_formats;
	bool synthesize_sframe;
	const char *sframe_path;
	uint64_t sframe_cache;
	const char *json_path;
	bool json_all;
	const char *folded_path;
	const char *folded_all_path;
	bool folded_no_root;
	const char *html_path;
	enum opts_report report;
	bool check;
	bool verify;
	char **argv;
};

#define OPTS_DEFAULT_FREQ		999
#define OPTS_MAX_FREQ			10000	/* a stop costs ~20-50 us */
#define OPTS_DEFAULT_STACK_BYTES	(64u << 10)
#define OPTS_DEFAULT_MAX_FRAMES		128u

/* opts_parse() results besides 0 (run the program) */
#define OPTS_EXIT_OK	1	/* --help or --version was printed: exit 0 */
#define OPTS_EXIT_USAGE	2	/* a usage error was printed: exit 2 */

/**
 * opts_parse() - parse codectl-run's arguments into @o
 * Return: 0, OPTS_EXIT_OK or OPTS_EXIT_USAGE (messages already printed).
 */
int opts_parse(int argc, char **argv, struct run_opts *o);

#endif /* SUPERVISOR_CORE_OPTIONS_H */
