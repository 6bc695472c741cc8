// SPDX-License-Identifier: GPL-2.0
/* Exec-time registration of the program's and the interpreter's PT_GNU_SFRAME. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf_object.h"
#include "exec_sframe.h"
#include "supervisor/core/procfs.h"
#include "supervisor/trace/remote_mem.h"
#include "trace_line.h"


struct auxv_info {
	uint64_t phdr;
	uint64_t phnum;
	uint64_t base;
};

static int read_auxv(pid_t tid, struct auxv_info *a)
{
	char path[64];
	Elf64_auxv_t e;
	int fd;

	memset(a, 0, sizeof(*a));
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (read(fd, &e, sizeof(e)) == sizeof(e) && e.a_type != AT_NULL) {
		if (e.a_type == AT_PHDR)
			a->phdr = e.a_un.a_val;
		else if (e.a_type == AT_PHNUM)
			a->phnum = e.a_un.a_val;
		else if (e.a_type == AT_BASE)
			a->base = e.a_un.a_val;
	}
	close(fd);
	return a->phdr && a->phnum ? 0 : -ENOENT;
}

static void register_segment(struct calls *c, struct proc *p, const struct emu_accessor *mem,
			     const struct code_sframe_info *info, const char *what)
{
	struct emu_space sp = { .registry = p->as->registry, .mem = mem, .maps = &p->as->maps };
	struct emu_call_result res;
	int err = emu_register_exec_sframe(&c->policy, &sp, info, &res);

	if (err) {
		p->stats.exec_failed++;
		addr_space_note_refusal(p->as, info->text_start, info->text_end,
					emu_rule_name(res.verdict.rule));
		log_line(c->log, "pid %d: exec registration of the %s's .sframe for text "
				 "%#llx-%#llx: %s (%s)", (int)p->tgid, what,
			 (unsigned long long)info->text_start, (unsigned long long)info->text_end,
			 errno_name(-err), res.verdict.reason);
		return;
	}
	p->stats.exec_registered++;
	calls_count_kernel_refusals(p, &res.verdict);
	calls_verify_registration(c, p, mem, res.reg);
	if (!c->trace_lines)
		return;
	fprintf(c->log->f, "[pid %d] exec: %s text=%#llx-%#llx sframe=%#llx-%#llx v%u %u FDEs "
			"registered", (int)p->tgid, what, (unsigned long long)info->text_start,
		(unsigned long long)info->text_end, (unsigned long long)info->sframe_start,
		(unsigned long long)info->sframe_end, res.sframe_version, res.sframe_fdes);
	if (res.verdict.kernel_refusals)
		fprintf(c->log->f, " [kernel patches would refuse: %s]",
			emu_kernel_rule_text(res.verdict.kernel_refusals &
					     -res.verdict.kernel_refusals));
	fputc('\n', c->log->f);
}

/* One registration per PF_X PT_LOAD, all with the object's PT_GNU_SFRAME. */
static void register_object(struct calls *c, struct proc *p, const struct emu_accessor *mem,
			    const struct elf_object *o)
{
	struct code_sframe_info info = { 0 };
	unsigned int i;

	for (i = 0; i < o->n; i++)
		if (o->ph[i].p_type == PT_GNU_SFRAME) {
			info.sframe_start = o->bias + o->ph[i].p_vaddr;
			info.sframe_end = info.sframe_start + o->ph[i].p_memsz;
		}
	if (!info.sframe_start)
		return;		/* no .sframe: nothing to register, as in the kernel */
	for (i = 0; i < o->n; i++) {
		if (o->ph[i].p_type != PT_LOAD || !(o->ph[i].p_flags & PF_X))
			continue;
		info.text_start = o->bias + o->ph[i].p_vaddr;
		info.text_end = info.text_start + o->ph[i].p_memsz;
		register_segment(c, p, mem, &info, o->what);
	}
}

/*
 * Without PT_PHDR (a dynamic loader run as the program), the bias of an ELF
 * header mapped right before the program headers, with the segment at file
 * offset 0; else 0 (a non-PIE program).
 */
static uint64_t bias_from_header(const struct emu_accessor *mem, uint64_t phdr,
				 const struct elf_object *o)
{
	uint64_t ehdr = phdr - sizeof(Elf64_Ehdr);
	Elf64_Ehdr eh;

	if (emu_read(mem, ehdr, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phoff != sizeof(Elf64_Ehdr))
		return 0;
	for (unsigned int i = 0; i < o->n; i++)
		if (o->ph[i].p_type == PT_LOAD && o->ph[i].p_offset == 0)
			return ehdr - o->ph[i].p_vaddr;
	return 0;
}

/* The main program: its load bias from PT_PHDR, or from its ELF header. */
static int main_object(const struct emu_accessor *mem, const struct auxv_info *a,
		       struct elf_object *o)
{
	int err = elf_object_phdrs(mem, a->phdr, a->phnum, o);
	bool have_phdr = false;

	o->what = "program";
	o->bias = 0;
	for (unsigned int i = 0; !err && i < o->n; i++) {
		if (o->ph[i].p_type == PT_PHDR) {
			o->bias = a->phdr - o->ph[i].p_vaddr;
			have_phdr = true;
		}
	}
	if (!err && !have_phdr)
		o->bias = bias_from_header(mem, a->phdr, o);
	return err;
}


/* The dynamic section at @at (@size bytes) has a DT_SONAME (read entry by entry). */
static bool has_soname(const struct emu_accessor *mem, uint64_t at, uint64_t size)
{
	Elf64_Dyn d;

	for (uint64_t off = 0; off + sizeof(d) <= size && off < 512 * sizeof(d); off += sizeof(d)) {
		if (emu_read(mem, at + off, &d, sizeof(d)) || d.d_tag == DT_NULL)
			return false;
		if (d.d_tag == DT_SONAME)
			return true;
	}
	return false;
}

/*
 * Without an interpreter, a program whose dynamic section names itself
 * (DT_SONAME) is a dynamic loader run as a program (ld.so PROGRAM), which
 * loads the module; anything else is statically linked (static-pie too).
 */
static bool is_static(const struct emu_accessor *mem, const struct elf_object *o)
{
	for (unsigned int i = 0; i < o->n; i++)
		if (o->ph[i].p_type == PT_DYNAMIC)
			return !has_soname(mem, o->bias + o->ph[i].p_vaddr, o->ph[i].p_memsz);
	return true;
}

void exec_trace(struct calls *c, struct proc *p)
{
	char args[4096], line[8192];
	size_t n;

	if (!c->trace_lines)
		return;
	n = procfs_cmdline(p->tgid, args, sizeof(args) - 1);
	args[n] = '\0';
	trace_exec_format(line, sizeof(line), p->tgid, p->exe, args, n);
	fprintf(c->log->f, "%s\n", line);
}

void exec_sframe_register(struct calls *c, struct proc *p, pid_t tid)
{
	struct remote_mem rm;
	struct emu_accessor mem = remote_mem_accessor(&rm);
	struct auxv_info a;
	struct elf_object o;
	int err;

	remote_mem_init(&rm, tid, -1, NULL);
	err = read_auxv(tid, &a);
	if (!err)
		err = main_object(&mem, &a, &o);
	if (err) {
		log_line(c->log, "pid %d: exec registration: cannot read the program headers: %s",
			 (int)p->tgid, strerror(-err));
		return;
	}
	register_object(c, p, &mem, &o);
	if (!a.base) {
		/* no interpreter: a static program, with no loader module either */
		if (c->loader_module && is_static(&mem, &o))
			log_note(c->log, "pid %d: %s is statically linked: the loader module cannot "
					 "run in it, only its own codectl calls will be seen",
				 (int)p->tgid, p->exe);
		return;
	}
	err = elf_object_at(&mem, a.base, &o);
	o.what = "interpreter";
	if (err)
		log_line(c->log, "pid %d: exec registration: cannot read the interpreter's headers: "
				 "%s", (int)p->tgid, strerror(-err));
	else
		register_object(c, p, &mem, &o);
}
