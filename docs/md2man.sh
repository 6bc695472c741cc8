#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# md2man.sh NAME.S < docs/NAME.S.md > NAME.S: a man page from one of docs/*.md.
#
# Before lowdown: the title line (for Markdown readers) goes; "## X" (NAME,
# SYNOPSIS, ...) become sections, "### X" subsections; each table becomes a
# list (a row: its first cell, then one line per other column, "header:
# cell"), which a terminal of 80 columns shows without squeezing columns.
# lowdown: no emphasis inside words (sframe_register stays whole).
# After: ".SH NAME" on one line and "name \- what" under it, as man-db's
# lexgrog (whatis, apropos) and mandb read a page; the few characters
# outside ASCII as groff's own names, which every output device can show
# (a terminal in the C locale has no glyph for "…").
set -e
name=${1%.*}
section=${1##*.}

awk '
NR == 1 { next }
/^#+ / { sub(/^#/, ""); print; next }
/^\|/ {
	line = $0
	sub(/^\| */, "", line)
	sub(/ *\| *$/, "", line)
	n = split(line, cell, / *\| */)
	if (!nhead) {			# the header row
		nhead = n
		for (i = 1; i <= n; i++)
			head[i] = cell[i]
		next
	}
	if (cell[1] ~ /^:?-+:?$/)	# the separator row
		next
	printf "- **%s**\n", cell[1]
	for (i = 2; i <= n; i++)
		printf "  - %s: %s\n", head[i], cell[i]
	next
}
{ if (nhead) print ""; nhead = 0; print }
' | lowdown --parse-no-intraemph -s -Tman -M "title=$name" -M "section=$section" \
	-M source=codectl-emu -M volume=codectl-emu - |
awk '
pending { print pending " \"" $0 "\""; named = $0 == "NAME"; pending = ""; next }
/^\.S[HS]$/ { pending = $0; next }
named && /^\.(LP|PP)$/ { next }
named && / — / { sub(/ — /, " \\- "); named = 0 }
{ print }
' | sed -e 's/…/.../g' -e 's/—/\\(em/g' -e 's/–/\\(en/g' -e 's/−/\\-/g' \
	-e 's/≥/\\(>=/g' -e 's/≤/\\(<=/g' -e 's/µ/\\(mc/g' -e 's/×/\\(mu/g' \
	-e 's/→/\\(->/g' -e 's/\\\[u2026\]/.../g'
