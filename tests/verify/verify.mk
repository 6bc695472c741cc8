# SPDX-License-Identifier: GPL-2.0
#
# The verifier's suite (make test-verify): the abstract interpreter on
# hand-assembled functions, rows made wrong on purpose in corpus programs,
# every corpus object and binutils vector, the verdict programs with known
# wrong SFrame, sframe-verify's exit statuses and JSON, and codectl-run
# --verify (through every kernel front-end too: the e2e tests' kernel-prog).
# In-process (the verifier linked from libsupervisor, sanitized with
# SAN=asan). Included by the top-level Makefile: uses its $(O), $(CC),
# $(ALL_*FLAGS), $(SUPERVISOR_LIBS), $(TESTLIB_OBJ), the corpus' and the
# verdict programs' variables and $(say).

VERIFY_TEST := $(O)/tests/verify-tests
VERIFY_TEST_SRC := $(wildcard tests/verify/*.c) tests/e2e/run_helper.c
VERIFY_TEST_OBJ := $(VERIFY_TEST_SRC:%.c=$(O)/obj/%.o)

$(VERIFY_TEST_OBJ): ALL_CPPFLAGS += -Itests/lib -Itests/e2e \
	-DCORPUS_DIR='"$(abspath $(CORPUS_DIR))"' -DVERDICT_DIR='"$(abspath $(VERDICT_DIR))"' \
	-DVECTOR_DIR='"$(abspath tests/vectors)"' -DSFRAME_VERIFY='"$(abspath $(SFRAME_VERIFY))"' \
	-DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' -DKERNEL_PROG='"$(abspath $(KERNEL_PROG))"'

$(VERIFY_TEST): $(VERIFY_TEST_OBJ) $(TESTLIB_OBJ) $(LIBSUPERVISOR) $(LIBEMU)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) $^ -o $@ -lcriterion $(SUPERVISOR_LIBS)

# what the suite reads or runs (expanded where test-verify is, after $(KERNEL_PROG))
VERIFY_DEPS = $(VERIFY_TEST) $(SFRAME_VERIFY) $(CODECTL_RUN) $(AUDIT_SO) $(CORPUS_BINS) \
	$(CORPUS_LIBS) $(VERDICT_PROGS) $(KERNEL_PROG)
