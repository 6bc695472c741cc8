# SPDX-License-Identifier: GPL-2.0
#
# codectl-run --html in a real browser (make test-html): Debian's chromium
# headless shell loads the page from disk, network requests sent nowhere,
# and the DOM its script built is held to the --folded and --json files of
# the same run; a known input's geometry. The page writer is linked in
# (libsupervisor) for the known input. Included by the top-level Makefile:
# uses its $(O), $(CC), $(ALL_*FLAGS), $(SUPERVISOR_LIBS), $(TESTLIB_OBJ),
# $(SAMPLING_DEMO) and $(say).

HTML_TEST := $(O)/tests/html-tests
HTML_TEST_SRC := $(wildcard tests/html/*.c) tests/e2e/run_helper.c
HTML_TEST_OBJ := $(patsubst %.c,$(O)/obj/html/%.o,$(HTML_TEST_SRC))

$(O)/obj/html/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) -Itests/lib -Itests/e2e \
		-DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DSAMPLING_DEMO='"$(abspath $(SAMPLING_DEMO))"' $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(HTML_TEST): $(HTML_TEST_OBJ) $(TESTLIB_OBJ) $(LIBSUPERVISOR) $(LIBEMU)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) $^ -o $@ -lcriterion $(SUPERVISOR_LIBS)

# what the suite runs
HTML_DEPS = $(HTML_TEST) $(CODECTL_RUN) $(AUDIT_SO) $(SAMPLING_DEMO)
