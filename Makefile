# codectl-emu — build, test, benchmark and install. GNU make.
#
#   make            codectl-run, sframe-verify, sframe-extract, the loader module, libemu, tests and benchmarks into build/
#   make check      every test, the code suites again under ASan+UBSan, the fuzz smoke run
#   make demo       build, then run the sampling demo under codectl-run
#   make help       every target
#
# The first make installs the Debian packages the build needs (when run as
# root; otherwise it prints the apt-get line to run) and writes what it found
# to build/config.mk. CC, CFLAGS, CPPFLAGS and LDFLAGS may be given; they are
# added after the project's own flags. V=1 shows full command lines.
# SAN=asan builds into build/asan with AddressSanitizer and UBSan.

SHELL := /bin/bash
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:
# Where make install puts things, as GNU make users expect; each may be given.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/codectl-emu
PKGCONFIGDIR ?= $(PREFIX)/share/pkgconfig
DESTDIR ?=
B := build
VERSION := $(shell sed -n 's/^\#define CODECTL_EMU_VERSION "\(.*\)"/\1/p' supervisor/core/version.h)
# The loader module's directory as seen from BINDIR, and a file that changes
# when an install directory does (what depends on them is rebuilt then).
AUDIT_RELDIR := $(shell realpath -m --relative-to='$(BINDIR)' '$(LIBDIR)/codectl-emu')
INSTALL_DIRS_STAMP := $(B)/install-dirs
INSTALL_DIRS := $(PREFIX) $(BINDIR) $(LIBDIR) $(INCLUDEDIR) $(MANDIR) $(DOCDIR) $(PKGCONFIGDIR) \
	$(VERSION)

ifeq ($(origin CC),default)
CC := gcc
endif
CFLAGS ?= -O2 -g
CPPFLAGS ?=
LDFLAGS ?=

ifeq ($(SAN),asan)
O := $(B)/asan
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
O := $(B)
SANFLAGS :=
endif

WARN := -Wall -Wextra -Werror
DEPFLAGS := -MMD -MP
# codectl-run, libemu and the test binaries (sanitized with SAN=asan).
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS)
ALL_CPPFLAGS = -D_GNU_SOURCE -Iinclude -I. -DCAPSTONE_SONAME='"$(CAPSTONE_SONAME)"' $(CPPFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
# Programs that run traced by codectl-run: LeakSanitizer cannot run under ptrace.
PROG_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(CPPFLAGS)
PROG_LDFLAGS = $(LDFLAGS)
# Test drivers that start codectl-run and read what it wrote (e2e, loader,
# corpus, JIT): what they test, codectl-run, is sanitized in build/asan; they
# are not. Criterion forks each test from a runner with threads, and before
# GCC 14 an ASan allocator lock another thread held at the fork deadlocks
# the forked test for good. The sanitized in-process suites run one job at a
# time, watched for that hang (SAN_WATCH).
DRIVER_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(CPPFLAGS)
DRIVER_LDFLAGS = $(LDFLAGS)
# The public headers: every program built on include/ depends on them.
PUBLIC_HDRS := $(wildcard include/*.h include/linux/*.h)

# Short command lines ("  CC  file"), unless V=1.
ifeq ($(V),1)
say =
else
say = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

# ---------------------------------------------------------------- configuration

# The Debian packages the build and the tests need on every release; the
# configuration step adds the clang runtime that matches the installed clang
# (libFuzzer, sanitizers: libclang-rt-N-dev) and libsframe-dev where sframe.h
# has a package of its own (binutils 2.45+). libc6-dbg names libc's local
# functions (__libc_start_call_main, start_thread) in reports and tests;
# lowdown writes the man pages; strace is what one e2e test runs under;
# capstone decodes the code the frame-plausibility oracle reads; g++ compiles
# the public headers as C++17 (test-headers); man-db, groff-base and
# bsdextrautils show the man pages as users get them (test-man);
# chromium-headless-shell loads --html's page as a browser does (test-html).
DEB_PKGS := gcc g++ libc6-dev make pkg-config binutils binutils-dev clang libseccomp-dev \
	libunwind-dev libelf-dev libdw-dev libcriterion-dev libjansson-dev libcapstone-dev \
	libc6-dbg lowdown strace man-db groff-base bsdextrautils chromium-headless-shell \
	zlib1g-dev libzstd-dev

# Installs what is missing (as root) and writes $(1): the flags of this
# machine's libraries. Arguments: the file, the package list, the compiler.
define configure_sh
set -u
out=$1 pkgs=$2 cc=$3
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
candidate() { apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'; }
# the packages for this release: the clang runtime of clang's version (1:14.0-55 -> 14)
wanted() {
	local v
	echo $pkgs
	v=$(dpkg-query -W -f='${Version}' clang 2>/dev/null) || v=$(candidate clang)
	v=${v#*:}
	[ -n "$v" ] && echo "libclang-rt-${v%%.*}-dev"
	{ installed libsframe-dev || [ -n "$(candidate libsframe-dev)" ]; } && echo libsframe-dev
}
missing() { for p in $(wanted); do installed "$p" || echo "$p"; done | tr '\n' ' '; }

miss=$(missing)
if [ -n "$miss" ] && [ "$(id -u)" != 0 ]; then
	echo "make: Debian packages missing; as root, run:" >&2
	echo "apt-get install -y $miss" >&2
	exit 1
fi
if [ -n "$miss" ]; then
	for p in $miss; do
		[ -n "$(candidate "$p")" ] && continue
		echo "make: apt-get update (no package list names $p)"
		apt-get update -qq || exit 1
		miss=$(missing)
		break
	done
	mb=$(apt-get install --print-uris -qq $miss 2>/dev/null | awk '{ s += $3 } END { printf "%.1f", s / 1e6 }')
	echo "make: installing $(echo $miss | wc -w) Debian packages and what they need ($mb MB to download): $miss"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $miss || exit 1
	miss=$(missing)
	[ -z "$miss" ] || { echo "make: still missing after apt-get: $miss" >&2; exit 1; }
fi

pc() { pkg-config "$@" || { echo "make: pkg-config $* failed" >&2; exit 1; }; }
# binutils 2.45 changed libsframe's API (FRE getters take the FDE type, ...)
api=240
echo '#include <sframe-api.h>
int32_t f(const sframe_decoder_ctx *d, const sframe_frame_row_entry *e, int *err)
{ return sframe_fre_get_cfa_offset(d, e, 0, err); }' |
	$cc -x c -fsyntax-only - 2>/dev/null && api=245
{
	echo "# Written by make from this machine's packages: delete it to look again."
	echo "UNWIND_CFLAGS := $(pc --cflags libunwind)"
	echo "UNWIND_LIBS := $(pc --libs libunwind)"
	echo "UNWIND_PTRACE_CFLAGS := $(pc --cflags libunwind-ptrace)"
	echo "UNWIND_PTRACE_LIBS := $(pc --libs libunwind-ptrace libunwind-generic)"
	# capstone is loaded when first used (supervisor/core/x86_decoder.c): its soname
	libdir=$(pc --variable=libdir capstone) || exit 1
	cs=$(objdump -p "$libdir/libcapstone.so" | awk '$1 == "SONAME" { print $2 }')
	[ -n "$cs" ] || { echo "make: no soname in $libdir/libcapstone.so" >&2; exit 1; }
	echo "CAPSTONE_SONAME := $cs"
	echo "LIBSFRAME_API := $api"
	echo "CLANG := clang"
} >"$out.tmp" && mv "$out.tmp" "$out"
endef
export CONFIGURE_SH := $(value configure_sh)

CONFIG := $(B)/config.mk
# Goals that need neither the packages nor the configuration.
NOCONFIG_GOALS := clean help uninstall
ifneq ($(filter-out $(NOCONFIG_GOALS),$(or $(MAKECMDGOALS),$(.DEFAULT_GOAL))),)
include $(CONFIG)
endif

$(CONFIG): Makefile
	@mkdir -p $(@D)
	@bash -c "$$CONFIGURE_SH" configure $@ "$(DEB_PKGS)" "$(CC)"

.PHONY: deps
deps: $(CONFIG)

# ---------------------------------------------------------------- what is built

EMU_SRC := $(wildcard emu/*.c)
EMU_OBJ := $(EMU_SRC:%.c=$(O)/obj/%.o)
LIBEMU := $(O)/libemu.a

# sframe-verify: supervisor/verify's program; its main stays out of the library.
SFRAME_VERIFY_MAIN := supervisor/verify/sframe_verify.c
SFRAME_VERIFY := $(O)/sframe-verify

# codectl-run: its parts (supervisor/*/) in a library, which tests and
# benchmarks link through the parts' headers; the top (supervisor/*.c) wires them.
# sframe-extract: supervisor/extract's program.
SFRAME_EXTRACT_MAIN := supervisor/extract/sframe_extract.c
SFRAME_EXTRACT := $(O)/sframe-extract
SUPERVISOR_SRC := $(sort $(filter-out $(SFRAME_VERIFY_MAIN) $(SFRAME_EXTRACT_MAIN),\
	$(wildcard supervisor/*/*.c)))
SUPERVISOR_OBJ := $(SUPERVISOR_SRC:%.c=$(O)/obj/%.o)
LIBSUPERVISOR := $(O)/libsupervisor.a
RUN_SRC := $(wildcard supervisor/*.c)
RUN_OBJ := $(RUN_SRC:%.c=$(O)/obj/%.o)
# the soname x86_decoder.c loads is the configuration's
$(O)/obj/supervisor/core/x86_decoder.o: $(CONFIG)
# what linking the supervisor's oracles, calls and reports needs
# emu/'s codecs (file-backed SFrame, sframe_file.c)
EMU_LIBS := -lzstd -lz
SUPERVISOR_LIBS = -lseccomp $(UNWIND_PTRACE_LIBS) -ldw -lelf -ljansson $(EMU_LIBS)
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

# The ABI conformance suites: include/ and the test SFrame writer only; with
# its own .sframe, which the kernel profiles register at exec when they take
# its version.
ABI_SRC := $(wildcard tests/abi/*.c) tests/lib/sframe_writer.c tests/lib/sframe_samples.c \
	tests/lib/eh_frame_writer.c
ABI_HDRS := $(wildcard tests/abi/*.h) tests/lib/sframe_writer.h tests/lib/sframe_samples.h \
	tests/lib/eh_frame_writer.h \
	tests/lib/self_sframe.h
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
include tests/verdict/verdict.mk
include tests/verify/verify.mk
include tests/html/html.mk

# The ABI demo: a program that calls codectl(2) itself (make abi-demo).
ABI_DEMO := $(O)/tests/abi-demo

# End-to-end tests: codectl-run driving test programs.
E2E_PROG := $(O)/tests/e2e-prog
E2E_PROG_V1 := $(O)/tests/e2e-prog-v1
SFRAME_V1_COPY := $(O)/tests/sframe-v1-copy
SAMPLE_PROG := $(O)/tests/sample-prog
KERNEL_PROG := $(O)/tests/kernel-prog
# The security tests: a library stripped of its debug info (beside it:
# LIB.debug, which its .gnu_debuglink names) and a program that dlopens it.
SECURITY_LIB := $(O)/tests/security/libsecurity-test.so
SECURITY_PROG := $(O)/tests/security-prog
E2E_SRC := tests/e2e/test_e2e.c tests/e2e/test_sampling.c tests/e2e/test_restart.c \
	tests/e2e/test_kernel.c tests/e2e/test_security.c tests/e2e/run_helper.c
E2E_BIN := $(O)/tests/e2e-tests

# Live-stack unwinder tests, compiled with .sframe at -O0 and -O2.
LIVE_SRC := $(wildcard tests/unwind/*.c)
LIVE_BINS := $(O)/tests/unwind-live-O0 $(O)/tests/unwind-live-O2

FUZZ_NAMES := fuzz_sframe fuzz_codectl fuzz_verify fuzz_eh_frame
FUZZ_BINS := $(FUZZ_NAMES:%=$(B)/fuzz/%)
FUZZ_SECONDS ?= 600

BENCH_BINS := $(O)/bench/unwind $(O)/bench/syscall $(O)/bench/startup $(O)/bench/sample \
	$(O)/bench/crowd $(O)/bench/verify $(O)/bench/table_bytes $(O)/bench/sframe_file
# bench/jit: its own fragment (a JIT writer program and the lookup benchmark).
include bench/jit.mk
# bench/startup: a program linked against 20 libraries with .sframe.
STARTUP_DIR := $(O)/bench/startup-libs
STARTUP_NUMS := 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20
STARTUP_LIBS := $(STARTUP_NUMS:%=$(STARTUP_DIR)/libstart%.so)
STARTUP_PROG := $(STARTUP_DIR)/startup-prog
STARTUP_STAMP := $(STARTUP_DIR)/startup-stamp

VECTORS := $(filter-out %.txt,$(wildcard tests/vectors/v*/*-O*))

# Man pages: docs/NAME.SECTION.md
MAN_SRC := $(wildcard docs/*.[1-8].md)
MAN_PAGES := $(MAN_SRC:docs/%.md=$(B)/man/%)

ALL_BINS := $(LIBEMU) $(CODECTL_RUN) $(SFRAME_VERIFY) $(SFRAME_EXTRACT) $(AUDIT_SO) $(LOADER_PROGS) $(LOADER_BIN) $(ABI_DEMO) \
	$(SAMPLING_DEMO) $(CORPUS_BINS) $(CORPUS_TEST) $(JIT_BINS) $(VERDICT_BINS) $(VERIFY_TEST) $(ABI_BIN) $(E2E_PROG) \
	$(E2E_PROG_V1) $(SAMPLE_PROG) $(KERNEL_PROG) $(SECURITY_LIB) $(SECURITY_PROG) $(E2E_BIN) \
	$(UNIT_BIN) $(DIFF_BIN) $(DIFF_OBJS) $(LIVE_BINS) $(BENCH_BINS) $(HTML_TEST)

.PHONY: all
all: $(ALL_BINS) $(MAN_PAGES)

# ---------------------------------------------------------------- libemu, codectl-run, the module

$(O)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIBEMU): $(EMU_OBJ)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^

$(O)/obj/supervisor/%.o: ALL_CPPFLAGS += $(UNWIND_PTRACE_CFLAGS)
# --html's page, built into codectl-run (.incbin)
$(O)/obj/supervisor/report/page.o: supervisor/report/page.html
$(LIBSUPERVISOR): $(SUPERVISOR_OBJ)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^

# libunwind's signal masks are answered by codectl-run itself
# (supervisor/oracle/libunwind_sigmask.c): its object is linked by name (a
# sanitizer's runtime, linked first, defines both functions too, and the
# archive's member would never be pulled) and the link exports both.
SIGMASK_OBJ := $(O)/obj/supervisor/oracle/libunwind_sigmask.o
SIGMASK_EXPORTS := -Wl,--export-dynamic-symbol=sigprocmask \
	-Wl,--export-dynamic-symbol=pthread_sigmask
$(CODECTL_RUN): $(RUN_OBJ) $(SIGMASK_OBJ) $(LIBSUPERVISOR) $(LIBEMU)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) $(SIGMASK_EXPORTS) $^ -o $@ $(SUPERVISOR_LIBS)

# The codectl-run make install copies: it finds the loader module in
# LIBDIR/codectl-emu as seen from BINDIR (so a DESTDIR tree works where it is
# unpacked), and is relinked when an install directory changes. The build
# tree's own codectl-run, which the tests run, is not touched by that.
INSTALL_RUN := $(O)/install/codectl-run
$(O)/install/main.o: supervisor/main.c $(INSTALL_DIRS_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) $(UNWIND_PTRACE_CFLAGS) \
		-DAUDIT_DIR_FROM_BINDIR='"$(AUDIT_RELDIR)"' $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(INSTALL_RUN): $(O)/install/main.o $(filter-out %/main.o,$(RUN_OBJ)) $(LIBSUPERVISOR) $(LIBEMU)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) $^ -o $@ $(SUPERVISOR_LIBS)

$(SFRAME_VERIFY): $(SFRAME_VERIFY_MAIN:%.c=$(O)/obj/%.o) $(LIBSUPERVISOR) $(LIBEMU)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) $^ -o $@ $(SUPERVISOR_LIBS)
$(SFRAME_EXTRACT): $(SFRAME_EXTRACT_MAIN:%.c=$(O)/obj/%.o) $(LIBSUPERVISOR) $(LIBEMU)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) $^ -o $@ -lelf $(EMU_LIBS)

$(AUDIT_SO): $(AUDIT_SRC) $(wildcard emu/user/*.h) $(PUBLIC_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) -fPIC -shared \
		-fvisibility=hidden $(AUDIT_SRC) -o $@ $(PROG_LDFLAGS)

# ---------------------------------------------------------------- test programs

$(ABI_BIN): $(ABI_SRC) $(ABI_HDRS) $(PUBLIC_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude -Itests/lib $(PROG_CFLAGS) -Wa,--gsframe \
		$(ABI_SRC) -o $@ $(PROG_LDFLAGS) -lpthread -lz

$(LOADER_DIR)/libnosf.so: tests/loader/libnosf.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) $(DEPFLAGS) -fPIC -shared $< -o $@ $(PROG_LDFLAGS)

$(LOADER_DIR)/libb.so: tests/loader/libb.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) $(DEPFLAGS) -fPIC -shared -Wa,--gsframe \
		-Wl,--section-start=.fartext=0x400000 $< -o $@ $(PROG_LDFLAGS)

# two more files with libdl's layout, for address reuse
$(LOADER_DIR)/libdl2.so $(LOADER_DIR)/libdl3.so: tests/loader/libdl.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) $(DEPFLAGS) -fPIC -shared -Wa,--gsframe $< -o $@ \
		$(PROG_LDFLAGS)

$(LOADER_DIR)/lib%.so: tests/loader/lib%.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) $(DEPFLAGS) -fPIC -shared -Wa,--gsframe $< -o $@ \
		$(PROG_LDFLAGS)

$(LOADER_PROG): tests/loader/loader_prog.c $(LOADER_LIBS)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) $(DEPFLAGS) -Wa,--gsframe $< \
		-o $@ $(PROG_LDFLAGS) -L$(LOADER_DIR) -la -lb -lnosf -ldl -Wl,-rpath,'$$ORIGIN'

$(LOADER_DIR)/loader-prog-nopie: tests/loader/loader_prog.c $(LOADER_LIBS)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) $(DEPFLAGS) -fno-pie -no-pie \
		-Wa,--gsframe $< -o $@ $(PROG_LDFLAGS) -L$(LOADER_DIR) -la -lb -lnosf -ldl \
		-Wl,-rpath,'$$ORIGIN'

$(LOADER_DIR)/static-prog: tests/loader/static_prog.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -Iinclude $(PROG_CFLAGS) $(DEPFLAGS) -static -Wa,--gsframe $< -o $@ \
		$(PROG_LDFLAGS)

$(LOADER_DIR)/other-audit.so: tests/loader/other_audit.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE $(PROG_CFLAGS) $(DEPFLAGS) -fPIC -shared $< -o $@ \
		$(PROG_LDFLAGS)

$(LOADER_BIN): $(LOADER_TEST_SRC) $(wildcard tests/loader/*.h) tests/e2e/run_helper.h \
		tests/lib/test_tmp.h
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Itests/e2e -Itests/lib -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DLOADER_DIR='"$(abspath $(LOADER_DIR))"' -DAUDIT_SO='"$(abspath $(AUDIT_SO))"' \
		-DSAMPLING_DEMO='"$(abspath $(SAMPLING_DEMO))"' \
		-DSFRAME_EXTRACT='"$(abspath $(SFRAME_EXTRACT))"' \
		-DOTHER_AUDIT_SO='"$(abspath $(LOADER_DIR))/other-audit.so"' \
		$(DRIVER_CFLAGS) $(LOADER_TEST_SRC) -o $@ $(DRIVER_LDFLAGS) -lcriterion -ljansson

$(ABI_DEMO): tests/demo/abi_demo.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) $(DEPFLAGS) -Wa,--gsframe $< \
		-o $@ $(PROG_LDFLAGS)

$(E2E_PROG): tests/e2e/e2e_prog.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude -Itests/lib $(PROG_CFLAGS) $(DEPFLAGS) \
		-Wa,--gsframe $< -o $@ $(PROG_LDFLAGS) -lpthread

# A program that is hard to sample (garbage frame pointer, unmapped code, ...).
$(SAMPLE_PROG): tests/e2e/sample_prog.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude -Itests/lib $(PROG_CFLAGS) $(DEPFLAGS) \
		-Wa,--gsframe $< -o $@ $(PROG_LDFLAGS) -lpthread

# The tracee of the kernel interfaces' end-to-end tests: include/ and the SFrame writer.
$(KERNEL_PROG): tests/e2e/kernel_prog.c tests/lib/sframe_writer.c tests/lib/sframe_writer.h \
		tests/lib/self_sframe.h $(PUBLIC_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude -Itests/lib $(PROG_CFLAGS) -Wa,--gsframe \
		$(filter %.c,$^) -o $@ $(PROG_LDFLAGS) -lpthread

# Debug info split off as objcopy(1) describes for --add-gnu-debuglink.
$(SECURITY_LIB): tests/e2e/security_lib.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -g -fPIC -shared $< -o $@.full $(PROG_LDFLAGS) && \
		objcopy --only-keep-debug $@.full $@.debug && \
		objcopy --strip-debug --add-gnu-debuglink=$@.debug $@.full $@ && rm $@.full

$(SECURITY_PROG): tests/e2e/security_prog.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE $(PROG_CFLAGS) $(DEPFLAGS) $< -o $@ $(PROG_LDFLAGS) -ldl

# e2e-prog with its .sframe written again as SFrame v1, whatever the assembler emits.
$(SFRAME_V1_COPY): $(O)/obj/tests/e2e/sframe_v1_copy.o $(TESTLIB_OBJ) $(LIBEMU)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) $^ -o $@ -lelf $(EMU_LIBS)
$(E2E_PROG_V1): $(E2E_PROG) $(SFRAME_V1_COPY)
	$(call say,GEN,$@)$(SFRAME_V1_COPY) $< $@

$(E2E_BIN): $(E2E_SRC) tests/e2e/run_helper.h tests/lib/test_tmp.h
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Itests/lib -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DE2E_PROG='"$(abspath $(E2E_PROG))"' -DE2E_PROG_V1='"$(abspath $(E2E_PROG_V1))"' \
		-DSAMPLE_PROG='"$(abspath $(SAMPLE_PROG))"' -DKERNEL_PROG='"$(abspath $(KERNEL_PROG))"' \
		-DSECURITY_LIB='"$(abspath $(SECURITY_LIB))"' -DSECURITY_PROG='"$(abspath $(SECURITY_PROG))"' \
		$(DRIVER_CFLAGS) $(E2E_SRC) -o $@ $(DRIVER_LDFLAGS) -lcriterion -ljansson -lelf

$(O)/obj/tests/%.o: ALL_CPPFLAGS += -Itests/lib -DVECTOR_DIR='"$(abspath tests/vectors)"' \
	-DLIBSFRAME_API=$(LIBSFRAME_API)
$(UNIT_BIN): $(UNIT_OBJ) $(TESTLIB_OBJ) $(O)/obj/supervisor/nonblocking_open.o $(SIGMASK_OBJ) \
		$(LIBSUPERVISOR) $(LIBEMU)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) $(SIGMASK_EXPORTS) $^ -o $@ -lcriterion -lsframe \
		$(SUPERVISOR_LIBS)

$(B)/diff-objs/%:
	@mkdir -p $(@D)
	$(call say,CC,$@)n=$*; src=tests/diff/src/$${n%-O*}.c; v=$${n##*-O}; opt=-O$${v%%-*}; \
	case $$v in *nofp) fp=-fomit-frame-pointer;; *) fp=-fno-omit-frame-pointer;; esac; \
	$(CC) $$opt $$fp -Wa,--gsframe -o $@ $$src
$(DIFF_OBJS): $(DIFF_SRC)

$(O)/obj/tests/diff/libsframe_diff.o: ALL_CPPFLAGS += -DDIFF_OBJ_DIR='"$(abspath $(B)/diff-objs)"'
$(DIFF_BIN): $(O)/obj/tests/diff/libsframe_diff.o $(TESTLIB_OBJ) $(LIBEMU)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) $^ -o $@ -lcriterion -lsframe -lelf $(EMU_LIBS)

$(LIVE_BINS): $(O)/tests/unwind-live-%: $(LIVE_SRC) $(LIBSUPERVISOR) $(LIBEMU)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) -Itests/lib $(UNWIND_CFLAGS) -std=gnu11 $(WARN) \
		$(CFLAGS) -$* $(SANFLAGS) $(DEPFLAGS) -Wa,--gsframe $^ -o $@ $(ALL_LDFLAGS) \
		-lcriterion $(UNWIND_LIBS) $(EMU_LIBS)

# ---------------------------------------------------------------- tests

# Every test binary runs with TMPDIR set to one directory of its own: removed
# when the tests pass, kept (and named) when they fail; and with a time limit,
# so that a hung suite fails instead of holding CI.
TEST_TIMEOUT ?= 1200
run_test = @t=$$(mktemp -d "$${TMPDIR:-/tmp}/codectl-check.XXXXXX") || exit 1; \
	echo "  TEST    $(1)"; \
	if TMPDIR=$$t timeout -k 10 $(TEST_TIMEOUT) $(1); then rm -rf "$$t"; \
	else s=$$?; [ $$s = 124 ] && echo "make: $(call suite_of,$(1)): no end after" \
		"$(TEST_TIMEOUT) s" >&2; \
		echo "make: $(call suite_of,$(1)) failed; its files are in $$t" >&2; exit $$s; fi
suite_of = $(firstword $(filter-out $(SAN_WATCH),$(1)))
# criterion's jobs for the sanitized in-process suites (see DRIVER_CFLAGS)
SAN_JOBS := $(if $(SANFLAGS),--jobs 1)
# ... and a test process that hangs before it starts (the ASan fork deadlock
# DRIVER_CFLAGS tells of) is taken for what it is: the suite runs once more.
SAN_WATCH := $(if $(SANFLAGS),tests/lib/criterion-watchdog.sh)

.PHONY: test test-unit test-diff test-live test-abi test-e2e test-loader test-corpus test-jit \
	test-verdict test-verify test-headers test-man test-install test-html
# The suites of compiled code (make check runs them again under ASan+UBSan), then
# those of the files the build writes (headers, man pages, the installed tree).
TEST_CODE := test-unit test-diff test-live test-abi test-e2e test-loader test-corpus test-jit \
	test-verdict test-verify
test: $(TEST_CODE) test-headers test-man test-install test-html

test-unit: $(UNIT_BIN)
	$(call run_test,$(SAN_WATCH) $(UNIT_BIN) $(SAN_JOBS))
test-diff: $(DIFF_BIN) $(DIFF_OBJS)
	$(call run_test,$(SAN_WATCH) $(DIFF_BIN) $(SAN_JOBS))
test-live: $(LIVE_BINS)
	$(foreach t,$(LIVE_BINS),$(call run_test,$(SAN_WATCH) $(t) $(SAN_JOBS))$(newline))
# Natively (every case skipped: ENOSYS), then under codectl-run in every
# profile each suite applies to (every case run): codectl's in the emulator
# profile, the kernel interfaces' in v16 (--strict; sframe_register also as built
# with CONFIG_SFRAME_VALIDATION) and v13, and once at
# other numbers, given to both sides as a kernel developer would.
KERNEL_SUITES := --suite sframe_register --suite prctl --suite stacktrace_setup
comma := ,
test-abi: $(ABI_BIN) $(CODECTL_RUN) $(AUDIT_SO)
	$(call run_test,$(ABI_BIN))
	$(call run_test,$(CODECTL_RUN) -q -- $(ABI_BIN) --no-skip --suite codectl)
	$(call run_test,$(CODECTL_RUN) -q -- $(ABI_BIN) --no-skip --suite eh_frame_register)
	$(call run_test,$(CODECTL_RUN) -q -- $(ABI_BIN) --no-skip --suite sframe_file)
	$(call run_test,$(CODECTL_RUN) -q --strict --sframe-validation -- $(ABI_BIN) --no-skip \
		--eh-frame-validation --suite eh_frame_register)
	$(call run_test,$(CODECTL_RUN) -q --strict --prctl-sframe -- $(ABI_BIN) --no-skip \
		$(KERNEL_SUITES))
	$(call run_test,$(CODECTL_RUN) -q --strict --sframe-validation -- $(ABI_BIN) --no-skip \
		--sframe-validation --suite sframe_register)
	$(call run_test,$(CODECTL_RUN) -q --kernel v13 --prctl-sframe -- $(ABI_BIN) --no-skip \
		--kernel v13 $(KERNEL_SUITES))
	$(call run_test,env SFRAME_REGISTER_NR=2001 SFRAME_UNREGISTER_NR=2002 \
		STACKTRACE_SETUP_NR=2003 EH_FRAME_REGISTER_NR=2004 EH_FRAME_UNREGISTER_NR=2005 \
		$(CODECTL_RUN) -q --kernel v16 --sframe-nr 2001$(comma)2002 \
		--stacktrace-setup-nr 2003 --eh-frame-nr 2004$(comma)2005 -- $(ABI_BIN) --no-skip \
		--suite sframe_register --suite stacktrace_setup --suite eh_frame_register)

# The layering of tests/arch/layers, no call cycle between supervisor files, no
# path outside the repository, and every codectl-abi.md citation resolving.
.PHONY: check-arch
check-arch: $(SUPERVISOR_OBJ) $(RUN_OBJ)
	@echo "  ARCH    tests/arch/layers"
	@tests/arch/check-arch.sh $(abspath $(O)/obj)
test-e2e: $(E2E_BIN) $(E2E_PROG) $(E2E_PROG_V1) $(SAMPLE_PROG) $(KERNEL_PROG) $(SECURITY_LIB) \
		$(SECURITY_PROG) $(CODECTL_RUN) $(AUDIT_SO)
	$(call run_test,$(E2E_BIN) --jobs 2)
test-loader: $(LOADER_BIN) $(LOADER_PROGS) $(CODECTL_RUN) $(AUDIT_SO) $(SAMPLING_DEMO) \
		$(SFRAME_EXTRACT)
	$(call run_test,$(LOADER_BIN) --jobs 2)
test-corpus: $(CORPUS_TEST) $(CORPUS_BINS) $(CORPUS_LIBS) $(CODECTL_RUN) $(AUDIT_SO)
	$(call run_test,$(CORPUS_TEST) --jobs 2)
test-jit: $(JIT_BINS) $(CODECTL_RUN) $(AUDIT_SO)
	$(call run_test,$(JIT_TEST) --jobs 2)
test-verdict: $(VERDICT_BINS) $(CODECTL_RUN) $(AUDIT_SO)
	$(call run_test,$(VERDICT_TEST) --jobs 2)
test-verify: $(VERIFY_DEPS)
	$(call run_test,$(SAN_WATCH) $(VERIFY_TEST) $(SAN_JOBS))
# Each public header alone, as C99, C11, GNU11 (gcc) and C++17 (g++), warnings as errors.
test-headers: tests/headers/compile-matrix.sh $(PUBLIC_HDRS)
	$(call run_test,tests/headers/compile-matrix.sh include)
# Each man page: indexed by whatis (lexgrog), no warning at 80 columns, identifiers whole.
test-man: tests/man/check-man.sh $(MAN_PAGES)
	$(call run_test,tests/man/check-man.sh $(B)/man)
# --html's page in Debian's chromium (headless), held to the run's --folded and --json.
test-html: $(HTML_DEPS)
	$(call run_test,$(HTML_TEST))
# make install into a DESTDIR with every directory variable, checked file by file.
test-install: tests/install/check-install.sh $(CODECTL_RUN) $(AUDIT_SO) $(SFRAME_EXTRACT)
	$(call run_test,tests/install/check-install.sh $(CODECTL_RUN))

define newline


endef

# make check builds with a job per CPU, and runs the suites one at a time: their
# sampling tests count samples of CPU time, which other suites would take.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
.PHONY: check
check: $(CONFIG)
	$(MAKE) -j$(CHECK_JOBS) all
	$(MAKE) check-arch test bench-smoke
	$(MAKE) -j$(CHECK_JOBS) SAN=asan all
	$(MAKE) SAN=asan $(TEST_CODE)
	$(MAKE) -j$(CHECK_JOBS) $(FUZZ_BINS) $(B)/fuzz/seeds/.done
	$(MAKE) fuzz-smoke

# ---------------------------------------------------------------- fuzzing

# libFuzzer targets (clang), seeded with the shipped vectors' sections and writer output.
FUZZ_FLAGS = $(ALL_CPPFLAGS) -Itests/lib -std=gnu11 $(WARN) -g -O1
$(B)/fuzz/%: tests/fuzz/%.c $(EMU_SRC) $(TESTLIB_SRC) $(wildcard emu/*.h tests/lib/*.h \
		tests/fuzz/*.h) $(PUBLIC_HDRS)
	@mkdir -p $(@D)
	$(call say,CLANG,$@)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all $< $(EMU_SRC) $(TESTLIB_SRC) -o $@ -lelf $(EMU_LIBS)

# fuzz_verify: the verifier too (supervisor/verify without the program and codectl-run's part)
FUZZ_VERIFY_SRC := $(filter-out $(SFRAME_VERIFY_MAIN) supervisor/verify/session.c,\
	$(wildcard supervisor/verify/*.c)) supervisor/core/x86_decoder.c
$(B)/fuzz/fuzz_verify: tests/fuzz/fuzz_verify.c $(FUZZ_VERIFY_SRC) $(EMU_SRC) $(TESTLIB_SRC) \
		$(wildcard emu/*.h tests/lib/*.h supervisor/verify/*.h supervisor/core/x86_decoder.h) \
		$(PUBLIC_HDRS)
	@mkdir -p $(@D)
	$(call say,CLANG,$@)$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all $< $(FUZZ_VERIFY_SRC) $(EMU_SRC) $(TESTLIB_SRC) -o $@ \
		-ldw -lelf -ljansson $(EMU_LIBS)

# Seeds: the writer's sections, calls, hand-made functions with rows (make_seeds), and
# each vector's .sframe (fuzz_sframe: also some as zstd block data) and whole file
# (fuzz_verify, after a byte 1).
$(B)/fuzz/seeds/.done: $(VECTORS) tests/fuzz/make_seeds.c $(EMU_SRC) $(TESTLIB_SRC) $(SFRAME_EXTRACT)
	@mkdir -p $(@D)/fuzz_sframe $(@D)/fuzz_codectl $(@D)/fuzz_verify $(@D)/fuzz_eh_frame
	$(call say,CC,$(@D)/make_seeds)$(CC) $(FUZZ_FLAGS) tests/fuzz/make_seeds.c $(EMU_SRC) \
		$(TESTLIB_SRC) -o $(@D)/make_seeds -lelf $(EMU_LIBS)
	$(@D)/make_seeds $(@D)/fuzz_sframe $(@D)/fuzz_codectl $(@D)/fuzz_verify \
		$(@D)/fuzz_eh_frame
	@for f in $(VECTORS); do \
		objcopy -O binary --only-section=.sframe $$f \
			$(@D)/fuzz_sframe/$$(basename $$(dirname $$f))-$$(basename $$f).sframe; \
		{ printf '\001'; cat $$f; } \
			>$(@D)/fuzz_verify/$$(basename $$(dirname $$f))-$$(basename $$f).elf; done
	@for f in $(filter %-O2-nofp,$(VECTORS)); do \
		z=$(@D)/fuzz_sframe/$$(basename $$(dirname $$f))-$$(basename $$f).zst; \
		$(SFRAME_EXTRACT) -z zstd -b 4096 -o $$z.file $$f >/dev/null && \
		tail -c +129 $$z.file >$$z && rm -f $$z.file; done
	@touch $@

# make fuzz FUZZ_SECONDS=N: every target for N s (default 600), side by side, its
# corpus kept in $(B)/fuzz/corpus-NAME across campaigns; make fuzz-smoke: 25 s.
# Each target's output is in $(B)/fuzz/NAME.log; its last lines are shown.
.PHONY: fuzz fuzz-smoke
define fuzz_run
	@for f in $(FUZZ_NAMES); do \
		echo "  FUZZ    $$f ($(1) s)"; \
		mkdir -p $(B)/fuzz/corpus-$$f || exit 1; \
		{ $(B)/fuzz/$$f -max_total_time=$(1) -print_final_stats=1 \
			-artifact_prefix=$(B)/fuzz/crash-$$f- \
			$(B)/fuzz/corpus-$$f $(B)/fuzz/seeds/$$f >$(B)/fuzz/$$f.log 2>&1; \
		  echo $$? >$(B)/fuzz/$$f.status; } & \
	done; wait; \
	for f in $(FUZZ_NAMES); do \
		echo "  FUZZ    $$f: the end of $(B)/fuzz/$$f.log"; tail -n 12 $(B)/fuzz/$$f.log; \
		test "$$(cat $(B)/fuzz/$$f.status)" = 0 || { echo "make: $$f failed" >&2; exit 1; }; \
	done
endef
fuzz: $(FUZZ_BINS) $(B)/fuzz/seeds/.done
	$(call fuzz_run,$(FUZZ_SECONDS))
fuzz-smoke: $(FUZZ_BINS) $(B)/fuzz/seeds/.done
	$(call fuzz_run,25)

# ---------------------------------------------------------------- benchmarks

# Benchmarks use libemu and the supervisor's parts through their headers.
$(O)/bench/%: bench/%.c $(LIBSUPERVISOR) $(LIBEMU)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -Wa,--gsframe \
		$(filter %.c %.a,$^) -o $@ $(ALL_LDFLAGS) -lsframe $(SUPERVISOR_LIBS)

# bench/table_bytes: libelf only; the demo's libraries among its defaults.
$(O)/bench/table_bytes: bench/table_bytes.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Wa,--gsframe \
		-DDEMO_DIR='"$(abspath $(O)/tests/demo)"' $< -o $@ $(ALL_LDFLAGS) -lelf

$(O)/bench/syscall: bench/syscall.c tests/lib/sframe_writer.c tests/lib/sframe_samples.c \
		$(LIBSUPERVISOR) $(LIBEMU) $(CODECTL_RUN)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) -Itests/lib -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		$(ALL_CFLAGS) $(filter %.c %.a,$^) -o $@ $(ALL_LDFLAGS) $(SUPERVISOR_LIBS)

# bench/sample: our walk against the libunwind oracle on the same samples (as
# codectl-run has it: libunwind's signal masks answered by the program).
$(O)/bench/sample: bench/sample.c $(SIGMASK_OBJ) $(LIBSUPERVISOR) $(LIBEMU) $(CODECTL_RUN)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		$(ALL_CFLAGS) -Wa,--gsframe $(filter %.c %.o %.a,$^) -o $@ $(ALL_LDFLAGS) \
		$(SIGMASK_EXPORTS) $(SUPERVISOR_LIBS)

# bench/verify: the verifier on the largest test objects and on bench/lua's build
$(O)/bench/verify: bench/verify.c $(LIBSUPERVISOR) $(LIBEMU)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) -DBUILD_DIR='"$(abspath $(O))"' \
		-DLUA_DIR='"$(abspath $(B))/lua"' $(ALL_CFLAGS) $(filter %.c %.a,$^) -o $@ \
		$(ALL_LDFLAGS) $(SUPERVISOR_LIBS)

$(STARTUP_DIR)/libstart%.so: bench/startup/startup_lib.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -DLIB=$* -fPIC -shared -Wa,--gsframe $< -o $@ \
		$(PROG_LDFLAGS)

$(STARTUP_PROG): bench/startup/startup_prog.c $(STARTUP_LIBS)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -Wa,--gsframe $< -o $@ $(PROG_LDFLAGS) \
		-L$(STARTUP_DIR) $(STARTUP_NUMS:%=-lstart%) -Wl,-rpath,'$$ORIGIN'

# bench/sframe_file: a program running the code of 20 libraries of 400 functions each.
SFFILE_DIR := $(O)/bench/sframe_file.d
SFFILE_LIBS := $(STARTUP_NUMS:%=$(SFFILE_DIR)/libsf%.so)
SFFILE_PROG := $(SFFILE_DIR)/sframe-file-prog
$(SFFILE_DIR)/libsf%.so: bench/sframe_file/lib.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -DLIB=$* -fPIC -shared -Wa,--gsframe $< -o $@ \
		$(PROG_LDFLAGS)
$(SFFILE_PROG): bench/sframe_file/prog.c $(SFFILE_LIBS)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -Wa,--gsframe $< -o $@ $(PROG_LDFLAGS) \
		-L$(SFFILE_DIR) $(STARTUP_NUMS:%=-lsf%) -Wl,-rpath,'$$ORIGIN'
$(O)/bench/sframe_file: bench/sframe_file.c tests/lib/elf_sframe.c $(LIBSUPERVISOR) $(LIBEMU) \
		$(SFFILE_PROG) $(CODECTL_RUN) $(AUDIT_SO) $(SFRAME_EXTRACT)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) -Itests/lib -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DSFFILE_DIR='"$(abspath $(SFFILE_DIR))"' \
		-DSFRAME_EXTRACT='"$(abspath $(SFRAME_EXTRACT))"' $(ALL_CFLAGS) \
		$(filter %.c %.a,$^) -o $@ $(ALL_LDFLAGS) $(SUPERVISOR_LIBS)

$(O)/bench/crowd: bench/crowd.c $(E2E_PROG) $(CODECTL_RUN)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DE2E_PROG='"$(abspath $(E2E_PROG))"' $(ALL_CFLAGS) $(CPPFLAGS) $< -o $@ $(ALL_LDFLAGS)

# startup-stamp: static, so that nothing of its own comes before the execve it times
$(STARTUP_STAMP): bench/startup/stamp.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) -static $< -o $@

$(O)/bench/startup: bench/startup.c $(STARTUP_PROG) $(STARTUP_STAMP) $(CODECTL_RUN) $(AUDIT_SO)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DAUDIT_SO='"$(abspath $(AUDIT_SO))"' -DSTARTUP_PROG='"$(abspath $(STARTUP_PROG))"' \
		-DSTARTUP_STAMP='"$(abspath $(STARTUP_STAMP))"' \
		$(ALL_CFLAGS) $(CPPFLAGS) $< -o $@ $(ALL_LDFLAGS)

# Every benchmark once in a quick mode (a few seconds each), so none can rot.
.PHONY: bench-smoke
bench-smoke: $(BENCH_BINS)
	$(call run_test,$(O)/bench/unwind --quick)
	$(call run_test,$(O)/bench/syscall --quick)
	$(call run_test,$(O)/bench/startup --runs 2)
	$(call run_test,$(O)/bench/sample --quick)
	$(call run_test,$(O)/bench/crowd --quick)
	$(call run_test,$(O)/bench/jit --quick)
	$(call run_test,$(O)/bench/verify -t 0.05)
	$(call run_test,$(O)/bench/table_bytes --quick)
	$(call run_test,$(O)/bench/sframe_file --quick)

.PHONY: bench
bench: $(BENCH_BINS)
	$(O)/bench/unwind
	$(O)/bench/syscall
	$(O)/bench/startup
	$(O)/bench/sample
	$(O)/bench/crowd
	$(O)/bench/jit
	$(O)/bench/verify
	$(O)/bench/table_bytes

# ---------------------------------------------------------------- demos

.PHONY: demo abi-demo
demo: all
	$(CODECTL_RUN) -- $(SAMPLING_DEMO)

abi-demo: $(ABI_DEMO) $(CODECTL_RUN) $(AUDIT_SO)
	$(CODECTL_RUN) --trace -- $(ABI_DEMO)

# ---------------------------------------------------------------- man pages, install

# docs/NAME.S.md -> NAME.S by lowdown (docs/md2man.sh says how).
$(B)/man/%: docs/%.md docs/md2man.sh
	@mkdir -p $(@D)
	$(call say,MAN,$@)docs/md2man.sh $* < $< > $@.tmp && mv $@.tmp $@

INSTALL_HDRS := include/codectl.h include/codectl_jit.h include/codectl_truth.h include/codectl_sframe_file.h \
	include/sframe_register.h include/stacktrace_setup.h include/eh_frame_register.h
# The emulated kernel's uapi headers, kept out of INCLUDEDIR/linux (which is
# linux-libc-dev's under PREFIX=/usr); pkg-config --cflags names their directory.
INSTALL_UAPI_HDRS := $(wildcard include/linux/*.h)
UAPI_DIR := $(INCLUDEDIR)/codectl-emu
# The README and every page it links to, so its links resolve where installed.
DOC_LINK := ](docs/[^)\#]*
DOC_FILES := README.md $(shell grep -o '$(DOC_LINK)' README.md | cut -c3- | sort -u)
PC_FILE := $(B)/codectl-emu.pc
I := $(DESTDIR)

$(INSTALL_DIRS_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(INSTALL_DIRS)' | cmp -s - $@ || echo '$(INSTALL_DIRS)' >$@

$(PC_FILE): $(INSTALL_DIRS_STAMP)
	@printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$(INCLUDEDIR)' '' \
		'Name: codectl-emu' 'Description: codectl(2) headers and the JIT writer helper' \
		'Version: $(VERSION)' 'Cflags: -I$${includedir} -I$${includedir}/codectl-emu' >$@

# Exactly what install writes, for uninstall.
MAN_INSTALLED = $(foreach m,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))
INSTALLED = $(BINDIR)/codectl-run $(BINDIR)/sframe-verify $(BINDIR)/sframe-extract \
	$(LIBDIR)/codectl-emu/libcodectl-audit.so \
	$(INSTALL_HDRS:include/%=$(INCLUDEDIR)/%) $(INSTALL_UAPI_HDRS:include/%=$(UAPI_DIR)/%) \
	$(PKGCONFIGDIR)/codectl-emu.pc $(MAN_INSTALLED) $(DOC_FILES:%=$(DOCDIR)/%)

.PHONY: install uninstall installed-files FORCE
FORCE:
install: $(INSTALL_RUN) $(SFRAME_VERIFY) $(SFRAME_EXTRACT) $(AUDIT_SO) $(MAN_PAGES) $(PC_FILE)
	install -D -m 755 $(INSTALL_RUN) $(I)$(BINDIR)/codectl-run
	install -D -m 755 $(SFRAME_VERIFY) $(I)$(BINDIR)/sframe-verify
	install -D -m 755 $(SFRAME_EXTRACT) $(I)$(BINDIR)/sframe-extract
	install -D -m 644 $(AUDIT_SO) $(I)$(LIBDIR)/codectl-emu/libcodectl-audit.so
	install -d $(I)$(INCLUDEDIR) $(I)$(UAPI_DIR)/linux $(I)$(PKGCONFIGDIR) $(I)$(DOCDIR)/docs
	install -m 644 $(INSTALL_HDRS) $(I)$(INCLUDEDIR)/
	install -m 644 $(INSTALL_UAPI_HDRS) $(I)$(UAPI_DIR)/linux/
	install -m 644 $(PC_FILE) $(I)$(PKGCONFIGDIR)/
	$(foreach m,$(MAN_PAGES),install -D -m 644 $(m) \
		$(I)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))$(newline))
	$(foreach f,$(DOC_FILES),install -m 644 $(f) $(I)$(DOCDIR)/$(f)$(newline))

uninstall:
	rm -f $(INSTALLED:%=$(I)%)
	-rmdir $(I)$(DOCDIR)/docs $(I)$(DOCDIR) $(I)$(LIBDIR)/codectl-emu $(I)$(UAPI_DIR)/linux \
		$(I)$(UAPI_DIR) 2>/dev/null

# One installed path per line (without DESTDIR), for the install test.
installed-files:
	@printf '%s\n' $(INSTALLED)

# ---------------------------------------------------------------- the rest

.PHONY: clean help
clean:
	rm -rf $(B)

help:
	@echo 'make [V=1] [SAN=asan] [CC=...] [CFLAGS=...] TARGET'
	@echo '  all          codectl-run, sframe-verify, sframe-extract, the loader module, libemu, man pages, tests,'
	@echo '               benchmarks'
	@echo '  demo         the sampling demo under codectl-run'
	@echo '  demo-jit     the example JIT under codectl-run, its stacks checked'
	@echo '  abi-demo     a program calling codectl(2), under codectl-run --trace'
	@echo '  check        check-arch, test, then the code suites under ASan+UBSan, then fuzz-smoke'
	@echo '  check-arch   the layering of tests/arch/layers, no call cycle in supervisor/,'
	@echo '               no path outside the repository, docs/codectl-abi.md citations'
	@echo '  test         every suite below'
	@echo '  test-unit    unit tests (emu/, the writer, classification, perf maps)'
	@echo '  test-diff    libsframe differential test'
	@echo '  test-live    live-stack unwinder tests (-O0, -O2)'
	@echo '  test-abi     the ABI conformance suites, natively and under codectl-run'
	@echo '  test-e2e     codectl-run end to end, sampling included'
	@echo '  test-loader  the loader module under codectl-run'
	@echo '  test-corpus  the sampled differential corpus'
	@echo '  test-jit     the example JIT live tests'
	@echo '  test-verdict programs with known wrong stacks: the verdicts on them'
	@echo '  test-verify  sframe-verify: every SFrame row against its code (corpus, vectors,'
	@echo '               rows made wrong, known toolchain bugs, codectl-run --verify)'
	@echo '  test-headers each public header alone: C99, C11, GNU11 and C++17, warnings as errors'
	@echo '  test-man     each man page: whatis can index it, man shows it at 80 columns'
	@echo '               without a warning, no identifier loses its underscores'
	@echo '  test-install make install into a DESTDIR with every directory variable, file by file'
	@echo '  test-html    --html in a real browser (chromium headless): frames, colours, search,'
	@echo '               tables against the run'"'"'s --folded and --json; a known input'"'"'s geometry'
	@echo '  fuzz         run the fuzz targets side by side for FUZZ_SECONDS (600), corpora kept'
	@echo '  fuzz-smoke   run them side by side for 25 s'
	@echo '  bench        run the benchmarks'
	@echo '  bench-smoke  every benchmark once in its quick mode (part of make check)'
	@echo '  install      PREFIX=$(PREFIX) DESTDIR=: codectl-run, sframe-verify, sframe-extract, the loader module, headers,'
	@echo '               man pages, pkg-config file'
	@echo '  uninstall    remove what install wrote'
	@echo '  deps         install the Debian packages (as root) and write build/config.mk'
	@echo '  clean        remove build/'

-include $(shell find $(O) -name '*.d' -type f 2>/dev/null)
