#!/bin/bash
# check-arch.sh OBJDIR: the layering of tests/arch/layers, checked.
#
#  1. the table's arrows point one way (no cycle between parts);
#  2. every #include of every file of a listed part resolves (as the compiler
#     does: its own directory, then -Iinclude, then the top) to a file of its
#     own part or of a part it may include;
#  3. no file of the project (tracked, or new and not ignored) points outside
#     the repository: no "../shared", no absolute path under /work, no
#     kernel notes kept beside it (kernel-2026.md, kernel-sframe.md);
#  4. every citation of the ABI page in those files (codectl-abi.md, then a
#     quoted section name, as comments and docs write it, possibly across a
#     line break; "..." and "..."; an optional "step N") names text found in a
#     heading of docs/codectl-abi.md, and a cited step is a numbered item of
#     that heading's section;
#  5. no source file of supervisor/ reaches itself through the functions it
#     calls: from the objects in OBJDIR (nm), file A calls file B when A needs
#     a symbol B defines.
# Prints each violation (with file and line for 3 and 4); exit status 1 when
# there is any.
set -u
cd "$(dirname "$0")/../.." || exit 2
objdir=${1:?usage: check-arch.sh OBJDIR}
fail=0

# part -> allowed parts
declare -A allowed
while read -r part rest; do
	[ -z "$part" ] || [ "${part:0:1}" = "#" ] && continue
	allowed[$part]=" $part $rest "
done < tests/arch/layers

# 1. the table is a DAG: repeatedly drop parts that allow nothing left
left=" ${!allowed[*]} "
while :; do
	removed=0
	for p in $left; do
		deps=0
		for q in ${allowed[$p]}; do
			[ "$q" != "$p" ] && [[ $left == *" $q "* ]] && deps=1
		done
		[ $deps = 1 ] && continue
		left=${left/ $p / }
		removed=1
	done
	[ $removed = 0 ] && break
done
if [ -n "${left// /}" ]; then
	echo "check-arch: tests/arch/layers has a cycle among:$left"
	fail=1
fi

# the part a file belongs to, in $part: its directory, if listed (include/
# with its subdirectories), else empty (the functions set variables: no
# subshell per include line)
part_of() {
	part=${1%/*}
	[ "$part" = "$1" ] && part=.
	[[ $part == include/* ]] && part=include
	[ -n "${allowed[$part]+x}" ] || part=
}

# 2. includes
normalize() {	# $1: a relative path; $target: it without "." and ".." parts
	local p out=() IFS=/
	for p in $1; do
		case $p in
		''|.) ;;
		..) [ ${#out[@]} -gt 0 ] && unset 'out[-1]' ;;
		*) out+=("$p") ;;
		esac
	done
	target="${out[*]}"
}
resolve() {	# $1: including file, $2: quoted (q) or angle (a), $3: the name; sets $target
	target=
	if [ "$2" = q ] && [ -f "${1%/*}/$3" ]; then
		normalize "${1%/*}/$3"
	elif [ -f "include/$3" ]; then
		target="include/$3"
	elif [ "$2" = q ] && [ -f "$3" ]; then
		target=$3
	fi
}
include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]([^">]+)[">]'
for f in $(git ls-files 'include/*.h' 'emu/*.[ch]' 'supervisor/*.[ch]' 2>/dev/null ||
		find include emu supervisor -name '*.[ch]'); do
	part_of "$f"
	from=$part
	[ -n "$from" ] || continue
	while IFS= read -r line; do
		kind=q
		[[ $line == *\<* ]] && kind=a
		[[ $line =~ $include_re ]] || continue
		resolve "$f" $kind "${BASH_REMATCH[1]}"
		[ -n "$target" ] || continue	# a system header
		part_of "$target"
		to=$part
		if [ -z "$to" ]; then
			echo "check-arch: $f includes $target, which belongs to no part"
			fail=1
		elif [[ ${allowed[$from]} != *" $to "* ]]; then
			echo "check-arch: $f ($from) includes $target ($to): not allowed"
			fail=1
		fi
	done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$f")
done

# the project's files, NUL-separated: tracked, or new and not ignored (this
# script excepted: it names what it looks for)
project_files() {
	{ git ls-files -z --cached --others --exclude-standard 2>/dev/null ||
		find . \( -path ./build -o -path ./.git \) -prune -o -type f -printf '%P\0'; } |
	while IFS= read -r -d '' f; do
		[ -f "$f" ] && [ "$f" != tests/arch/check-arch.sh ] && printf '%s\0' "$f"
	done
}

# 3. nothing points outside the repository (a user's clone has nothing there)
outside=$(project_files | xargs -0 -r grep -HnIE -e '\.\./shared' \
	-e '(^|[^[:alnum:]_.~/$-])/wor[k]/' -e 'kernel-(2026|sframe)\.m[d]' -- 2>/dev/null)
if [ -n "$outside" ]; then
	while IFS= read -r hit; do
		f=${hit%%:*}
		rest=${hit#*:}
		echo "check-arch: $f:${rest%%:*}: points outside the repository: $(cut -c1-120 <<<"${rest#*:}" |
			sed 's/^[[:space:]]*//')"
	done <<<"$outside"
	fail=1
fi

# 4. every citation of the ABI page names one of its headings (and steps)
abi=docs/codectl-abi.md
if [ ! -f $abi ]; then
	echo "check-arch: $abi is missing"
	fail=1
else
	project_files | xargs -0 -r grep -lIZ 'codectl-abi\.md' -- 2>/dev/null |
		xargs -0 -r perl -e '
	use strict;
	use warnings;
	my $doc = shift @ARGV;
	open(my $dh, "<", $doc) or die "check-arch: cannot read $doc\n";
	my (@lines, @heads);
	my $fence = 0;
	while (my $l = <$dh>) {
		chomp $l;
		push @lines, $l;
		if ($l =~ /^\s*(```|~~~)/) { $fence = !$fence; next; }
		push @heads, [length($1), $2, $#lines] if !$fence && $l =~ /^(#{1,6})\s+(.*?)\s*#*\s*$/;
	}
	close $dh;
	# the lines under heading $i, up to the next heading of its level or above
	sub section {
		my ($i) = @_;
		my ($level, $from, $to) = ($heads[$i][0], $heads[$i][2], $#lines);
		for my $j ($i + 1 .. $#heads) {
			if ($heads[$j][0] <= $level) { $to = $heads[$j][2] - 1; last; }
		}
		return @lines[$from + 1 .. $to];
	}
	my $fail = 0;
	for my $f (@ARGV) {
		open(my $fh, "<", $f) or next;
		my ($text, @starts) = ("");
		while (my $l = <$fh>) {
			chomp $l;
			$l =~ s{^\s*(?:/\*+|\*+|//+|#+)?\s*}{};	# comment leaders
			push @starts, length $text;
			$text .= "$l ";
		}
		close $fh;
		while ($text =~ /codectl-abi\.md[`\])]*(?:,|\x27s)\s*("[^"]{1,120}"(?:\s*(?:,\s*(?:and\s+)?|and\s+)"[^"]{1,120}")*)(?:\s+step\s+(\d+))?/g) {
			my ($names, $step, $at) = ($1, $2, $-[0]);
			my $line = 1;
			$line++ while $line < @starts && $starts[$line] <= $at;
			for my $name ($names =~ /"([^"]+)"/g) {
				my @hit = grep { index($heads[$_][1], $name) >= 0 } 0 .. $#heads;
				if (!@hit) {
					print "check-arch: $f:$line: cites codectl-abi.md, \"$name\": no heading of $doc has that text\n";
					$fail = 1;
					next;
				}
				next if !defined $step;
				next if grep { my $i = $_; grep { /^\s*\Q$step\E\.\s/ } section($i) } @hit;
				print "check-arch: $f:$line: cites codectl-abi.md, \"$name\" step $step: no step $step under that heading of $doc\n";
				$fail = 1;
			}
		}
	}
	exit $fail;
	' $abi || fail=1
fi

# 5. no cycle through calls between supervisor's source files
objs=$(find "$objdir/supervisor" -name '*.o' 2>/dev/null | sort)
if [ -z "$objs" ]; then
	echo "check-arch: no objects in $objdir/supervisor: build first"
	exit 1
fi
cycles=$(for o in $objs; do
		f=${o#"$objdir"/}
		nm --defined-only -g "$o" | awk -v f="${f%.o}.c" '$2 ~ /[TDBR]/ { print "def", f, $3 }'
		nm -u "$o" | awk -v f="${f%.o}.c" '{ print "use", f, $2 }'
	done | awk '
	$1 == "def" { owner[$3] = $2; files[$2] = 1; next }
	{ uses[NR] = $2 SUBSEP $3; files[$2] = 1 }
	END {
		for (i in uses) {
			split(uses[i], u, SUBSEP)
			if ((u[2] in owner) && owner[u[2]] != u[1])
				edge[u[1], owner[u[2]]] = 1
		}
		n = 0
		for (f in files) name[n++] = f
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				reach[i, j] = ((name[i], name[j]) in edge)
		for (k = 0; k < n; k++)
			for (i = 0; i < n; i++)
				if (reach[i, k])
					for (j = 0; j < n; j++)
						if (reach[k, j])
							reach[i, j] = 1
		for (i = 0; i < n; i++)
			if (reach[i, i])
				print name[i]
	}' | sort)
if [ -n "$cycles" ]; then
	echo "check-arch: supervisor files that reach themselves through calls:" $cycles
	fail=1
fi
[ $fail = 0 ] && echo "check-arch: layering, call graph, paths and codectl-abi.md citations ok" \
	"($(wc -w <<<"$objs") objects)"
exit $fail
