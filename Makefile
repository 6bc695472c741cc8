# codectl-emu — build, test, benchmark and install. GNU make.
#
#   make            libemu, codectl tools, tests and benchmarks into build/
#   make check      every test, then again under ASan+UBSan, then the fuzz smoke run
#   make demo       build, then run the shipped demo
#   make bench      run the benchmarks
#   make install    PREFIX=/usr/local DESTDIR=
#
# SAN=asan builds into build/asan with AddressSanitizer and UBSan.

SHELL := /bin/bash
.DEFAULT_GOAL := all
PREFIX ?= /usr/local
DESTDIR ?=
CC := gcc
CLANG := clang
B := build

ifeq ($(SAN),asan)
O := $(B)/asan
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
O := $(B)
SANFLAGS :=
endif

WARN := -Wall -Wextra -Werror
CFLAGS := -std=gnu11 $(WARN) -O2 -g $(SANFLAGS)
# Programs that run traced by codectl-run: LeakSanitizer cannot run under ptrace.
PROG_CFLAGS := -std=gnu11 $(WARN) -O2 -g
CPPFLAGS := -D_GNU_SOURCE -Iinclude -I.
LDFLAGS := $(SANFLAGS)

# Debian 12 packages the build and the tests need.
DEB_PKGS := gcc libc6-dev make pkg-config binutils clang libclang-rt-14-dev \
	libseccomp-dev libunwind-dev libelf-dev libdw-dev libcriterion-dev binutils-dev \
	libjansson-dev
DEPS_STAMP := $(B)/.deps-ok

EMU_SRC := $(wildcard emu/*.c)
EMU_OBJ := $(EMU_SRC:%.c=$(O)/obj/%.o)
LIBEMU := $(O)/libemu.a

SUPERVISOR_LIB_SRC := supervisor/proc_maps.c supervisor/remote_mem.c supervisor/sample_classify.c
SUPERVISOR_LIB_OBJ := $(SUPERVISOR_LIB_SRC:%.c=$(O)/obj/%.o)
SUPERVISOR_SRC := $(wildcard supervisor/*.c)
SUPERVISOR_OBJ := $(SUPERVISOR_SRC:%.c=$(O)/obj/%.o)
CODECTL_RUN := $(O)/codectl-run
# The rtld-audit loader module: loaded into traced programs, so never sanitized.
AUDIT_SRC := $(wildcard emu/user/audit*.c)
AUDIT_SO := $(O)/libcodectl-audit.so

TESTLIB_SRC := $(wildcard tests/lib/*.c)
TESTLIB_OBJ := $(TESTLIB_SRC:%.c=$(O)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(O)/obj/%.o)
UNIT_BIN := $(O)/tests/unit-tests

# The libsframe differential test: C files compiled here with -Wa,--gsframe.
DIFF_SRC := $(wildcard tests/diff/src/*.c)
DIFF_NAMES := $(notdir $(DIFF_SRC:.c=))
DIFF_VARIANTS := O0-fp O0-nofp O2-fp O2-nofp
DIFF_OBJS := $(foreach n,$(DIFF_NAMES),$(foreach v,$(DIFF_VARIANTS),$(B)/diff-objs/$(n)-$(v)))
DIFF_BIN := $(O)/tests/libsframe-diff

# The ABI conformance suite: include/ and the test SFrame writer only.
ABI_SRC := $(wildcard tests/abi/*.c) tests/lib/sframe_writer.c tests/lib/sframe_samples.c
ABI_BIN := $(O)/tests/abi-conformance

# Loader-module tests: a program, three linked libraries and one dlopened.
LOADER_DIR := $(O)/tests/loader
LOADER_LIBS := $(LOADER_DIR)/liba.so $(LOADER_DIR)/libb.so $(LOADER_DIR)/libnosf.so \
	$(LOADER_DIR)/libdl.so $(LOADER_DIR)/libdl2.so $(LOADER_DIR)/libdl3.so
LOADER_PROG := $(LOADER_DIR)/loader-prog
LOADER_PROGS := $(LOADER_PROG) $(LOADER_DIR)/loader-prog-nopie $(LOADER_DIR)/static-prog \
	$(LOADER_DIR)/other-audit.so
LOADER_TEST_SRC := tests/loader/test_loader.c tests/loader/readelf_expect.c tests/e2e/run_helper.c
LOADER_BIN := $(O)/tests/loader-tests

# The differential corpus and the sampling demo (make demo): their own fragments.
include tests/corpus/corpus.mk
include tests/demo/demo.mk
# The example JIT (make demo-jit) and the JIT end-to-end tests.
include tests/jit/jit.mk

# The ABI demo: a program that calls codectl(2) itself (make abi-demo).
ABI_DEMO := $(O)/tests/abi-demo

# End-to-end tests: codectl-run driving a test program.
E2E_PROG := $(O)/tests/e2e-prog
E2E_BIN := $(O)/tests/e2e-tests

# Live-stack unwinder tests, compiled with .sframe at -O0 and -O2.
LIVE_SRC := $(wildcard tests/unwind/*.c)
LIVE_BINS := $(O)/tests/unwind-live-O0 $(O)/tests/unwind-live-O2

FUZZ_NAMES := fuzz_sframe fuzz_codectl
FUZZ_BINS := $(FUZZ_NAMES:%=$(B)/fuzz/%)
FUZZ_SECONDS ?= 25

BENCH_BINS := $(O)/bench/unwind $(O)/bench/syscall $(O)/bench/startup $(O)/bench/sample
# bench/jit: its own fragment (a JIT writer program and the lookup benchmark).
include bench/jit.mk
# bench/startup: a program linked against 20 libraries with .sframe.
STARTUP_DIR := $(O)/bench/startup.d
STARTUP_NUMS := 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20
STARTUP_LIBS := $(STARTUP_NUMS:%=$(STARTUP_DIR)/libstart%.so)
STARTUP_PROG := $(STARTUP_DIR)/startup-prog

VECTORS := $(filter-out %.txt,$(wildcard tests/vectors/v*/*-O*))

UNWIND_CFLAGS := $(shell pkg-config --cflags libunwind 2>/dev/null)
UNWIND_LIBS := $(shell pkg-config --libs libunwind 2>/dev/null)
UNWIND_PTRACE_CFLAGS := $(shell pkg-config --cflags libunwind-ptrace 2>/dev/null)
UNWIND_PTRACE_LIBS := $(shell pkg-config --libs libunwind-ptrace libunwind-generic 2>/dev/null)

.PHONY: all deps check test test-unit test-diff test-live fuzz fuzz-smoke bench demo \
	install clean abi-demo demo-jit
.DELETE_ON_ERROR:

all: $(DEPS_STAMP) $(LIBEMU) $(CODECTL_RUN) $(AUDIT_SO) $(LOADER_PROGS) $(LOADER_BIN) $(ABI_DEMO) $(SAMPLING_DEMO) $(CORPUS_BINS) $(CORPUS_TEST) $(JIT_BINS) $(ABI_BIN) $(E2E_PROG) $(E2E_BIN) $(UNIT_BIN) $(DIFF_BIN) $(DIFF_OBJS) $(LIVE_BINS) $(BENCH_BINS)

# Install what is missing when root; otherwise name it and stop.
deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' \
		|| echo $$p; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing: $$missing"; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing \
			|| { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; } \
			|| exit 1; \
		else \
			echo "missing Debian packages (run as root, or: apt-get install -y $$missing):" \
				$$missing >&2; exit 1; \
		fi; \
	fi
	@mkdir -p $(@D) && touch $@

$(O)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIBEMU): $(EMU_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(O)/obj/supervisor/%.o: CPPFLAGS += $(UNWIND_PTRACE_CFLAGS)
$(CODECTL_RUN): $(SUPERVISOR_OBJ) $(LIBEMU)
	$(CC) $(LDFLAGS) $^ -o $@ -lseccomp $(UNWIND_PTRACE_LIBS) -ldw -lelf -ljansson

$(AUDIT_SO): $(AUDIT_SRC) $(wildcard emu/user/*.h) include/codectl.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) -fPIC -shared -fvisibility=hidden \
		$(AUDIT_SRC) -o $@

$(ABI_BIN): $(ABI_SRC) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -Iinclude -Itests/lib $(PROG_CFLAGS) $(ABI_SRC) -o $@ -lpthread

$(LOADER_DIR)/libnosf.so: tests/loader/libnosf.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -fPIC -shared $< -o $@

$(LOADER_DIR)/libb.so: tests/loader/libb.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -fPIC -shared -Wa,--gsframe -Wl,--section-start=.fartext=0x400000 \
		$< -o $@

# two more files with libdl's layout, for address reuse
$(LOADER_DIR)/libdl2.so $(LOADER_DIR)/libdl3.so: tests/loader/libdl.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -fPIC -shared -Wa,--gsframe $< -o $@

$(LOADER_DIR)/lib%.so: tests/loader/lib%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -fPIC -shared -Wa,--gsframe $< -o $@

$(LOADER_PROG): tests/loader/loader_prog.c $(LOADER_LIBS)
	$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) -Wa,--gsframe $< -o $@ -L$(LOADER_DIR) \
		-la -lb -lnosf -ldl -Wl,-rpath,'$$ORIGIN'

$(LOADER_DIR)/loader-prog-nopie: tests/loader/loader_prog.c $(LOADER_LIBS)
	$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) -fno-pie -no-pie -Wa,--gsframe $< -o $@ \
		-L$(LOADER_DIR) -la -lb -lnosf -ldl -Wl,-rpath,'$$ORIGIN'

$(LOADER_DIR)/static-prog: tests/loader/static_prog.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -Iinclude $(PROG_CFLAGS) -static -Wa,--gsframe $< -o $@

$(LOADER_DIR)/other-audit.so: tests/loader/other_audit.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(PROG_CFLAGS) -fPIC -shared $< -o $@

$(LOADER_BIN): $(LOADER_TEST_SRC) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -Itests/e2e -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DLOADER_DIR='"$(abspath $(LOADER_DIR))"' -DAUDIT_SO='"$(abspath $(AUDIT_SO))"' \
		-DOTHER_AUDIT_SO='"$(abspath $(LOADER_DIR))/other-audit.so"' \
		$(CFLAGS) $^ -o $@ -lcriterion

$(ABI_DEMO): tests/demo/abi_demo.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) -Wa,--gsframe $< -o $@

$(E2E_PROG): tests/e2e/e2e_prog.c tests/lib/self_sframe.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -Iinclude -Itests/lib $(PROG_CFLAGS) -Wa,--gsframe $< -o $@ -lpthread

# A program that is hard to sample (garbage frame pointer, unmapped code, ...).
SAMPLE_PROG := $(O)/tests/sample-prog
$(SAMPLE_PROG): tests/e2e/sample_prog.c tests/lib/self_sframe.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -Iinclude -Itests/lib $(PROG_CFLAGS) -Wa,--gsframe $< -o $@ -lpthread

$(E2E_BIN): tests/e2e/test_e2e.c tests/e2e/test_sampling.c tests/e2e/run_helper.c \
		$(SAMPLE_PROG) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DE2E_PROG='"$(abspath $(E2E_PROG))"' -DSAMPLE_PROG='"$(abspath $(SAMPLE_PROG))"' \
		$(CFLAGS) $(filter %.c,$^) -o $@ -lcriterion -ljansson

$(O)/obj/tests/%.o: CPPFLAGS += -Itests/lib -DVECTOR_DIR='"$(abspath tests/vectors)"'
$(UNIT_BIN): $(UNIT_OBJ) $(TESTLIB_OBJ) $(O)/obj/supervisor/sample_classify.o \
		$(O)/obj/supervisor/perf_map.o $(LIBEMU)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ -lcriterion -lsframe -lelf

$(B)/diff-objs/%: | $(DEPS_STAMP)
	@mkdir -p $(@D)
	n=$*; src=tests/diff/src/$${n%-O*}.c; v=$${n##*-O}; opt=-O$${v%%-*}; \
	case $$v in *nofp) fp=-fomit-frame-pointer;; *) fp=-fno-omit-frame-pointer;; esac; \
	$(CC) $$opt $$fp -Wa,--gsframe -o $@ $$src
$(DIFF_OBJS): $(DIFF_SRC)

$(O)/obj/tests/diff/libsframe_diff.o: CPPFLAGS += -DDIFF_OBJ_DIR='"$(abspath $(B)/diff-objs)"'
$(DIFF_BIN): $(O)/obj/tests/diff/libsframe_diff.o $(TESTLIB_OBJ) $(LIBEMU)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ -lcriterion -lsframe -lelf

$(O)/tests/unwind-live-%: $(LIVE_SRC) $(SUPERVISOR_LIB_OBJ) $(LIBEMU) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/lib $(UNWIND_CFLAGS) -std=gnu11 $(WARN) -g -$* $(SANFLAGS) \
		-Wa,--gsframe $^ -o $@ -lcriterion $(UNWIND_LIBS)

$(O)/bench/%: bench/%.c $(SUPERVISOR_LIB_OBJ) $(LIBEMU) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wa,--gsframe $^ -o $@ -lsframe

test: all
	$(UNIT_BIN)
	$(DIFF_BIN)
	for t in $(LIVE_BINS); do $$t || exit 1; done
	$(ABI_BIN)
	$(CODECTL_RUN) -q -- $(ABI_BIN)
	$(E2E_BIN) --jobs 2
	$(LOADER_BIN) --jobs 2
	$(CORPUS_TEST) --jobs 2
	$(JIT_TEST) --jobs 2

check: $(DEPS_STAMP)
	$(MAKE) test
	$(MAKE) SAN=asan test
	$(MAKE) fuzz-smoke

# libFuzzer targets (clang), seeded with the shipped vectors' sections and writer output.
FUZZ_FLAGS := $(CPPFLAGS) -Itests/lib -std=gnu11 $(WARN) -g -O1
$(B)/fuzz/%: tests/fuzz/%.c $(EMU_SRC) $(TESTLIB_SRC) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$< $(EMU_SRC) $(TESTLIB_SRC) -o $@ -lelf

$(B)/fuzz/seeds/.done: $(VECTORS) tests/fuzz/make_seeds.c $(EMU_SRC) $(TESTLIB_SRC) | $(DEPS_STAMP)
	@mkdir -p $(@D)/fuzz_sframe $(@D)/fuzz_codectl
	$(CC) $(FUZZ_FLAGS) tests/fuzz/make_seeds.c $(EMU_SRC) $(TESTLIB_SRC) -o $(@D)/make_seeds -lelf
	$(@D)/make_seeds $(@D)/fuzz_sframe $(@D)/fuzz_codectl
	for f in $(VECTORS); do \
		objcopy -O binary --only-section=.sframe $$f \
			$(@D)/fuzz_sframe/$$(basename $$(dirname $$f))-$$(basename $$f).sframe; done
	touch $@

fuzz: $(FUZZ_BINS)

fuzz-smoke: $(FUZZ_BINS) $(B)/fuzz/seeds/.done
	for f in $(FUZZ_NAMES); do \
		mkdir -p $(B)/fuzz/corpus-$$f && \
		$(B)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=$(B)/fuzz/crash-$$f- \
			$(B)/fuzz/corpus-$$f $(B)/fuzz/seeds/$$f 2>&1 | tail -n 12; \
		test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

$(O)/bench/syscall: bench/syscall.c $(O)/obj/supervisor/notify.o tests/lib/sframe_writer.c \
		tests/lib/sframe_samples.c $(CODECTL_RUN) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/lib -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' $(CFLAGS) \
		$(filter %.c %.o,$^) -o $@ -lseccomp

# bench/sample: links the supervisor's sample reader and libunwind cross-check.
$(O)/bench/sample: bench/sample.c $(O)/obj/supervisor/sample_mem.o \
		$(O)/obj/supervisor/ref_unwind.o $(SUPERVISOR_LIB_OBJ) $(LIBEMU) $(CODECTL_RUN)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNWIND_PTRACE_CFLAGS) -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		$(CFLAGS) -Wa,--gsframe $(filter-out $(CODECTL_RUN),$^) -o $@ \
		$(UNWIND_PTRACE_LIBS) -ljansson

$(STARTUP_DIR)/libstart%.so: bench/startup/startup_lib.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -DLIB=$* -fPIC -shared -Wa,--gsframe $< -o $@

$(STARTUP_PROG): bench/startup/startup_prog.c $(STARTUP_LIBS)
	$(CC) $(PROG_CFLAGS) -Wa,--gsframe $< -o $@ -L$(STARTUP_DIR) \
		$(STARTUP_NUMS:%=-lstart%) -Wl,-rpath,'$$ORIGIN'

$(O)/bench/startup: bench/startup.c $(STARTUP_PROG) $(CODECTL_RUN) $(AUDIT_SO) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DAUDIT_SO='"$(abspath $(AUDIT_SO))"' -DSTARTUP_PROG='"$(abspath $(STARTUP_PROG))"' \
		$(CFLAGS) $< -o $@

bench: $(BENCH_BINS)
	$(O)/bench/unwind
	$(O)/bench/syscall
	$(O)/bench/startup
	$(O)/bench/sample
	$(O)/bench/jit

demo: all
	$(CODECTL_RUN) -- $(SAMPLING_DEMO)

abi-demo: all
	$(CODECTL_RUN) --trace -- $(ABI_DEMO)

install: all
	install -d $(DESTDIR)$(PREFIX)/include/linux $(DESTDIR)$(PREFIX)/include/codectl-emu/emu \
		$(DESTDIR)$(PREFIX)/lib
	install -m 644 include/codectl.h include/codectl_jit.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/linux/codectl.h $(DESTDIR)$(PREFIX)/include/linux/
	install -m 644 emu/*.h $(DESTDIR)$(PREFIX)/include/codectl-emu/emu/
	install -m 644 $(LIBEMU) $(DESTDIR)$(PREFIX)/lib/
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/doc/codectl-emu
	install -m 755 $(CODECTL_RUN) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/lib/codectl-emu
	install -m 644 $(AUDIT_SO) $(DESTDIR)$(PREFIX)/lib/codectl-emu/
	install -m 644 docs/*.md README.md $(DESTDIR)$(PREFIX)/share/doc/codectl-emu/

clean:
	rm -rf $(B)

-include $(shell find $(O)/obj -name '*.d' 2>/dev/null)

