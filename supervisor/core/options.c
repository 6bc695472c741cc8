// SPDX-License-Identifier: GPL-2.0
/* codectl-run's command line, parsed with getopt_long as strace and perf users expect. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/codectl.h>
#include <linux/eh_frame_setup.h>
#include <linux/sframe_setup.h>
#include <linux/stacktrace_setup.h>
#include <seccomp.h>

#include "emu/codectl_call.h"
#include "emu/registry.h"
#include "options.h"
#include "version.h"

enum {
	OPT_NR = 256,
	OPT_STRICT,
	OPT_TRACE,
	OPT_MAX_REG,
	OPT_MAX_SFRAME,
	OPT_MAX_SFRAME_TOTAL,
	OPT_NO_EXEC_REG,
	OPT_REQUIRE_PTRACE,
	OPT_NO_LOADER_MODULE,
	OPT_REGISTRY_DUMP,
	OPT_VERSION,
	OPT_FREQ,
	OPT_CLOCK,
	OPT_SAMPLER,
	OPT_STACK_SIZE,
	OPT_MAX_FRAMES,
	OPT_NO_CROSSCHECK,
	OPT_JSON,
	OPT_JSON_ALL,
	OPT_COMPARE_FORMATS,
	OPT_SYNTHESIZE_SFRAME,
	OPT_SFRAME_PATH,
	OPT_SFRAME_CACHE,
	OPT_FOLDED_ALL,
	OPT_REPORT,
	OPT_HTML,
	OPT_NO_FOLDED_ROOT,
	OPT_FOLDED,
	OPT_CHECK,
	OPT_KERNEL,
	OPT_SFRAME_VALIDATION,
	OPT_SFRAME_NR,
	OPT_EH_FRAME_NR,
	OPT_STACKTRACE_NR,
	OPT_PRCTL_SFRAME,
	OPT_LOADER_ABI,
	OPT_VERIFY,
};

static const struct option long_opts[] = {
	{ "nr", required_argument, NULL, OPT_NR },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "sframe-validation", no_argument, NULL, OPT_SFRAME_VALIDATION },
	{ "sframe-nr", required_argument, NULL, OPT_SFRAME_NR },
	{ "eh-frame-nr", required_argument, NULL, OPT_EH_FRAME_NR },
	{ "stacktrace-setup-nr", required_argument, NULL, OPT_STACKTRACE_NR },
	{ "prctl-sframe", no_argument, NULL, OPT_PRCTL_SFRAME },
	{ "loader-abi", required_argument, NULL, OPT_LOADER_ABI },
	{ "output", required_argument, NULL, 'o' },
	{ "trace", no_argument, NULL, OPT_TRACE },
	{ "max-registrations", required_argument, NULL, OPT_MAX_REG },
	{ "max-sframe-size", required_argument, NULL, OPT_MAX_SFRAME },
	{ "max-sframe-total", required_argument, NULL, OPT_MAX_SFRAME_TOTAL },
	{ "no-exec-registration", no_argument, NULL, OPT_NO_EXEC_REG },
	{ "require-ptrace", no_argument, NULL, OPT_REQUIRE_PTRACE },
	{ "no-loader-module", no_argument, NULL, OPT_NO_LOADER_MODULE },
	{ "registry-dump", no_argument, NULL, OPT_REGISTRY_DUMP },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "freq", required_argument, NULL, OPT_FREQ },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "sampler", required_argument, NULL, OPT_SAMPLER },
	{ "stack-size", required_argument, NULL, OPT_STACK_SIZE },
	{ "max-frames", required_argument, NULL, OPT_MAX_FRAMES },
	{ "no-crosscheck", no_argument, NULL, OPT_NO_CROSSCHECK },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "json-all", required_argument, NULL, OPT_JSON_ALL },
	{ "compare-formats", no_argument, NULL, OPT_COMPARE_FORMATS },
	{ "synthesize-sframe", no_argument, NULL, OPT_SYNTHESIZE_SFRAME },
	{ "sframe-path", required_argument, NULL, OPT_SFRAME_PATH },
	{ "sframe-cache-size", required_argument, NULL, OPT_SFRAME_CACHE },
	{ "folded", required_argument, NULL, OPT_FOLDED },
	{ "folded-all", required_argument, NULL, OPT_FOLDED_ALL },
	{ "no-folded-root", no_argument, NULL, OPT_NO_FOLDED_ROOT },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: codectl-run [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"Run PROGRAM with codectl(2) emulated for it and every process it starts.\n"
		"\n"
		"  --nr N                  trap codectl as system call number N (default %d)\n"
		"  --kernel PROFILE        the kernel emulated, for every entry point:\n"
		"                          emulator (default), v16 (the current series: SFrame\n"
		"                          v3 only, forks inherit, broken data found at unwind\n"
		"                          removes a registration) or v13 (the January 2026\n"
		"                          series: forks start empty, range ends inclusive);\n"
		"                          the kernel profiles look callers up at their return\n"
		"                          address (codectl-run(1), KERNEL PROFILES)\n"
		"  --strict                --kernel v16\n"
		"  --sframe-validation     with --kernel v16: validate every FDE, FRE and data\n"
		"                          word at registration (CONFIG_SFRAME_VALIDATION; off:\n"
		"                          only the header, as the kernel a user runs)\n"
		"  --sframe-nr REG,UNREG   trap sframe_register/sframe_unregister as these\n"
		"                          numbers (default %d,%d)\n"
		"  --stacktrace-setup-nr N trap stacktrace_setup as N (default %d)\n"
		"  --eh-frame-nr REG,UNREG trap eh_frame_register/eh_frame_unregister as these\n"
		"                          numbers (default %d,%d)\n"
		"  --prctl-sframe          trap prctl(PR_ADD_SFRAME) and prctl(PR_REMOVE_SFRAME)\n"
		"                          (%d, %d; other prctls run natively)\n"
		"  --loader-abi ABI        the loader module registers with codectl (default),\n"
		"                          sframe_register, prctl (implies --prctl-sframe),\n"
		"                          eh_frame (.eh_frame_hdr by eh_frame_register, codectl\n"
		"                          identities) or both (codectl and eh_frame_register)\n"
		"  -o, --output FILE       write the log, trace and summary to FILE (default\n"
		"                          stderr; -: standard output)\n"
		"      --trace             one line per trapped call, strace style\n"
		"      --max-registrations N\n"
		"                          registrations per process before ENOSPC (default %d)\n"
		"      --max-sframe-size BYTES\n"
		"                          largest SFrame section accepted (default %u)\n"
		"      --max-sframe-total BYTES\n"
		"                          SFrame bytes one process may register in all\n"
		"                          (default %llu)\n"
		"      --sframe-path DIR[:DIR...]\n"
		"                          the loader module registers an object without\n"
		"                          .sframe from DIR/.build-id/xx/rest.sframe (made by\n"
		"                          sframe-extract) with CODE_REGISTER_SFRAME_FILE\n"
		"      --sframe-cache-size BYTES\n"
		"                          SFrame read from files one process keeps in memory,\n"
		"                          decompressed (default %u)\n"
		"      --no-exec-registration\n"
		"                          do not register PT_GNU_SFRAME of the program and its\n"
		"                          interpreter at execve\n"
		"      --require-ptrace    fail instead of running without process-tree tracking\n"
		"      --no-loader-module  do not load libcodectl-audit.so (LD_AUDIT) into\n"
		"                          dynamically linked programs (for a glibc that calls\n"
		"                          codectl itself)\n"
		"      --registry-dump     print each process's registrations when it exits\n"
		"      --verify            check each registered SFrame section against the code\n"
		"                          it describes, once per object (as sframe-verify does)\n"
		"\n"
		"Sampling (see codectl-run(1), \"SAMPLING\"):\n"
		"  -F, --freq HZ           samples per second of each thread's CPU time (default\n"
		"                          %u, at most %u; 0 turns sampling off)\n"
		"      --sampler ring|stop|sigprof\n"
		"                          ring (default): the kernel copies each thread's\n"
		"                          registers and stack into perf buffers, no signal, no\n"
		"                          stop; stop: each sampled thread is stopped (no signal)\n"
		"                          and our walk made during the stop, exact at any depth;\n"
		"                          sigprof: SIGPROF stops each thread, the stack copied\n"
		"                          at the stop\n"
		"      --clock cpu|wall    cpu: in proportion to the CPU time a thread uses; wall:\n"
		"                          every thread on the supervisor's timer, blocked ones\n"
		"                          too (SIGPROF)\n"
		"      --stack-size BYTES  stack copied per sample from SP up (default %u)\n"
		"      --max-frames N      frames per stack at most (default %u)\n"
		"      --no-crosscheck     do not unwind samples with libunwind too\n"
		"      --compare-formats   also walk every sample with the SFrame registrations\n"
		"                          alone and the .eh_frame ones alone, judge both and\n"
		"                          compare them (objects registered both ways, e.g.\n"
		"                          --loader-abi both); with --synthesize-sframe also\n"
		"                          with the synthesized SFrame\n"
		"      --synthesize-sframe give every object without .sframe SFrame made from\n"
		"                          its .eh_frame by the assembler's rules, registered\n"
		"                          as if the loader had, marked synthesized (emulator\n"
		"                          profile)\n"
		"      --report WHAT       the text report: all (default), profile (where the\n"
		"                          time goes) or coverage (where SFrame coverage ends,\n"
		"                          the verdicts)\n"
		"      --json FILE         machine-readable report (-: standard output)\n"
		"      --json-all FILE     the same, with every sample's stack\n"
		"      --folded FILE       folded stacks (comm-TGID/TID;outer;...;inner count) for\n"
		"                          flame graphs, each cut at its first frame judged wrong\n"
		"                          or unverifiable ([wrong: WHY], [astray: WHY],\n"
		"                          [unverified], [past-coverage] in its place)\n"
		"      --folded-all FILE   the same, every frame of our walk kept (with or\n"
		"                          without --folded)\n"
		"      --html FILE         the report as one self-contained page: a flame graph\n"
		"                          coloured by verdict, the profile, coverage, the\n"
		"                          places with their examples (-: standard output)\n"
		"      --no-folded-root    no comm-TGID/TID root frame\n"
		"      --check             exit with status 3 when a sample's covered part is\n"
		"                          wrong (an implausible frame, or RA 0 read through a\n"
		"                          row not marked outermost), or disagrees with\n"
		"                          libunwind where elfutils does not side with\n"
		"                          codectl-run, or a walk stopped at a JIT table that\n"
		"                          breaks codectl(2)'s rules\n"
		"  -q, --quiet             no exit summary and no notes\n"
		"  -h, --help              this help\n"
		"      --version           version\n"
		"\n"
		"codectl-run exits with PROGRAM's exit status (128+N if a signal N killed it),\n"
		"127 if PROGRAM was not found, 126 if it could not be executed, 3 with --check\n"
		"when a check failed. See codectl-run(1) and codectl(2).\n",
		CODECTL_NR_DEFAULT, SFRAME_REGISTER_NR_DEFAULT, SFRAME_UNREGISTER_NR_DEFAULT,
		STACKTRACE_SETUP_NR_DEFAULT, EH_FRAME_REGISTER_NR_DEFAULT,
		EH_FRAME_UNREGISTER_NR_DEFAULT, PR_ADD_SFRAME, PR_REMOVE_SFRAME,
		EMU_REGISTRY_DEFAULT_LIMIT, EMU_DEFAULT_MAX_SFRAME_SIZE,
		EMU_DEFAULT_MAX_SFRAME_TOTAL, EMU_BLOCK_CACHE_DEFAULT, OPTS_DEFAULT_FREQ, OPTS_MAX_FREQ, OPTS_DEFAULT_STACK_BYTES,
		OPTS_DEFAULT_MAX_FRAMES);
}

/* A positive decimal number up to @max; -1 on anything else. */
static long long parse_count(const char *s, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end || v < 0 || v > max)
		return -1;
	return v;
}

static int set_number(const char *name, const char *arg, long long max, long long *out)
{
	*out = parse_count(arg, max);
	if (*out >= 0)
		return 0;
	fprintf(stderr, "codectl-run: invalid %s '%s': a whole number from 0 to %lld\n", name,
		arg, max);
	return OPTS_EXIT_USAGE;
}

/* @arg, one of the @n @names, as its index into *@out; else a usage error naming them. */
static int parse_choice(const char *opt, const char *arg, const char *const *names, unsigned int n,
			unsigned int *out)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(arg, names[i])) {
			*out = i;
			return 0;
		}
	fprintf(stderr, "codectl-run: invalid %s '%s' (", opt, arg);
	for (unsigned int i = 0; i < n; i++)
		fprintf(stderr, "%s%s", names[i], i + 2 < n ? ", " : i + 1 < n ? " or " : ")\n");
	return OPTS_EXIT_USAGE;
}

static int parse_sampler(const char *arg, struct run_opts *o)
{
	static const char *const names[] = {
		[OPTS_SAMPLER_RING] = "ring", [OPTS_SAMPLER_STOP] = "stop",
		[OPTS_SAMPLER_SIGPROF] = "sigprof",
	};
	unsigned int i;
	int err = parse_choice("--sampler", arg, names, 3, &i);

	o->sampler = err ? o->sampler : i;
	return err;
}

static int parse_report(const char *arg, struct run_opts *o)
{
	static const char *const names[] = {
		[OPTS_REPORT_ALL] = "all", [OPTS_REPORT_PROFILE] = "profile",
		[OPTS_REPORT_COVERAGE] = "coverage",
	};
	unsigned int i;
	int err = parse_choice("--report", arg, names, 3, &i);

	o->report = err ? o->report : i;
	return err;
}

static int parse_sampling(int c, struct run_opts *o);

/* Trapping a real system call would change the program (and deadlock our own start-up). */
static int check_nr(const char *opt, long nr)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, (int)nr);

	if (!name)
		return 0;
	fprintf(stderr, "codectl-run: %s %ld is the system call %s; choose a number the kernel "
			"does not use\n", opt, nr, name);
	free(name);
	return OPTS_EXIT_USAGE;
}

/* A system call number for @opt: not a real one (see check_nr()). */
static int set_nr(const char *opt, const char *arg, long *out)
{
	long long v = 0;
	int err = set_number(opt, arg, 0x3fffffff, &v);

	*out = (long)v;
	return err ? err : check_nr(opt, *out);
}

/* --sframe-nr REG,UNREG and --eh-frame-nr REG,UNREG */
static int set_nr_pair(const char *opt, const char *arg, long nr[2])
{
	const char *comma = strchr(arg, ',');
	char reg[32];

	if (!comma || (size_t)(comma - arg) >= sizeof(reg)) {
		fprintf(stderr, "codectl-run: invalid %s '%s' (REG,UNREG)\n", opt, arg);
		return OPTS_EXIT_USAGE;
	}
	snprintf(reg, sizeof(reg), "%.*s", (int)(comma - arg), arg);
	return set_nr(opt, reg, &nr[0]) || set_nr(opt, comma + 1, &nr[1]) ? OPTS_EXIT_USAGE : 0;
}

static int set_kernel(const char *arg, struct run_opts *o)
{
	for (int k = 0; k < EMU_PROFILE_COUNT; k++) {
		if (!strcmp(arg, emu_profile_name(k))) {
			o->kernel = k;
			return 0;
		}
	}
	fprintf(stderr, "codectl-run: invalid --kernel '%s' (emulator, v16 or v13)\n", arg);
	return OPTS_EXIT_USAGE;
}

static int set_loader_abi(const char *arg, struct run_opts *o)
{
	static const char *const abis[] = { "codectl", "sframe_register", "prctl", "eh_frame",
					    "both" };
	size_t i;

	for (i = 0; i < sizeof(abis) / sizeof(abis[0]) && strcmp(arg, abis[i]); i++)
		;
	if (i == sizeof(abis) / sizeof(abis[0])) {
		fprintf(stderr, "codectl-run: invalid --loader-abi '%s' (codectl, sframe_register, "
				"prctl, eh_frame or both)\n", arg);
		return OPTS_EXIT_USAGE;
	}
	o->loader_abi = arg;
	o->prctl_sframe |= !strcmp(arg, "prctl");
	return 0;
}

/* The numbers trapped must differ: one number, one entry point. */
static int check_numbers(const struct run_opts *o)
{
	const long nr[6] = { o->nr, o->sframe_nr[0], o->sframe_nr[1], o->stacktrace_nr,
			     o->eh_frame_nr[0], o->eh_frame_nr[1] };

	for (int i = 0; i < 6; i++)
		for (int j = i + 1; j < 6; j++)
			if (nr[i] == nr[j]) {
				fprintf(stderr, "codectl-run: system call number %ld given to two "
						"entry points (--nr, --sframe-nr, "
						"--stacktrace-setup-nr, --eh-frame-nr)\n", nr[i]);
				return OPTS_EXIT_USAGE;
			}
	return 0;
}

/* The entry points and the kernel emulated. */
static int parse_entry(int c, struct run_opts *o)
{
	switch (c) {
	case OPT_STRICT:
		o->kernel = EMU_PROFILE_V16;
		return 0;
	case OPT_KERNEL:
		return set_kernel(optarg, o);
	case OPT_SFRAME_VALIDATION:
		o->sframe_validation = true;
		return 0;
	case OPT_SFRAME_NR:
		return set_nr_pair("--sframe-nr", optarg, o->sframe_nr);
	case OPT_EH_FRAME_NR:
		return set_nr_pair("--eh-frame-nr", optarg, o->eh_frame_nr);
	case OPT_STACKTRACE_NR:
		return set_nr("--stacktrace-setup-nr", optarg, &o->stacktrace_nr);
	case OPT_PRCTL_SFRAME:
		o->prctl_sframe = true;
		return 0;
	case OPT_LOADER_ABI:
		return set_loader_abi(optarg, o);
	default:
		return parse_sampling(c, o);
	}
}

static int parse_one(int c, struct run_opts *o)
{
	long long v = 0;
	int err = 0;

	switch (c) {
	case OPT_NR:
		err = set_nr("--nr", optarg, &o->nr);
		break;
	case 'o':
		o->log_path = optarg;
		break;
	case OPT_TRACE:
		o->trace = true;
		break;
	case OPT_MAX_REG:
		err = set_number("--max-registrations", optarg, 1 << 24, &v);
		o->max_registrations = (size_t)v;
		break;
	case OPT_MAX_SFRAME:
		err = set_number("--max-sframe-size", optarg, 1ll << 32, &v);
		o->max_sframe_size = (size_t)v;
		break;
	case OPT_MAX_SFRAME_TOTAL:
		err = set_number("--max-sframe-total", optarg, 1ll << 40, &v);
		o->max_sframe_total = (uint64_t)v;
		break;
	case OPT_NO_EXEC_REG:
		o->exec_registration = false;
		break;
	case OPT_REQUIRE_PTRACE:
		o->require_ptrace = true;
		break;
	case OPT_NO_LOADER_MODULE:
		o->loader_module = false;
		break;
	case OPT_REGISTRY_DUMP:
		o->registry_dump = true;
		break;
	case OPT_VERIFY:
		o->verify = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	default:
		return parse_entry(c, o);
	}
	return err;
}

static int parse_clock(const char *arg, struct run_opts *o)
{
	if (!strcmp(arg, "cpu") || !strcmp(arg, "wall")) {
		o->wall_clock = arg[0] == 'w';
		return 0;
	}
	fprintf(stderr, "codectl-run: invalid --clock '%s' (cpu or wall)\n", arg);
	return OPTS_EXIT_USAGE;
}

static int parse_sampling(int c, struct run_opts *o)
{
	long long v = 0;
	int err = 0;

	switch (c) {
	case 'F':
	case OPT_FREQ:
		err = set_number("--freq", optarg, OPTS_MAX_FREQ, &v);
		o->freq = (unsigned int)v;
		break;
	case OPT_CLOCK:
		err = parse_clock(optarg, o);
		break;
	case OPT_SAMPLER:
		err = parse_sampler(optarg, o);
		break;
	case OPT_STACK_SIZE:
		err = set_number("--stack-size", optarg, 64 << 20, &v);
		o->stack_bytes = (size_t)v;
		break;
	case OPT_MAX_FRAMES:
		err = set_number("--max-frames", optarg, 65536, &v);
		if (!err && v == 0) {
			fprintf(stderr, "codectl-run: --max-frames must be at least 1\n");
			err = OPTS_EXIT_USAGE;
		}
		o->max_frames = (unsigned int)v;
		break;
	case OPT_NO_CROSSCHECK:
		o->crosscheck = false;
		break;
	case OPT_COMPARE_FORMATS:
		o->compare_formats = true;
		break;
	case OPT_SYNTHESIZE_SFRAME:
		o->synthesize_sframe = true;
		break;
	case OPT_SFRAME_PATH:
		o->sframe_path = optarg;
		break;
	case OPT_SFRAME_CACHE:
		err = set_number("--sframe-cache-size", optarg, 1ll << 40, &v);
		o->sframe_cache = (uint64_t)v;
		break;
	case OPT_JSON_ALL:
		o->json_all = true;
		/* fall through */
	case OPT_JSON:
		o->json_path = optarg;
		break;
	case OPT_FOLDED_ALL:
		o->folded_all_path = optarg;
		break;
	case OPT_FOLDED:
		o->folded_path = optarg;
		break;
	case OPT_NO_FOLDED_ROOT:
		o->folded_no_root = true;
		break;
	case OPT_REPORT:
		err = parse_report(optarg, o);
		break;
	case OPT_HTML:
		o->html_path = optarg;
		break;
	case OPT_CHECK:
		o->check = true;
		break;
	case 'h':
		usage(stdout);
		return OPTS_EXIT_OK;
	case OPT_VERSION:
		printf("codectl-run %s\n", CODECTL_EMU_VERSION);
		return OPTS_EXIT_OK;
	default:
		fprintf(stderr, "Try 'codectl-run --help' for more information.\n");
		return OPTS_EXIT_USAGE;
	}
	return err;
}

int opts_parse(int argc, char **argv, struct run_opts *o)
{
	int c, err;

	*o = (struct run_opts){
		.nr = CODECTL_NR_DEFAULT,
		.sframe_nr = { SFRAME_REGISTER_NR_DEFAULT, SFRAME_UNREGISTER_NR_DEFAULT },
		.stacktrace_nr = STACKTRACE_SETUP_NR_DEFAULT,
		.eh_frame_nr = { EH_FRAME_REGISTER_NR_DEFAULT, EH_FRAME_UNREGISTER_NR_DEFAULT },
		.max_registrations = EMU_REGISTRY_DEFAULT_LIMIT,
		.max_sframe_size = EMU_DEFAULT_MAX_SFRAME_SIZE,
		.max_sframe_total = EMU_DEFAULT_MAX_SFRAME_TOTAL,
		.sframe_cache = EMU_BLOCK_CACHE_DEFAULT,
		.exec_registration = true,
		.loader_module = true,
		.freq = OPTS_DEFAULT_FREQ,
		.stack_bytes = OPTS_DEFAULT_STACK_BYTES,
		.max_frames = OPTS_DEFAULT_MAX_FRAMES,
		.crosscheck = true,
	};
	/* "+": stop at the first non-option, so PROGRAM's own options stay its own */
	while ((c = getopt_long(argc, argv, "+o:qhF:", long_opts, NULL)) != -1) {
		err = parse_one(c, o);
		if (err)
			return err;
	}
	o->strict = emu_profile_is_kernel(o->kernel);
	if (o->sframe_validation && o->kernel != EMU_PROFILE_V16) {
		fprintf(stderr, "codectl-run: --sframe-validation is for --kernel v16 (the other "
				"profiles validate every section)\n");
		return OPTS_EXIT_USAGE;
	}
	if (o->synthesize_sframe && o->strict) {
		fprintf(stderr, "codectl-run: --synthesize-sframe is the emulator profile's (a "
				"kernel profile reads SFrame in the process, where none was made)\n");
		return OPTS_EXIT_USAGE;
	}
	if (check_numbers(o))
		return OPTS_EXIT_USAGE;
	if (optind >= argc) {
		fprintf(stderr, "codectl-run: no PROGRAM given\n"
				"Try 'codectl-run --help' for more information.\n");
		return OPTS_EXIT_USAGE;
	}
	o->argv = &argv[optind];
	return 0;
}
