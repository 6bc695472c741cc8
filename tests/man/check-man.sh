#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-man.sh BUILD_MAN_DIR: each man page built from docs/*.md
#  - is indexed by whatis/apropos (man-db's lexgrog parses its NAME line),
#  - shows at 80 columns with no warning from man -l (groff), in the C
#    locale (no glyph outside ASCII) and in a UTF-8 one,
#  - keeps every identifier of its source whole (no "_" read as emphasis):
#    each word with an underscore in docs/PAGE.md is in the rendered text at
#    least as many times as in the source.
# One line per page and check, a total; exit 1 on any failure.
set -u
dir=${1:-build/man}
pass=0 fail=0

say() {		# say RESULT PAGE WHAT [DETAIL]
	printf '%-4s  %-20s %s%s\n' "$1" "$2" "$3" "${4:+: $4}"
	if [ "$1" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}

for page in "$dir"/*.[0-9]; do
	name=$(basename "$page")
	src=docs/$name.md
	if out=$(lexgrog "$page" 2>&1) && [[ $out != *"parse failed"* ]]; then
		say PASS "$name" "lexgrog" "$(head -1 <<<"${out#*: }")"
	else
		say FAIL "$name" "lexgrog" "$out"
	fi
	for locale in C C.UTF-8; do	# a fresh machine's terminal, and a UTF-8 one
		warn=$(LC_ALL=$locale MANWIDTH=80 man -l "$page" 2>&1 >/dev/null)
		if [ -z "$warn" ]; then
			say PASS "$name" "man -l at 80 columns, $locale locale: no warning"
		else
			say FAIL "$name" "man -l at 80 columns, $locale locale" "$(head -3 <<<"$warn")"
		fi
	done
	text=$(MANWIDTH=10000 man -l "$page" 2>/dev/null | col -b)
	missing=()
	total=0
	while read -r want id; do
		total=$((total + 1))
		got=$(grep -oF -- "$id" <<<"$text" | wc -l)
		[ "$got" -ge "$want" ] || missing+=("$id ($got of $want)")
	done < <(grep -oE '[A-Za-z0-9]+(_[A-Za-z0-9]+)+' "$src" | sort | uniq -c)
	if [ ${#missing[@]} -eq 0 ]; then
		say PASS "$name" "identifiers with an underscore: all $total kept"
	else
		say FAIL "$name" "identifiers lost" "${missing[*]:0:8}"
	fi
done
echo "man pages: $((pass + fail)) checks, $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
