// SPDX-License-Identifier: GPL-2.0
/*
 * codectl-run --html, in a real browser: Debian's chromium (headless shell)
 * loads the page from disk with every network request sent nowhere, runs
 * its script and prints the DOM it built, which is held to the --folded and
 * --json files of the same run:
 *
 *  - one frame element per distinct node of the folded stacks (prefixes),
 *    each coloured by the kind the folded stacks say (a marker frame's, a
 *    thread's root, else verified, or libunwind's walk wrong);
 *  - a search (the page's #search=TERM) marks exactly the frames whose
 *    name holds TERM, and the share it shows is the samples of the folded
 *    lines holding one;
 *  - the tables' totals are the JSON's (the program's samples, every sample,
 *    the registrations accepted);
 *  - nothing in the page names anything outside it;
 *  - a known input's geometry: each frame as wide as its share of samples.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_helper.h"
#include "supervisor/report/page.h"
#include "test_tmp.h"

TestSuite(html, .timeout = 240);

/* The browser: Debian's chromium-headless-shell, else chromium (make installs the first). */
static const char *browser(void)
{
	static const char *const names[] = { "/usr/bin/chromium-headless-shell",
					     "/usr/bin/chromium" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!access(names[i], X_OK))
			return names[i];
	cr_assert_fail("no chromium-headless-shell or chromium: make deps installs it");
	return NULL;
}

/*
 * Run the browser on file @page (#@hash when not NULL) with @what
 * ("--dump-dom" or "--screenshot=FILE"): stdout, malloc'd. Every request
 * goes to a proxy that is not there: a page that loads anything breaks.
 */
static char *browse(const char *page, const char *hash, const char *what)
{
	char url[4096], cmd[8192], *out = NULL;
	size_t len = 0, cap = 0;
	FILE *p;
	int n;

	snprintf(url, sizeof(url), "file://%s%s%s", page, hash ? "#" : "", hash ? hash : "");
	snprintf(cmd, sizeof(cmd), "'%s' --headless --no-sandbox --disable-gpu "
		 "--proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' "
		 "--window-size=1280,1600 %s '%s' 2>/dev/null", browser(), what, url);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	do {
		if (len + 65536 > cap) {
			out = realloc(out, cap = cap * 2 + 65536);
			cr_assert(out);
		}
		n = (int)fread(out + len, 1, cap - len - 1, p);
		len += n > 0 ? (size_t)n : 0;
	} while (n > 0);
	out[len] = '\0';
	cr_assert_eq(pclose(p), 0, "%s", cmd);
	return out;
}

/* Occurrences of @needle in @text. */
static size_t occurrences(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Kinds of frames, as the page names them (data-k). */
enum kind { K_VERIFIED_OR_REF, K_WRONG, K_ASTRAY, K_UNVERIFIED, K_PAST, K_ROOT, K_COUNT };

/* What the folded stacks say: their distinct nodes by kind, and a term's frames and samples. */
struct expect {
	size_t nodes;
	size_t by_kind[K_COUNT];
	size_t term_nodes;
	unsigned long term_samples;
	unsigned long samples;
};

static enum kind kind_of(const char *frame, size_t depth)
{
	if (!strncmp(frame, "[wrong", 6))
		return K_WRONG;
	if (!strncmp(frame, "[astray", 7))
		return K_ASTRAY;
	if (!strcmp(frame, "[unverified]"))
		return K_UNVERIFIED;
	if (!strcmp(frame, "[past-coverage]"))
		return K_PAST;
	return depth == 0 ? K_ROOT : K_VERIFIED_OR_REF;
}

/* A set of strings (the distinct prefixes), grown as needed. */
struct strset {
	char **v;
	size_t n, cap;
};

static bool strset_add(struct strset *s, const char *k)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], k))
			return false;
	if (s->n == s->cap) {
		s->v = realloc(s->v, (s->cap = s->cap * 2 + 256) * sizeof(*s->v));
		cr_assert(s->v);
	}
	s->v[s->n++] = strdup(k);
	return true;
}

/* Each node of one folded line (@stack, @count samples), counted into @e. */
static void expect_line(struct expect *e, struct strset *seen, char *stack, unsigned long count,
			const char *term)
{
	char prefix[65536] = "";
	bool has_term = false;
	size_t depth = 0, len = 0;

	e->samples += count;
	for (char *f = strtok(stack, ";"); f; f = strtok(NULL, ";"), depth++) {
		len += (size_t)snprintf(prefix + len, sizeof(prefix) - len, "%s;", f);
		has_term |= strstr(f, term) != NULL;
		if (!strset_add(seen, prefix))
			continue;
		e->nodes++;
		e->by_kind[kind_of(f, depth)]++;
		e->term_nodes += strstr(f, term) != NULL;
	}
	e->term_samples += has_term ? count : 0;
}

static struct expect expect_of(const char *folded_path, const char *term)
{
	struct expect e = { 0 };
	struct strset seen = { 0 };
	char *text = read_file(folded_path), *save = NULL;

	cr_assert(text, "%s", folded_path);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		cr_assert(sp, "%s", line);
		*sp = '\0';
		expect_line(&e, &seen, line, strtoul(sp + 1, NULL, 10), term);
	}
	for (size_t i = 0; i < seen.n; i++)
		free(seen.v[i]);
	free(seen.v);
	free(text);
	return e;
}

/* The data-total of column @col of the table @id's footer in @dom. */
static long long table_total(const char *dom, const char *id, int col)
{
	char open[64];
	const char *t, *p;

	snprintf(open, sizeof(open), "<table id=\"%s\">", id);
	t = strstr(dom, open);
	cr_assert(t, "no table %s", id);
	p = strstr(t, "<tfoot>");
	cr_assert(p, "no footer in table %s", id);
	for (int i = 0; i <= col; i++) {
		p = strstr(p, "data-total=\"");
		cr_assert(p);
		p += strlen("data-total=\"");
	}
	return strtoll(p, NULL, 10);
}

static long long jint(json_t *j, const char *a, const char *b)
{
	return json_integer_value(json_object_get(json_object_get(j, a), b));
}

/* Each verdict's colour in the page's style: there, and none shared. */
static void check_colours(const char *text)
{
	static const char *const kinds[] = { "verified", "ref-wrong", "wrong", "astray",
					     "unverified", "past", "root" };
	char rule[64], colour[7][16];

	for (size_t i = 0; i < 7; i++) {
		const char *p;

		snprintf(rule, sizeof(rule), ".k-%s { background: ", kinds[i]);
		p = strstr(text, rule);
		cr_assert(p, "no colour for %s", kinds[i]);
		cr_assert_eq(sscanf(p + strlen(rule), "%15[#0-9a-f]", colour[i]), 1);
		for (size_t k = 0; k < i; k++)
			cr_assert_str_neq(colour[i], colour[k], "%s and %s share %s", kinds[i],
					  kinds[k], colour[i]);
	}
}

/*
 * The page of a run (@page, with its --folded @folded and --json @json)
 * held to them in the browser, searched for @term.
 */
static void check_page(const char *page, const char *folded, const char *json, const char *term)
{
	struct expect e = expect_of(folded, term);
	char hash[128], want[128], *dom, *text = read_file(page);
	json_t *j = json_load_file(json, 0, NULL);

	cr_assert(text && j);
	/* nothing named outside the page: no address, no script or style by reference */
	cr_assert_null(strstr(text, "http:"));
	cr_assert_null(strstr(text, "https:"));
	cr_assert_null(strstr(text, " src="));
	cr_assert_null(strstr(text, "<link"));
	cr_assert_null(strstr(text, "url("));
	cr_assert_null(strstr(text, "@import"));
	check_colours(text);
	snprintf(hash, sizeof(hash), "search=%s", term);
	dom = browse(page, hash, "--dump-dom");
	cr_assert_eq(occurrences(dom, "class=\"fr "), e.nodes, "frames: %zu rendered, %zu nodes",
		     occurrences(dom, "class=\"fr "), e.nodes);
	cr_assert_eq(occurrences(dom, "data-k=\"wrong\""), e.by_kind[K_WRONG]);
	cr_assert_eq(occurrences(dom, "data-k=\"astray\""), e.by_kind[K_ASTRAY]);
	cr_assert_eq(occurrences(dom, "data-k=\"unverified\""), e.by_kind[K_UNVERIFIED]);
	cr_assert_eq(occurrences(dom, "data-k=\"past\""), e.by_kind[K_PAST]);
	cr_assert_eq(occurrences(dom, "data-k=\"root\""), e.by_kind[K_ROOT]);
	cr_assert_eq(occurrences(dom, "data-k=\"verified\"") + occurrences(dom, "data-k=\"ref-wrong\""),
		     e.by_kind[K_VERIFIED_OR_REF]);
	/* libunwind's wrong walks: no more ref-wrong frames than such samples have frames */
	if (!jint(j, "samples", "libunwind_failed"))
		cr_assert_eq(occurrences(dom, "data-k=\"ref-wrong\""), 0);
	cr_assert_gt(e.term_nodes, 0, "no frame holds %s", term);
	cr_assert_eq(occurrences(dom, " match\""), e.term_nodes);
	snprintf(want, sizeof(want), "data-matched=\"%lu\"", e.term_samples);
	cr_assert(strstr(dom, want), "%s: not in the page", want);
	cr_assert_eq(table_total(dom, "functions", 2), jint(j, "profile", "samples"));
	cr_assert_eq(table_total(dom, "processes", 2), jint(j, "samples", "total"));
	cr_assert_eq(table_total(dom, "threads", 4), jint(j, "samples", "total"));
	cr_assert_eq(e.samples, (unsigned long)jint(j, "samples", "total"));
	cr_assert_eq(table_total(dom, "registrations-table", 2), jint(j, "registrations",
								      "accepted"));
	json_decref(j);
	free(dom);
	free(text);
}

/* codectl-run -q --html --folded --json ARGS... in a fresh directory; its files' paths. */
struct files {
	char dir[256], page[300], folded[300], json[300], png[300];
};

static void run_with_files(struct files *f, const char *const *args)
{
	const char *argv[32];
	struct run r;
	int n = 0;

	cr_assert(test_mkdtemp(f->dir, sizeof(f->dir), "codectl-html"));
	snprintf(f->page, sizeof(f->page), "%s/report.html", f->dir);
	snprintf(f->folded, sizeof(f->folded), "%s/stacks.folded", f->dir);
	snprintf(f->json, sizeof(f->json), "%s/report.json", f->dir);
	snprintf(f->png, sizeof(f->png), "%s/page.png", f->dir);
	for (const char *const *o = (const char *const[]){ "-q", "--html", f->page, "--folded",
							    f->folded, "--json", f->json, NULL };
	     *o; o++)
		argv[n++] = *o;
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	run_codectl(&r, argv);
	cr_assert_eq(r.status, 0, "%s", r.log);
	run_free(&r);
}

static void files_remove(const struct files *f)
{
	unlink(f->page);
	unlink(f->folded);
	unlink(f->json);
	unlink(f->png);
	rmdir(f->dir);
}

/* The demo's page: every check, its size, and a screenshot that shows something. */
Test(html, demo_page_in_the_browser)
{
	struct files f;
	struct stat st;
	char shot[400];

	run_with_files(&f, (const char *const[]){ "--", SAMPLING_DEMO, NULL });
	check_page(f.page, f.folded, f.json, "quicksort");
	cr_assert_eq(stat(f.page, &st), 0);
	cr_assert_lt(st.st_size, 1 << 20, "the demo's page: %lld bytes", (long long)st.st_size);
	snprintf(shot, sizeof(shot), "--screenshot='%s'", f.png);
	free(browse(f.page, NULL, shot));
	cr_assert_eq(stat(f.png, &st), 0, "no screenshot");
	cr_assert_gt(st.st_size, 20000, "a screenshot of %lld bytes", (long long)st.st_size);
	files_remove(&f);
}

/* Three processes (a shell and two demos): a root each, their samples in the tables. */
Test(html, processes_each_under_their_root)
{
	char script[1024];
	struct files f;
	json_t *j;

	snprintf(script, sizeof(script), "'%s' & '%s'; wait", SAMPLING_DEMO, SAMPLING_DEMO);
	run_with_files(&f, (const char *const[]){ "--", "/bin/sh", "-c", script, NULL });
	check_page(f.page, f.folded, f.json, "tree_walk");
	j = json_load_file(f.json, 0, NULL);
	cr_assert_geq(json_array_size(json_object_get(json_object_get(j, "profile"), "processes")),
		      2);
	json_decref(j);
	files_remove(&f);
}

/* Without a reference walk no frame is drawn verified: plausible, not cross-checked. */
Test(html, unchecked_frames_are_not_drawn_verified)
{
	struct files f;
	char *dom;

	run_with_files(&f, (const char *const[]){ "--no-crosscheck", "--", SAMPLING_DEMO, NULL });
	dom = browse(f.page, NULL, "--dump-dom");
	cr_assert_eq(occurrences(dom, "data-k=\"verified\""), 0);
	cr_assert_gt(occurrences(dom, "data-k=\"unverified\""), 10);
	free(dom);
	files_remove(&f);
}

/* "left: X%; width: Y%" of the frame named @name in @dom. */
static void geometry(const char *dom, const char *name, double *left, double *width)
{
	char attr[128];
	const char *p, *start;

	snprintf(attr, sizeof(attr), "data-n=\"%s\"", name);
	p = strstr(dom, attr);
	cr_assert(p, "no frame %s", name);
	start = p;
	while (start > dom && strncmp(start, "<div", 4))
		start--;
	p = strstr(start, "left: ");
	cr_assert(p && p < strstr(start, ">"));
	cr_assert_eq(sscanf(p, "left: %lf%%; width: %lf%%", left, width), 2, "%.80s", p);
}

/*
 * A known input drawn: frames as wide as their share of samples, side by
 * side in name order (a [wrong: ...] marker too, in its colour).
 */
Test(html, geometry_of_known_stacks)
{
	static const struct { const char *name; double left, width; } want[] = {
		{ "t-1/1", 0, 100 }, { "[wrong: not-code]", 0, 50 }, { "d", 0, 50 },
		{ "a", 50, 50 }, { "b", 50, 37.5 }, { "c", 87.5, 12.5 },
	};
	char dir[256], page[300], *dom;
	json_t *data = json_pack("{s:{s:[]},s:{s:i},s:n,s:{},s:[[s,i,i],[s,i,i],[s,i,i]],s:b}",
				 "run", "program", "samples", "total", 8, "agreement",
				 "registrations", "flame", "t-1/1;a;b", 3, 0, "t-1/1;a;c", 1, 0,
				 "t-1/1;[wrong: not-code];d", 4, 0, "flame_root", 1);
	FILE *f;

	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-page"));
	snprintf(page, sizeof(page), "%s/page.html", dir);	/* the browser goes by the name */
	f = fopen(page, "w");
	cr_assert(data && f);
	cr_assert_eq(page_write(f, data), 0);
	fclose(f);
	json_decref(data);
	dom = browse(page, NULL, "--dump-dom");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		double left, width;

		geometry(dom, want[i].name, &left, &width);
		cr_assert_float_eq(left, want[i].left, 1e-6, "%s left %g", want[i].name, left);
		cr_assert_float_eq(width, want[i].width, 1e-6, "%s width %g", want[i].name, width);
	}
	cr_assert_eq(occurrences(dom, "class=\"fr "), 6);
	cr_assert_eq(occurrences(dom, "data-k=\"wrong\""), 1);
	cr_assert_eq(occurrences(dom, "data-k=\"root\""), 1);
	free(dom);
	unlink(page);
	rmdir(dir);
}

/*
 * --compare-formats with every object registered both ways and SFrame
 * synthesized: the page's formats section gives each format's row, the
 * objects' samples adding up to the JSON's, and the walks that differ side
 * by side, as many as the JSON keeps.
 */
Test(html, formats_compared_side_by_side)
{
	struct files f;
	json_t *j, *fm;
	char *dom, want[64];

	run_with_files(&f, (const char *const[]){ "--loader-abi", "both", "--synthesize-sframe",
						   "--compare-formats", "--", SAMPLING_DEMO, NULL });
	check_page(f.page, f.folded, f.json, "quicksort");
	j = json_load_file(f.json, 0, NULL);
	fm = json_object_get(j, "formats");
	cr_assert(fm);
	dom = browse(f.page, NULL, "--dump-dom");
	cr_assert(strstr(dom, "<table id=\"formats-table\">"));
	for (const char *const *t = (const char *const[]){ ">SFrame<", ">.eh_frame<",
							   ">SFrame+synth<", NULL }; *t; t++)
		cr_assert(strstr(dom, *t), "no row %s", *t);
	for (int col = 1; col <= 11; col += 5) {
		const char *k = col == 1 ? "sframe" : col == 6 ? "eh_frame" : "synthesized";

		cr_assert_eq(table_total(dom, "formats-objects", col),
			     jint(fm, k, "samples"), "%s", k);
	}
	cr_assert_eq(occurrences(dom, "class=\"side format-difference\""),
		     json_array_size(json_object_get(fm, "differences")));
	snprintf(want, sizeof(want), "differ between SFrame and .eh_frame: %lld of",
		 (long long)json_integer_value(json_object_get(fm, "walks_differ")));
	cr_assert(strstr(dom, want), "%s", want);
	json_decref(j);
	free(dom);
	files_remove(&f);
}
