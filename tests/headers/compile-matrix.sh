#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Every public header compiles alone: for each include/*.h and
# include/linux/*.h, a translation unit that includes only that header (then
# an empty main) is compiled as C99, C11 and GNU11 with gcc -Wall -Wextra
# -Werror -pedantic-errors, and as C++17 with g++ -Wall -Wextra -Werror
# -pedantic-errors (no feature macros: a header may not rely on the
# includer's). codectl_truth.h is compiled twice: also with its runtime
# (CODECTL_TRUTH_RUNTIME). One line per case, then the total; exit 1 when any
# case fails.
#
# usage: compile-matrix.sh [INCLUDE_DIR]	(default: include)
# CC and CXX choose the compilers (gcc, g++); the TUs and the compilers'
# messages go to $TMPDIR (make test sets it to the suite's own directory).

set -u

inc=${1:-include}
cc=${CC:-gcc}
cxx=${CXX:-g++}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/headers.XXXXXX") || exit 1

if [ ! -d "$inc" ]; then
	echo "compile-matrix: no directory $inc" >&2
	exit 1
fi

pass=0
fail=0
n=0
# "header" or "header MACRO": the header, included after #define MACRO
cases=()
for path in "$inc"/*.h "$inc"/linux/*.h; do
	[ -e "$path" ] || continue
	hdr=${path#"$inc"/}
	cases+=("$hdr")
	[ "$hdr" = codectl_truth.h ] && cases+=("$hdr CODECTL_TRUTH_RUNTIME")
done

for c in "${cases[@]}"; do
	read -r hdr def <<<"$c"
	n=$((n + 1))
	for std in c99 c11 gnu11 c++17; do
		case $std in
		c++*)
			src=$tmp/$n-$std.cc
			cmd=("$cxx" -std="$std" -Wall -Wextra -Werror -pedantic-errors)
			;;
		*)
			src=$tmp/$n-$std.c
			cmd=("$cc" -std="$std" -Wall -Wextra -Werror -pedantic-errors)
			;;
		esac
		{
			[ -n "$def" ] && printf '#define %s\n' "$def"
			printf '#include <%s>\n\nint main(void) { return 0; }\n' "$hdr"
		} >"$src"
		log=${src%.*}.log
		if "${cmd[@]}" -I "$inc" -c -o "${src%.*}.o" "$src" >"$log" 2>&1; then
			printf 'PASS  %-6s %s\n' "$std" "$c"
			pass=$((pass + 1))
		else
			printf 'FAIL  %-6s %s\n' "$std" "$c"
			sed 's/^/      | /' "$log"
			fail=$((fail + 1))
		fi
	done
done

echo "headers: $((pass + fail)) cases, $pass passed, $fail failed ($n TUs x c99 c11 gnu11 c++17)"
if [ "$n" = 0 ]; then
	echo "compile-matrix: no headers in $inc" >&2
	exit 1
fi
[ "$fail" = 0 ] && rm -rf "$tmp"
[ "$fail" = 0 ]
