// SPDX-License-Identifier: GPL-2.0
/*
 * Real toolchain output: the shipped v1 (binutils 2.40), v2 (2.44) and v3
 * (2.47, with FLEX FDEs) programs and libraries. Our decoding of each .sframe
 * must give every row objdump --sframe printed for it (tests/vectors/README.md).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "elf_sframe.h"
#include "emu/emu.h"

static const char *regname(unsigned int reg)
{
	static const char *const names[] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "fp", "sp",
					     "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };

	return reg < 16 ? names[reg] : "?";
}

/* objdump's notation: sp+16, fp+16, r10+0, (fp-8) for a dereference. */
static void fmt_cfa(const struct emu_unwind_rule *r, char *out, size_t n)
{
	const char *base = r->cfa_base == EMU_CFA_SP ? "sp" :
			   r->cfa_base == EMU_CFA_FP ? "fp" : regname(r->cfa_reg);

	snprintf(out, n, r->cfa_deref ? "(%s%+lld)" : "%s%+lld", base, (long long)r->cfa_off);
}

static void fmt_loc(const struct emu_loc_rule *l, char *out, size_t n)
{
	switch (l->kind) {
	case EMU_LOC_SAME:
		snprintf(out, n, "u");
		break;
	case EMU_LOC_CFA_DEREF:
		snprintf(out, n, "c%+lld", (long long)l->off);
		break;
	case EMU_LOC_REG:
		snprintf(out, n, "%s%+lld", regname(l->reg), (long long)l->off);
		break;
	default:
		snprintf(out, n, "(%s%+lld)", regname(l->reg), (long long)l->off);
	}
}

struct dump_state {
	const struct emu_sframe_section *s;
	struct emu_sframe_fde fde;
	uint32_t fde_idx;
	uint32_t fre_idx;
	unsigned long rows;
	char where[600];
};

static void check_fde_line(struct dump_state *st, const char *line)
{
	unsigned int idx;
	unsigned long long pc, size;

	cr_assert_eq(sscanf(line, " func idx [%u]: pc = %llx, size = %llu", &idx, &pc, &size), 3,
		     "%s: %s", st->where, line);
	cr_assert_eq(emu_sframe_fde_at(st->s, idx, &st->fde), 0, "%s FDE %u", st->where, idx);
	cr_assert_eq(st->fde.func_start, pc, "%s FDE %u start", st->where, idx);
	cr_assert_eq(st->fde.func_size, size, "%s FDE %u size", st->where, idx);
	cr_assert_eq(st->fde.type == 1, strstr(line, "\"F\"") != NULL,
		     "%s FDE %u FLEX", st->where, idx);
	st->fde_idx = idx;
	st->fre_idx = 0;
}

static void check_row(struct dump_state *st, const char *line)
{
	char cfa[32], fp[32], ra[32], got[32];
	unsigned long long pc;
	struct emu_unwind_rule r;
	uint64_t ip;

	cr_assert_eq(sscanf(line, " %llx %31s %31s %31s", &pc, cfa, fp, ra), 4, "%s", line);
	ip = st->fde.pcmask ? st->fde.func_start + pc : pc;
	cr_assert_eq(emu_sframe_find_rule(st->s, ip, &r), 0, "%s FDE %u row %llx", st->where,
		     st->fde_idx, pc);
	fmt_cfa(&r, got, sizeof(got));
	cr_assert_str_eq(got, cfa, "%s FDE %u row %llx CFA", st->where, st->fde_idx, pc);
	fmt_loc(&r.fp, got, sizeof(got));
	cr_assert_str_eq(got, fp, "%s FDE %u row %llx FP", st->where, st->fde_idx, pc);
	/* u (2.40), f (fixed) and U (FLEX padding) all mean the header's RA offset */
	cr_assert(strchr("ufU", ra[0]) && !ra[1], "%s: RA column %s", st->where, ra);
	cr_assert_eq(r.ra.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.ra.off, -8);
	st->fre_idx++;
	st->rows++;
}

static unsigned long check_file(const char *dir, const char *dump)
{
	struct emu_sframe_params p = { .arch = EMU_ARCH_X86_64 };
	struct dump_state st = { 0 };
	struct elf_sframe es;
	struct emu_sframe_section *s = NULL;
	struct emu_verdict v;
	char path[600], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(strlen(dump) - strlen(".sframe.txt")), dump);
	snprintf(st.where, sizeof(st.where), "%s", path);
	cr_assert_eq(elf_sframe_read(path, &es), 0, "%s", path);
	p.sframe_addr = es.addr;
	p.text_start = es.text_start;
	p.text_end = es.text_end;
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load(es.data, es.len, &p, &s, &v), 0, "%s: %s", path, v.reason);
	st.s = s;
	snprintf(path, sizeof(path), "%s/%s", dir, dump);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "func idx ["))
			check_fde_line(&st, line);
		else if (strspn(line, " ") == 4 && strspn(line + 4, "0123456789abcdef") == 16)
			check_row(&st, line);
	}
	fclose(f);
	emu_sframe_put(s);
	return st.rows;
}

static void check_dir(const char *version, unsigned int want_version)
{
	char dir[400];
	struct dirent *e;
	unsigned long rows = 0, files = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", VECTOR_DIR, version);
	d = opendir(dir);
	cr_assert_not_null(d, "%s", dir);
	while ((e = readdir(d))) {
		const char *suffix = strstr(e->d_name, ".sframe.txt");

		if (!suffix || suffix[11])
			continue;
		rows += check_file(dir, e->d_name);
		files++;
	}
	closedir(d);
	(void)want_version;
	cr_assert_eq(files, 20, "%s: %lu dumps", dir, files);
	cr_assert_gt(rows, 300, "%s: only %lu rows compared", dir, rows);
}

Test(vectors, binutils_2_40_v1)
{
	check_dir("v1", 1);
}

Test(vectors, binutils_2_44_v2)
{
	check_dir("v2", 2);
}

Test(vectors, binutils_2_47_v3)
{
	check_dir("v3", 3);
}
