# bench/jit: the JIT writer run under codectl-run (built like a traced program:
# PROG_CFLAGS, never sanitized) and the lookup benchmark, which runs it.
BENCH_JIT_WRITER := $(O)/bench/jit-writer
BENCH_BINS += $(O)/bench/jit

$(BENCH_JIT_WRITER): bench/jit/jit_writer.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) $(DEPFLAGS) $< -o $@ \
		$(PROG_LDFLAGS)

$(O)/bench/jit: bench/jit.c $(LIBSUPERVISOR) $(LIBEMU) $(BENCH_JIT_WRITER) $(CODECTL_RUN)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CPPFLAGS) -Itests/lib -DLIBSFRAME_API=$(LIBSFRAME_API) \
		-DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DJIT_WRITER='"$(abspath $(BENCH_JIT_WRITER))"' $(ALL_CFLAGS) $(DEPFLAGS) -Wa,--gsframe \
		$(filter %.c %.a,$^) -o $@ $(ALL_LDFLAGS) -lsframe -lm $(SUPERVISOR_LIBS)
