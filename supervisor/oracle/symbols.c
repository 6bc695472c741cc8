// SPDX-License-Identifier: GPL-2.0
/* Names of a traced process's addresses: symbols, perf map, objects, source lines. */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"

struct sym_entry {
	uint64_t key;	/* address << 1 | caller */
	char *text;
	bool provisional;	/* no function found: ask the perf map again */
};

static int cmp_sym(const void *a, const void *b)
{
	uint64_t x = ((const struct sym_entry *)a)->key, y = ((const struct sym_entry *)b)->key;

	return (x > y) - (x < y);
}

static void free_sym(void *node)
{
	struct sym_entry *e = node;

	free(e->text);
	free(e);
}

void symbols_init(struct symbols *s, pid_t pid)
{
	*s = (struct symbols){ 0 };
	modules_init(&s->mods, pid);
	perf_map_init(&s->perf, pid, NULL);
}

void symbols_free(struct symbols *s)
{
	modules_free(&s->mods);
	tdestroy(s->cache, free_sym);
	perf_map_free(&s->perf);
	*s = (struct symbols){ 0 };
}

void symbols_new_sample(struct symbols *s, uint64_t taken_ns)
{
	modules_new_sample(&s->mods, taken_ns);
	perf_map_new_sample(&s->perf);
}

void symbols_invalidate(struct symbols *s)
{
	modules_invalidate(&s->mods);
	tdestroy(s->cache, free_sym);
	s->cache = NULL;
}

const char *symbols_object(struct symbols *s, uint64_t ip)
{
	Dwfl_Module *mod = modules_at(&s->mods, ip);

	return mod ? modules_name(mod) : NULL;
}

const char *symbols_object_path(struct symbols *s, uint64_t ip)
{
	Dwfl_Module *mod = modules_at(&s->mods, ip);

	return mod ? modules_path(mod) : NULL;
}

const char *symbols_object_label(struct symbols *s, uint64_t ip)
{
	Dwfl_Module *mod = modules_at(&s->mods, ip);

	if (!mod)
		return NULL;
	return modules_name_shared(&s->mods, mod) ? modules_path(mod) : modules_name(mod);
}

int symbols_function(void *arg, uint64_t addr, uint64_t *start, uint64_t *end)
{
	struct symbols *s = arg;
	Dwfl_Module *mod = modules_at(&s->mods, addr);
	GElf_Off off = 0;
	GElf_Sym sym;

	if (mod && dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL) &&
	    GELF_ST_TYPE(sym.st_info) == STT_FUNC && off < sym.st_size) {
		*start = addr - off;
		*end = *start + sym.st_size;
		return 0;
	}
	return perf_map_function(&s->perf, addr, start, end) ? 0 : -ENOENT;
}

const char *symbols_function_name(void *arg, uint64_t addr)
{
	struct symbols *s = arg;
	Dwfl_Module *mod = modules_at(&s->mods, addr);
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = mod ? dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL) :
			   NULL;

	return name && !off && GELF_ST_TYPE(sym.st_info) == STT_FUNC ? name : NULL;
}

/* The unwind sections of the module holding @ip: sizes, and whether .sframe is there. */
struct unwind_sections {
	bool has_sframe;
	uint64_t sframe, eh_frame_hdr, eh_frame;
};

static int unwind_sections(struct symbols *s, uint64_t ip, struct unwind_sections *u)
{
	Dwfl_Module *mod = modules_at(&s->mods, ip);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Addr bias;
	size_t strndx;
	const char *name;

	*u = (struct unwind_sections){ 0 };
	elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	if (!elf || elf_getshdrstrndx(elf, &strndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, strndx, sh.sh_name) : NULL;
		if (!name)
			continue;
		if (!strcmp(name, ".sframe")) {
			u->has_sframe = true;
			u->sframe = sh.sh_size;
		} else if (!strcmp(name, ".eh_frame_hdr")) {
			u->eh_frame_hdr = sh.sh_size;
		} else if (!strcmp(name, ".eh_frame")) {
			u->eh_frame = sh.sh_size;
		}
	}
	return 0;
}

int symbols_has_sframe(struct symbols *s, uint64_t ip)
{
	struct unwind_sections u;
	int err = unwind_sections(s, ip, &u);

	return err ? err : u.has_sframe;
}

int symbols_table_bytes(struct symbols *s, uint64_t ip, uint64_t *sframe, uint64_t *eh_frame_hdr,
			uint64_t *eh_frame)
{
	struct unwind_sections u;
	int err = unwind_sections(s, ip, &u);

	*sframe = u.sframe;
	*eh_frame_hdr = u.eh_frame_hdr;
	*eh_frame = u.eh_frame;
	return err;
}

struct find_object {
	const char *name;
	const char *path;
	uint64_t addr;
};

static int find_object_in(Dwfl_Module *mod, void **userdata, const char *mname, Dwarf_Addr base,
			  void *arg)
{
	struct find_object *f = arg;
	const char *name;
	GElf_Addr addr;
	GElf_Sym sym;
	int n;

	(void)userdata, (void)mname, (void)base;
	if (f->path && (!modules_path(mod) || strcmp(modules_path(mod), f->path)))
		return DWARF_CB_OK;
	n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n; i++) {
		name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		if (name && GELF_ST_TYPE(sym.st_info) == STT_OBJECT && sym.st_shndx != SHN_UNDEF &&
		    !strcmp(name, f->name)) {
			f->addr = addr;
			return DWARF_CB_ABORT;
		}
	}
	return f->path ? DWARF_CB_ABORT : DWARF_CB_OK;	/* the one module was read */
}

int symbols_object_address(struct symbols *s, const char *name, const char *path, uint64_t *addr)
{
	struct find_object f = { .name = name, .path = path };
	Dwfl *dwfl = modules_dwfl(&s->mods);

	if (!dwfl)
		return -ENOENT;
	dwfl_getmodules(dwfl, find_object_in, &f, 0);
	*addr = f.addr;
	return f.addr ? 0 : -ENOENT;
}

/* "name+0xOFF" for @ip from the perf map (looked up at @at), or NULL. */
static char *perf_symbol(struct symbols *d, uint64_t ip, uint64_t at)
{
	uint64_t start = 0;
	const char *name = perf_map_lookup(&d->perf, at, &start);
	char *out = NULL;

	if (!name)
		return NULL;
	return asprintf(&out, "%s+0x%llx", name, (unsigned long long)(ip - start)) < 0 ? NULL : out;
}

/* Without a function for @ip: "[object+0xOFF]" ("[vdso+0xOFF]") or "0xADDR". */
static char *describe_place(Dwfl_Module *mod, uint64_t ip)
{
	const char *name;
	Dwarf_Addr base = 0;
	size_t n;
	char *out = NULL;

	if (!mod)
		return asprintf(&out, "0x%llx", (unsigned long long)ip) < 0 ? NULL : out;
	dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
	name = modules_name(mod);
	if (!name)
		name = "?";
	n = strlen(name);
	if (name[0] == '[' && n > 1 && name[n - 1] == ']') {	/* "[vdso]": its name inside */
		name++;
		n -= 2;
	}
	if (asprintf(&out, "[%.*s+0x%llx]", (int)n, name, (unsigned long long)(ip - base)) < 0)
		return NULL;
	return out;
}

/* The text for @ip; *@provisional when it names no function (yet). */
static char *describe(struct symbols *d, uint64_t ip, bool caller, bool *provisional)
{
	uint64_t at = caller && ip ? ip - 1 : ip;
	Dwfl_Module *mod = modules_at(&d->mods, at);
	const char *name = NULL;
	GElf_Off off = 0;
	GElf_Sym sym;
	char *out = NULL;

	*provisional = false;
	if (mod)
		name = dwfl_module_addrinfo(mod, at, &off, &sym, NULL, NULL, NULL);
	if (name)
		return asprintf(&out, "%s+0x%llx", name, (unsigned long long)(off + ip - at)) < 0 ?
		       NULL : out;
	out = perf_symbol(d, ip, at);
	if (out)
		return out;
	*provisional = true;
	return describe_place(mod, ip);
}

const char *symbols_name(struct symbols *d, uint64_t ip, bool caller)
{
	struct sym_entry key = { .key = ip << 1 | caller }, *e, **slot;
	char *text;

	slot = tfind(&key, &d->cache, cmp_sym);
	if (slot && (*slot)->provisional) {
		e = *slot;
		text = perf_symbol(d, ip, caller && ip ? ip - 1 : ip);
		if (text) {
			free(e->text);
			e->text = text;
			e->provisional = false;
		}
	}
	if (slot)
		return (*slot)->text;
	e = calloc(1, sizeof(*e));
	if (!e)
		return "?";
	e->key = key.key;
	e->text = describe(d, ip, caller, &e->provisional);
	if (!e->text || !tsearch(e, &d->cache, cmp_sym)) {
		free_sym(e);
		return "?";
	}
	return e->text;
}

/* The module's file (its path) and lowest address. */
static const char *module_file(Dwfl_Module *mod, Dwarf_Addr *start)
{
	const char *name = dwfl_module_info(mod, NULL, start, NULL, NULL, NULL, NULL, NULL);

	return name && name[0] == '/' ? name : NULL;
}

/*
 * Line tables are read once per file, not once per process: the first
 * process that asks about a file provides its lines to all the others, at
 * the same offset from the module's start.
 */
static struct source_provider *provider_of(struct source_lines *c, struct symbols *d,
					   const char *file, Dwarf_Addr start)
{
	struct source_provider *p;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].file, file))
			return &c->v[i];
	if (c->n == SOURCE_PROVIDERS)
		return NULL;
	p = &c->v[c->n];
	p->file = strdup(file);
	if (!p->file)
		return NULL;
	p->mods = &d->mods;
	p->start = start;
	p->owned = false;
	c->n++;
	return p;
}

void source_lines_free(struct source_lines *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].file);
		if (!c->v[i].owned)
			continue;
		/* one kept modules may provide several files: free it once */
		for (size_t j = i + 1; j < c->n; j++)
			if (c->v[j].mods == c->v[i].mods)
				c->v[j].owned = false;
		modules_free(c->v[i].mods);
		free(c->v[i].mods);
	}
	c->n = 0;
}

void source_lines_adopt(struct source_lines *c, struct symbols *s)
{
	struct modules *kept = NULL;
	size_t i;

	for (i = 0; i < c->n && c->v[i].mods != &s->mods; i++)
		;
	if (i == c->n)
		return;	/* it provides nothing */
	kept = malloc(sizeof(*kept));
	if (kept) {
		*kept = s->mods;
		modules_init(&s->mods, s->mods.pid);
	}
	for (; i < c->n; i++) {
		if (c->v[i].mods != &s->mods)
			continue;
		c->v[i].mods = kept;	/* NULL when out of memory: no lines from it */
		c->v[i].owned = kept != NULL;
	}
}

int symbols_source(struct source_lines *c, struct symbols *d, uint64_t ip, bool caller,
		   char *buf, size_t size)
{
	uint64_t at = caller && ip ? ip - 1 : ip;
	Dwfl_Module *mod = modules_at(&d->mods, at);
	const char *file = NULL, *slash, *path;
	struct source_provider *p;
	Dwarf_Addr start = 0;
	Dwfl_Line *line;
	int lineno = 0;

	path = mod ? module_file(mod, &start) : NULL;
	p = path ? provider_of(c, d, path, start) : NULL;
	if (p && p->mods != &d->mods) {
		at = p->start + (at - start);
		mod = p->mods ? modules_at(p->mods, at) : NULL;
	}
	line = mod ? dwfl_module_getsrc(mod, at) : NULL;
	if (line)
		file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!file)
		return -ENOENT;
	slash = strrchr(file, '/');
	snprintf(buf, size, "%s:%d", slash ? slash + 1 : file, lineno);
	return 0;
}
