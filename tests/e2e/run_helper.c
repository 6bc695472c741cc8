// SPDX-License-Identifier: GPL-2.0
/* Test helper: run codectl-run with a log file and parse its summary. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_helper.h"
#include "test_tmp.h"

char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void parse_rows(struct run *r)
{
	const char *p = r->log ? strstr(r->log, "codectl-run: summary:") : NULL;
	char line[512];

	r->nrows = 0;
	while (p && (p = strchr(p, '\n'))) {
		struct summary_row *row = &r->rows[r->nrows];
		const char *end = strchr(++p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		if (sscanf(line, "%d %lu %lu %lu %lu %lu %lu %255s", &row->pid, &row->exec,
			   &row->accepted, &row->rejected, &row->unregistered, &row->left,
			   &row->stale, row->program) == 8 && r->nrows < MAX_ROWS - 1)
			r->nrows++;
	}
}

/* Wait for @pid, killing it after @seconds (0: no limit). */
static int wait_within(pid_t pid, unsigned int seconds, bool *timed_out)
{
	struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };
	unsigned long ticks = 0;
	int status = 0;

	*timed_out = false;
	while (seconds && waitpid(pid, &status, WNOHANG) == 0) {
		if (++ticks < seconds * 50ul) {
			nanosleep(&tick, NULL);
			continue;
		}
		*timed_out = true;
		kill(pid, SIGKILL);
		break;
	}
	if (!seconds || *timed_out)
		waitpid(pid, &status, 0);
	return status;
}

void run_codectl(struct run *r, const char *const *argv)
{
	run_codectl_within(r, argv, 0);
}

void run_codectl_within(struct run *r, const char *const *argv, unsigned int seconds)
{
	char log[PATH_MAX], out[PATH_MAX];
	const char *args[64] = { CODECTL_RUN, "-o", log };
	int lfd = test_mkstemp(log, sizeof(log), "codectl-e2e-log");
	int ofd = test_mkstemp(out, sizeof(out), "codectl-e2e-out"), n = 3, status;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	for (int i = 0; argv[i] && n < 63; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	pid = fork();
	if (pid == 0) {
		dup2(ofd, 1);
		execv(CODECTL_RUN, (char *const *)args);
		_exit(120);
	}
	status = wait_within(pid, seconds, &r->timed_out);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r->out = read_file(out);
	r->log = read_file(log);
	parse_rows(r);
	close(lfd);
	close(ofd);
	unlink(log);
	unlink(out);
}

void run_free(struct run *r)
{
	free(r->out);
	free(r->log);
}

const struct summary_row *run_row(const struct run *r, int pid)
{
	for (int i = 0; i < r->nrows; i++)
		if (r->rows[i].pid == pid)
			return &r->rows[i];
	return NULL;
}

const struct summary_row *run_first_row(const struct run *r)
{
	return r->nrows ? &r->rows[0] : NULL;
}
