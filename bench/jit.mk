# bench/jit: the JIT writer run under codectl-run (built like a traced program:
# PROG_CFLAGS, never sanitized) and the lookup benchmark, which runs it.
BENCH_JIT_WRITER := $(O)/bench/jit.d/jit-writer
BENCH_BINS += $(O)/bench/jit

$(BENCH_JIT_WRITER): bench/jit/jit_writer.c include/codectl_jit.h include/codectl.h \
		include/linux/codectl.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -Iinclude $(PROG_CFLAGS) $< -o $@

$(O)/bench/jit: bench/jit.c include/codectl_jit.h $(SUPERVISOR_LIB_OBJ) $(LIBEMU) \
		$(BENCH_JIT_WRITER) $(CODECTL_RUN) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DCODECTL_RUN='"$(abspath $(CODECTL_RUN))"' \
		-DJIT_WRITER='"$(abspath $(BENCH_JIT_WRITER))"' $(CFLAGS) -Wa,--gsframe \
		$(filter %.c %.o %.a,$^) -o $@ -lsframe -lm
