# The example JIT and its end-to-end tests (filled in by issue 6).
JIT_BINS :=
JIT_TEST := true
