// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests of signals and trapped calls: a codectl call a signal
 * interrupts before its answer restarts after the handler, whatever
 * SA_RESTART says, and registers exactly once; the program's own system
 * calls are interrupted as they would be without codectl-run.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_helper.h"

/* The program's own calls only: the loader module's are tested in tests/loader. */
#define RUN(r, ...) run_codectl((r), (const char *const[]){ "--no-loader-module", __VA_ARGS__, NULL })

#define CYCLES 5000
#define CYCLES_ARG "5000"

TestSuite(restart, .timeout = 120);

/* What e2e_prog's "storm" printed: each kind of call's 0, EINTR and other results. */
struct storm {
	int cycles;
	long reg_ok, reg_eintr, reg_other;
	long unreg_ok, unreg_eintr, unreg_other;
	long handled;
};

static void parse_storm(const struct run *r, struct storm *s)
{
	int n = r->out ? sscanf(r->out, "storm: cycles %d register %ld %ld %ld unregister %ld %ld %ld "
				"handled %ld", &s->cycles, &s->reg_ok, &s->reg_eintr, &s->reg_other,
				&s->unreg_ok, &s->unreg_eintr, &s->unreg_other, &s->handled) : 0;

	cr_assert_eq(n, 8, "%s", r->out ? r->out : "(no output)");
}

/* The restarts codectl-run's summary reports for process @pid (0 without that line). */
static unsigned long summary_restarts(const struct run *r, int pid)
{
	const char *what = " after a signal interrupted a call before its answer (never EINTR)\n";
	char key[64];
	unsigned long n;
	int end;

	snprintf(key, sizeof(key), "\n    pid %d: ", pid);
	for (const char *p = r->log; p && (p = strstr(p, key)); p++) {
		const char *q = p + strlen(key);

		end = 0;
		if (sscanf(q, "%lu restart%n", &n, &end) != 1 || !end)
			continue;
		q += end + (q[end] == 's');
		if (!strncmp(q, what, strlen(what)))
			return n;
	}
	return 0;
}

/*
 * @kind's storm (e2e_prog storm): every call answered once, none EINTR, the
 * registry back to what exec put there. How many calls were interrupted
 * varies from run to run: one_interrupted_call_restarts_once counts one.
 */
static void check_storm(const char *kind)
{
	const struct summary_row *row;
	struct storm s;
	struct run r;

	RUN(&r, "--", E2E_PROG, "storm", kind, CYCLES_ARG);
	cr_assert_eq(r.status, 0, "%s: %s", kind, r.log);
	parse_storm(&r, &s);
	cr_assert_eq(s.cycles, CYCLES);
	cr_assert_eq(s.reg_eintr, 0, "%s: a registration failed with EINTR", kind);
	cr_assert_eq(s.unreg_eintr, 0, "%s: an unregistration failed with EINTR", kind);
	cr_assert_eq(s.reg_ok, CYCLES, "%s: %s", kind, r.out);
	cr_assert_eq(s.unreg_ok, CYCLES, "%s: %s", kind, r.out);
	cr_assert_eq(s.reg_other + s.unreg_other, 0, "%s: %s", kind, r.out);
	cr_assert_gt(s.handled, 0, "%s: the handler never ran", kind);
	row = run_first_row(&r);
	cr_assert(row, "%s", r.log);
	/* exactly one registration per successful call, and none left by the cycles */
	cr_assert_eq(row->accepted, CYCLES, "%s", kind);
	cr_assert_eq(row->unregistered, CYCLES, "%s", kind);
	cr_assert_eq(row->rejected, 0, "%s", kind);
	cr_assert_eq(row->left, row->exec, "%s", kind);
	cr_assert_eq(row->stale, 0, "%s", kind);
	cr_assert_null(strstr(r.log, "answers not delivered"), "%s", r.log);
	run_free(&r);
}

/*
 * codectl-run is stopped (by the program) while the call waits, so the signal
 * surely comes before the call is received: exactly one restart, one
 * registration, no EINTR (which it was before).
 */
Test(restart, one_interrupted_call_restarts_once)
{
	const struct summary_row *row;
	struct run r;

	RUN(&r, "-F", "0", "--", E2E_PROG, "interrupt-once");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "interrupt-once: register 0 - handled 1\n", "%s", r.log);
	row = run_first_row(&r);
	cr_assert(row, "%s", r.log);
	cr_assert_eq(row->accepted, 1);
	cr_assert_eq(row->rejected, 0);
	cr_assert_eq(row->left, row->exec + 1);
	cr_assert_eq(summary_restarts(&r, row->pid), 1, "%s", r.log);
	run_free(&r);
}

Test(restart, sigusr1_storm_without_sa_restart_never_eintr)
{
	/* before the fix, about 1% to 10% of these calls failed with EINTR */
	check_storm("usr1");
}

Test(restart, stop_and_caught_sigcont_never_eintr)
{
	check_storm("stop");
}

/* The program's own read() is interrupted as without codectl-run. */
Test(restart, own_blocking_read_still_eintr)
{
	char line[64] = "";
	struct run r;
	FILE *f = popen(E2E_PROG " read-eintr", "r");

	cr_assert(f);
	cr_assert(fgets(line, sizeof(line), f));
	cr_assert_eq(pclose(f), 0);
	cr_assert_str_eq(line, "read: -1 EINTR\n", "without codectl-run");
	RUN(&r, "--", E2E_PROG, "read-eintr");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "read: -1 EINTR\n", "under codectl-run: %s", r.log);
	cr_assert(run_first_row(&r), "%s", r.log);
	cr_assert_eq(summary_restarts(&r, run_first_row(&r)->pid), 0, "%s", r.log);
	run_free(&r);
}

/*
 * codectl-run's own SIGPROF (--sampler sigprof: the wall clock signals
 * blocked threads) is suppressed: the calls it interrupts restart unseen,
 * each answered once.
 */
Test(restart, own_sigprof_restarts_unseen)
{
	const struct summary_row *row;
	struct run r;

	RUN(&r, "--clock", "wall", "--sampler", "sigprof", "-F", "2000", "--no-crosscheck", "--",
	    E2E_PROG, "threads", "2", "2000");
	cr_assert_eq(r.status, 0, "%s", r.log);
	cr_assert_str_eq(r.out, "threads: 4000 registrations\n");
	row = run_first_row(&r);
	cr_assert(row, "%s", r.log);
	cr_assert_eq(row->accepted, 4000);
	cr_assert_eq(row->unregistered, 4000);
	cr_assert_eq(row->rejected, 8000, "one EEXIST and one ENOENT per cycle");
	cr_assert_gt(summary_restarts(&r, row->pid), 0, "%s", r.log);
	run_free(&r);
}
