// SPDX-License-Identifier: GPL-2.0
/*
 * Replays the .vec files of tests/vectors/kernel: sections, calls and lookups with the
 * answer the v16 series' kernel/unwind/sframe.c gives, each with the line of
 * its code that decides it (the format is the files' header). Every
 * registration goes through emu_kcall() under --kernel v16, every lookup
 * through emu_ksframe_find(), removals as the sampler makes them, walks
 * through emu_unwind(). All mismatches of a file are reported together.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"

#define KVEC_DIR VECTOR_DIR "/kernel"
#define MAX_MAPS 8
#define MAP_SIZE 0x1000
#define SETUP_AT 0x200000300000ull	/* where struct sframe_setup is put */
#define MAX_TOKENS 16
#define MAX_WRITES 32

/* One case's address space: mappings backed by buffers, a registry. */
struct kspace {
	uint8_t *buf[MAX_MAPS];
	uint64_t start[MAX_MAPS];
	unsigned int prot[MAX_MAPS];
	unsigned int nmaps;
	struct emu_mem_image img;
	struct emu_accessor mem;
	struct emu_mappings maps;
	struct emu_registry *registry;
	struct emu_policy policy;
	uint64_t written_at[MAX_WRITES];
	size_t written_len[MAX_WRITES];
	unsigned int nwritten;
	bool ready;
};

/* Where the file is, and what went wrong so far. */
struct replay {
	const char *file;
	unsigned int line;
	char name[64];
	struct kspace ks;
	unsigned int cases, checks, failures;
	char *report;
	size_t report_len;
	FILE *out;
};

static void mismatch(struct replay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void mismatch(struct replay *r, const char *fmt, ...)
{
	va_list ap;

	r->failures++;
	fprintf(r->out, "%s:%u: case %s: ", r->file, r->line, r->name);
	va_start(ap, fmt);
	vfprintf(r->out, fmt, ap);
	va_end(ap);
	fputc('\n', r->out);
}

static void kspace_free(struct kspace *ks)
{
	for (unsigned int i = 0; i < ks->nmaps; i++)
		free(ks->buf[i]);
	emu_mappings_free(&ks->maps);
	emu_registry_free(ks->registry);
	memset(ks, 0, sizeof(*ks));
}

static void add_map(struct kspace *ks, uint64_t start, unsigned int prot)
{
	cr_assert_lt(ks->nmaps, MAX_MAPS);
	ks->start[ks->nmaps] = start;
	ks->prot[ks->nmaps] = prot;
	ks->buf[ks->nmaps] = calloc(1, MAP_SIZE);
	ks->nmaps++;
}

/* The default layout: text r-x, the section's page r--, the setup struct's and a stack rw-. */
static void kspace_init(struct kspace *ks)
{
	memset(ks, 0, sizeof(*ks));
	add_map(ks, 0x200000101000ull, EMU_PROT_READ | EMU_PROT_EXEC);
	add_map(ks, 0x200000200000ull, EMU_PROT_READ);
	add_map(ks, SETUP_AT, EMU_PROT_READ | EMU_PROT_WRITE);
	add_map(ks, 0x200000400000ull, EMU_PROT_READ | EMU_PROT_WRITE);
	ks->registry = emu_registry_new(EMU_REGISTRY_DEFAULT_LIMIT);
	ks->policy = emu_policy_default();
	ks->policy.profile = EMU_PROFILE_V16;
}

/* Mappings in address order, their buffers in the image: before the first call. */
static void kspace_ready(struct kspace *ks)
{
	unsigned int order[MAX_MAPS];

	if (ks->ready)
		return;
	for (unsigned int i = 0; i < ks->nmaps; i++)
		order[i] = i;
	for (unsigned int i = 1; i < ks->nmaps; i++)
		for (unsigned int j = i; j > 0 && ks->start[order[j]] < ks->start[order[j - 1]]; j--) {
			unsigned int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (unsigned int i = 0; i < ks->nmaps; i++) {
		unsigned int k = order[i];

		cr_assert_eq(emu_mappings_add(&ks->maps, ks->start[k], ks->start[k] + MAP_SIZE,
					      ks->prot[k]), 0);
		if (ks->prot[k] & EMU_PROT_READ)
			emu_mem_image_add(&ks->img, ks->start[k], ks->buf[k], MAP_SIZE);
	}
	ks->mem = emu_mem_image_accessor(&ks->img);
	ks->ready = true;
}

/* The buffer behind [@addr, @addr + @len), or NULL. */
static uint8_t *at(struct kspace *ks, uint64_t addr, size_t len)
{
	for (unsigned int i = 0; i < ks->nmaps; i++)
		if (addr >= ks->start[i] && addr + len <= ks->start[i] + MAP_SIZE)
			return ks->buf[i] + (addr - ks->start[i]);
	return NULL;
}

static struct emu_space space(struct kspace *ks)
{
	kspace_ready(ks);
	return (struct emu_space){ .registry = ks->registry, .mem = &ks->mem, .maps = &ks->maps };
}

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

static int errno_of(const char *name)
{
	static const struct { const char *name; int err; } names[] = {
		{ "0", 0 }, { "ENOENT", ENOENT }, { "EINVAL", EINVAL }, { "EFAULT", EFAULT },
		{ "EEXIST", EEXIST }, { "ENOMEM", ENOMEM },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, name))
			return names[i].err;
	return -1;
}

static const char *errno_name(int err)
{
	switch (err) {
	case 0:
		return "0";
	case ENOENT:
		return "ENOENT";
	case EINVAL:
		return "EINVAL";
	case EFAULT:
		return "EFAULT";
	case EEXIST:
		return "EEXIST";
	default:
		return "?";
	}
}

/*
 * "-> ERRNO [removed] [(rule)]" from @tok (after the arrow): the errno, the
 * removal, the rule name ("" when none is given).
 */
static void want_of(char **tok, int n, int *err, bool *removed, char *rule, size_t size)
{
	*err = n > 0 ? errno_of(tok[0]) : -1;
	*removed = false;
	rule[0] = '\0';
	for (int i = 1; i < n; i++) {
		if (!strcmp(tok[i], "removed"))
			*removed = true;
		else if (tok[i][0] == '(')
			snprintf(rule, size, "%.*s", (int)strlen(tok[i]) - 2, tok[i] + 1);
	}
}

static void check_answer(struct replay *r, const char *what, int got, const struct emu_verdict *v,
			 int want, const char *rule)
{
	r->checks++;
	if (got != want)
		mismatch(r, "%s: %s (%s: %s), the kernel: %s", what, errno_name(got),
			 emu_rule_name(v->rule), v->reason, errno_name(want));
	else if (rule[0] && strcmp(rule, emu_rule_name(v->rule)))
		mismatch(r, "%s: %s by rule %s (%s), expected rule %s", what, errno_name(got),
			 emu_rule_name(v->rule), v->reason, rule);
}

/* The length of the last bytes line written at @addr (0: none). */
static size_t written_len(const struct kspace *ks, uint64_t addr)
{
	for (unsigned int i = ks->nwritten; i-- > 0;)
		if (ks->written_at[i] == addr)
			return ks->written_len[i];
	return 0;
}

/* sframe_register() or sframe_unregister() of @s; the answer against @want ("ERRNO [(rule)]"). */
static void setup_call(struct replay *r, enum emu_entry entry, const struct sframe_setup *s,
		       char **want, int nwant)
{
	struct kspace *ks = &r->ks;
	struct emu_space sp = space(ks);
	struct emu_kcall kc = { entry, { SETUP_AT, sizeof(*s) } };
	struct emu_call_result res;
	char rule[64];
	bool removed;
	int err;

	memcpy(at(ks, SETUP_AT, sizeof(*s)), s, sizeof(*s));
	want_of(want, nwant, &err, &removed, rule, sizeof(rule));
	check_answer(r, emu_entry_name(entry), -emu_kcall(&ks->policy, &sp, &kc, &res),
		     &res.verdict, err, rule);
}

/* register SFRAME SIZE TEXT SIZE -> ... (SIZE "*": the section's bytes line) */
static void do_register(struct replay *r, char **tok, int n)
{
	uint64_t start = num(tok[1]);
	struct sframe_setup s = {
		start, tok[2][0] == '*' ? written_len(&r->ks, start) : num(tok[2]), num(tok[3]),
		num(tok[4]),
	};

	setup_call(r, EMU_ENTRY_SFRAME_REGISTER, &s, tok + 6, n - 6);
}

/* unregister SFRAME -> ... */
static void do_unregister(struct replay *r, char **tok, int n)
{
	struct sframe_setup s = { .sframe_start = num(tok[1]) };

	setup_call(r, EMU_ENTRY_SFRAME_UNREGISTER, &s, tok + 3, n - 3);
}

static void loc_text(const struct emu_loc_rule *l, char *out, size_t size)
{
	switch (l->kind) {
	case EMU_LOC_SAME:
		snprintf(out, size, "retained");
		break;
	case EMU_LOC_CFA_DEREF:
		snprintf(out, size, "*(cfa%+lld)", (long long)l->off);
		break;
	case EMU_LOC_CFA:
		snprintf(out, size, "cfa%+lld", (long long)l->off);
		break;
	case EMU_LOC_REG:
		snprintf(out, size, "r%u%+lld", l->reg, (long long)l->off);
		break;
	default:
		snprintf(out, size, "*(r%u%+lld)", l->reg, (long long)l->off);
	}
}

/* "cfa=sp+16 ra=*(cfa-8) fp=retained", then " outermost" when it is. */
static void rule_text(const struct emu_unwind_rule *rule, char *out, size_t size)
{
	char base[16], cfa[48], ra[48], fp[48];

	if (rule->cfa_base == EMU_CFA_SP)
		snprintf(base, sizeof(base), "sp");
	else if (rule->cfa_base == EMU_CFA_FP)
		snprintf(base, sizeof(base), "fp");
	else
		snprintf(base, sizeof(base), "r%u", rule->cfa_reg);
	snprintf(cfa, sizeof(cfa), rule->cfa_deref ? "*(%s%+lld)" : "%s%+lld", base,
		 (long long)rule->cfa_off);
	loc_text(&rule->ra, ra, sizeof(ra));
	loc_text(&rule->fp, fp, sizeof(fp));
	snprintf(out, size, "cfa=%s ra=%s fp=%s%s", cfa, ra, fp,
		 rule->outermost ? " outermost" : "");
}

/* lookup IP -> RULE | ENOENT | ERRNO removed [(rule)] */
static void do_lookup(struct replay *r, char **tok, int n, const char *rest)
{
	struct kspace *ks = &r->ks;
	uint64_t ip = num(tok[1]);
	const struct emu_registration *reg;
	struct emu_unwind_rule rule;
	struct emu_verdict why;
	char got_text[200], want_rule[64];
	bool removed;
	int want, got = ENOENT;

	space(ks);
	emu_verdict_init(&why);
	reg = emu_registry_find_unwind(ks->registry, ip);
	if (reg)
		got = -emu_ksframe_find(&reg->ksframe, &ks->mem, emu_arch_get(EMU_ARCH_X86_64), ip,
					&rule, &why);
	if (n > 3 && !strncmp(tok[3], "cfa=", 4)) {
		r->checks++;
		if (got) {
			mismatch(r, "lookup 0x%llx: %s (%s: %s), the kernel: %s",
				 (unsigned long long)ip, errno_name(got), emu_rule_name(why.rule),
				 why.reason, rest);
			return;
		}
		rule_text(&rule, got_text, sizeof(got_text));
		if (strcmp(got_text, rest))
			mismatch(r, "lookup 0x%llx: %s, the kernel: %s", (unsigned long long)ip,
				 got_text, rest);
		return;
	}
	want_of(tok + 3, n - 3, &want, &removed, want_rule, sizeof(want_rule));
	check_answer(r, "lookup", got, &why, want, want_rule);
	if (got && got != ENOENT)	/* the kernel removes it, as the sampler does */
		emu_registry_remove_sframe(ks->registry, reg->sframe_start);
	if (removed != (got && got != ENOENT))
		mismatch(r, "lookup 0x%llx: the section %s", (unsigned long long)ip,
			 removed ? "should have been removed" : "was removed");
}

/* walk IP SP FP -> STOP NFRAMES: the walk's stop and frame count */
static void do_walk(struct replay *r, char **tok, int n)
{
	struct kspace *ks = &r->ks;
	struct emu_regs regs = { .ip = num(tok[1]), .sp = num(tok[2]), .fp = num(tok[3]),
				 .gpr_valid = (1u << 17) - 1 };	/* the others 0 */
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = 16,
				     .profile = EMU_PROFILE_V16, .lookup_ra = true };
	struct emu_frame frames[16];
	struct emu_unwind_result res;

	space(ks);
	r->checks++;
	cr_assert_eq(n, 7, "%s:%u: walk IP SP FP -> STOP NFRAMES", r->file, r->line);
	cr_assert_eq(emu_unwind(ks->registry, &ks->mem, &regs, &o, frames, &res), 0);
	if (strcmp(emu_stop_name(res.stop), tok[5]) || res.nframes != num(tok[6]))
		mismatch(r, "walk: stop %s after %u frames, the kernel: %s after %s",
			 emu_stop_name(res.stop), res.nframes, tok[5], tok[6]);
}

static void do_bytes(struct replay *r, char **tok, int n)
{
	struct kspace *ks = &r->ks;
	const char *hex = n > 2 ? tok[2] : "";
	size_t len = strlen(hex) / 2;
	uint8_t *p = at(ks, num(tok[1]), len);

	cr_assert(p && strlen(hex) % 2 == 0 && ks->nwritten < MAX_WRITES,
		  "%s:%u: bytes outside the mappings", r->file, r->line);
	for (size_t i = 0; i < len; i++)
		sscanf(hex + 2 * i, "%2hhx", &p[i]);
	ks->written_at[ks->nwritten] = num(tok[1]);
	ks->written_len[ks->nwritten++] = len;
}

static unsigned int perms(const char *s)
{
	return (strchr(s, 'r') ? EMU_PROT_READ : 0) | (strchr(s, 'w') ? EMU_PROT_WRITE : 0) |
	       (strchr(s, 'x') ? EMU_PROT_EXEC : 0);
}

/* One line: a directive, split into tokens (the rest of the line after "->" kept). */
static void run_line(struct replay *r, char *line)
{
	char *tok[MAX_TOKENS], *arrow = strstr(line, "-> "), *save = NULL, rest[160] = "";
	int n = 0;

	if (arrow)
		snprintf(rest, sizeof(rest), "%s", arrow + 3);
	rest[strcspn(rest, "\n")] = '\0';
	for (char *t = strtok_r(line, " \t\n", &save); t && n < MAX_TOKENS;
	     t = strtok_r(NULL, " \t\n", &save))
		tok[n++] = t;
	if (!n || tok[0][0] == '#' || !strcmp(tok[0], "why"))
		return;
	if (!strcmp(tok[0], "case")) {
		kspace_free(&r->ks);
		kspace_init(&r->ks);
		snprintf(r->name, sizeof(r->name), "%s", n > 1 ? tok[1] : "?");
		r->cases++;
	} else if (!strcmp(tok[0], "validation")) {
		r->ks.policy.sframe_validation = n > 1 && !strcmp(tok[1], "on");
	} else if (!strcmp(tok[0], "map") && n == 3) {
		cr_assert(!r->ks.ready, "%s:%u: map after a call", r->file, r->line);
		add_map(&r->ks, num(tok[1]), perms(tok[2]));
	} else if (!strcmp(tok[0], "bytes") && n >= 2) {
		do_bytes(r, tok, n);
	} else if (!strcmp(tok[0], "register") && n >= 7) {
		do_register(r, tok, n);
	} else if (!strcmp(tok[0], "unregister") && n >= 4) {
		do_unregister(r, tok, n);
	} else if (!strcmp(tok[0], "lookup") && n >= 4) {
		do_lookup(r, tok, n, rest);
	} else if (!strcmp(tok[0], "walk")) {
		do_walk(r, tok, n);
	} else {
		cr_assert_fail("%s:%u: cannot read \"%s\"", r->file, r->line, tok[0]);
	}
}

static void replay_file(struct replay *r, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	cr_assert(f, "%s", path);
	r->file = strrchr(path, '/') + 1;
	r->line = 0;
	kspace_init(&r->ks);
	while (fgets(line, sizeof(line), f)) {
		r->line++;
		run_line(r, line);
	}
	kspace_free(&r->ks);
	fclose(f);
}

Test(kernel_vectors, every_case_answers_as_the_kernel)
{
	struct replay r = { 0 };
	struct dirent *e;
	char path[512];
	DIR *d = opendir(KVEC_DIR);
	unsigned int files = 0;

	cr_assert(d, "%s", KVEC_DIR);
	r.out = open_memstream(&r.report, &r.report_len);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 4, ".vec"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", KVEC_DIR, e->d_name);
		replay_file(&r, path);
		files++;
	}
	closedir(d);
	fclose(r.out);
	cr_log_info("kernel vectors: %u files, %u cases, %u checks", files, r.cases, r.checks);
	cr_assert_gt(r.cases, 0);
	cr_assert_eq(r.failures, 0, "%u of %u checks differ from the kernel:\n%s", r.failures,
		     r.checks, r.report);
	free(r.report);
}
