// SPDX-License-Identifier: GPL-2.0
/* --registry-dump: a process's registrations, one line each, when it exits. */
#include <stdio.h>

#include "registry_dump.h"
#include "trace_line.h"

struct dump_ctx {
	FILE *f;
	pid_t pid;
};

static void dump_unwind(FILE *f, const struct emu_registration *reg)
{
	if (reg->unwind_kind == EMU_UNWIND_SFRAME) {
		const struct emu_sframe_hdr *h = reg->sframe ? emu_sframe_header(reg->sframe) : NULL;

		fprintf(f, " sframe=%#llx-%#llx v%u %u FDEs", (unsigned long long)reg->sframe_start,
			(unsigned long long)reg->sframe_end, h ? h->version : 3,
			h ? h->num_fdes : reg->ksframe.num_fdes);
		if (!reg->sframe)
			fputs(" (no copy kept by the emulator)", f);
		else
			fprintf(f, " from=%s resident=%zu/%zu", emu_sframe_source(reg->sframe),
				emu_sframe_resident(reg->sframe), emu_sframe_size(reg->sframe));
	} else if (reg->unwind_kind == EMU_UNWIND_JIT) {
		fprintf(f, " jit=%#llx", (unsigned long long)reg->jit_head);
	}
}

static void dump_identity(FILE *f, const struct emu_identity *id)
{
	char quoted[1024];

	fprintf(f, " elf=%#llx-%#llx", (unsigned long long)id->elf_start,
		(unsigned long long)id->elf_end);
	if (id->pathname) {
		trace_quote(quoted, sizeof(quoted), id->pathname);
		fprintf(f, " path=%s", quoted);
	}
	if (id->build_id_len) {
		fputs(" build_id=", f);
		for (uint32_t i = 0; i < id->build_id_len; i++)
			fprintf(f, "%02x", id->build_id[i]);
	}
	if (id->debug_link) {
		trace_quote(quoted, sizeof(quoted), id->debug_link);
		fprintf(f, " debuglink=%s crc=%#x", quoted, id->debug_link_crc);
	}
}

static void dump_one(const struct emu_registration *reg, void *arg)
{
	struct dump_ctx *d = arg;
	FILE *f = d->f;

	fprintf(f, "codectl-run: registry pid %d: text=%#llx-%#llx %s%s%s%s", (int)d->pid,
		(unsigned long long)reg->text_start, (unsigned long long)reg->text_end,
		emu_origin_name(reg->origin),
		reg->aspects & EMU_ASPECT_UNWIND ? " unwind" : "",
		reg->aspects & EMU_ASPECT_IDENTITY ? " identity" : "",
		reg->aspects & EMU_ASPECT_EH_FRAME ? " eh_frame" : "");
	if (reg->aspects & EMU_ASPECT_UNWIND)
		dump_unwind(f, reg);
	if (reg->aspects & EMU_ASPECT_IDENTITY)
		dump_identity(f, &reg->ident);
	if (reg->aspects & EMU_ASPECT_EH_FRAME)
		fprintf(f, " eh_frame_hdr=%#llx-%#llx eh_frame=%#llx %llu FDEs",
			(unsigned long long)reg->eh_frame.hdr_start,
			(unsigned long long)reg->eh_frame.hdr_end,
			(unsigned long long)reg->eh_frame.eh_frame_start,
			(unsigned long long)reg->eh_frame.fde_count);
	fputc('\n', f);
}

void registry_dump(FILE *f, const struct proc *p)
{
	struct dump_ctx d = { .f = f, .pid = p->tgid };

	fprintf(f, "codectl-run: registry pid %d: %zu registrations\n", (int)p->tgid,
		emu_registry_count(p->as->registry));
	emu_registry_for_each(p->as->registry, dump_one, &d);
}
