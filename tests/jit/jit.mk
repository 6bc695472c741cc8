# SPDX-License-Identifier: GPL-2.0
#
# The example JIT (tests/jit/jit_demo.c): code generated at run time into a
# code area registered once with CODE_REGISTER_JIT, its unwind tables written
# with include/codectl_jit.h; jit-check compares codectl-run's sampled stacks
# (--json-all) with the true call chains the demo writes; jit-tests runs both
# under codectl-run. Included by the top-level Makefile: uses its $(O), $(CC),
# $(PROG_CFLAGS), $(DRIVER_CFLAGS), $(PUBLIC_HDRS), $(CODECTL_RUN), $(AUDIT_SO) and $(say).
#
#   make demo-jit		build, run the demo under codectl-run, check its stacks
#   $(JIT_TEST) --jobs 2	the live tests (make test)

JIT_DIR := $(O)/tests/jit
JIT_DEMO := $(JIT_DIR)/jit-demo
JIT_CHECK := $(JIT_DIR)/jit-check
JIT_PROGS := $(JIT_DEMO) $(JIT_CHECK)
JIT_TEST := $(O)/tests/jit-tests
# built by make all (make test runs $(JIT_TEST))
JIT_BINS := $(JIT_PROGS) $(JIT_TEST)

JIT_DEMO_SRC := tests/jit/jit_demo.c tests/jit/jit_gen.c tests/jit/jit_leaf.c
JIT_HDRS := tests/jit/jit_gen.h $(PUBLIC_HDRS)

# Traced by codectl-run: never sanitized; .sframe for the C entries and leaves.
$(JIT_DEMO): $(JIT_DEMO_SRC) $(JIT_HDRS) tests/jit/jit.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) -Wa,--gsframe $(JIT_DEMO_SRC) \
		-o $@ $(PROG_LDFLAGS) -lpthread

$(JIT_CHECK): tests/jit/jit_check.c tests/jit/jit.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE $(DRIVER_CFLAGS) $(DEPFLAGS) $< -o $@ \
		$(DRIVER_LDFLAGS) -ljansson

JIT_TEST_SRC := tests/jit/test_jit_live.c tests/e2e/run_helper.c
$(JIT_TEST): $(JIT_TEST_SRC) tests/e2e/run_helper.h tests/lib/test_tmp.h
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Itests/e2e -Itests/lib \
		-DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' -DJIT_DEMO='"$(abspath $(JIT_DEMO))"' \
		-DJIT_CHECK='"$(abspath $(JIT_CHECK))"' $(DRIVER_CFLAGS) $(JIT_TEST_SRC) -o $@ \
		$(DRIVER_LDFLAGS) -lcriterion -ljansson

# The demo: 4 threads, 2 s of CPU time each, sampled at 299 Hz (the libunwind
# cross-check keeps up); codectl-run's report, then every JIT stack checked
# against the true chains.
JIT_DEMO_JSON := $(JIT_DIR)/demo-jit.json
JIT_DEMO_CHAINS := $(JIT_DIR)/demo-jit.chains
demo-jit: $(JIT_PROGS) $(CODECTL_RUN) $(AUDIT_SO)
	$(CODECTL_RUN) -F 299 --json-all $(JIT_DEMO_JSON) -- $(JIT_DEMO) --threads 4 \
		--seconds 2 --chains $(JIT_DEMO_CHAINS)
	$(JIT_CHECK) $(JIT_DEMO_JSON) $(JIT_DEMO_CHAINS)
