# SPDX-License-Identifier: GPL-2.0
#
# The differential corpus: small programs with known stack shapes, built with
# .sframe (-Wa,--gsframe) at -O0/-O2, with and without frame pointers, for
# comparing the SFrame walk of sampled stacks against libunwind.  Included at
# the end of the top-level Makefile; uses its $(O), $(CC), $(WARN), $(say)
# and $(DEPFLAGS).  Never sanitized.
#
#   make corpus		$(CORPUS_BINS) and the two libraries

CORPUS_NAMES := recursion alloca_vla varargs signal_deep setjmp_longjmp tailcall noreturn \
	switch_table realign nosframe_callback threads blocked_syscall
CORPUS_VARIANTS := O0-fp O0-nofp O2-fp O2-nofp O2-truth
CORPUS_DIR := $(O)/tests/corpus
CORPUS_BINS := $(foreach n,$(CORPUS_NAMES),$(foreach v,$(CORPUS_VARIANTS),$(CORPUS_DIR)/$(n)-$(v)))
# nosframe_callback's library, without .sframe, with and without frame pointers
CORPUS_LIBS := $(CORPUS_DIR)/libcorpus_nosf-fp.so $(CORPUS_DIR)/libcorpus_nosf-nofp.so

CORPUS_CFLAGS = -std=gnu11 $(WARN) -g $(CPPFLAGS)
corpus_flags_O0-fp := -O0 -fno-omit-frame-pointer
corpus_flags_O0-nofp := -O0 -fomit-frame-pointer
corpus_flags_O2-fp := -O2 -fno-omit-frame-pointer
corpus_flags_O2-nofp := -O2 -fomit-frame-pointer
# Knows its own stack: every function's entry and exit kept by the truth
# runtime (include/codectl_truth.h), which codectl-run reads at each sample.
# Not inlined: the hooks of an inlined function would count a frame that is not.
corpus_flags_O2-truth := -O2 -fomit-frame-pointer -fno-inline -finstrument-functions -Iinclude
corpus_srcs_O2-truth := tests/lib/codectl_truth_runtime.c

.PHONY: corpus
corpus: $(CORPUS_BINS) $(CORPUS_LIBS)

# $(CORPUS_DIR)/NAME-VARIANT from tests/corpus/src/NAME.c
define corpus_variant_rule
$$(CORPUS_DIR)/%-$(1): tests/corpus/src/%.c tests/corpus/src/corpus.h tests/corpus/corpus.mk \
		$$(corpus_srcs_$(1)) include/codectl_truth.h
	@mkdir -p $$(@D)
	$$(call say,CC,$$@)$$(CC) $$(CORPUS_CFLAGS) $$(corpus_flags_$(1)) -Wa,--gsframe $$< \
		$$(corpus_srcs_$(1)) -o $$@ $$(LDFLAGS) $$(CORPUS_LDLIBS)
endef
$(foreach v,$(CORPUS_VARIANTS),$(eval $(call corpus_variant_rule,$(v))))

$(CORPUS_DIR)/libcorpus_nosf-fp.so: tests/corpus/src/libcorpus_nosf.c tests/corpus/corpus.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(CORPUS_CFLAGS) -O2 -fno-omit-frame-pointer -fPIC -shared $< -o $@ \
		$(LDFLAGS)

$(CORPUS_DIR)/libcorpus_nosf-nofp.so: tests/corpus/src/libcorpus_nosf.c tests/corpus/corpus.mk
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(CORPUS_CFLAGS) -O2 -fomit-frame-pointer -fPIC -shared $< -o $@ \
		$(LDFLAGS)

# -fp programs load the -fp library, -nofp programs the -nofp one, from their own directory.
CORPUS_NOSF_FP := $(CORPUS_DIR)/nosframe_callback-O0-fp $(CORPUS_DIR)/nosframe_callback-O2-fp
CORPUS_NOSF_NOFP := $(CORPUS_DIR)/nosframe_callback-O0-nofp $(CORPUS_DIR)/nosframe_callback-O2-nofp \
	$(CORPUS_DIR)/nosframe_callback-O2-truth
$(CORPUS_NOSF_FP): $(CORPUS_DIR)/libcorpus_nosf-fp.so
$(CORPUS_NOSF_FP): CORPUS_LDLIBS = -L$(CORPUS_DIR) -lcorpus_nosf-fp -Wl,-rpath,'$$ORIGIN'
$(CORPUS_NOSF_NOFP): $(CORPUS_DIR)/libcorpus_nosf-nofp.so
$(CORPUS_NOSF_NOFP): CORPUS_LDLIBS = -L$(CORPUS_DIR) -lcorpus_nosf-nofp -Wl,-rpath,'$$ORIGIN'

$(filter $(CORPUS_DIR)/threads-%,$(CORPUS_BINS)): CORPUS_LDLIBS = -lpthread

# The differential corpus test: every corpus binary under codectl-run --check,
# its JSON report checked against each program's stack shapes.
#
#   $(CORPUS_TEST) --jobs 2
CORPUS_TEST := $(O)/tests/corpus-tests

$(CORPUS_TEST): tests/corpus/test_corpus.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Itests/lib -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DCORPUS_DIR='"$(abspath $(CORPUS_DIR))"' $(DRIVER_CFLAGS) $(DEPFLAGS) $< \
		-o $@ $(DRIVER_LDFLAGS) -lcriterion -ljansson
