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
# and $(VERDICT_FLAGS_NAME) / $(VERDICT_LIBS_NAME) when set; what the programs
# share is in tests/verdict/progs/*.h.

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
