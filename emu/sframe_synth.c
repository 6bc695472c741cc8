// SPDX-License-Identifier: GPL-2.0
/* SFrame made from .eh_frame by gas's rules, and its registration (sframe_synth.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "codectl_internal.h"
#include "eh_frame_internal.h"
#include "sframe_encode.h"
#include "sframe_section.h"
#include "sframe_synth.h"

/* Rows kept per function (a longer one is left out, as too many rows). */
#define SYNTH_MAX_ROWS 4096

typedef unsigned long long ull;

/* @rule as an FRE starting @start bytes into its function; false: SFrame cannot say it. */
static bool to_row(const struct emu_unwind_rule *rule, uint32_t start, struct emu_sframe_row *row,
		   const char **why)
{
	*row = (struct emu_sframe_row){ .start = start, .outermost = rule->outermost };
	if (rule->outermost)
		return true;
	if (rule->cfa_base != EMU_CFA_SP && rule->cfa_base != EMU_CFA_FP) {
		*why = "the CFA from a register other than SP and FP";
		return false;
	}
	if (rule->ra.kind != EMU_LOC_CFA_DEREF || rule->ra.off != -8) {
		*why = "the RA elsewhere than at CFA - 8";
		return false;
	}
	if (rule->fp.kind != EMU_LOC_SAME && rule->fp.kind != EMU_LOC_CFA_DEREF) {
		*why = "the caller's FP elsewhere than on the stack or in place";
		return false;
	}
	row->sp_base = rule->cfa_base == EMU_CFA_SP;
	row->cfa_off = (int32_t)rule->cfa_off;
	row->fp_saved = rule->fp.kind == EMU_LOC_CFA_DEREF;
	row->fp_off = (int32_t)rule->fp.off;
	return true;
}

static bool same_row(const struct emu_sframe_row *a, const struct emu_sframe_row *b)
{
	return a->outermost == b->outermost && a->sp_base == b->sp_base &&
	       a->cfa_off == b->cfa_off && a->fp_saved == b->fp_saved &&
	       (!a->fp_saved || a->fp_off == b->fp_off);
}

/* The first FDE left out says why, and which. */
static void left_out(struct emu_sframe_synth_stats *st, const struct ehf_fde *fde,
		     uint64_t at, const char *why)
{
	if (!st->why[0])
		snprintf(st->why, sizeof(st->why), "function 0x%llx (FDE at 0x%llx), row at 0x%llx: %.100s",
			 (ull)fde->func, (ull)fde->addr, (ull)at, why);
}

/*
 * The rows of @fde's function into @rows (SYNTH_MAX_ROWS): its CFI asked at
 * each row's start. Return: the count; 0 when the function is left out
 * (counted in @st).
 */
static unsigned int function_rows(const struct emu_eh_frame *e, const struct emu_accessor *mem,
				  const struct ehf_fde *fde, struct emu_sframe_row *rows,
				  struct emu_sframe_synth_stats *st)
{
	struct emu_unwind_rule rule;
	struct emu_verdict v;
	struct emu_sframe_row row;
	const char *why = NULL;
	unsigned int n = 0;
	uint64_t at, next;

	for (at = fde->func; at < fde->func + fde->size; at = next) {
		emu_verdict_init(&v);
		if (ehf_cfi_rule(e, mem, fde, at, &rule, &next, &v)) {
			st->refused++;
			left_out(st, fde, at, v.reason);
			return 0;
		}
		if (!to_row(&rule, (uint32_t)(at - fde->func), &row, &why)) {
			st->inexpressible++;
			left_out(st, fde, at, why);
			return 0;
		}
		if (n && same_row(&rows[n - 1], &row))
			continue;
		if (n == SYNTH_MAX_ROWS) {
			st->inexpressible++;
			left_out(st, fde, at, "more rows than SFrame's FDE may have");
			return 0;
		}
		rows[n++] = row;
	}
	return n;
}

int emu_sframe_synthesize(const struct emu_eh_frame *e, const struct emu_accessor *mem,
			  uint64_t addr, uint8_t **out, size_t *len,
			  struct emu_sframe_synth_stats *st)
{
	struct emu_sframe_encoder enc = { 0 };
	struct emu_sframe_row *rows = malloc(SYNTH_MAX_ROWS * sizeof(*rows));
	struct ehf_fde fde;
	struct emu_verdict v;
	unsigned int n;
	uint64_t func;
	int err = 0;

	*st = (struct emu_sframe_synth_stats){ 0 };
	if (!rows)
		return -ENOMEM;
	for (uint64_t i = 0; !err && i < e->fde_count; i++) {
		emu_verdict_init(&v);
		err = ehf_table_func(e, mem, i, &func, &v);
		if (!err && (func < e->text_start || func >= e->text_end))
			continue;	/* another segment's, or another object's */
		if (!err)
			err = ehf_table_fde(e, mem, i, &fde, &v);
		if (err) {
			st->fdes++;
			st->refused++;
			if (!st->why[0])
				snprintf(st->why, sizeof(st->why), "table entry %llu: %.150s",
					 (ull)i, v.reason);
			err = 0;
			continue;
		}
		if (!fde.size)
			continue;
		st->fdes++;
		n = function_rows(e, mem, &fde, rows, st);
		if (!n)
			continue;
		err = emu_sframe_encode_fde(&enc, fde.func, (uint32_t)fde.size, rows, n);
		if (err == -EINVAL) {	/* overlapping functions, as a broken table has */
			st->refused++;
			left_out(st, &fde, fde.func, "overlaps the function before");
			err = 0;
			continue;
		}
		st->functions++;
		st->fres += n;
	}
	free(rows);
	if (!err && !st->functions)
		err = -ENOENT;
	if (err) {
		emu_sframe_encode_free(&enc);
		return err;
	}
	return emu_sframe_encode_finish(&enc, addr, out, len);
}

int emu_sframe_synth_register(struct emu_registry *r, uint64_t text_start, uint64_t text_end,
			      uint8_t *data, size_t len, struct emu_verdict *v)
{
	const struct emu_sframe_params p = {
		.sframe_addr = text_start, .text_start = text_start, .text_end = text_end,
		.arch = EMU_ARCH_X86_64, .profile = EMU_PROFILE_EMULATOR,
	};
	struct emu_registration *reg = calloc(1, sizeof(*reg));
	int err;

	if (!reg) {
		free(data);
		return emu_reject(v, EMU_R_NOMEM, "out of memory");
	}
	*reg = (struct emu_registration){
		.text_start = text_start, .text_end = text_end, .aspects = EMU_ASPECT_UNWIND,
		.option = CODE_REGISTER_SFRAME, .origin = EMU_ORIGIN_SYNTHESIZED,
		.unwind_kind = EMU_UNWIND_SFRAME,
	};
	err = emu_sframe_load(data, len, &p, &reg->sframe, v);
	if (!err)
		err = emu_registry_insert(r, reg, v);
	if (err)
		emu_registration_free(reg);
	return err;
}
