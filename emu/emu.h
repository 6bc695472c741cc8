/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libemu: the kernel side of codectl(2) as a library without process control.
 * The supervisor (or a test) supplies memory through an accessor and the
 * mappings through emu_mappings; emu answers calls and unwinds stacks.
 */
#ifndef EMU_EMU_H
#define EMU_EMU_H

#include "accessor.h"
#include "arch.h"
#include "block_cache.h"
#include "build_id.h"
#include "codectl_call.h"
#include "copy_struct.h"
#include "jit.h"
#include "kernel_call.h"
#include "mappings.h"
#include "mem_image.h"
#include "profile.h"
#include "registry.h"
#include "rules.h"
#include "sframe_file.h"
#include "sframe_section.h"
#include "sframe_synth.h"
#include "unwind.h"
#include "unwind_rule.h"

#endif /* EMU_EMU_H */
