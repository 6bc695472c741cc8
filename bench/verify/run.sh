#!/bin/bash
# bench/verify/run.sh [BUILD_DIR]: the verifier's speed on the largest
# objects the tests build and on a real Debian program: Debian's lua5.4,
# built from its source package with -Wa,--gsframe by bench/lua/build.sh
# (as root, the first time: a few minutes; see bench/lua/README.md), and
# the unstripped interpreter from that build tree (its symbols name the
# findings). Then sframe-verify's report on the real program.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${1:-$top/build}
lua=$build/lua

"$top/bench/lua/build.sh" "$lua" >/dev/null
unstripped=$(find "$lua/src" -path '*/src/lua5.4' -type f | head -n1)
"$build/bench/verify" ${unstripped:+"$unstripped"} "$lua/lua5.4" "$lua/liblua5.4.so.0"
"$build/bench/verify" -t 0.5
echo
"$build/sframe-verify" ${unstripped:+"$unstripped"} "$lua/liblua5.4.so.0" || true
