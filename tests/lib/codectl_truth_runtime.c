// SPDX-License-Identifier: GPL-2.0
/* The truth runtime (include/codectl_truth.h), linked into the corpus' truth builds. */
#define CODECTL_TRUTH_RUNTIME
#include "codectl_truth.h"
