// SPDX-License-Identifier: GPL-2.0
/* SFrame synthesized from .eh_frame for the objects that have none (synth_sframe.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_object.h"
#include "emu/mem_image.h"
#include "emu/sframe_synth.h"
#include "supervisor/trace/remote_mem.h"
#include "synth_sframe.h"
#include "trace_line.h"

#define NOTE "synthesize-sframe"

/* Segments read at once to be synthesized from (a larger one is read piecemeal). */
#define SYNTH_READ_MAX (16u << 20)

/* Was the text at @start noted as one synthesis made nothing of? */
static bool tried(const struct proc *p, uint64_t start)
{
	const char *why = addr_space_refusal_at(p->as, start);

	return why && !strcmp(why, NOTE);
}

/*
 * The start of the object holding the mapping at index @i of @m: the
 * nearest start of it or of the file mappings right before it that holds an
 * ELF header (a mapping's ident says its file and offset in one, so it does
 * not tell which are the same file's); 0 when none does.
 */
static uint64_t object_base(const struct emu_mappings *m, size_t i,
			    const struct emu_accessor *remote)
{
	char magic[SELFMAG];

	for (;; i--) {
		if (!emu_read(remote, m->vma[i].start, magic, SELFMAG) &&
		    !memcmp(magic, ELFMAG, SELFMAG))
			return m->vma[i].start;
		if (!i || (m->vma[i].prot & EMU_VMA_VDSO) || !m->vma[i - 1].ident ||
		    m->vma[i - 1].end != m->vma[i].start)
			return 0;
	}
}

/*
 * @e's tables, read into @buf at once when the segment holding them is not
 * too large (a lookup then costs no system call), the rest from @remote.
 */
static void tables_image(const struct elf_object *o, uint64_t hdr, const struct emu_accessor *remote,
			 struct emu_mem_image *img, void **buf)
{
	*img = (struct emu_mem_image){ .fallback = remote };
	*buf = NULL;
	for (unsigned int i = 0; i < o->n; i++) {
		const Elf64_Phdr *ph = &o->ph[i];
		uint64_t start = o->bias + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || hdr < start || hdr - start >= ph->p_filesz ||
		    ph->p_filesz > SYNTH_READ_MAX)
			continue;
		*buf = malloc(ph->p_filesz);
		if (*buf && !emu_read(remote, start, *buf, ph->p_filesz))
			emu_mem_image_add(img, start, *buf, ph->p_filesz);
		return;
	}
}

static void trace_made(struct calls *c, struct proc *p, const struct emu_eh_frame *e,
		       const struct emu_sframe_synth_stats *st, size_t len, int err)
{
	if (!c->trace_lines)
		return;
	fprintf(c->log->f, "[pid %d] synthesized SFrame: text=%#llx-%#llx from .eh_frame_hdr %#llx: "
			   "%u of %u FDEs (%u FREs, %zu bytes) %s", (int)p->tgid,
		(unsigned long long)e->text_start, (unsigned long long)e->text_end,
		(unsigned long long)e->hdr_start, st->functions, st->fdes, st->fres, len,
		err ? errno_name(-err) : "registered");
	if (st->inexpressible + st->refused)
		fprintf(c->log->f, "; left out: %u inexpressible, %u refused, first: %s",
			st->inexpressible, st->refused, st->why);
	fputc('\n', c->log->f);
}

/* One executable segment [@text_start, @text_end) of @o, with its .eh_frame_hdr @hdr. */
static void synth_segment(struct calls *c, struct proc *p, const struct emu_accessor *remote,
			  const struct elf_object *o, const Elf64_Phdr *hdr, uint64_t text_start,
			  uint64_t text_end)
{
	struct emu_eh_frame e = { .hdr_start = o->bias + hdr->p_vaddr,
				  .hdr_end = o->bias + hdr->p_vaddr + hdr->p_memsz,
				  .text_start = text_start, .text_end = text_end };
	struct emu_sframe_synth_stats st = { 0 };
	struct emu_mem_image img;
	struct emu_accessor mem;
	struct emu_verdict v;
	uint8_t *data = NULL;
	size_t len = 0;
	void *buf;
	int err;

	tables_image(o, e.hdr_start, remote, &img, &buf);
	mem = emu_mem_image_accessor(&img);
	emu_verdict_init(&v);
	err = emu_eh_frame_add(&e, &mem, &p->as->maps, false, &v);
	if (!err)
		err = emu_sframe_synthesize(&e, &mem, text_start, &data, &len, &st);
	if (!err)
		err = emu_sframe_synth_register(p->as->registry, text_start, text_end, data, len,
						&v);
	free(buf);
	trace_made(c, p, &e, &st, len, err);
	if (!err) {
		p->stats.synthesized++;
		return;
	}
	addr_space_note_refusal(p->as, text_start, text_end, NOTE);
	log_note(c->log, "pid %d: --synthesize-sframe: text %#llx-%#llx: %s (%s)", (int)p->tgid,
		 (unsigned long long)text_start, (unsigned long long)text_end, errno_name(-err),
		 err == -ENOENT ? "no function SFrame can describe" : v.reason);
}

/* The object whose mapping is @m's index @i: each PF_X segment without unwind data. */
static void synth_object(struct calls *c, struct proc *p, const struct emu_accessor *remote,
			 size_t i)
{
	const struct emu_mappings *m = &p->as->maps;
	const Elf64_Phdr *hdr;
	struct elf_object o;
	uint64_t base = object_base(m, i, remote);

	if (!base || elf_object_at(remote, base, &o) || elf_object_find(&o, PT_GNU_SFRAME))
		return;		/* not ELF, or the loader registers its .sframe */
	hdr = elf_object_find(&o, PT_GNU_EH_FRAME);
	for (unsigned int k = 0; hdr && k < o.n; k++) {
		uint64_t start = o.bias + o.ph[k].p_vaddr, end = start + o.ph[k].p_memsz;

		if (o.ph[k].p_type != PT_LOAD || !(o.ph[k].p_flags & PF_X) ||
		    start < m->vma[i].start || start >= m->vma[i].end ||
		    emu_registry_find_unwind(p->as->registry, start) || tried(p, start))
			continue;
		synth_segment(c, p, remote, &o, hdr, start, end);
	}
}

void synth_sframe_scan(struct calls *c, struct proc *p)
{
	const struct emu_mappings *m = &p->as->maps;
	struct remote_mem rm;
	struct emu_accessor remote;

	remote_mem_init(&rm, p->tgid, -1, NULL);
	remote = remote_mem_accessor(&rm);
	for (size_t i = 0; i < m->n; i++) {
		const struct emu_vma *v = &m->vma[i];

		if (!(v->prot & EMU_PROT_EXEC) || (!v->ident && !(v->prot & EMU_VMA_VDSO)) ||
		    emu_registry_find_unwind(p->as->registry, v->start) || tried(p, v->start))
			continue;
		synth_object(c, p, &remote, i);
	}
}
