// SPDX-License-Identifier: GPL-2.0
/*
 * bench/jit: JIT unwind tables (CODE_REGISTER_JIT), measured side by side in
 * one run:
 *   1. A JIT writer (bench/jit/jit_writer.c, include/codectl_jit.h) under
 *      codectl-run adds 1 000 000 functions' FREs to chained tables of 65536
 *      entries: the codectl calls codectl-run saw (its --trace lines and exit
 *      summary; expected 2, register and unregister), the system calls the
 *      writer made while adding (counted by the writer itself with a seccomp
 *      filter; expected 0), and ns per added function, with the table memory
 *      touched for the first time and touched before.
 *   2. ns per JIT frame lookup, emu_jit_find_rule() over an in-memory
 *      accessor at random IPs, with 10, 10 000 and 1 000 000 entries in one
 *      table and 1 000 000 in chained tables of 65536 and of 4096 entries
 *      (codectl_jit.h's example); the accessor reads per lookup
 *      (deterministic: O(log n) in a table, O(tables) along the chain); ns per
 *      emu_unwind() step through a JIT frame; and the lookups through
 *      process_vm_readv(2), codectl-run's accessor.
 *   3. ns per SFrame frame lookup, emu_sframe_find_rule(), with 10, 10 000 and
 *      1 000 000 FDEs (sections written by libsframe's encoder, as ld writes
 *      them), and on this program's own .sframe (gas); the JIT/SFrame ratio.
 * Usage: jit [--quick]
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codectl_jit.h"
#include "emu/emu.h"
#include "supervisor/trace/remote_mem.h"
#include "tests/lib/libsframe_compat.h"
#include "tests/lib/self_sframe.h"

#define WRITER_FUNCS 1000000ul
#define TABLE_ENTRIES 65536u
#define FUNC_BYTES 16u
#define NIPS (1u << 16)
/* Accessor reads per JIT case: in memory (about 0.5 s), through process_vm_readv(2). */
#define MEMORY_READS (32ul << 20)
#define REMOTE_READS 250000ul

/* Where the lookup benchmarks place things; only the tables are real memory. */
#define JIT_TEXT 0x100000000000ull
#define SF_TEXT 0x200000000000ull
#define SF_SECTION (SF_TEXT - 0x10000000ull)
#define STACK 0x7ff000000000ull
#define STACK_WORDS 32
#define CALLER_RA 0x1000ull

static const unsigned long sizes[] = { 10, 10000, 1000000 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* JIT cases: one table of each size, then 1 000 000 entries in chained tables. */
static const struct {
	unsigned long entries;
	size_t per_table;
} jit_cases[] = {
	{ 10, 10 }, { 10000, 10000 }, { 1000000, 1000000 },
	{ 1000000, TABLE_ENTRIES },
	{ 1000000, 4096 },	/* the table size of codectl_jit.h's example */
};
#define NCASES (sizeof(jit_cases) / sizeof(jit_cases[0]))

static uint64_t ips[NIPS];
static unsigned long sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rnd_state = x;
}

static void rnd_seed(void)
{
	rnd_state = 0x9e3779b97f4a7c15ull;
}

/* NIPS random addresses in @nfuncs functions of FUNC_BYTES from @text (same seed each time). */
static void random_ips(uint64_t text, unsigned long nfuncs)
{
	rnd_seed();
	for (unsigned int i = 0; i < NIPS; i++)
		ips[i] = text + (rnd() % nfuncs) * FUNC_BYTES + rnd() % FUNC_BYTES;
}

/* ---- 1. the writer under codectl-run ---- */

struct writer_run {
	unsigned long funcs, entries, tables;
	double add_ns;
	unsigned long add_faults;
	int reg, unreg;
	unsigned long sys_reg, sys_add, sys_unreg;
	/* from codectl-run's log */
	unsigned long calls, calls_jit, calls_unreg, accepted, rejected, unregistered;
};

static int parse_writer(FILE *f, struct writer_run *w)
{
	return fscanf(f, "jit-writer: functions=%lu entries=%lu tables=%lu add_ns=%lf "
			 "add_faults=%lu register=%d unregister=%d syscalls_register=%lu "
			 "syscalls_add=%lu syscalls_unregister=%lu", &w->funcs, &w->entries,
		      &w->tables, &w->add_ns, &w->add_faults, &w->reg, &w->unreg, &w->sys_reg,
		      &w->sys_add, &w->sys_unreg) == 10 ? 0 : -1;
}

/* Trace lines (one per codectl call) and the summary row of the one process. */
static int parse_log(const char *path, struct writer_run *w)
{
	FILE *f = fopen(path, "r");
	int row = 0, parsed = 0;
	char line[1024];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "] codectl(")) {
			w->calls++;
			w->calls_jit += !!strstr(line, "codectl(CODE_REGISTER_JIT,");
			w->calls_unreg += !!strstr(line, "codectl(CODE_UNREGISTER,");
		} else if (strstr(line, " pid   exec accepted")) {
			row = 1;
		} else if (row == 1) {
			row = 2;
			parsed = sscanf(line, "%*d %*u %lu %lu %lu", &w->accepted, &w->rejected,
					&w->unregistered) == 3;
		}
	}
	fclose(f);
	return parsed ? 0 : -1;
}

static int run_writer(const char *mode, struct writer_run *w)
{
	char log[] = "/tmp/bench-jit-XXXXXX", cmd[2048];
	int fd = mkstemp(log), err;
	FILE *f;

	*w = (struct writer_run){ 0 };
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "'%s' --trace --freq 0 --no-loader-module -o '%s' -- '%s' %lu %u %s",
		 CODECTL_RUN, log, JIT_WRITER, WRITER_FUNCS, TABLE_ENTRIES, mode);
	f = popen(cmd, "r");
	err = !f || parse_writer(f, w);
	if (f)
		err |= pclose(f) != 0;
	err |= parse_log(log, w);
	unlink(log);
	return err ? -1 : 0;
}

/* Rows of unsigned long fields of struct writer_run, for both runs. */
static const struct {
	const char *what;
	size_t off;
} writer_rows[] = {
	{ "entries published", offsetof(struct writer_run, entries) },
	{ "tables chained", offsetof(struct writer_run, tables) },
	{ "page faults while adding", offsetof(struct writer_run, add_faults) },
	{ "system calls while adding (writer)", offsetof(struct writer_run, sys_add) },
	{ "system calls to register", offsetof(struct writer_run, sys_reg) },
	{ "system calls to unregister, free", offsetof(struct writer_run, sys_unreg) },
	{ "codectl calls codectl-run saw", offsetof(struct writer_run, calls) },
	{ "  CODE_REGISTER_JIT", offsetof(struct writer_run, calls_jit) },
	{ "  CODE_UNREGISTER", offsetof(struct writer_run, calls_unreg) },
	{ "exit summary: registrations accepted", offsetof(struct writer_run, accepted) },
	{ "exit summary: calls rejected", offsetof(struct writer_run, rejected) },
	{ "exit summary: unregistered", offsetof(struct writer_run, unregistered) },
};

static unsigned long writer_field(const struct writer_run *w, size_t off)
{
	return *(const unsigned long *)((const char *)w + off);
}

static void print_writer(const struct writer_run *w)
{
	printf("  %-40s%14s%16s\n", "table memory", "first touch", "touched before");
	printf("  %-40s%14.1f%16.1f\n", "ns per added function", w[0].add_ns / w[0].funcs,
	       w[1].add_ns / w[1].funcs);
	for (size_t i = 0; i < sizeof(writer_rows) / sizeof(writer_rows[0]); i++) {
		size_t off = writer_rows[i].off;

		printf("  %-40s%14lu%16lu\n", writer_rows[i].what, writer_field(&w[0], off),
		       writer_field(&w[1], off));
	}
}

static int bench_writer(void)
{
	static const char *const modes[] = { "", "prefault" };
	struct writer_run w[2];

	printf("1. JIT writer (bench/jit/jit_writer.c) under codectl-run: %lu functions added,\n"
	       "   alternately with a frame pointer (4 FREs) and frameless (3 FREs), tables of %u entries\n",
	       WRITER_FUNCS, TABLE_ENTRIES);
	for (int i = 0; i < 2; i++) {
		if (run_writer(modes[i], &w[i])) {
			fprintf(stderr, "bench/jit: the writer under %s failed\n", CODECTL_RUN);
			return -1;
		}
	}
	print_writer(w);
	printf("  => per %lu added functions: %lu codectl calls (register + unregister),"
	       " %lu system calls while adding\n", WRITER_FUNCS, w[0].calls, w[0].sys_add);
	printf("  (the writer's system calls, from just before its registration on, are trapped by\n"
	       "   its own seccomp filter and counted: register = codectl; unregister, free =\n"
	       "   codectl + munmap of the tables. Page faults: getrusage. First touch costs\n"
	       "   what a page fault costs on this machine)\n");
	return 0;
}

/* ---- 2. JIT lookups ---- */

/* An accessor that counts reads by size: table headers and entries. */
struct counting_mem {
	const struct emu_accessor *inner;
	unsigned long reads, headers, entries;
};

static int counting_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct counting_mem *c = ctx;

	c->reads++;
	c->headers += len == sizeof(struct code_jit_unwind_table);
	c->entries += len == CODE_JIT_FRE_SIZE_VER0;
	return emu_read(c->inner, addr, buf, len);
}

struct jit_set {
	struct codectl_jit_tables t;
	unsigned long entries, funcs;
	unsigned int tables;
	uint64_t stack[STACK_WORDS];
	struct emu_mem_image img;
	struct emu_accessor mem;
	struct emu_registry *registry;
};

/* A function count of @left entries can still be made of 4s and 3s. */
static int can_finish(unsigned long left)
{
	return left == 0 || (left >= 3 && left != 5);
}

/* Function @i at i * 16: frame pointer or frameless, alternately, as the entries allow. */
static unsigned int function_fres(unsigned long i, unsigned long left,
				  struct code_jit_unwind_fre *fre)
{
	uint32_t off = (uint32_t)(i * FUNC_BYTES);
	int frameless = i & 1;

	if (!can_finish(left - (frameless ? 3 : 4)) || left < (frameless ? 3u : 4u))
		frameless = !frameless;
	if (frameless)
		return codectl_jit_fres_frameless(off, 4, 0x18, 15, fre);
	return codectl_jit_fres_fp(off, 14, fre);
}

static unsigned int chain_length(const struct codectl_jit_tables *t)
{
	const struct code_jit_unwind_table *tab = t->head;
	unsigned int n = 0;

	for (; tab; tab = (const struct code_jit_unwind_table *)(uintptr_t)tab->next)
		n++;
	return n;
}

static int fill_tables(struct jit_set *s)
{
	struct code_jit_unwind_fre fre[CODECTL_JIT_FP_FRES];
	unsigned long left = s->entries;

	for (s->funcs = 0; left; s->funcs++) {
		unsigned int n = function_fres(s->funcs, left, fre);

		if (!n || codectl_jit_add(&s->t, fre, n))
			return -1;
		left -= n;
	}
	s->tables = chain_length(&s->t);
	return 0;
}

/* The registry and the image an unwind step needs: the tables, then a stack. */
static int add_registration(struct jit_set *s)
{
	struct emu_registration *reg = calloc(1, sizeof(*reg));
	struct emu_verdict v;

	s->registry = emu_registry_new(16);
	if (!reg || !s->registry)
		return -1;
	*reg = (struct emu_registration){
		.text_start = s->t.text_start, .text_end = s->t.text_end,
		.aspects = EMU_ASPECT_UNWIND, .option = CODE_REGISTER_JIT,
		.unwind_kind = EMU_UNWIND_JIT, .jit_head = (uintptr_t)s->t.head,
		.jit_index = emu_jit_index_new(),	/* as emu_codectl() makes it */
	};
	if (!reg->jit_index || emu_registry_insert(s->registry, reg, &v)) {
		emu_registration_free(reg);
		return -1;
	}
	return 0;
}

static int build_jit_set(struct jit_set *s, unsigned long entries, size_t per_table)
{
	size_t text_len = (entries / 3 + 1) * FUNC_BYTES;
	size_t max_tables = entries / (per_table - CODECTL_JIT_FP_FRES + 1) + 2;

	memset(s, 0, sizeof(*s));
	s->entries = entries;
	if (codectl_jit_init(&s->t, (const void *)(uintptr_t)JIT_TEXT, text_len, per_table,
			     max_tables) || fill_tables(s))
		return -1;
	for (int i = 0; i < STACK_WORDS; i++)
		s->stack[i] = CALLER_RA;	/* every RA and saved FP slot */
	emu_mem_image_add(&s->img, (uintptr_t)s->t.area, s->t.area, s->t.area_used);
	emu_mem_image_add(&s->img, STACK, s->stack, sizeof(s->stack));
	s->mem = emu_mem_image_accessor(&s->img);
	random_ips(JIT_TEXT, s->funcs);
	return add_registration(s);
}

static void free_jit_set(struct jit_set *s)
{
	emu_registry_free(s->registry);
	codectl_jit_destroy(&s->t);
}

/* @idx: the sealed-table index to use (as codectl-run does), or NULL to walk the chain. */
static double time_jit_lookups(const struct jit_set *s, const struct emu_accessor *mem,
			       unsigned long n, struct emu_jit_index *idx)
{
	const struct emu_arch_info *x86 = emu_arch_get(EMU_ARCH_X86_64);
	uint64_t head = (uintptr_t)s->t.head;
	struct emu_unwind_rule rule;
	enum emu_jit_fault fault;
	double t0 = now_ns();

	for (unsigned long i = 0; i < n; i++)
		sink += !emu_jit_find_rule(mem, x86, JIT_TEXT, head, ips[i % NIPS], idx, &rule,
					   &fault) + (unsigned long)rule.cfa_off;
	return (now_ns() - t0) / (double)n;
}

/* One pass over the IPs through a counting accessor; returns lookups found. */
static unsigned long count_jit_reads(const struct jit_set *s, struct counting_mem *c,
				     struct emu_jit_index *idx)
{
	const struct emu_arch_info *x86 = emu_arch_get(EMU_ARCH_X86_64);
	struct emu_accessor mem = { .read = counting_read, .ctx = c };
	struct emu_unwind_rule rule;
	enum emu_jit_fault fault;
	unsigned long found = 0;

	*c = (struct counting_mem){ .inner = &s->mem };
	for (unsigned int i = 0; i < NIPS; i++)
		found += !emu_jit_find_rule(&mem, x86, JIT_TEXT, (uintptr_t)s->t.head, ips[i],
					    idx, &rule, &fault);
	return found;
}

/* emu_unwind() with two frames: frame 0 in JIT code, one step by its JIT rule. */
static double time_jit_unwind(const struct jit_set *s, unsigned long n, unsigned long *jit_steps)
{
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = 2 };
	struct emu_regs regs = { .sp = STACK, .fp = STACK + 64 };
	struct emu_frame frames[2];
	struct emu_unwind_result res;
	double t0 = now_ns();

	*jit_steps = 0;
	for (unsigned long i = 0; i < n; i++) {
		regs.ip = ips[i % NIPS];
		emu_unwind(s->registry, &s->mem, &regs, &o, frames, &res);
		*jit_steps += res.nframes == 2 && frames[1].source == EMU_SRC_JIT &&
			      frames[1].ip == CALLER_RA;
	}
	return (now_ns() - t0) / (double)n;
}

struct jit_result {
	unsigned long entries, funcs, found;
	unsigned int tables;
	double ns, unwind_ns, remote_ns, idx_ns;
	double reads, headers, entry_reads, idx_reads;
	unsigned long jit_steps, lookups;
};

/* Lookups that make about @reads accessor reads, within [NIPS, @max]. */
static unsigned long lookups_for(unsigned long reads, double per_lookup, unsigned long max)
{
	unsigned long n = (unsigned long)(reads / per_lookup);

	return n < NIPS ? NIPS : n > max ? max : n;
}

static int bench_jit_set(unsigned long entries, size_t per_table, unsigned int shift,
			 struct jit_result *r)
{
	static struct jit_set s;
	struct remote_mem self;
	struct emu_accessor remote = remote_mem_accessor(&self);
	struct emu_jit_index *idx = emu_jit_index_new();
	struct counting_mem c;

	remote_mem_init(&self, getpid(), -1, NULL);
	if (!idx || build_jit_set(&s, entries, per_table)) {
		emu_jit_index_free(idx);
		free_jit_set(&s);
		return -1;
	}
	*r = (struct jit_result){ .entries = entries, .funcs = s.funcs, .tables = s.tables };
	count_jit_reads(&s, &c, idx);	/* the index learns the sealed tables */
	count_jit_reads(&s, &c, idx);
	r->idx_reads = (double)c.reads / NIPS;
	r->found = count_jit_reads(&s, &c, NULL);
	r->reads = (double)c.reads / NIPS;
	r->lookups = lookups_for(MEMORY_READS >> shift, r->reads, (16ul * NIPS) >> shift);
	r->headers = (double)c.headers / NIPS;
	r->entry_reads = (double)c.entries / NIPS;
	r->ns = time_jit_lookups(&s, &s.mem, r->lookups, NULL);
	r->idx_ns = time_jit_lookups(&s, &s.mem, r->lookups, idx);
	r->unwind_ns = time_jit_unwind(&s, r->lookups, &r->jit_steps);
	r->remote_ns = time_jit_lookups(&s, &remote,
					(unsigned long)((REMOTE_READS >> shift) / r->idx_reads), idx);
	emu_jit_index_free(idx);
	free_jit_set(&s);
	return 0;
}

static void print_jit_row(const struct jit_result *r)
{
	printf("  %9lu %6u %9lu %10.1f %8.2f %8.2f %8.2f %10.1f %8.2f %10.1f %10.2f %8lu\n",
	       r->entries, r->tables, r->funcs, r->ns, r->reads, r->headers, r->entry_reads,
	       r->idx_ns, r->idx_reads, r->unwind_ns, r->remote_ns / 1000, r->lookups);
}

static void print_jit_ratios(const struct jit_result *r)
{
	const struct jit_result *lo = &r[0], *hi = &r[NSIZES - 1];

	printf("  %lu / %lu entries, one table: time x%.1f, reads x%.2f, entry reads x%.2f;"
	       " log2(n) x%.1f, n x%.0f\n", hi->entries, lo->entries, hi->ns / lo->ns,
	       hi->reads / lo->reads, hi->entry_reads / lo->entry_reads,
	       log2((double)hi->entries) / log2((double)lo->entries),
	       (double)hi->entries / lo->entries);
	printf("  entry reads per lookup - log2(entries), one table: ");
	for (unsigned int i = 0; i < NSIZES; i++)
		printf("%s%.2f", i ? ", " : "", r[i].entry_reads - log2((double)r[i].entries));
	printf(" (constant: O(log n))\n");
	for (unsigned int i = NSIZES; i < NCASES; i++)
		printf("  %lu entries in %u tables of %zu: walking, %.2f tables read per lookup"
		       " (header and first\n    entry each), then %.0f more entry reads in the one"
		       " that covers the IP: reads x%.2f,\n    time x%.2f of one table; with the"
		       " index: reads x%.2f, time x%.2f of one table\n", r[i].entries, r[i].tables,
		       jit_cases[i].per_table, r[i].headers, r[i].entry_reads - r[i].headers,
		       r[i].reads / hi->reads, r[i].ns / hi->ns, r[i].idx_reads / hi->idx_reads,
		       r[i].idx_ns / hi->idx_ns);
}

static int check_jit(const struct jit_result *r)
{
	int err = 0;

	for (unsigned int i = 0; i < NCASES; i++) {
		if (r[i].found == NIPS && r[i].jit_steps == r[i].lookups)
			continue;
		printf("  ERROR: %lu entries: %lu of %u lookups found, %lu of %lu unwind steps by JIT\n",
		       r[i].entries, r[i].found, NIPS, r[i].jit_steps, r[i].lookups);
		err = -1;
	}
	return err;
}

static int bench_jit(unsigned int shift, struct jit_result *r)
{
	printf("\n2. JIT frame lookup, emu_jit_find_rule() over an in-memory accessor, at %u random\n"
	       "   IPs in functions of 16 bytes (reads: accessor calls per lookup, by kind)\n", NIPS);
	printf("  %9s %6s %9s %10s %8s %8s %8s %10s %8s %10s %10s %8s\n", "", "", "",
	       "walk:", "", "", "", "index:", "", "", "", "");
	printf("  %9s %6s %9s %10s %8s %8s %8s %10s %8s %10s %10s %8s\n", "entries", "tables",
	       "functions", "ns/lookup", "reads", "headers", "entries", "ns/lookup", "reads",
	       "ns/unwind", "us/lookup", "lookups");
	printf("  %9s %6s %9s %10s %8s %8s %8s %10s %8s %10s %10s\n", "", "", "", "", "", "", "", "",
	       "", "step", "via pvr");
	for (unsigned int i = 0; i < NCASES; i++) {
		if (bench_jit_set(jit_cases[i].entries, jit_cases[i].per_table, shift, &r[i]))
			return -1;
		print_jit_row(&r[i]);
	}
	print_jit_ratios(r);
	printf("  (walk: the chain walked from its head; index: with the registration's index of\n"
	       "   sealed tables, as codectl-run looks up, after it has learnt them;\n"
	       "   ns/unwind step: emu_unwind() of 2 frames, the second reached by the JIT rule;\n"
	       "   us/lookup via pvr: the indexed lookups through process_vm_readv(2), one system\n"
	       "   call per read, as codectl-run reads the tables of a sampled process)\n");
	return check_jit(r);
}

/* ---- 3. SFrame lookups ---- */

static const struct { uint32_t start; int sp_base; int n; int8_t cfa, fp; } sf_fres[4] = {
	{ 0, 1, 1, 8, 0 },	/* push %rbp */
	{ 1, 1, 2, 16, -16 },	/* mov %rsp,%rbp */
	{ 4, 0, 2, 16, -16 },	/* body, leave */
	{ 15, 1, 2, 8, -16 },	/* ret */
};

static int encode_function(sframe_encoder_ctx *e, unsigned long i)
{
	int32_t start = (int32_t)(SF_TEXT - SF_SECTION + i * FUNC_BYTES);
	unsigned char info = SFRAME_V1_FUNC_INFO(SFRAME_FDE_TYPE_PCINC, SFRAME_FRE_TYPE_ADDR1);

	if (lsf_encoder_add_fde(e, start, FUNC_BYTES, info, 4))
		return -1;
	for (int k = 0; k < 4; k++) {
		sframe_frame_row_entry fre = {
			.fre_start_addr = sf_fres[k].start,
			.fre_info = SFRAME_V1_FRE_INFO(sf_fres[k].sp_base ? SFRAME_BASE_REG_SP :
					SFRAME_BASE_REG_FP, sf_fres[k].n, SFRAME_FRE_OFFSET_1B),
		};

		LSF_FRE_DATA(&fre)[0] = (unsigned char)sf_fres[k].cfa;
		LSF_FRE_DATA(&fre)[1] = (unsigned char)sf_fres[k].fp;
		if (sframe_encoder_add_fre(e, (unsigned int)i, &fre))
			return -1;
	}
	return 0;
}

/* A section for @n frame-pointer functions of 16 bytes at SF_TEXT, written by libsframe. */
static struct emu_sframe_section *build_sframe(unsigned long n)
{
	struct emu_sframe_params p = { .sframe_addr = SF_SECTION, .text_start = SF_TEXT,
				       .text_end = SF_TEXT + n * FUNC_BYTES };
	sframe_encoder_ctx *e;
	struct emu_sframe_section *s = NULL;
	struct emu_verdict v;
	size_t len = 0;
	char *buf = NULL;
	uint8_t *copy;
	int err = 0;

	e = sframe_encode(LSF_ENCODE_VERSION, LSF_ENCODE_FLAGS, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
			  SFRAME_CFA_FIXED_FP_INVALID, -8, &err);
	for (unsigned long i = 0; e && !err && i < n; i++)
		err = encode_function(e, i);
	if (e && !err)
		buf = lsf_encoder_write(e, &len, &err);
	if (!buf || err)
		fprintf(stderr, "bench/jit: libsframe could not encode %lu FDEs: %s\n", n,
			sframe_errmsg(err));
	copy = buf && !err ? malloc(len) : NULL;
	if (copy) {
		memcpy(copy, buf, len);
		if (emu_sframe_load(copy, len, &p, &s, &v))
			fprintf(stderr, "bench/jit: SFrame section refused: %s\n", v.reason);
	}
	sframe_encoder_free(&e);
	return s;
}

static double time_sframe(const struct emu_sframe_section *s, unsigned long n,
			  unsigned long *found)
{
	struct emu_unwind_rule rule;
	double t0;

	*found = 0;
	for (unsigned int i = 0; i < NIPS; i++)
		*found += !emu_sframe_find_rule(s, ips[i], &rule);
	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		sink += !emu_sframe_find_rule(s, ips[i % NIPS], &rule) +
			(unsigned long)rule.cfa_off;
	return (now_ns() - t0) / (double)n;
}

/* This program's own PT_GNU_SFRAME, as gas wrote it; IPs at random in its functions. */
static struct emu_sframe_section *own_sframe(uint32_t *nfdes)
{
	struct code_sframe_info exe;
	struct emu_sframe_params p;
	struct emu_sframe_section *s = NULL;
	struct emu_sframe_fde fde;
	struct emu_verdict v;
	uint8_t *copy;

	self_sframe(&exe);
	copy = exe.sframe_start ? malloc(exe.sframe_end - exe.sframe_start) : NULL;
	if (!copy)
		return NULL;
	memcpy(copy, (const void *)(uintptr_t)exe.sframe_start, exe.sframe_end - exe.sframe_start);
	p = (struct emu_sframe_params){ .sframe_addr = exe.sframe_start,
					.text_start = exe.text_start, .text_end = exe.text_end };
	if (emu_sframe_load(copy, exe.sframe_end - exe.sframe_start, &p, &s, &v))
		return NULL;
	*nfdes = emu_sframe_header(s)->num_fdes;
	rnd_seed();
	for (unsigned int i = 0; i < NIPS; i++) {
		if (emu_sframe_fde_at(s, (uint32_t)(rnd() % *nfdes), &fde) || !fde.func_size)
			fde = (struct emu_sframe_fde){ .func_start = exe.text_start,
						       .func_size = 1 };
		ips[i] = fde.func_start + rnd() % fde.func_size;
	}
	return s;
}

static int bench_own_sframe(unsigned long lookups)
{
	struct emu_sframe_section *s;
	unsigned long found;
	uint32_t nfdes = 0;
	double ns;

	s = own_sframe(&nfdes);
	if (!s) {
		printf("  this program's .sframe: not found\n");
		return 0;
	}
	ns = time_sframe(s, lookups, &found);
	printf("  this program's .sframe (gas, v%u): %u FDEs, %.1f ns/lookup, %lu of %u found\n",
	       emu_sframe_header(s)->version, nfdes, ns, found, NIPS);
	emu_sframe_put(s);
	return found == NIPS ? 0 : -1;
}

static int bench_sframe(unsigned long lookups, const struct jit_result *jit)
{
	double ns[NSIZES];

	printf("\n3. SFrame frame lookup, emu_sframe_find_rule(), at the same kind of IPs (the section\n"
	       "   is a private copy: no accessor); sections written by libsframe's encoder (v%d, as\n"
	       "   this machine's ld writes them) for frame-pointer functions of 16 bytes, 4 FREs each\n",
	       LSF_ENCODE_VERSION);
	printf("  %9s %9s %10s %8s %12s\n", "FDEs", "FREs", "ns/lookup", "lookups", "JIT/SFrame");
	for (unsigned int i = 0; i < NSIZES; i++) {
		struct emu_sframe_section *s = build_sframe(sizes[i]);
		unsigned long found;

		if (!s)
			return -1;
		random_ips(SF_TEXT, sizes[i]);
		ns[i] = time_sframe(s, lookups, &found);
		printf("  %9lu %9lu %10.1f %8lu %12.2f\n", sizes[i], 4 * sizes[i], ns[i], lookups,
		       jit[i].ns / ns[i]);
		emu_sframe_put(s);
		if (found != NIPS) {
			printf("  ERROR: %lu of %u lookups found\n", found, NIPS);
			return -1;
		}
	}
	printf("  %lu / %lu FDEs: time x%.1f (JIT: x%.1f); JIT lookup with n entries /"
	       " SFrame lookup with n FDEs, as above\n", sizes[NSIZES - 1], sizes[0],
	       ns[NSIZES - 1] / ns[0], jit[NSIZES - 1].ns / jit[0].ns);
	return bench_own_sframe(lookups);
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	unsigned int shift = quick ? 4 : 0;
	struct jit_result jit[NCASES];
	int err = 0;

	printf("bench/jit: JIT unwind tables (CODE_REGISTER_JIT)\n");
	err |= bench_writer();
	if (bench_jit(shift, jit))
		return 1;
	err |= bench_sframe((16ul * NIPS) >> shift, jit);
	return err || sink == 42 ? 1 : 0;	/* sink keeps the timed work observable */
}
