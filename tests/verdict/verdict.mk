# SPDX-License-Identifier: GPL-2.0
#
# The verdict suite: programs whose stacks are wrong in known ways (lying
# unwind data, garbage frame pointers, signal frames, ...), each run under
# codectl-run --check --json-all by verdict-tests, which asserts the exact
# classes of their samples and --check's exit status. Included by the
# top-level Makefile: uses its $(O), $(CC), $(PROG_CFLAGS), $(PROG_LDFLAGS),
# $(DRIVER_CFLAGS), $(DRIVER_LDFLAGS), $(PUBLIC_HDRS) and $(say).
#
# tests/verdict/progs/NAME.c is built into $(O)/tests/verdict/NAME with
# tests/verdict/progs/NAME-*.S beside it (hand-written code), -Wa,--gsframe,
# and $(VERDICT_FLAGS_NAME) / $(VERDICT_LIBS_NAME) when set. Libraries the
# programs load or map are built from tests/verdict/libs/ into $(VERDICT_DIR)
# by the rules at the end, as prerequisites of their programs.

VERDICT_DIR := $(O)/tests/verdict

# entry_caller keeps a frame pointer: an IP - 1 lookup at spin_at_entry would step by it
VERDICT_FLAGS_signal_first_insn := -fno-omit-frame-pointer
# IBT PLT, .plt.sec stubs: ld 2.40 gives the first one PLT0's SFrame rows (PR ld/32296)
VERDICT_FLAGS_ibt_plt := -fcf-protection -Wl,-z,ibtplt

VERDICT_PROG_SRC := $(wildcard tests/verdict/progs/*.c)
VERDICT_PROGS := $(patsubst tests/verdict/progs/%.c,$(VERDICT_DIR)/%,$(VERDICT_PROG_SRC))
VERDICT_TEST := $(O)/tests/verdict-tests
VERDICT_TEST_SRC := $(wildcard tests/verdict/test_*.c) tests/verdict/verdict_run.c \
	tests/e2e/run_helper.c
# built by make all (make test runs $(VERDICT_TEST))
VERDICT_BINS := $(VERDICT_PROGS) $(VERDICT_TEST)

.SECONDEXPANSION:
# Traced by codectl-run: never sanitized.
$(VERDICT_DIR)/%: tests/verdict/progs/%.c $$(wildcard tests/verdict/progs/%-*.S) \
		$(wildcard tests/verdict/progs/*.h) $(PUBLIC_HDRS) tests/verdict/verdict.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) -Wa,--gsframe \
		$(VERDICT_FLAGS_$*) $(filter %.c %.S,$^) -o $@ $(PROG_LDFLAGS) -lpthread \
		$(VERDICT_LIBS_$*)

$(VERDICT_TEST): $(VERDICT_TEST_SRC) $(wildcard tests/verdict/*.h) tests/e2e/run_helper.h \
		tests/lib/test_tmp.h tests/lib/objdump_sframe.h
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Itests/e2e -Itests/lib -Itests/verdict $(UNWIND_CFLAGS) \
		-DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' -DVERDICT_DIR='"$(abspath $(VERDICT_DIR))"' \
		$(DRIVER_CFLAGS) $(VERDICT_TEST_SRC) -o $@ $(DRIVER_LDFLAGS) -lcriterion -ljansson

# No libc: its own _start (static_start-asm.S), system calls by hand; gcc gives
# static links no .eh_frame_hdr, which libunwind-ptrace needs to find .eh_frame.
VERDICT_FLAGS_static_start := -static -nostdlib -nostartfiles -fno-stack-protector \
	-Wl,--eh-frame-hdr

# A code cache with an SFrame section of its own, written by the test writer; run_cache
# keeps a frame pointer, so the references' frame-chain guess is the same every time
VERDICT_FLAGS_anon_sframe_cache := -Itests/lib -fno-omit-frame-pointer
$(VERDICT_DIR)/anon_sframe_cache: tests/lib/sframe_writer.c tests/lib/sframe_writer.h

# Two libraries of one layout and different frames, the second loaded where the first was
$(VERDICT_DIR)/libreplaced-a.so: tests/verdict/libs/libreplaced.S tests/verdict/verdict.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -shared -fPIC -Wa,--gsframe -DVARIANT_A $< -o $@ \
		$(PROG_LDFLAGS)
$(VERDICT_DIR)/libreplaced-b.so: tests/verdict/libs/libreplaced.S tests/verdict/verdict.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -shared -fPIC -Wa,--gsframe -DVARIANT_B $< -o $@ \
		$(PROG_LDFLAGS)
$(VERDICT_DIR)/replaced_library: $(VERDICT_DIR)/libreplaced-a.so $(VERDICT_DIR)/libreplaced-b.so
VERDICT_LIBS_replaced_library := -ldl

# A 1 MiB frame probed page by page: its loop's CFA is %r11-based, which gas 2.40
# encodes as SP-based (wrong), gas 2.44 drops the FDE for, gas 2.47 writes as FLEX
VERDICT_FLAGS_stack_clash_probe := -fstack-clash-protection

# main keeps a frame pointer, raw_clone_keep_fp none: the clone's child inherits main's
VERDICT_FLAGS_raw_clone_fp := -fno-omit-frame-pointer

# A library the program maps itself from its file, never dlopened
$(VERDICT_DIR)/libselfmap.so: tests/verdict/libs/libselfmap.c tests/verdict/verdict.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -shared -fPIC -Wa,--gsframe $< -o $@ $(PROG_LDFLAGS)
$(VERDICT_DIR)/self_mapped_lib: $(VERDICT_DIR)/libselfmap.so

# Why unwind data is missing: .sframe dropped by --gc-sections (ld 2.40, 2.44), refused,
# stale (-stale registered, then -new, the same bytes, mapped over it)
LIBREASONS_FLAGS := -shared -fPIC -Wa,--gsframe -fno-omit-frame-pointer
LIBREASONS_AS_IS := $(patsubst %,$(VERDICT_DIR)/libreasons-%.so,order stale new)
$(VERDICT_DIR)/libreasons-gc.so: tests/verdict/libs/libreasons.c tests/verdict/verdict.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) $(LIBREASONS_FLAGS) -ffunction-sections \
		-Wl,--gc-sections $< -o $@ $(PROG_LDFLAGS)
$(LIBREASONS_AS_IS): $(VERDICT_DIR)/libreasons-%.so: tests/verdict/libs/libreasons.c \
		tests/verdict/verdict.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) $(LIBREASONS_FLAGS) $< -o $@ $(PROG_LDFLAGS)
$(VERDICT_DIR)/no_sframe_reasons: $(VERDICT_DIR)/libreasons-gc.so $(LIBREASONS_AS_IS)
VERDICT_LIBS_no_sframe_reasons := -ldl

# One library file name in two directories, without SFrame (frame pointers kept)
LIBSAME := $(VERDICT_DIR)/same-a/libsame.so $(VERDICT_DIR)/same-b/libsame.so
$(LIBSAME): tests/verdict/libs/libreasons.c tests/verdict/verdict.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -shared -fPIC -fno-omit-frame-pointer $< -o $@ \
		$(PROG_LDFLAGS)
$(VERDICT_DIR)/same_name_libs: $(LIBSAME)
VERDICT_LIBS_same_name_libs := -ldl

# A JIT's C callback without SFrame or frame pointer (CFI only), dlopened;
# run_jit keeps a frame pointer, which the callback's fallback then reads
$(VERDICT_DIR)/libjithost.so: tests/verdict/libs/libjithost.c tests/verdict/verdict.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -shared -fPIC -fomit-frame-pointer $< -o $@ \
		$(PROG_LDFLAGS)
$(VERDICT_DIR)/jit_host_callback: $(VERDICT_DIR)/libjithost.so
VERDICT_FLAGS_jit_host_callback := -fno-omit-frame-pointer
VERDICT_LIBS_jit_host_callback := -ldl
