// SPDX-License-Identifier: GPL-2.0
/*
 * bench/unwind: cost of the emulated kernel's unwinder on captured stacks of
 * this program (built with -Wa,--gsframe), measured side by side in one run:
 *   1. ns per frame of our lookup + unwind step;
 *   2. ns per frame of our FRE lookup alone, and of libsframe's sframe_find_fre()
 *      for the same addresses, with the ratio;
 *   3. ns per frame with 10, 1 000 and 10 000 registrations in the address
 *      space (the registration lookup must stay O(log n));
 *   4. ns per frame of the .eh_frame proposal's lookup (table search, CIE,
 *      FDE, CFI up to the address, read from this process's memory as the
 *      kernel reads a process's) + the same step, on the same stacks, with
 *      the ratio to SFrame's;
 *   5. ns per frame with SFrame synthesized from that .eh_frame
 *      (--synthesize-sframe) instead of the program's own, and the ratio.
 * Usage: unwind [--quick]
 */
#include <link.h>
#include <sframe.h>
#include <sframe-api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu/emu.h"
#include "supervisor/core/procfs.h"
#include "supervisor/trace/remote_mem.h"
#include "tests/lib/self_sframe.h"

#define NSTACKS 8
#define MAX_FRAMES 64
#define STACK_COPY (32 * 1024)

struct sample {
	struct emu_regs regs;
	uint8_t stack[STACK_COPY];
	size_t len;
};

/*
 * @eh_table_start, @eh_table_end: the mapping holding the program's
 * .eh_frame_hdr and .eh_frame, read in place by the .eh_frame lookups
 */
struct bench {
	struct sample samples[NSTACKS];
	struct emu_registry *registry;
	struct emu_registry *synth;
	struct code_sframe_info exe;
	uint64_t eh_table_start;
	uint64_t eh_table_end;
	struct remote_mem self;
	struct emu_accessor self_mem;
	unsigned long reps;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* IP, SP and FP at one point of the caller, taken in one asm statement. */
#define TAKE_REGS(r) \
	__asm__ volatile("leaq 0(%%rip), %0\n\tmovq %%rsp, %1\n\tmovq %%rbp, %2" \
			 : "=r"((r)->ip), "=r"((r)->sp), "=r"((r)->fp))

__attribute__((noinline, noclone)) static void capture(struct bench *b, struct sample *s)
{
	TAKE_REGS(&s->regs);
	s->len = STACK_COPY;
	while (s->len && emu_read(&b->self_mem, s->regs.sp, s->stack, s->len))
		s->len /= 2;
}

static int chain(struct bench *b, struct sample *s, int n);

__attribute__((noinline, noclone)) static int chain_alloca(struct bench *b, struct sample *s, int n)
{
	volatile char *p = __builtin_alloca((size_t)n * 16 + 16);

	p[0] = (char)n;
	return chain(b, s, n - 1) + p[0];
}

__attribute__((noinline, noclone)) static int chain_frame(struct bench *b, struct sample *s, int n)
{
	volatile long locals[32];

	locals[n % 32] = n;
	return chain(b, s, n - 1) + (int)locals[n % 32];
}

__attribute__((noinline, noclone)) static int chain(struct bench *b, struct sample *s, int n)
{
	int r;

	if (n <= 0) {
		capture(b, s);
		return 0;
	}
	r = n & 1 ? chain_alloca(b, s, n) : chain_frame(b, s, n);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

static int register_exe(struct bench *b)
{
	struct emu_mappings maps = { 0 };
	struct emu_space sp = { .registry = b->registry, .mem = &b->self_mem, .maps = &maps };
	struct emu_policy p = emu_policy_default();
	struct emu_call_result res;
	int err;

	self_sframe(&b->exe);
	if (!b->exe.sframe_start || procfs_maps_read(getpid(), &maps)) {
		fprintf(stderr, "bench/unwind: no PT_GNU_SFRAME in this program\n");
		return -1;
	}
	err = emu_register_exec_sframe(&p, &sp, &b->exe, &res);
	emu_mappings_free(&maps);
	if (err)
		fprintf(stderr, "bench/unwind: registration failed: %s\n", res.verdict.reason);
	return err;
}

/*
 * The program's .eh_frame_hdr registered beside its SFrame, as eh_frame_register
 * would (the header checked, the tables validated); its tables' mapping noted.
 */
static int register_eh_frame(struct bench *b)
{
	struct emu_mappings maps = { 0 };
	struct emu_registration *reg = calloc(1, sizeof(*reg));
	struct self_segments g;
	const struct emu_vma *vma;
	struct emu_verdict v;
	int err = -1;

	self_segments(&g);
	if (!reg || !g.eh_frame_hdr_start || procfs_maps_read(getpid(), &maps))
		goto out;
	*reg = (struct emu_registration){ .text_start = b->exe.text_start,
					  .text_end = b->exe.text_end,
					  .aspects = EMU_ASPECT_EH_FRAME };
	reg->eh_frame = (struct emu_eh_frame){ .hdr_start = g.eh_frame_hdr_start,
					       .hdr_end = g.eh_frame_hdr_start + g.eh_frame_hdr_size,
					       .text_start = reg->text_start,
					       .text_end = reg->text_end };
	emu_verdict_init(&v);
	err = emu_eh_frame_add(&reg->eh_frame, &b->self_mem, &maps, true, &v);
	vma = emu_mappings_find(&maps, reg->eh_frame.eh_frame_start);
	if (!err && vma && vma->start <= g.eh_frame_hdr_start) {
		b->eh_table_start = vma->start;
		b->eh_table_end = vma->end;
		err = emu_registry_insert(b->registry, reg, &v);
	}
	if (!err)
		reg = NULL;
	else
		fprintf(stderr, "bench/unwind: .eh_frame_hdr not registered: %s\n", v.reason);
out:
	emu_registration_free(reg);
	emu_mappings_free(&maps);
	return err ? -1 : 0;
}

/* SFrame made from the registered .eh_frame, alone in b->synth, as --synthesize-sframe makes it. */
static int register_synthesized(struct bench *b)
{
	const struct emu_registration *eh = emu_registry_find_eh_frame(b->registry,
								      b->exe.text_start);
	struct emu_sframe_synth_stats st;
	struct emu_verdict v;
	uint8_t *data;
	size_t len;
	int err;

	b->synth = emu_registry_new(1);
	if (!b->synth || !eh)
		return -1;
	err = emu_sframe_synthesize(&eh->eh_frame, &b->self_mem, b->exe.text_start, &data, &len,
				    &st);
	if (!err)
		err = emu_sframe_synth_register(b->synth, b->exe.text_start, b->exe.text_end, data,
						len, &v);
	if (err)
		fprintf(stderr, "bench/unwind: no synthesized SFrame: %d\n", err);
	return err ? -1 : 0;
}

/*
 * Unwind every sample b->reps times with @tables' registrations of @r; returns ns
 * per frame, frames in *nframes. The stack copy and (for .eh_frame) the
 * program's tables in place are what the walk reads.
 */
static double time_walks(struct bench *b, const struct emu_registry *r, unsigned int tables,
			 unsigned long *nframes)
{
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = MAX_FRAMES,
				     .tables = tables };
	struct emu_frame frames[MAX_FRAMES];
	struct emu_unwind_result res;
	unsigned long total = 0;
	double t0 = now_ns();

	for (unsigned long rep = 0; rep < b->reps; rep++) {
		for (int i = 0; i < NSTACKS; i++) {
			struct emu_mem_image img = { 0 };
			struct emu_accessor mem;

			emu_mem_image_add(&img, b->samples[i].regs.sp, b->samples[i].stack,
					  b->samples[i].len);
			emu_mem_image_add(&img, b->eh_table_start,
					  (const void *)(uintptr_t)b->eh_table_start,
					  b->eh_table_end - b->eh_table_start);
			mem = emu_mem_image_accessor(&img);
			emu_unwind(r, &mem, &b->samples[i].regs, &o, frames, &res);
			total += res.nframes;
		}
	}
	*nframes = total;
	return (now_ns() - t0) / (double)total;
}

static double time_unwind(struct bench *b, unsigned long *nframes)
{
	return time_walks(b, b->registry, EMU_TABLES_SFRAME, nframes);
}

struct lookups {
	uint64_t pc[NSTACKS * MAX_FRAMES];
	unsigned int n;
};

/* The addresses our walk looks up for SFrame-covered frames (IP, then RA - 1). */
static void collect_lookups(struct bench *b, struct lookups *l)
{
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = MAX_FRAMES };
	struct emu_frame frames[MAX_FRAMES];
	struct emu_unwind_result res;

	l->n = 0;
	for (int i = 0; i < NSTACKS; i++) {
		struct emu_mem_image img = { 0 };
		struct emu_accessor mem;

		emu_mem_image_add(&img, b->samples[i].regs.sp, b->samples[i].stack, b->samples[i].len);
		mem = emu_mem_image_accessor(&img);
		emu_unwind(b->registry, &mem, &b->samples[i].regs, &o, frames, &res);
		for (unsigned int f = 0; f < res.nframes; f++) {
			uint64_t pc = f ? frames[f].ip - 1 : frames[f].ip;

			if (pc >= b->exe.text_start && pc < b->exe.text_end)
				l->pc[l->n++] = pc;
		}
	}
}

static double time_ours(struct bench *b, const struct lookups *l, unsigned long *sink)
{
	const struct emu_registration *reg = emu_registry_find_unwind(b->registry, l->pc[0]);
	struct emu_sframe_fde fde;
	struct emu_sframe_fre fre;
	double t0 = now_ns();

	for (unsigned long rep = 0; rep < b->reps; rep++)
		for (unsigned int i = 0; i < l->n; i++)
			*sink += !emu_sframe_find(reg->sframe, l->pc[i], NULL, &fde, &fre) + fre.start;
	return (now_ns() - t0) / ((double)b->reps * l->n);
}

static double time_libsframe(struct bench *b, const struct lookups *l, unsigned long *sink,
			     unsigned int *found)
{
	size_t len = b->exe.sframe_end - b->exe.sframe_start;
	char *buf = malloc(len);
	sframe_decoder_ctx *d;
	sframe_frame_row_entry fre;
	double t0, ns;
	int err = 0;

	if (!buf || emu_read(&b->self_mem, b->exe.sframe_start, buf, len) ||
	    !(d = sframe_decode(buf, len, &err))) {
		free(buf);
		return -1;
	}
	*found = 0;
	for (unsigned int i = 0; i < l->n; i++)
		*found += !sframe_find_fre(d, (int32_t)(l->pc[i] - b->exe.sframe_start), &fre);
	t0 = now_ns();
	for (unsigned long rep = 0; rep < b->reps; rep++)
		for (unsigned int i = 0; i < l->n; i++)
			*sink += !sframe_find_fre(d, (int32_t)(l->pc[i] - b->exe.sframe_start), &fre) +
				 fre.fre_start_addr;
	ns = (now_ns() - t0) / ((double)b->reps * l->n);
	sframe_decoder_free(&d);
	free(buf);
	return ns;
}

/* Registrations elsewhere in the address space, sharing this program's section. */
static int add_registrations(struct bench *b, unsigned int count)
{
	const struct emu_registration *exe = emu_registry_find_unwind(b->registry, b->exe.text_start);
	static uint64_t next = 0x100000000000ull;

	while (emu_registry_count(b->registry) < count) {
		struct emu_registration *reg = calloc(1, sizeof(*reg));
		struct emu_verdict v;

		if (!reg)
			return -1;
		*reg = (struct emu_registration){ .text_start = next, .text_end = next + 0x8000,
						  .aspects = EMU_ASPECT_UNWIND,
						  .unwind_kind = EMU_UNWIND_SFRAME,
						  .sframe = emu_sframe_get(exe->sframe) };
		next += 0x10000;
		if (emu_registry_insert(b->registry, reg, &v)) {
			emu_registration_free(reg);
			return -1;
		}
	}
	return 0;
}

static void capture_samples(struct bench *b)
{
	for (int i = 0; i < NSTACKS; i++)
		chain(b, &b->samples[i], 4 + 3 * i);
}

int main(int argc, char **argv)
{
	static struct bench b;
	static const unsigned int counts[] = { 10, 1000, 10000 };
	struct lookups l;
	unsigned long frames, eh_frames, synth_frames, sink = 0;
	unsigned int found = 0;
	double base, ours, lib, eh, synth;

	b.reps = argc > 1 && !strcmp(argv[1], "--quick") ? 2000 : 20000;
	remote_mem_init(&b.self, getpid(), -1, NULL);
	b.self_mem = remote_mem_accessor(&b.self);
	b.registry = emu_registry_new(20000);
	if (!b.registry || register_exe(&b) || register_eh_frame(&b) || register_synthesized(&b))
		return 1;
	capture_samples(&b);
	collect_lookups(&b, &l);
	base = time_unwind(&b, &frames);
	ours = time_ours(&b, &l, &sink);
	lib = time_libsframe(&b, &l, &sink, &found);
	eh = time_walks(&b, b.registry, EMU_TABLES_EH_FRAME, &eh_frames);
	synth = time_walks(&b, b.synth, EMU_TABLES_SYNTHESIZED, &synth_frames);
	printf("bench/unwind: %d captured stacks, %lu frames per pass, %lu passes\n", NSTACKS,
	       frames / b.reps, b.reps);
	printf("  our lookup + unwind step        %8.1f ns/frame\n", base);
	printf("  our FRE lookup                  %8.1f ns/lookup (%u addresses)\n", ours, l.n);
	printf("  libsframe sframe_find_fre       %8.1f ns/lookup (%u of %u found)\n", lib, found, l.n);
	printf("  ratio libsframe / ours          %8.2f\n", lib / ours);
	printf("  .eh_frame lookup + CFI + step   %8.1f ns/frame (%lu frames per pass)\n", eh,
	       eh_frames / b.reps);
	printf("  ratio .eh_frame / SFrame        %8.2f\n", eh / base);
	printf("  synthesized SFrame lookup + step %7.1f ns/frame (%lu frames per pass)\n", synth,
	       synth_frames / b.reps);
	printf("  ratio synthesized / SFrame      %8.2f\n", synth / base);
	if (eh_frames != frames || synth_frames != frames)
		fprintf(stderr, "bench/unwind: the .eh_frame walks found %lu frames, the "
				"synthesized %lu, SFrame's %lu\n", eh_frames, synth_frames, frames);
	printf("  registrations    ns/frame    vs 1 registration\n");
	printf("  %13u    %8.1f    %6.2f\n", 1u, base, 1.0);
	for (unsigned int i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		double ns;

		if (add_registrations(&b, counts[i]))
			return 1;
		ns = time_unwind(&b, &frames);
		printf("  %13u    %8.1f    %6.2f\n", counts[i], ns, ns / base);
	}
	emu_registry_free(b.registry);
	emu_registry_free(b.synth);
	return sink == 42;	/* keeps the timed work observable */
}
