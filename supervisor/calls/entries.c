// SPDX-License-Identifier: GPL-2.0
/* The entry points' front-ends: which notification is whose, its arguments, its trace line. */
#include <errno.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/sframe_setup.h>
#include <linux/stacktrace_setup.h>

#include "entries.h"

void entries_traps(const struct entry_numbers *n, struct notify_traps *t)
{
	*t = (struct notify_traps){
		.nr = { n->codectl, n->sframe_register, n->sframe_unregister, n->stacktrace_setup,
			n->eh_frame_register, n->eh_frame_unregister },
		.n = 6,
	};
	if (n->prctl) {
		t->prctl_options[0] = PR_ADD_SFRAME;
		t->prctl_options[1] = PR_REMOVE_SFRAME;
		t->nprctl = 2;
	}
}

static struct emu_call codectl_of(const struct seccomp_notif *req)
{
	/* option and flags are unsigned int: the upper halves of the registers are ignored */
	return (struct emu_call){
		.option = (unsigned int)req->data.args[0],
		.info = req->data.args[1],
		.info_size = req->data.args[2],
		.flags = (unsigned int)req->data.args[3],
	};
}

/* Which entry point @nr is; -1 for none. */
static int entry_of(const struct entry_numbers *n, const struct seccomp_notif *req)
{
	long nr = req->data.nr;

	if (nr == n->codectl)
		return EMU_ENTRY_CODECTL;
	if (nr == n->sframe_register)
		return EMU_ENTRY_SFRAME_REGISTER;
	if (nr == n->sframe_unregister)
		return EMU_ENTRY_SFRAME_UNREGISTER;
	if (nr == n->stacktrace_setup)
		return EMU_ENTRY_STACKTRACE_SETUP;
	if (nr == n->eh_frame_register)
		return EMU_ENTRY_EH_FRAME_REGISTER;
	if (nr == n->eh_frame_unregister)
		return EMU_ENTRY_EH_FRAME_UNREGISTER;
	if (nr == SYS_prctl && n->prctl &&
	    ((int)req->data.args[0] == PR_ADD_SFRAME || (int)req->data.args[0] == PR_REMOVE_SFRAME))
		return EMU_ENTRY_PRCTL;
	return -1;
}

int entries_decode(const struct entry_numbers *n, const struct seccomp_notif *req,
		   struct entry_call *out)
{
	int entry = req->data.arch == AUDIT_ARCH_X86_64 ? entry_of(n, req) : -1;

	if (entry < 0)
		return -ENOSYS;
	out->entry = entry;
	out->codectl = codectl_of(req);
	out->kcall.entry = entry;
	for (int i = 0; i < 5; i++)
		out->kcall.arg[i] = req->data.args[i];
	return 0;
}

bool entries_removes(const struct entry_call *c)
{
	switch (c->entry) {
	case EMU_ENTRY_CODECTL:
		return c->codectl.option == CODE_UNREGISTER;
	case EMU_ENTRY_SFRAME_UNREGISTER:
	case EMU_ENTRY_EH_FRAME_UNREGISTER:
		return true;
	case EMU_ENTRY_PRCTL:
		return (int)c->kcall.arg[0] == PR_REMOVE_SFRAME;
	case EMU_ENTRY_STACKTRACE_SETUP:
		return (int)c->kcall.arg[0] == STACKTRACE_UNREGISTER_SFRAME;
	default:
		return false;
	}
}

/* [@start, @start + @size), empty when it wraps. */
static struct maps_range sized(uint64_t start, uint64_t size)
{
	return (struct maps_range){ start, start + size < start ? start : start + size };
}

size_t entries_ranges(const struct entry_call *c, const struct emu_call_result *res,
		      struct maps_range r[ENTRIES_RANGES])
{
	const uint64_t *a = c->kcall.arg;

	if (entries_removes(c))
		return 0;
	switch (c->entry) {
	case EMU_ENTRY_CODECTL:
		if (!res->have_args)
			return 0;
		if (res->option == CODE_REGISTER_JIT) {
			r[0] = (struct maps_range){ res->args.jit.text_start, res->args.jit.text_end };
			return 1;
		}
		if (res->option == CODE_REGISTER_ELF) {
			r[0] = (struct maps_range){ res->args.elf.text_start, res->args.elf.text_end };
			r[1] = (struct maps_range){ res->args.elf.sframe_start,
						    res->args.elf.sframe_end };
			return 2;
		}
		if (res->option == CODE_REGISTER_SFRAME_FILE) {
			r[0] = (struct maps_range){ res->args.sframe_file.text_start,
						    res->args.sframe_file.text_end };
			return 1;
		}
		if (res->option != CODE_REGISTER_SFRAME)
			return 0;
		r[0] = (struct maps_range){ res->args.sframe.text_start, res->args.sframe.text_end };
		r[1] = (struct maps_range){ res->args.sframe.sframe_start,
					    res->args.sframe.sframe_end };
		return 2;
	case EMU_ENTRY_SFRAME_REGISTER:
		if (!res->have_args)
			return 0;
		r[0] = sized(res->args.setup.text_start, res->args.setup.text_size);
		r[1] = sized(res->args.setup.sframe_start, res->args.setup.sframe_size);
		return 2;
	case EMU_ENTRY_EH_FRAME_REGISTER:
		if (!res->have_args)
			return 0;
		r[0] = sized(res->args.eh_setup.text_start, res->args.eh_setup.text_size);
		r[1] = sized(res->args.eh_setup.eh_frame_hdr_start,
			     res->args.eh_setup.eh_frame_hdr_size);
		return 2;
	case EMU_ENTRY_PRCTL:
		r[0] = (struct maps_range){ a[3], a[4] };
		r[1] = (struct maps_range){ a[1], a[2] };
		return 2;
	case EMU_ENTRY_STACKTRACE_SETUP:
		r[0] = sized(a[3], a[4]);
		r[1] = sized(a[1], a[2]);
		return 2;
	default:
		return 0;
	}
}

int entries_prepare(const struct emu_policy *p, const struct emu_space *sp,
		    const struct entry_call *c, struct emu_call_result *res)
{
	if (c->entry == EMU_ENTRY_CODECTL)
		return emu_codectl_prepare(p, sp, &c->codectl, res);
	return emu_kcall_prepare(p, sp, &c->kcall, res);
}

size_t entries_trace_line(char *buf, size_t len, pid_t tid, const struct entry_call *c,
			  const struct emu_call_result *res, int err,
			  const struct trace_strings *strings)
{
	if (c->entry == EMU_ENTRY_CODECTL)
		return trace_line_format(buf, len, tid, &c->codectl, res, err, strings);
	return trace_kcall_format(buf, len, tid, &c->kcall, res, err);
}
