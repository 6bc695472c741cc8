// SPDX-License-Identifier: GPL-2.0
/* Findings said in words and in JSON. */
#include <string.h>

#include "insn.h"
#include "report.h"

/* "CFA = SP+16", "CFA = r10+0", "CFA = *(FP-8)" */
static void row_cfa(const struct emu_unwind_rule *r, char *b, size_t n)
{
	const char *base = r->cfa_base == EMU_CFA_SP ? "SP" :
			   r->cfa_base == EMU_CFA_FP ? "FP" : vreg_name(r->cfa_reg);

	snprintf(b, n, r->cfa_deref ? "CFA = *(%s%+lld)" : "CFA = %s%+lld", base,
		 (long long)r->cfa_off);
}

/* "RA at CFA-8", "FP unchanged", "RA in r10+0" */
static void row_loc(const char *what, const struct emu_loc_rule *l, char *b, size_t n)
{
	switch (l->kind) {
	case EMU_LOC_SAME:
		snprintf(b, n, "%s unchanged", what);
		break;
	case EMU_LOC_CFA_DEREF:
		snprintf(b, n, "%s at CFA%+lld", what, (long long)l->off);
		break;
	case EMU_LOC_REG:
		snprintf(b, n, "%s in %s%+lld", what, vreg_name(l->reg), (long long)l->off);
		break;
	default:
		snprintf(b, n, "%s at %s%+lld", what, vreg_name(l->reg), (long long)l->off);
	}
}

static void code_cfa(const struct verify_code *c, char *b, size_t n)
{
	if (c->sp_known && c->fp_known)
		snprintf(b, n, "CFA = SP%+d = FP%+d", c->sp_cfa, c->fp_cfa);
	else if (c->sp_known)
		snprintf(b, n, "CFA = SP%+d", c->sp_cfa);
	else if (c->fp_known)
		snprintf(b, n, "CFA = FP%+d (SP not at a fixed offset)", c->fp_cfa);
	else
		snprintf(b, n, "CFA not at a fixed offset from SP or FP");
}

static void code_fp(const struct verify_code *c, char *b, size_t n)
{
	if (c->fp_same && c->fp_saved)
		snprintf(b, n, "FP unchanged (and saved at CFA%+d)", c->fp_slot);
	else if (c->fp_same)
		snprintf(b, n, "FP unchanged");
	else if (c->fp_saved)
		snprintf(b, n, "FP at CFA%+d", c->fp_slot);
	else
		snprintf(b, n, "caller's FP neither in FP nor saved");
}

/* The column a mismatch is about: what the code says (@code) and the row (@row). */
static void columns(const struct verify_finding *fd, char *code, char *row, size_t n)
{
	switch (fd->kind) {
	case VERIFY_RA_MISMATCH:
		snprintf(code, n, "RA at CFA%+d", fd->code.ra_slot);
		row_loc("RA", &fd->row.ra, row, n);
		break;
	case VERIFY_FP_MISMATCH:
		code_fp(&fd->code, code, n);
		row_loc("FP", &fd->row.fp, row, n);
		break;
	default:
		code_cfa(&fd->code, code, n);
		row_cfa(&fd->row, row, n);
	}
}

static const char *dwarf_text(uint8_t d)
{
	switch (d) {
	case VERIFY_DWARF_CODE:
		return "code";
	case VERIFY_DWARF_ROW:
		return "sframe";
	case VERIFY_DWARF_NEITHER:
		return "neither";
	case VERIFY_DWARF_EXPR:
		return "expression";
	default:
		return "none";
	}
}

/*
 * Where @fd is: "func+0x5" (" (.sec)" outside .text); without a symbol
 * "fde#12 (0x1129)+0x5 (.text+0xee)", the offset in the FDE's function then
 * in the section; JIT code "[jit 0x7f..]+0x5"; without either ".sec+0xee".
 */
static void where(const struct verify_finding *fd, char *b, size_t n)
{
	unsigned long long off = fd->start - fd->func_start, sec_off = fd->start - fd->sec_start;

	if (fd->function[0]) {
		snprintf(b, n, "%s+%#llx", fd->function, off);
		if (fd->section[0] && strcmp(fd->section, ".text"))
			snprintf(b + strlen(b), n - strlen(b), " (%s)", fd->section);
	} else if (fd->jit) {
		snprintf(b, n, "[jit %#llx]+%#llx", (unsigned long long)fd->func_start, off);
	} else if (fd->have_fde) {
		snprintf(b, n, "fde#%u (%#llx)+%#llx", fd->fde, (unsigned long long)fd->func_start,
			 off);
		if (fd->section[0])
			snprintf(b + strlen(b), n - strlen(b), " (%s+%#llx)", fd->section, sec_off);
	} else if (fd->section[0]) {
		snprintf(b, n, "%s+%#llx", fd->section, sec_off);
	} else {
		snprintf(b, n, "?+%#llx", off);
	}
}

/* Ranges listed in an unknown finding's text at most (the JSON has them all). */
#define TEXT_RANGES 6

/*
 * "states that disagree meet at a control-flow merge (merge at 0x5: SP is
 * CFA-8 on one path, CFA-16 on the path from 0x4)"; for a function's
 * several ranges, "271 instructions in 91 ranges, the first: ...; ranges
 * 0x4238-0x4252 ... (+85 more)"
 */
static void unknown_text(const struct verify_finding *fd, char *b, size_t n)
{
	size_t len = 0;

#define ADD(...) (len += (size_t)snprintf(b + (len < n ? len : n), len < n ? n - len : 0, \
					  __VA_ARGS__))
	if (fd->nranges > 1)
		ADD("%u instructions in %u ranges, the first: ", fd->insns, fd->nranges);
	ADD("%s (%s at %#llx%s%s)", verify_why_text(fd->why), verify_why_name(fd->why),
	    (unsigned long long)fd->why_at, fd->cause ? ": " : "", fd->cause ? fd->cause : "");
	for (uint32_t i = 0; fd->nranges > 1 && i < fd->nranges && i < TEXT_RANGES; i++)
		ADD("%s%#llx-%#llx", i ? " " : "; ranges ", (unsigned long long)fd->range[i].start,
		    (unsigned long long)fd->range[i].end);
	if (fd->nranges > TEXT_RANGES)
		ADD(" (+%u more)", fd->nranges - TEXT_RANGES);
#undef ADD
}

static void what(const struct verify_finding *fd, char *b, size_t n)
{
	char code[96], row[96];

	if (fd->kind == VERIFY_UNKNOWN && !fd->detail) {
		unknown_text(fd, b, n);
		return;
	}
	if (fd->detail || !fd->have_row) {
		snprintf(b, n, "%s", fd->detail ? fd->detail : "");
		if (fd->kind == VERIFY_UNKNOWN)
			snprintf(b + strlen(b), n - strlen(b), " (%s)", verify_why_name(fd->why));
		return;
	}
	columns(fd, code, row, sizeof(code));
	if (fd->jit)
		snprintf(b, n, "the code says %s, the JIT entry [%#llx, %#llx) %s", code,
			 (unsigned long long)(fd->func_start + fd->fre_start),
			 (unsigned long long)fd->row.code_end, row);
	else
		snprintf(b, n, "the code says %s, the row (FRE at +%#x) %s", code, fd->fre_start,
			 row);
	if (fd->dwarf == VERIFY_DWARF_CODE || fd->dwarf == VERIFY_DWARF_ROW)
		snprintf(b + strlen(b), n - strlen(b), "; .eh_frame agrees with the %s",
			 fd->dwarf == VERIFY_DWARF_CODE ? "code" : "row");
	else if (fd->dwarf == VERIFY_DWARF_NEITHER)
		snprintf(b + strlen(b), n - strlen(b), "; .eh_frame agrees with neither");
	else if (fd->dwarf == VERIFY_DWARF_EXPR)
		snprintf(b + strlen(b), n - strlen(b), "; .eh_frame has a DWARF expression there");
}

void verify_finding_explain(const struct verify_finding *fd, char *buf, size_t size)
{
	what(fd, buf, size);
}

const char *verify_table_name(const struct verify_object_info *o, char *buf, size_t size)
{
	if (!o->version)
		snprintf(buf, size, "JIT tables");
	else
		snprintf(buf, size, "SFrame v%u", o->version);
	return buf;
}

void verify_finding_text(const struct verify_finding *fd, uint64_t bias, char *buf, size_t size)
{
	char at[160], text[800], file[40] = "";

	where(fd, at, sizeof(at));
	what(fd, text, sizeof(text));
	if (bias)
		snprintf(file, sizeof(file), " [file %#llx]", (unsigned long long)(fd->start - bias));
	snprintf(buf, size, "%#llx-%#llx%s %s %s: %s", (unsigned long long)fd->start,
		 (unsigned long long)fd->end, file, verify_kind_name(fd->kind), at, text);
}

void verify_summary_text(const struct verify_result *r, char *buf, size_t size)
{
	const struct verify_stats *st = &r->st;
	size_t n;

	n = (size_t)snprintf(buf, size, "%lu FDEs, %lu rows, %lu instructions: %lu decided, %lu "
			     "undecided (%.1f%% decided), %lu unreachable, %lu not checked; ",
			     st->fdes, st->rows, st->instructions, st->decided, st->undecided,
			     100.0 * verify_share_decided(st), st->unreachable, st->not_checked);
	if (!r->n && !r->dropped) {
		snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, "no findings");
		return;
	}
	for (unsigned int k = 0, first = 1; k < VERIFY_KIND_COUNT; k++) {
		if (!st->by_kind[k] || n >= size)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s %lu", first ? "" : ", ",
				      verify_kind_name(k), st->by_kind[k]);
		first = 0;
	}
}

void verify_print(FILE *f, const struct verify_object_info *o, const struct verify_result *r,
		  bool all)
{
	char line[1024], table[32];

	verify_summary_text(r, line, sizeof(line));
	fprintf(f, "%s: %s: %s\n", o->name, verify_table_name(o, table, sizeof(table)), line);
	for (size_t i = 0; i < r->n; i++) {
		if (!all && !verify_is_mismatch(r->f[i].kind))
			continue;
		verify_finding_text(&r->f[i], o->bias, line, sizeof(line));
		fprintf(f, "  %s\n", line);
	}
	if (r->dropped)
		fprintf(f, "  (%zu more findings not kept)\n", r->dropped);
}

/* A row's CFA, short: "SP+8", "r10+0", "*(FP-8)". */
static void dump_row_cfa(const struct emu_unwind_rule *r, char *b, size_t n)
{
	const char *base = r->cfa_base == EMU_CFA_SP ? "SP" :
			   r->cfa_base == EMU_CFA_FP ? "FP" : vreg_name(r->cfa_reg);

	snprintf(b, n, r->cfa_deref ? "*(%s%+lld)" : "%s%+lld", base, (long long)r->cfa_off);
}

/* A row's RA or FP place, short: "same", "[CFA-8]", "r10+0", "[r10+0]". */
static void dump_row_loc(const struct emu_loc_rule *l, char *b, size_t n)
{
	switch (l->kind) {
	case EMU_LOC_SAME:
		snprintf(b, n, "same");
		break;
	case EMU_LOC_CFA_DEREF:
		snprintf(b, n, "[CFA%+lld]", (long long)l->off);
		break;
	case EMU_LOC_REG:
		snprintf(b, n, "%s%+lld", vreg_name(l->reg), (long long)l->off);
		break;
	default:
		snprintf(b, n, "[%s%+lld]", vreg_name(l->reg), (long long)l->off);
	}
}

/*
 * What the code implies, short: CFA "SP+16=FP+16" ("unknown": at no fixed
 * offset), RA "[CFA-8]", FP "same=[CFA-16]" ("lost": in no register or slot).
 */
static void dump_code(const struct verify_code *c, char *cfa, char *ra, char *fp, size_t n)
{
	if (c->sp_known && c->fp_known)
		snprintf(cfa, n, "SP%+d=FP%+d", c->sp_cfa, c->fp_cfa);
	else if (c->sp_known || c->fp_known)
		snprintf(cfa, n, "%s%+d", c->sp_known ? "SP" : "FP",
			 c->sp_known ? c->sp_cfa : c->fp_cfa);
	else
		snprintf(cfa, n, "unknown");
	if (c->ra_slot)
		snprintf(ra, n, "[CFA%+d]", c->ra_slot);
	else
		snprintf(ra, n, "lost");
	if (c->fp_same && c->fp_saved)
		snprintf(fp, n, "same=[CFA%+d]", c->fp_slot);
	else if (c->fp_same || c->fp_saved)
		snprintf(fp, n, c->fp_same ? "same" : "[CFA%+d]", c->fp_slot);
	else
		snprintf(fp, n, "lost");
}

/* "ok", "cfa-mismatch", "unknown: merge", "unreached", "not checked"; then later ones. */
static void dump_verdict(const struct verify_row *w, char *b, size_t n)
{
	if (w->verdict == VERIFY_ROW_MATCH)
		snprintf(b, n, "ok");
	else if (w->verdict == VERIFY_ROW_UNREACHED)
		snprintf(b, n, "unreached");
	else if (w->verdict == VERIFY_ROW_NOT_CHECKED)
		snprintf(b, n, "not checked");
	else if (w->verdict == VERIFY_UNKNOWN)
		snprintf(b, n, "? %s", verify_why_name(w->why));
	else
		snprintf(b, n, "%s", verify_kind_name(w->verdict));
	if (w->later)
		snprintf(b + strlen(b), n - strlen(b), "; %u later", w->later);
}

static char col_mark(uint8_t col)
{
	return col == VERIFY_COL_DIFFERS ? '!' : col == VERIFY_COL_UNDECIDED ? '?' : ' ';
}

/* The row's line mark: '!' it or an instruction after differs, '?' undecided. */
static char row_mark(const struct verify_row *w)
{
	if (verify_is_mismatch(w->verdict) || w->later)
		return '!';
	return w->verdict == VERIFY_UNKNOWN ? '?' : ' ';
}

/* A dump's columns: mark, offset, the row's CFA RA FP | the code's (each marked), verdict. */
#define DUMP_FMT "%c %-6s %-8s %-8s %-8s | %c%-12s%c%-9s%c%-13s %s\n"

static void dump_line(FILE *f, const struct verify_row *w)
{
	char off[24], rc[24] = "-", rr[24] = "-", rf[24] = "-", cc[24] = "-", cr[24] = "-",
	     cf[24] = "-", v[48];

	snprintf(off, sizeof(off), "+0x%llx", (unsigned long long)(w->start - w->func_start));
	if (w->have_row) {
		dump_row_cfa(&w->row, rc, sizeof(rc));
		dump_row_loc(&w->row.ra, rr, sizeof(rr));
		dump_row_loc(&w->row.fp, rf, sizeof(rf));
	}
	if (w->have_code)
		dump_code(&w->code, cc, cr, cf, sizeof(cc));
	dump_verdict(w, v, sizeof(v));
	fprintf(f, DUMP_FMT, row_mark(w), off, rc, rr, rf, w->have_code ? col_mark(w->cfa) : ' ',
		cc, w->have_code ? col_mark(w->ra) : ' ', cr, w->have_code ? col_mark(w->fp) : ' ',
		cf, v);
}

void verify_dump(FILE *f, const struct verify_object_info *o, const struct verify_result *r)
{
	const struct verify_row *w;

	fprintf(f, "%s: each row beside the code at its first instruction\n", o->name);
	fprintf(f, DUMP_FMT, ' ', "at", "row CFA", "RA", "FP", ' ', "code CFA", ' ', "RA", ' ',
		"FP", "verdict");
	for (size_t i = 0; i < r->nrows; i++) {
		w = &r->rows[i];
		if (!i || w->fde != r->rows[i - 1].fde) {
			fprintf(f, "fde#%u %s%s%#llx, %#llx bytes, %u row%s\n", w->fde,
				w->name ? w->name : "", w->name ? " at " : "",
				(unsigned long long)w->func_start,
				(unsigned long long)w->func_size, w->num_fres,
				w->num_fres == 1 ? "" : "s");
		}
		dump_line(f, w);
	}
	if (r->rows_dropped)
		fprintf(f, "  (%zu more rows not kept)\n", r->rows_dropped);
}

static json_t *hex(uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%#llx", (unsigned long long)v);
	return json_string(b);
}

/* An unknown finding's ranges: [{start, end, why, why_at}]. */
static json_t *ranges_json(const struct verify_finding *fd)
{
	json_t *a = json_array();

	for (uint32_t i = 0; a && i < fd->nranges; i++)
		json_array_append_new(a, json_pack("{s:o,s:o,s:s,s:o}", "start",
						   hex(fd->range[i].start), "end",
						   hex(fd->range[i].end), "why",
						   verify_why_name(fd->range[i].why), "why_at",
						   hex(fd->range[i].why_at)));
	return a;
}

static json_t *finding_json(const struct verify_finding *fd, uint64_t bias)
{
	char code[96], row[96], text[800];
	json_t *o = json_pack("{s:s,s:o,s:o,s:s,s:o,s:s}", "kind", verify_kind_name(fd->kind),
			      "start", hex(fd->start), "end", hex(fd->end), "function", fd->function,
			      "offset", hex(fd->start - fd->func_start), "section", fd->section);

	if (!o)
		return NULL;
	if (bias)
		json_object_set_new(o, "file_start", hex(fd->start - bias));
	if (fd->section[0])
		json_object_set_new(o, "section_offset", hex(fd->start - fd->sec_start));
	if (fd->have_fde)
		json_object_set_new(o, "fde", json_integer(fd->fde));
	if (fd->have_row && verify_is_mismatch(fd->kind) && !fd->detail) {
		columns(fd, code, row, sizeof(code));
		json_object_set_new(o, "code", json_string(code));
		json_object_set_new(o, "row", json_string(row));
		json_object_set_new(o, "fre_start", hex(fd->fre_start));
		json_object_set_new(o, "dwarf", json_string(dwarf_text(fd->dwarf)));
	}
	if (fd->kind == VERIFY_UNKNOWN) {
		json_object_set_new(o, "why", json_string(verify_why_name(fd->why)));
		json_object_set_new(o, "why_at", hex(fd->why_at));
		if (fd->cause)
			json_object_set_new(o, "cause", json_string(fd->cause));
	}
	if (fd->nranges) {
		json_object_set_new(o, "instructions", json_integer(fd->insns));
		json_object_set_new(o, "ranges", ranges_json(fd));
	}
	what(fd, text, sizeof(text));
	json_object_set_new(o, "text", json_string(text));
	return o;
}

json_t *verify_counts_json(const struct verify_stats *st)
{
	json_t *k = json_object();

	for (unsigned int i = 0; k && i < VERIFY_KIND_COUNT; i++)
		json_object_set_new(k, verify_kind_name(i), json_integer((json_int_t)st->by_kind[i]));
	return k;
}

json_t *verify_result_json(const struct verify_object_info *o, const struct verify_result *r)
{
	const struct verify_stats *st = &r->st;
	json_t *a = json_array(), *j;

	for (size_t i = 0; a && i < r->n; i++)
		json_array_append_new(a, finding_json(&r->f[i], o->bias));
	j = json_pack("{s:s,s:{s:i,s:I,s:I},s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:o,s:I,s:I,s:o}",
		      "file", o->name, "sframe", "version", (int)o->version, "fdes",
		      (json_int_t)o->fdes, "fres", (json_int_t)o->fres,
		      "fdes_checked", (json_int_t)st->fdes, "rows", (json_int_t)st->rows,
		      "instructions", (json_int_t)st->instructions,
		      "decided", (json_int_t)st->decided, "undecided", (json_int_t)st->undecided,
		      "unreachable", (json_int_t)st->unreachable,
		      "not_checked", (json_int_t)st->not_checked,
		      "share_decided", verify_share_decided(st),
		      "findings_by_kind", verify_counts_json(st),
		      "mismatches", (json_int_t)verify_mismatches(st),
		      "findings_dropped", (json_int_t)r->dropped, "findings", a ? a : json_array());
	if (j && o->bias)
		json_object_set_new(j, "bias", hex(o->bias));
	if (j && !o->version) {		/* a JIT registration's tables: no SFrame header */
		json_object_del(j, "sframe");
		json_object_set_new(j, "jit", json_pack("{s:I}", "entries", (json_int_t)o->fres));
	}
	return j;
}
