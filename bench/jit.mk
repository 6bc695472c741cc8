# bench/jit (filled in by issue 6).
