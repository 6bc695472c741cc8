// SPDX-License-Identifier: GPL-2.0
/* codectl-run --verify: registered sections checked once per object, results kept for the end. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elf_file.h"
#include "supervisor/core/as_tracee.h"
#include "report.h"
#include "session.h"

#define LOG_FINDINGS 20		/* mismatches logged per object; the rest are counted */

/**
 * struct vs_object - one object's segment, checked once
 * @key: its identity; @name: its path, or "[text 0x...]"
 * @text_start: where its text was in the process checked (findings are at
 *	that process's addresses)
 * @err: why it could not be checked ("" when it was)
 * @ms: how long the check took
 * @fn, @nfn: a JIT registration's functions checked so far, [start, end) each
 */
struct vs_object {
	char key[160];
	char *name;
	pid_t pid;
	uint64_t text_start;
	struct verify_object_info info;
	struct verify_result r;
	char err[160];
	double ms;
	struct vs_range {
		uint64_t start, end;
	} *fn;
	size_t nfn;
};

/** struct vs_instance - where a process has a checked object's text */
struct vs_instance {
	pid_t pid;
	uint64_t start;
	uint64_t end;
	size_t obj;
};

struct verify_session {
	struct log *log;
	struct vs_object *obj;
	size_t nobj;
	struct vs_instance *inst;
	size_t ninst;
};

struct verify_session *verify_session_new(struct log *log)
{
	struct verify_session *v = calloc(1, sizeof(*v));

	if (v)
		v->log = log;
	return v;
}

void verify_session_free(struct verify_session *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nobj; i++) {
		verify_result_free(&v->obj[i].r);
		free(v->obj[i].name);
		free(v->obj[i].fn);
	}
	free(v->obj);
	free(v->inst);
	free(v);
}

/** struct vs_mapping - the /proc/PID/maps line holding an address */
struct vs_mapping {
	uint64_t offset;
	unsigned long long inode;
	char dev[16];
	char path[4096];
};

static int find_mapping(pid_t pid, uint64_t addr, struct vs_mapping *m)
{
	char file[64], line[4200];
	unsigned long long lo, hi, off;
	int pos, err = -ENOENT;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx %15s %llu %n", &lo, &hi, &off, m->dev, &m->inode,
			   &pos) < 5 || addr < lo || addr >= hi)
			continue;
		m->offset = off + (addr - lo);
		snprintf(m->path, sizeof(m->path), "%s", line + pos);
		m->path[strcspn(m->path, "\n")] = '\0';
		err = 0;
	}
	fclose(f);
	return err;
}

/* The identity of @reg's object and segment: build id, else device and inode; and its name. */
static void identify(pid_t pid, const struct emu_registration *reg, char *key, size_t n,
		     char *name, size_t nn)
{
	struct vs_mapping m = { .path = "" };
	bool mapped = !find_mapping(pid, reg->text_start, &m) && m.inode;
	size_t k = 0;

	if (reg->ident.build_id_len) {
		k = (size_t)snprintf(key, n, "build-id:");
		for (uint32_t i = 0; i < reg->ident.build_id_len && k + 2 < n; i++)
			k += (size_t)snprintf(key + k, n - k, "%02x", reg->ident.build_id[i]);
	} else if (mapped) {
		k = (size_t)snprintf(key, n, "file:%s:%llu", m.dev, m.inode);
	} else {
		k = (size_t)snprintf(key, n, "anon:%d:%#" PRIx64, (int)pid, reg->text_start);
	}
	if (k < n)
		snprintf(key + k, n - k, ":%#" PRIx64 ":%#" PRIx64, mapped ? m.offset : 0,
			 reg->text_end - reg->text_start);
	if (reg->ident.pathname)
		snprintf(name, nn, "%s", reg->ident.pathname);
	else if (mapped && m.path[0] == '/')
		snprintf(name, nn, "%s", m.path);
	else
		snprintf(name, nn, "[text %#" PRIx64 "]", reg->text_start);
}

static long find_object(const struct verify_session *v, const char *key)
{
	for (size_t i = 0; i < v->nobj; i++)
		if (!strcmp(v->obj[i].key, key))
			return (long)i;
	return -1;
}

static int add_instance(struct verify_session *v, pid_t pid, const struct emu_registration *reg,
			size_t obj)
{
	struct vs_instance *n = realloc(v->inst, (v->ninst + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	v->inst = n;
	n[v->ninst++] = (struct vs_instance){ .pid = pid, .start = reg->text_start,
					       .end = reg->text_end, .obj = obj };
	return 0;
}

/*
 * The object's file, for symbols and .eh_frame, when it is the one
 * registered. Its path is the tracee's to choose (codectl's pathname, its
 * mappings): opened as the tracee could open it (codectl-run(1), SECURITY).
 */
static bool open_file(struct verify_elf *e, pid_t pid, const char *name,
		      const struct emu_registration *reg)
{
	struct as_tracee_id who;
	char err[256];
	int fd;

	if (name[0] != '/')
		return false;
	as_tracee_id_init(&who, pid);
	fd = as_tracee_open(&who, name);
	as_tracee_id_free(&who);
	if (fd < 0 || verify_elf_open_fd(fd, e, err, sizeof(err)))
		return false;
	if ((reg->ident.build_id_len && (reg->ident.build_id_len != e->build_id_len ||
					 memcmp(reg->ident.build_id, e->build_id, e->build_id_len))) ||
	    !e->sframe_addr || verify_elf_rebase(e, reg->sframe_start - e->sframe_addr)) {
		verify_elf_close(e);
		return false;
	}
	return true;
}

static void log_object(struct verify_session *v, const struct vs_object *o)
{
	char line[1024], table[32];
	size_t shown = 0;

	if (o->err[0]) {
		log_note(v->log, "verify: %s (pid %d): not checked: %s", o->name, (int)o->pid, o->err);
		return;
	}
	verify_summary_text(&o->r, line, sizeof(line));
	log_note(v->log, "verify: %s (pid %d, %.0f ms): %s: %s", o->name, (int)o->pid, o->ms,
		 verify_table_name(&o->info, table, sizeof(table)), line);
	for (size_t i = 0; i < o->r.n; i++) {
		if (!verify_is_mismatch(o->r.f[i].kind) || shown++ >= LOG_FINDINGS)
			continue;
		verify_finding_text(&o->r.f[i], o->info.bias, line, sizeof(line));
		log_note(v->log, "verify:   %s", line);
	}
	if (shown > LOG_FINDINGS)
		log_note(v->log, "verify:   ... and %zu more (see --json)", shown - LOG_FINDINGS);
}

static void check(struct vs_object *o, const struct emu_registration *reg,
		  const struct emu_accessor *mem)
{
	struct emu_mappings text = { 0 };
	struct verify_elf e;
	bool file = open_file(&e, o->pid, o->name, reg);
	struct verify_target t = { .sframe = reg->sframe, .mem = mem, .text = &text,
				   .syms = file ? &e.syms : NULL, .dwarf = file ? verify_elf_dwarf : NULL,
				   .dwarf_ctx = &e, .bias = file ? e.bias : 0 };
	const struct emu_sframe_hdr *h = emu_sframe_header(reg->sframe);
	int err = emu_mappings_add(&text, reg->text_start, reg->text_end, EMU_PROT_EXEC);

	o->info = (struct verify_object_info){ .name = o->name, .version = h->version,
					       .fdes = h->num_fdes, .fres = h->num_fres,
					       .bias = file ? e.bias : 0 };
	if (!err)
		err = verify_run(&t, &o->r);
	if (err)
		snprintf(o->err, sizeof(o->err), "%s", strerror(-err));
	emu_mappings_free(&text);
	if (file)
		verify_elf_close(&e);
}

/*
 * A new object @key named @name, where process @pid has its text at
 * [@start, @end), at the end of @v->obj (not counted in @v->nobj yet);
 * NULL on ENOMEM (logged).
 */
static struct vs_object *new_object(struct verify_session *v, pid_t pid, const char *key,
				    const char *name, uint64_t start, uint64_t end)
{
	struct vs_object *n = realloc(v->obj, (v->nobj + 1) * sizeof(*n));
	struct vs_instance *in = realloc(v->inst, (v->ninst + 1) * sizeof(*in));

	if (n)
		v->obj = n;
	if (in)
		v->inst = in;
	if (!n || !in)
		goto nomem;
	n = &v->obj[v->nobj];
	*n = (struct vs_object){ .name = strdup(name), .pid = pid, .text_start = start };
	if (!n->name)
		goto nomem;
	snprintf(n->key, sizeof(n->key), "%s", key);
	v->inst[v->ninst++] = (struct vs_instance){ .pid = pid, .start = start, .end = end,
						     .obj = v->nobj };
	return n;
nomem:
	log_line(v->log, "verify: %s: out of memory", name);
	return NULL;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

void verify_session_check(struct verify_session *v, pid_t pid, const struct emu_registration *reg,
			  const struct emu_accessor *mem)
{
	char key[160], name[4096];
	struct timespec t0;
	struct vs_object *n;
	long i;

	if (!reg || reg->unwind_kind != EMU_UNWIND_SFRAME || !reg->sframe)
		return;
	identify(pid, reg, key, sizeof(key), name, sizeof(name));
	i = find_object(v, key);
	if (i >= 0) {
		add_instance(v, pid, reg, (size_t)i);
		return;
	}
	n = new_object(v, pid, key, name, reg->text_start, reg->text_end);
	if (!n)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	check(n, reg, mem);
	n->ms = ms_since(&t0);
	v->nobj++;
	log_object(v, n);
}

static void jit_key(char *key, size_t n, pid_t pid, uint64_t text_start)
{
	snprintf(key, n, "jit:%d:%#" PRIx64, (int)pid, text_start);
}

/* The function of @o (a JIT registration's object) holding @ip, or NULL. */
static const struct vs_range *jit_function_at(const struct vs_object *o, uint64_t ip)
{
	for (size_t i = 0; i < o->nfn; i++)
		if (ip >= o->fn[i].start && ip < o->fn[i].end)
			return &o->fn[i];
	return NULL;
}

bool verify_session_jit_checked(const struct verify_session *v, pid_t pid, uint64_t text_start,
				uint64_t ip)
{
	char key[160];
	long i;

	jit_key(key, sizeof(key), pid, text_start);
	i = find_object(v, key);
	return i >= 0 && jit_function_at(&v->obj[i], ip);
}

/* @j's object in @v, made when new; NULL on ENOMEM. */
static struct vs_object *jit_object(struct verify_session *v, pid_t pid, const struct verify_jit *j)
{
	char key[160], name[64];
	struct vs_object *o;
	long i;

	jit_key(key, sizeof(key), pid, j->text_start);
	i = find_object(v, key);
	if (i >= 0)
		return &v->obj[i];
	snprintf(name, sizeof(name), "[jit %#" PRIx64 "-%#" PRIx64 "]", j->text_start,
		 j->text_end);
	o = new_object(v, pid, key, name, j->text_start, j->text_end);
	if (o) {
		o->info = (struct verify_object_info){ .name = o->name };
		v->nobj++;
	}
	return o;
}

/* Is @f a mismatch in [@start, @end)? */
static bool mismatch_in(const struct verify_finding *f, uint64_t start, uint64_t end)
{
	return verify_is_mismatch(f->kind) && f->start >= start && f->start < end;
}

/* Log what the check of [@start, @end) found, when it found a mismatch (JIT functions are many). */
static void log_jit_function(struct verify_session *v, const struct vs_object *o, uint64_t start,
			     uint64_t end, const char *name, double ms)
{
	char line[1024];
	size_t i = 0;

	while (i < o->r.n && !mismatch_in(&o->r.f[i], start, end))
		i++;
	if (i == o->r.n)
		return;
	log_note(v->log, "verify: %s %s [%#" PRIx64 ", %#" PRIx64 ") (pid %d, %.1f ms): JIT "
		 "entries checked", o->name, name ? name : "function", start, end, (int)o->pid, ms);
	for (; i < o->r.n; i++) {
		if (!mismatch_in(&o->r.f[i], start, end))
			continue;
		verify_finding_text(&o->r.f[i], 0, line, sizeof(line));
		log_note(v->log, "verify:   %s", line);
	}
}

void verify_session_check_jit(struct verify_session *v, pid_t pid, const struct verify_jit *j,
			      uint64_t start, uint64_t end, const char *name)
{
	struct vs_object *o = jit_object(v, pid, j);
	struct vs_range *fn;
	struct timespec t0;
	double ms;
	int err;

	if (!o || jit_function_at(o, start))
		return;
	fn = realloc(o->fn, (o->nfn + 1) * sizeof(*fn));
	if (!fn) {
		log_line(v->log, "verify: %s: out of memory", o->name);
		return;
	}
	o->fn = fn;
	o->fn[o->nfn++] = (struct vs_range){ start, end };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = verify_jit_check(j, start, end, name, &o->r);
	ms = ms_since(&t0);
	o->ms += ms;
	o->info.fres = o->r.st.rows;
	if (err)
		log_line(v->log, "verify: %s [%#" PRIx64 ", %#" PRIx64 "): not checked: %s",
			 o->name, start, end, strerror(-err));
	else
		log_jit_function(v, o, start, end, name, ms);
}

void verify_session_summary(const struct verify_session *v, FILE *f)
{
	unsigned long mism = 0, unknown = 0, failed = 0;

	for (size_t i = 0; i < v->nobj; i++) {
		mism += verify_mismatches(&v->obj[i].r.st);
		unknown += v->obj[i].r.st.by_kind[VERIFY_UNKNOWN];
		failed += v->obj[i].err[0] != 0;
	}
	fprintf(f, "codectl-run: verify: %zu object%s checked, %lu finding%s (%lu unknown)%s\n",
		v->nobj - failed, v->nobj - failed == 1 ? "" : "s", mism, mism == 1 ? "" : "s",
		unknown, failed ? ", some not checked (see the log)" : "");
	for (size_t i = 0; i < v->nobj; i++) {
		char line[1024];

		if (!verify_mismatches(&v->obj[i].r.st))
			continue;
		verify_summary_text(&v->obj[i].r, line, sizeof(line));
		fprintf(f, "  %s: %s\n", v->obj[i].name, line);
	}
}

json_t *verify_session_json(const struct verify_session *v)
{
	json_t *a = json_array(), *o;

	for (size_t i = 0; a && i < v->nobj; i++) {
		const struct vs_object *ob = &v->obj[i];

		if (ob->err[0])
			o = json_pack("{s:s,s:s}", "file", ob->name, "error", ob->err);
		else
			o = verify_result_json(&ob->info, &ob->r);
		if (o) {
			json_object_set_new(o, "pid", json_integer(ob->pid));
			json_object_set_new(o, "check_ms", json_real(ob->ms));
			json_object_set_new(o, "identity", json_string(ob->key));
		}
		json_array_append_new(a, o);
	}
	return a;
}

static const struct verify_finding *finding_at(const struct verify_result *r, uint64_t addr)
{
	for (size_t i = 0; i < r->n; i++)
		if (verify_is_mismatch(r->f[i].kind) && addr >= r->f[i].start && addr < r->f[i].end)
			return &r->f[i];
	return NULL;
}

const struct verify_finding *verify_session_find(const struct verify_session *v, pid_t pid,
						 uint64_t addr, const char **object, uint64_t *at)
{
	for (size_t i = v->ninst; i-- > 0;) {
		const struct vs_instance *in = &v->inst[i];
		const struct vs_object *o = &v->obj[in->obj];
		const struct verify_finding *fd;

		if (in->pid != pid || addr < in->start || addr >= in->end || in->obj >= v->nobj)
			continue;
		*at = addr - in->start + o->text_start;
		fd = finding_at(&o->r, *at);
		if (fd)
			*object = o->name;
		return fd;
	}
	return NULL;
}
