# The sampling demo: a program and two shared libraries, all with .sframe
# (-Wa,--gsframe) and, as Debian builds by default at -O2, no frame pointers.
# Included at the end of the top-level Makefile; `make sampling-demo` builds it.

SAMPLING_DEMO_DIR := $(O)/tests/demo
SAMPLING_DEMO := $(SAMPLING_DEMO_DIR)/sampling-demo
SAMPLING_DEMO_LIBS := $(SAMPLING_DEMO_DIR)/libdemo_shapes.so $(SAMPLING_DEMO_DIR)/libdemo_sort.so

.PHONY: sampling-demo
sampling-demo: $(SAMPLING_DEMO)

$(SAMPLING_DEMO_DIR)/libdemo_%.so: tests/demo/libdemo_%.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(PROG_CFLAGS) $(DEPFLAGS) -fPIC -shared -Wa,--gsframe $< -o $@ \
		$(PROG_LDFLAGS)

$(SAMPLING_DEMO): tests/demo/sampling_demo.c $(SAMPLING_DEMO_LIBS)
	$(call say,CC,$@)$(CC) -D_GNU_SOURCE $(PROG_CFLAGS) $(DEPFLAGS) -Wa,--gsframe $< -o $@ \
		$(PROG_LDFLAGS) -L$(SAMPLING_DEMO_DIR) -ldemo_shapes -ldemo_sort \
		-Wl,-rpath,'$$ORIGIN' -lpthread
