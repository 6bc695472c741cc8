#!/bin/sh
# Reproduces the lua5.4 figures of issue 5's closing note: Debian 12's lua5.4
# built from its source package with -Wa,--gsframe (build.sh), running
# bench.lua under codectl-run with sampling and the libunwind cross-check.
# Prints codectl-run's report (agreement, coverage by object, where SFrame
# coverage ends) and writes OUTDIR/report.json and OUTDIR/lua.folded.
#
#   bench/lua/run.sh [OUTDIR [SCALE]]     (as root on a fresh Debian 12)
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-$top/build/lua}
scale=${2:-1}

"$here/build.sh" "$out"
make -C "$top" -s build/codectl-run build/libcodectl-audit.so
# the build tree's binary: the same code as the .deb's, with its symbol table
lua="$out/src/lua5.4-5.4.4/src/lua5.4"
[ -x "$lua" ] || lua="$out/lua5.4"
echo "running $lua $here/bench.lua $scale under codectl-run"
"$top/build/codectl-run" --json "$out/report.json" --folded "$out/lua.folded" -- \
	"$lua" "$here/bench.lua" "$scale"
echo "report: $out/report.json, folded stacks: $out/lua.folded"
