# The sampling demo: a program and two shared libraries, all with .sframe
# (-Wa,--gsframe) and, as Debian builds by default at -O2, no frame pointers.
# Included at the end of the top-level Makefile; `make sampling-demo` builds it.

SAMPLING_DEMO_DIR := $(O)/tests/demo.d
SAMPLING_DEMO := $(SAMPLING_DEMO_DIR)/sampling-demo
SAMPLING_DEMO_LIBS := $(SAMPLING_DEMO_DIR)/libdemo_shapes.so $(SAMPLING_DEMO_DIR)/libdemo_sort.so

.PHONY: sampling-demo
sampling-demo: $(SAMPLING_DEMO)

$(SAMPLING_DEMO_DIR)/libdemo_%.so: tests/demo/libdemo_%.c tests/demo/libdemo_%.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -fPIC -shared -Wa,--gsframe $< -o $@

$(SAMPLING_DEMO): tests/demo/sampling_demo.c tests/demo/libdemo_shapes.h tests/demo/libdemo_sort.h \
		$(SAMPLING_DEMO_LIBS)
	$(CC) -D_GNU_SOURCE $(PROG_CFLAGS) -Wa,--gsframe $< -o $@ -L$(SAMPLING_DEMO_DIR) \
		-ldemo_shapes -ldemo_sort -Wl,-rpath,'$$ORIGIN' -lpthread
