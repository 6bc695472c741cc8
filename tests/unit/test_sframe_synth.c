// SPDX-License-Identifier: GPL-2.0
/*
 * --synthesize-sframe's section (emu/sframe_synth.c, sframe_encode.c): made
 * from .eh_frame by gas's rules, it must say exactly what the .eh_frame says
 * wherever it says anything, leave out exactly the functions SFrame cannot
 * describe, load under the emulator's full validation, and stand aside for
 * any registration the program makes.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame_object.h"
#include "eh_frame_writer.h"
#include "emu/registry.h"
#include "emu/sframe_section.h"
#include "emu/sframe_synth.h"
#include "emu/unwind.h"

#define ADDR 0x500000ull	/* .eh_frame then .eh_frame_hdr of the crafted object */
#define TEXT 0x400000ull
#define NFUNCS 4
#define FSIZE 64

struct crafted {
	uint8_t buf[4096];
	struct ehw_layout lay;
	struct emu_mem_image img;
	struct emu_accessor mem;
	struct emu_vma vma;
	struct emu_mappings maps;
	struct emu_eh_frame e;
};

/* ehw_build()'s four frame-pointer functions at TEXT, their header read. */
static void crafted(struct crafted *c)
{
	size_t len;
	struct emu_verdict v;

	memset(c, 0, sizeof(*c));
	len = ehw_build(ADDR, TEXT, NFUNCS, FSIZE, c->buf, sizeof(c->buf), &c->lay);
	cr_assert_gt(len, 0);
	cr_assert_eq(emu_mem_image_add(&c->img, ADDR, c->buf, len), 0);
	c->mem = emu_mem_image_accessor(&c->img);
	c->vma = (struct emu_vma){ .start = ADDR, .end = ADDR + 0x1000, .prot = EMU_PROT_READ };
	c->maps = (struct emu_mappings){ .vma = &c->vma, .n = 1 };
	c->e = (struct emu_eh_frame){ .hdr_start = ADDR + c->lay.hdr,
				      .hdr_end = ADDR + c->lay.hdr + c->lay.hdr_len,
				      .text_start = TEXT, .text_end = TEXT + NFUNCS * FSIZE };
	emu_verdict_init(&v);
	cr_assert_eq(emu_eh_frame_add(&c->e, &c->mem, &c->maps, true, &v), 0, "%s", v.reason);
}

/* @st's section loaded as emu_sframe_synth_register() loads it. */
static struct emu_sframe_section *load(uint8_t *data, size_t len, uint64_t text_start,
				       uint64_t text_end)
{
	const struct emu_sframe_params p = {
		.sframe_addr = text_start, .text_start = text_start, .text_end = text_end,
		.arch = EMU_ARCH_X86_64, .profile = EMU_PROFILE_EMULATOR,
	};
	struct emu_sframe_section *s = NULL;
	struct emu_verdict v;

	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load(data, len, &p, &s, &v), 0, "%s (%s)", v.reason,
		     emu_rule_name(v.rule));
	return s;
}

Test(sframe_synth, frame_pointer_functions_become_three_fres_each)
{
	struct emu_sframe_synth_stats st;
	struct emu_unwind_rule rule;
	struct emu_sframe_section *s;
	struct crafted c;
	uint8_t *data;
	size_t len;

	crafted(&c);
	cr_assert_eq(emu_sframe_synthesize(&c.e, &c.mem, TEXT, &data, &len, &st), 0);
	cr_assert_eq(st.fdes, NFUNCS);
	cr_assert_eq(st.functions, NFUNCS);
	cr_assert_eq(st.fres, 3 * NFUNCS);
	cr_assert_eq(st.inexpressible + st.refused, 0);
	cr_assert_str_eq(st.why, "");
	/* header 28, 16 per FDE, per function: attribute 5 + FREs 1+1+1, 1+1+2 x2 */
	cr_assert_eq(len, 28 + NFUNCS * 16 + NFUNCS * (5 + 3 + 4 + 4));
	s = load(data, len, TEXT, TEXT + NFUNCS * FSIZE);
	cr_assert_eq(emu_sframe_header(s)->version, 3);
	for (unsigned int f = 0; f < NFUNCS; f++) {
		uint64_t fn = TEXT + f * FSIZE;

		cr_assert_eq(emu_sframe_find_rule(s, fn, &rule), 0);
		cr_assert(rule.cfa_base == EMU_CFA_SP && rule.cfa_off == 8 &&
			  rule.fp.kind == EMU_LOC_SAME && rule.ra.kind == EMU_LOC_CFA_DEREF &&
			  rule.ra.off == -8);
		cr_assert_eq(emu_sframe_find_rule(s, fn + 3, &rule), 0);
		cr_assert(rule.cfa_base == EMU_CFA_SP && rule.cfa_off == 16 &&
			  rule.fp.kind == EMU_LOC_CFA_DEREF && rule.fp.off == -16);
		cr_assert_eq(emu_sframe_find_rule(s, fn + FSIZE - 1, &rule), 0);
		cr_assert(rule.cfa_base == EMU_CFA_FP && rule.cfa_off == 16 &&
			  rule.fp.kind == EMU_LOC_CFA_DEREF && rule.fp.off == -16);
		cr_assert_eq(rule.code_start, fn);
		cr_assert_eq(rule.code_end, fn + FSIZE);
	}
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + NFUNCS * FSIZE, &rule), -ENOENT);
	emu_sframe_put(s);
}

/* The FDEs outside the registered text are not the section's. */
Test(sframe_synth, only_the_text_range)
{
	struct emu_sframe_synth_stats st;
	struct crafted c;
	uint8_t *data;
	size_t len;

	crafted(&c);
	c.e.text_start = TEXT + FSIZE;
	c.e.text_end = TEXT + 3 * FSIZE;
	cr_assert_eq(emu_sframe_synthesize(&c.e, &c.mem, c.e.text_start, &data, &len, &st), 0);
	cr_assert_eq(st.fdes, 2);
	cr_assert_eq(st.functions, 2);
	emu_sframe_put(load(data, len, c.e.text_start, c.e.text_end));
	c.e.text_start = TEXT + NFUNCS * FSIZE;
	c.e.text_end = TEXT + 8 * FSIZE;
	cr_assert_eq(emu_sframe_synthesize(&c.e, &c.mem, c.e.text_start, &data, &len, &st),
		     -ENOENT);
	cr_assert_eq(st.fdes, 0);
}

/* A CFI the reader refuses (here an unknown opcode) leaves that function out, whole. */
Test(sframe_synth, a_refused_fde_is_left_out_with_its_reason)
{
	struct emu_sframe_synth_stats st;
	struct emu_unwind_rule rule;
	struct emu_sframe_section *s;
	struct crafted c;
	uint8_t *data, *insn;
	size_t len;

	crafted(&c);
	/* function 1's FDE: its first instruction (after length, CIE pointer,
	 * pc_begin, pc_range and the empty augmentation data) made DW_CFA_hi_user (0x3f) */
	insn = c.buf + c.lay.fde[1] + 4 + 4 + 4 + 4 + 1;
	*insn = 0x3f;
	cr_assert_eq(emu_sframe_synthesize(&c.e, &c.mem, TEXT, &data, &len, &st), 0);
	cr_assert_eq(st.fdes, NFUNCS);
	cr_assert_eq(st.functions, NFUNCS - 1);
	cr_assert_eq(st.refused, 1);
	cr_assert(strstr(st.why, "function 0x400040"), "%s", st.why);
	s = load(data, len, TEXT, TEXT + NFUNCS * FSIZE);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + FSIZE + 8, &rule), -ENOENT);
	cr_assert_eq(emu_sframe_find_rule(s, TEXT + 2 * FSIZE + 8, &rule), 0);
	emu_sframe_put(s);
}

/* A synthesized registration gives way to the program's own, and to no synthesized one. */
Test(sframe_synth, the_programs_registration_replaces_it)
{
	struct emu_registry *r = emu_registry_new(8);
	struct emu_registration *mine = calloc(1, sizeof(*mine));
	struct emu_sframe_synth_stats st;
	struct emu_verdict v;
	struct crafted c;
	uint8_t *data;
	size_t len;

	crafted(&c);
	cr_assert(r && mine);
	cr_assert_eq(emu_sframe_synthesize(&c.e, &c.mem, TEXT, &data, &len, &st), 0);
	cr_assert_eq(emu_sframe_synth_register(r, TEXT, TEXT + NFUNCS * FSIZE, data, len, &v), 0);
	cr_assert_eq(emu_registry_find_unwind(r, TEXT)->origin, EMU_ORIGIN_SYNTHESIZED);
	cr_assert_eq(emu_registry_remove_sframe(r, 0), -ENOENT);
	cr_assert_eq(emu_sframe_synthesize(&c.e, &c.mem, TEXT, &data, &len, &st), 0);
	cr_assert_eq(emu_sframe_synth_register(r, TEXT, TEXT + NFUNCS * FSIZE, data, len, &v),
		     -EEXIST);
	*mine = (struct emu_registration){ .text_start = TEXT + FSIZE, .text_end = TEXT + 2 * FSIZE,
					   .aspects = EMU_ASPECT_UNWIND,
					   .origin = EMU_ORIGIN_SFRAME_REGISTER };
	cr_assert_eq(emu_registry_check_insert(r, mine->text_start, mine->text_end,
					       mine->aspects, mine->origin, &v), 0);
	cr_assert_eq(emu_registry_insert(r, mine, &v), 0);
	cr_assert_eq(emu_registry_count(r), 1);
	cr_assert_eq(emu_registry_find_unwind(r, TEXT), NULL);
	cr_assert_eq(emu_registry_find_unwind(r, TEXT + FSIZE), mine);
	emu_registry_free(r);
}

/* A walk through synthesized SFrame: its frames say so; SFRAME walks leave it out. */
Test(sframe_synth, walks_mark_its_frames)
{
	uint64_t stack[4] = { 0, 0, 0xdead0, TEXT + 2 * FSIZE + 9 };	/* saved FP, RA */
	struct emu_registry *r = emu_registry_new(8);
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = 4 };
	struct emu_sframe_synth_stats st;
	struct emu_unwind_result res;
	struct emu_frame frames[4];
	struct emu_regs regs = { .ip = TEXT + 10, .sp = 0x7f0000, .fp = 0x7f0010 };
	struct emu_verdict v;
	struct crafted c;
	uint8_t *data;
	size_t len;

	crafted(&c);
	cr_assert_eq(emu_mem_image_add(&c.img, 0x7f0000, stack, sizeof(stack)), 0);
	c.mem = emu_mem_image_accessor(&c.img);
	cr_assert_eq(emu_sframe_synthesize(&c.e, &c.mem, TEXT, &data, &len, &st), 0);
	cr_assert_eq(emu_sframe_synth_register(r, TEXT, TEXT + NFUNCS * FSIZE, data, len, &v), 0);
	cr_assert_eq(emu_unwind(r, &c.mem, &regs, &o, frames, &res), 0);
	cr_assert_geq(res.nframes, 2);
	cr_assert_eq(frames[1].ip, TEXT + 2 * FSIZE + 9);
	cr_assert_eq(frames[1].source, EMU_SRC_SYNTHESIZED);
	cr_assert_str_eq(emu_source_name(frames[1].source), "synthesized");
	o.tables = EMU_TABLES_SFRAME;
	cr_assert_eq(emu_unwind(r, &c.mem, &regs, &o, frames, &res), 0);
	cr_assert_eq(frames[1].source, EMU_SRC_FP);
	emu_registry_free(r);
}

/* ------------------------------------------------- real code: against the .eh_frame it came from */

/* What a scan of every text byte found, by function (one function at a time, in order). */
struct scan {
	unsigned long agree;		/* both the same rule */
	unsigned long differ;		/* both a rule, not the same: never */
	unsigned long synth_only;	/* a rule the .eh_frame does not give: never */
	unsigned long left_out;		/* .eh_frame's rule only, in a function left out */
	unsigned long unexplained;	/* .eh_frame's rule only, its function not left out: never */
	unsigned long inexpressible;	/* functions with a row SFrame cannot say */
	unsigned long refused;		/* functions with CFI the reader refuses */
	uint64_t func;			/* the current function, its counts below */
	bool func_bad, func_refused;
	unsigned long func_missing;
};

/* gas's rules, said again: the rows SFrame can express. */
static bool expressible(const struct emu_unwind_rule *r)
{
	return r->outermost ||
	       ((r->cfa_base == EMU_CFA_SP || r->cfa_base == EMU_CFA_FP) &&
		r->ra.kind == EMU_LOC_CFA_DEREF && r->ra.off == -8 &&
		(r->fp.kind == EMU_LOC_SAME || r->fp.kind == EMU_LOC_CFA_DEREF));
}

static bool same_rule(const struct emu_unwind_rule *a, const struct emu_unwind_rule *b)
{
	if (a->outermost || b->outermost)
		return a->outermost == b->outermost;
	return a->cfa_base == b->cfa_base && a->cfa_off == b->cfa_off &&
	       a->ra.kind == b->ra.kind && a->ra.off == b->ra.off && a->fp.kind == b->fp.kind &&
	       (a->fp.kind == EMU_LOC_SAME || a->fp.off == b->fp.off) &&
	       a->code_start == b->code_start && a->code_end == b->code_end;
}

static void end_function(struct scan *sc)
{
	sc->inexpressible += sc->func_bad && !sc->func_refused;
	sc->refused += sc->func_refused;
	if (sc->func_bad || sc->func_refused)
		sc->left_out += sc->func_missing;
	else
		sc->unexplained += sc->func_missing;
	sc->func_bad = sc->func_refused = false;
	sc->func_missing = 0;
}

static void scan_at(const struct object *o, const struct emu_sframe_section *s, uint64_t ip,
		    struct scan *sc)
{
	struct emu_unwind_rule eh, sf;
	struct emu_verdict v;
	int eh_err, sf_err = emu_sframe_find_rule(s, ip, &sf);

	emu_verdict_init(&v);
	eh_err = emu_eh_frame_find(&o->e, &o->mem, emu_arch_get(EMU_ARCH_X86_64), ip, &eh, &v);
	if (eh_err == -EOPNOTSUPP) {
		/* the function is the table entry's: the rule has no range, so by sf or none */
		sc->func_refused = true;
		cr_assert_eq(sf_err, -ENOENT, "0x%llx: %s", (unsigned long long)ip, v.reason);
		return;
	}
	cr_assert(!eh_err || eh_err == -ENOENT, "0x%llx: %s", (unsigned long long)ip, v.reason);
	if (!eh_err && eh.code_start != sc->func) {
		end_function(sc);
		sc->func = eh.code_start;
	}
	if (!eh_err && !expressible(&eh))
		sc->func_bad = true;
	if (!sf_err && eh_err)
		sc->synth_only++;
	else if (!sf_err)
		sc->agree += same_rule(&eh, &sf), sc->differ += !same_rule(&eh, &sf);
	else if (!eh_err)
		sc->func_missing++;
}

/* Every byte of @o's text (up to @max bytes) looked up in both. */
static void synth_and_scan(struct object *o, uint64_t max, struct scan *sc,
			   struct emu_sframe_synth_stats *st)
{
	struct emu_sframe_section *s;
	uint64_t end = max < o->text_end - o->text_start ? o->text_start + max : o->text_end;
	uint8_t *data;
	size_t len;

	object_register(o);
	cr_assert_eq(emu_sframe_synthesize(&o->e, &o->mem, o->text_start, &data, &len, st), 0);
	cr_assert_eq(st->functions + st->inexpressible + st->refused, st->fdes);
	s = load(data, len, o->text_start, o->text_end);
	memset(sc, 0, sizeof(*sc));
	for (uint64_t ip = o->text_start; ip < end; ip++)
		scan_at(o, s, ip, sc);
	end_function(sc);
	cr_log_info("%s: %u FDEs, %u made (%u FREs), %u inexpressible, %u refused; %lu bytes "
		    "agree, %lu left out", o->path, st->fdes, st->functions, st->fres,
		    st->inexpressible, st->refused, sc->agree, sc->left_out);
	cr_assert_gt(sc->agree, 0);
	cr_assert_eq(sc->differ, 0);
	cr_assert_eq(sc->synth_only, 0);
	cr_assert_eq(sc->unexplained, 0);
	cr_assert_eq(sc->inexpressible, st->inexpressible);
	cr_assert_eq(sc->refused, st->refused);
	emu_sframe_put(s);
}

Test(sframe_synth_real, this_program)
{
	struct emu_sframe_synth_stats st;
	struct scan sc;
	struct object o;

	object_in_process(&o, "");
	synth_and_scan(&o, UINT64_MAX, &sc, &st);
	object_close(&o);
}

/* glibc: its .plt and __restore_rt refused, hand-written assembly's SP rules; the rest made. */
Test(sframe_synth_real, libc)
{
	struct emu_sframe_synth_stats st;
	struct scan sc;
	struct object o;

	object_in_process(&o, "/libc.so.6");
	synth_and_scan(&o, UINT64_MAX, &sc, &st);
	cr_assert_gt(st.refused, 0);
	cr_assert_gt(st.functions, st.fdes * 9 / 10);
	object_close(&o);
}
