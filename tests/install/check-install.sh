#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-install.sh CODECTL_RUN: make install into a DESTDIR, file by file.
#  - every directory variable (PREFIX, BINDIR, LIBDIR, INCLUDEDIR, MANDIR,
#    DOCDIR, PKGCONFIGDIR) is honoured: the tree holds exactly the files
#    listed below, and `make installed-files` (what uninstall removes) names
#    the same ones;
#  - the uapi headers are not in INCLUDEDIR/linux (linux-libc-dev's under
#    PREFIX=/usr); a C11 program using every public header compiles with
#    pkg-config --cflags alone; the .pc's Version is codectl-run --version's;
#  - the installed codectl-run finds the installed loader module: it accepts
#    as many registrations for /bin/true as the build tree's codectl-run;
#  - a second install with another PREFIX rewrites the .pc and relinks
#    codectl-run for its directories;
#  - every relative link of the installed README and docs resolves;
#  - make uninstall leaves no file.
# One line per check, a total; exit 1 on any failure.
set -u
build_run=$1
make="${MAKE:-make} --no-print-directory"
work=$(mktemp -d "${TMPDIR:-/tmp}/install.XXXXXX") || exit 1
pass=0 fail=0

say() {		# say RESULT WHAT [DETAIL]
	printf '%-4s  %s%s\n' "$1" "$2" "${3:+: $3}"
	if [ "$1" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}
check() {	# check WHAT WANT GOT
	if [ "$2" = "$3" ]; then say PASS "$1"; else say FAIL "$1" "want '$2', got '$3'"; fi
}
# accepted registrations in codectl-run's summary of /bin/true
accepted() {
	"$1" -F 0 -- /bin/true 2>&1 | awk '$1 == "pid" { getline; print $3 }'
}

dirs=(PREFIX=/usr BINDIR=/usr/local/xbin LIBDIR=/usr/lib/x86_64-linux-gnu INCLUDEDIR=/opt/inc
      MANDIR=/usr/share/man-x DOCDIR=/usr/share/doc/codectl-emu-x
      PKGCONFIGDIR=/usr/lib/x86_64-linux-gnu/pkgconfig)
d=$work/root
if ! $make -s install DESTDIR="$d" "${dirs[@]}" >"$work/install.log" 2>&1; then
	say FAIL "make install" "$(tail -3 "$work/install.log")"
	echo "install: $((pass + fail)) checks, $pass passed, $fail failed"
	exit 1
fi
want=$(sort <<'EOF'
/opt/inc/codectl-emu/linux/codectl.h
/opt/inc/codectl-emu/linux/eh_frame_setup.h
/opt/inc/codectl-emu/linux/sframe_setup.h
/opt/inc/codectl-emu/linux/stacktrace_setup.h
/opt/inc/codectl.h
/opt/inc/codectl_jit.h
/opt/inc/codectl_sframe_file.h
/opt/inc/codectl_truth.h
/opt/inc/eh_frame_register.h
/opt/inc/sframe_register.h
/opt/inc/stacktrace_setup.h
/usr/lib/x86_64-linux-gnu/codectl-emu/libcodectl-audit.so
/usr/lib/x86_64-linux-gnu/pkgconfig/codectl-emu.pc
/usr/local/xbin/codectl-run
/usr/local/xbin/sframe-extract
/usr/local/xbin/sframe-verify
/usr/share/doc/codectl-emu-x/README.md
/usr/share/doc/codectl-emu-x/docs/HACKING.md
/usr/share/doc/codectl-emu-x/docs/codectl-abi.md
/usr/share/doc/codectl-emu-x/docs/codectl-run.1.md
/usr/share/doc/codectl-emu-x/docs/codectl.2.md
/usr/share/doc/codectl-emu-x/docs/eh_frame_register.2.md
/usr/share/doc/codectl-emu-x/docs/jit-integration.md
/usr/share/doc/codectl-emu-x/docs/loader-integration.md
/usr/share/doc/codectl-emu-x/docs/sframe-extract.1.md
/usr/share/doc/codectl-emu-x/docs/sframe-verify.1.md
/usr/share/doc/codectl-emu-x/docs/sframe_register.2.md
/usr/share/man-x/man1/codectl-run.1
/usr/share/man-x/man1/sframe-extract.1
/usr/share/man-x/man1/sframe-verify.1
/usr/share/man-x/man2/codectl.2
/usr/share/man-x/man2/eh_frame_register.2
/usr/share/man-x/man2/sframe_register.2
EOF
)
got=$(cd "$d" && find . -type f -o -type l | cut -c2- | sort)
check "the installed files, every directory variable honoured" "$want" "$got"
check "make installed-files (what uninstall removes) names them" "$want" \
	"$($make -s installed-files "${dirs[@]}" | sort)"
check "nothing in INCLUDEDIR/linux or PREFIX/include/linux" "" \
	"$(ls "$d/opt/inc/linux" "$d/usr/include/linux" 2>/dev/null)"

pc_dir=$d/usr/lib/x86_64-linux-gnu/pkgconfig
pc() { PKG_CONFIG_SYSROOT_DIR=$1 PKG_CONFIG_LIBDIR=$2 pkg-config "${@:3}" codectl-emu; }
version=$("$d/usr/local/xbin/codectl-run" --version | awk '{ print $2; exit }')
check "the .pc's Version is codectl-run --version's" "$version" "$(pc "$d" "$pc_dir" --modversion)"
printf '%s\n' '#include <codectl.h>' '#include <codectl_jit.h>' '#include <codectl_truth.h>' \
	'#include <codectl_sframe_file.h>' \
	'#include <sframe_register.h>' '#include <stacktrace_setup.h>' '#include <eh_frame_register.h>' \
	'int main(void) { return CODECTL_JIT_FRE_STRIDE == 0; }' >"$work/use.c"
if out=$(cc -std=c11 -Wall -Wextra -Werror $(pc "$d" "$pc_dir" --cflags) -c "$work/use.c" \
	 -o "$work/use.o" 2>&1); then
	say PASS "every public header compiles (C11) with pkg-config --cflags alone"
else
	say FAIL "every public header compiles with pkg-config --cflags alone" "$(head -3 <<<"$out")"
fi
ref=$(accepted "$build_run")
if [ "${ref:-0}" -gt 0 ]; then
	say PASS "the build tree's codectl-run accepts $ref registrations for /bin/true"
else
	say FAIL "the build tree's codectl-run accepts registrations for /bin/true" "'$ref'"
fi
check "the installed codectl-run finds the installed loader module (accepted, as the build's)" \
	"$ref" "$(accepted "$d/usr/local/xbin/codectl-run")"

d2=$work/other
$make -s install DESTDIR="$d2" PREFIX=/opt/other >"$work/install2.log" 2>&1
check "a second install with PREFIX=/opt/other rewrites the .pc" \
	"prefix=/opt/other includedir=/opt/other/include" \
	"$(grep -E '^(prefix|includedir)=' "$d2/opt/other/share/pkgconfig/codectl-emu.pc" | xargs)"
check "and its codectl-run finds /opt/other/lib/codectl-emu" \
	"$ref" "$(accepted "$d2/opt/other/bin/codectl-run")"

broken=() links=0
while read -r md; do
	while read -r link; do
		links=$((links + 1))
		[ -e "$(dirname "$md")/${link%%#*}" ] || broken+=("${md#"$d"}: $link")
	done < <(grep -oE '\]\([^)#:]+(#[^)]*)?\)' "$md" | sed 's/^](//; s/)$//')
done < <(find "$d/usr/share/doc/codectl-emu-x" -name '*.md')
check "every relative link of the installed docs resolves ($links)" "" "${broken[*]:0:5}"

$make -s uninstall DESTDIR="$d" "${dirs[@]}" >"$work/uninstall.log" 2>&1
check "make uninstall leaves no file" "" "$(cd "$d" && find . -type f -o -type l)"
check "nor its own directories" "" \
	"$(cd "$d" && find . -type d -path '*codectl-emu*')"

rm -rf "$work"
echo "install: $((pass + fail)) checks, $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
