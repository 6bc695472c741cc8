// SPDX-License-Identifier: GPL-2.0
/* --trace lines: the call's decoded arguments and its answer, as strace prints calls. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/stacktrace_setup.h>

#include "trace_line.h"

struct out {
	char *buf;
	size_t len;
	size_t pos;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->pos >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += (size_t)n < o->len - o->pos ? (size_t)n : o->len - o->pos - 1;
}

const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "E?";
}

static const char *option_name(unsigned int option)
{
	static const char *const names[] = { "CODE_UNREGISTER", "CODE_REGISTER_ELF",
					     "CODE_REGISTER_JIT", "CODE_REGISTER_SFRAME",
					     "CODE_REGISTER_SFRAME_FILE" };

	return option < sizeof(names) / sizeof(names[0]) ? names[option] : NULL;
}

static void put_sframe(struct out *o, uint64_t start, uint64_t end,
		       const struct emu_call_result *res)
{
	put(o, ", sframe=%#llx-%#llx", (unsigned long long)start, (unsigned long long)end);
	if (res->sframe_version)
		put(o, " v%u %u FDEs", res->sframe_version, res->sframe_fdes);
}

/* "{text=..., fd=3, offset=128, length=.., size=.., zstd, sframe_addr=.. v3 N FDEs" */
static void put_sframe_file(struct out *o, const struct code_sframe_file_info *f,
			    const struct emu_call_result *res)
{
	static const char *const codecs[] = { "none", "zlib", "zstd" };

	put(o, "{text=%#llx-%#llx, fd=%d, offset=%llu, length=%llu, size=%llu, ",
	    (unsigned long long)f->text_start, (unsigned long long)f->text_end, f->fd,
	    (unsigned long long)f->offset, (unsigned long long)f->length,
	    (unsigned long long)f->size);
	f->compression < 3 ? put(o, "%s", codecs[f->compression]) : put(o, "%u", f->compression);
	put(o, ", sframe_addr=%#llx", (unsigned long long)f->sframe_addr);
	if (res->sframe_version)
		put(o, " v%u %u FDEs", res->sframe_version, res->sframe_fdes);
	if (f->build_id_len)
		put(o, ", build_id=%#llx/%u", (unsigned long long)f->build_id, f->build_id_len);
	if (f->flags)
		put(o, ", flags=%#x", f->flags);
}

/* A tracee string as strace shows one: quoted, control bytes and quotes escaped, cut at 200. */
static void put_string(struct out *o, const char *str)
{
	unsigned int n;

	put(o, "\"");
	for (n = 0; str[n] && n < 200; n++) {
		unsigned char c = (unsigned char)str[n];

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c == '\n')
			put(o, "\\n");
		else if (c < 0x20 || c >= 0x7f)
			put(o, "\\%03o", c);
		else
			put(o, "%c", c);
	}
	put(o, str[n] ? "\"..." : "\"");
}

size_t trace_exec_format(char *buf, size_t len, pid_t tid, const char *path, const char *args,
			 size_t n)
{
	struct out o = { .buf = buf, .len = len };
	unsigned int shown = 0;
	size_t i = 0;

	buf[0] = '\0';
	put(&o, "[pid %d] execve(", (int)tid);
	put_string(&o, path);
	put(&o, ", [");
	while (i < n) {
		if (shown++ == 32) {
			put(&o, ", ...");
			break;
		}
		put(&o, shown > 1 ? ", " : "");
		put_string(&o, args + i);
		i += strlen(args + i) + 1;
	}
	put(&o, "]) = 0");
	return o.pos;
}

void trace_quote(char *buf, size_t len, const char *str)
{
	struct out o = { .buf = buf, .len = len };

	buf[0] = '\0';
	put_string(&o, str);
}

/*
 * Up to TRACE_STRING_MAX bytes of the string at @addr, read a page at a time
 * so that a string ending just before an unreadable page is read whole.
 * Returns false when not even its first byte is readable.
 */
static bool read_string(const struct emu_accessor *mem, uint64_t addr, char *buf, bool *cut)
{
	size_t n = 0, piece;

	*cut = false;
	while (n < TRACE_STRING_MAX) {
		piece = 4096 - ((addr + n) & 4095);
		if (piece > TRACE_STRING_MAX - n)
			piece = TRACE_STRING_MAX - n;
		if (emu_read(mem, addr + n, buf + n, piece))
			break;
		if (memchr(buf + n, 0, piece))
			return true;
		n += piece;
	}
	buf[n] = '\0';
	*cut = n > 0;
	return n > 0;
}

void trace_strings_read(struct trace_strings *t, const struct emu_accessor *mem,
			const struct code_elf_info *e)
{
	memset(t, 0, sizeof(*t));
	if (e->pathname)
		t->path_read = read_string(mem, e->pathname, t->path, &t->path_cut);
	if (e->debug_link_pathname)
		t->debug_link_read = read_string(mem, e->debug_link_pathname, t->debug_link,
						 &t->debug_link_cut);
	if (e->build_id && e->build_id_len <= CODE_BUILD_ID_MAX &&
	    !emu_read(mem, e->build_id, t->build_id, e->build_id_len))
		t->build_id_len = e->build_id_len;
}

/* A string from the registration, or read for the trace, or else its address. */
static void put_string_arg(struct out *o, const char *name, const char *str, bool cut,
			   uint64_t addr)
{
	put(o, ", %s=", name);
	if (!str) {
		put(o, "%#llx", (unsigned long long)addr);
		return;
	}
	put_string(o, str);
	if (cut)
		put(o, "...");
}

static void put_identity(struct out *o, const struct code_elf_info *e,
			 const struct emu_registration *reg, const struct trace_strings *t)
{
	const struct emu_identity *id = reg && (reg->aspects & EMU_ASPECT_IDENTITY) ? &reg->ident : NULL;
	const uint8_t *build_id = id ? id->build_id : t && t->build_id_len ? t->build_id : NULL;

	if (e->pathname)
		put_string_arg(o, "path", id ? id->pathname : t && t->path_read ? t->path : NULL,
			       !id && t && t->path_cut, e->pathname);
	if (e->build_id_len) {
		put(o, ", build_id=");
		for (unsigned int i = 0; build_id && i < e->build_id_len; i++)
			put(o, "%02x", build_id[i]);
		if (!build_id)
			put(o, "%#llx/%u", (unsigned long long)e->build_id, e->build_id_len);
	}
	if (e->debug_link_pathname) {
		put_string_arg(o, "debuglink",
			       id ? id->debug_link : t && t->debug_link_read ? t->debug_link : NULL,
			       !id && t && t->debug_link_cut, e->debug_link_pathname);
		if ((id && id->debug_link) || (!id && t && t->debug_link_read))
			put(o, " crc=%#x", e->debug_link_crc);
	}
}

static void put_args(struct out *o, const struct emu_call *c, const struct emu_call_result *res,
		     const struct trace_strings *t)
{
	const struct emu_registration *reg = res->reg ? res->reg : res->staged;

	if (c->option == CODE_UNREGISTER || !res->have_args) {
		put(o, "%#llx", (unsigned long long)c->info);
		return;
	}
	if (c->option == CODE_REGISTER_ELF) {
		const struct code_elf_info *e = &res->args.elf;

		put(o, "{text=%#llx-%#llx", (unsigned long long)e->text_start,
		    (unsigned long long)e->text_end);
		if (e->sframe_start || e->sframe_end)
			put_sframe(o, e->sframe_start, e->sframe_end, res);
		put_identity(o, e, reg, t);
	} else if (c->option == CODE_REGISTER_SFRAME) {
		const struct code_sframe_info *f = &res->args.sframe;

		put(o, "{text=%#llx-%#llx", (unsigned long long)f->text_start,
		    (unsigned long long)f->text_end);
		put_sframe(o, f->sframe_start, f->sframe_end, res);
	} else if (c->option == CODE_REGISTER_SFRAME_FILE) {
		put_sframe_file(o, &res->args.sframe_file, res);
	} else {
		const struct code_jit_info *j = &res->args.jit;

		put(o, "{text=%#llx-%#llx, unwind_head=%#llx", (unsigned long long)j->text_start,
		    (unsigned long long)j->text_end, (unsigned long long)j->unwind_head);
	}
	put(o, "}");
}

size_t trace_line_format(char *buf, size_t len, pid_t tid, const struct emu_call *c,
			 const struct emu_call_result *res, int err,
			 const struct trace_strings *strings)
{
	struct out o = { .buf = buf, .len = len };
	const char *name = option_name(c->option);

	buf[0] = '\0';
	put(&o, "[pid %d] codectl(", (int)tid);
	name ? put(&o, "%s, ", name) : put(&o, "%u, ", c->option);
	put_args(&o, c, res, strings);
	put(&o, ", %llu, %u) = ", (unsigned long long)c->info_size, c->flags);
	if (err)
		put(&o, "-1 %s (%s)", errno_name(-err), res->verdict.reason);
	else
		put(&o, "0");
	return o.pos;
}

/* " v3 4 FDEs" after a registered section's size or end. */
/* The section's version and FDEs (SFrame), or the header's FDE count (.eh_frame). */
static void put_section_info(struct out *o, const struct emu_call_result *res)
{
	const struct emu_registration *reg = res->reg ? res->reg : res->staged;

	if (res->sframe_version)
		put(o, " v%u %u FDEs", res->sframe_version, res->sframe_fdes);
	else if (reg && reg->aspects == EMU_ASPECT_EH_FRAME)
		put(o, " %llu FDEs", (unsigned long long)reg->eh_frame.fde_count);
}

static void put_setup(struct out *o, const struct emu_kcall *kc,
		      const struct emu_call_result *res)
{
	const struct sframe_setup *s = &res->args.setup;
	bool eh = kc->entry == EMU_ENTRY_EH_FRAME_REGISTER ||
		  kc->entry == EMU_ENTRY_EH_FRAME_UNREGISTER;

	if (!res->have_args) {
		put(o, "%#llx, %llu", (unsigned long long)kc->arg[0], (unsigned long long)kc->arg[1]);
		return;
	}
	/* struct eh_frame_setup has struct sframe_setup's layout (emu/kernel_call.c) */
	put(o, eh ? "{eh_frame_hdr_start=%#llx, eh_frame_hdr_size=%llu" :
		    "{sframe_start=%#llx, sframe_size=%llu", (unsigned long long)s->sframe_start,
	    (unsigned long long)s->sframe_size);
	put_section_info(o, res);
	put(o, ", text_start=%#llx, text_size=%llu}, %llu", (unsigned long long)s->text_start,
	    (unsigned long long)s->text_size, (unsigned long long)kc->arg[1]);
}

/*
 * Five scalar arguments after @name (the prctl: addresses; stacktrace_setup's
 * register op: address, length, address, length); the section's info after
 * the second.
 */
static void put_scalars(struct out *o, const char *name, const struct emu_kcall *kc,
			const struct emu_call_result *res, bool lengths)
{
	const char *len_fmt = lengths ? ", %llu" : ", %#llx";

	if (name)
		put(o, "%s", name);
	else
		put(o, "%d", (int)kc->arg[0]);
	put(o, ", %#llx", (unsigned long long)kc->arg[1]);
	put(o, len_fmt, (unsigned long long)kc->arg[2]);
	put_section_info(o, res);
	put(o, ", %#llx", (unsigned long long)kc->arg[3]);
	put(o, len_fmt, (unsigned long long)kc->arg[4]);
}

static const char *prctl_name(int option)
{
	if (option == PR_ADD_SFRAME)
		return "PR_ADD_SFRAME";
	return option == PR_REMOVE_SFRAME ? "PR_REMOVE_SFRAME" : NULL;
}

static const char *stacktrace_op_name(int op)
{
	if (op == STACKTRACE_REGISTER_SFRAME)
		return "STACKTRACE_REGISTER_SFRAME";
	return op == STACKTRACE_UNREGISTER_SFRAME ? "STACKTRACE_UNREGISTER_SFRAME" : NULL;
}

size_t trace_kcall_format(char *buf, size_t len, pid_t tid, const struct emu_kcall *kc,
			  const struct emu_call_result *res, int err)
{
	struct out o = { .buf = buf, .len = len };

	buf[0] = '\0';
	put(&o, "[pid %d] %s(", (int)tid, emu_entry_name(kc->entry));
	if (kc->entry == EMU_ENTRY_SFRAME_REGISTER || kc->entry == EMU_ENTRY_SFRAME_UNREGISTER ||
	    kc->entry == EMU_ENTRY_EH_FRAME_REGISTER || kc->entry == EMU_ENTRY_EH_FRAME_UNREGISTER)
		put_setup(&o, kc, res);
	else if (kc->entry == EMU_ENTRY_PRCTL)
		put_scalars(&o, prctl_name((int)kc->arg[0]), kc, res, false);
	else
		put_scalars(&o, stacktrace_op_name((int)kc->arg[0]), kc, res,
			    (int)kc->arg[0] == STACKTRACE_REGISTER_SFRAME);
	put(&o, ") = ");
	if (err)
		put(&o, "-1 %s (%s)", errno_name(-err), res->verdict.reason);
	else
		put(&o, "0");
	return o.pos;
}
