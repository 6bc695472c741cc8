#!/bin/bash
# Build Debian's lua5.4 from its Debian source package with -Wa,--gsframe,
# the Debian way (dpkg-buildpackage), without installing the result.
#
#   bench/lua/build.sh [OUTDIR]        (default: build/lua of this checkout)
#
# Needs root on Debian 12 (it enables deb-src and installs the build
# dependencies with apt-get).  Leaves in OUTDIR:
#
#   lua5.4            the interpreter (the ELF from the lua5.4 .deb); in
#                     Debian 12 it has the Lua core linked in and does not
#                     load liblua5.4.so.0
#   liblua5.4.so.0    the shared library (from the liblua5.4-0 .deb)
#   run-lua           a wrapper: LD_LIBRARY_PATH=OUTDIR OUTDIR/lua5.4 "$@"
#   root/             both .debs extracted (dpkg-deb -x)
#   src/              the source package, the build tree and the .debs
#   build.log         dpkg-buildpackage's output
#   stamp             what was built, with which flags
#
# A second run with the same source version and flags only re-checks and
# prints the command line.  Both ELF files must have a GNU_SFRAME program
# header, or the script fails.
set -euo pipefail

PKG=lua5.4
EXTRA_CFLAGS="-Wa,--gsframe"
RECIPE=1        # bump when a change to this script must rebuild the output
export DEBIAN_FRONTEND=noninteractive

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../build/lua}
mkdir -p "$out"
out=$(cd "$out" && pwd)

log() { printf 'lua-build: %s\n' "$*" >&2; }
die() { printf 'lua-build: error: %s\n' "$*" >&2; exit 1; }

# --- the check every run ends with ---------------------------------------
check_sframe() {
    local f ok=0
    for f in "$out/lua5.4" "$out/liblua5.4.so.0"; do
        [ -f "$f" ] || { log "missing: $f"; ok=1; continue; }
        if readelf -lW "$f" | grep -q 'GNU_SFRAME'; then
            printf '%s: ' "${f#"$out"/}"
            readelf -lW "$f" | grep 'GNU_SFRAME'
        else
            log "no GNU_SFRAME program header in $f"
            ok=1
        fi
    done
    return $ok
}

stamp_text() {
    printf 'source=%s\nCFLAGS_APPEND=%s\nrecipe=%s\n' "$1" "$EXTRA_CFLAGS" "$RECIPE"
}

finish() {
    check_sframe || die "the built lua5.4 lacks .sframe (see above)"
    local f
    for f in lua5.4 liblua5.4.so.0; do
        printf '%s: .sframe %s\n' "$f" \
            "$(readelf --sframe=.sframe "$out/$f" | grep -E 'Version|Num FDEs|Num FREs' | tr -s ' ' | tr '\n' ' ')"
    done
    # Debian 12's lua5.4 has the Lua core linked in (libtool -static
    # liblua5.4.la, exported with -Wl,-E for C modules): it needs only libc,
    # libm and libreadline, not liblua5.4.so.0.  Should a later Debian
    # revision link it dynamically, make sure it then finds ours.
    if readelf -dW "$out/lua5.4" | grep -q 'NEEDED.*\[liblua5\.4\.so\.0\]'; then
        local resolved
        resolved=$(LD_LIBRARY_PATH="$out" ldd "$out/lua5.4" | awk '/liblua5\.4\.so\.0/ {print $3}')
        [ "$resolved" = "$out/liblua5.4.so.0" ] \
            || die "lua5.4 resolves liblua5.4.so.0 to '$resolved', not $out/liblua5.4.so.0"
        log "lua5.4 links liblua5.4.so.0: run it with LD_LIBRARY_PATH=$out"
    else
        readelf -dW "$out/lua5.4" | grep -q 'NEEDED.*liblua' \
            && die "lua5.4 needs an unexpected liblua: $(readelf -dW "$out/lua5.4" | grep NEEDED)"
        log "lua5.4 has the Lua core linked in (as Debian 12 builds it); NEEDED:" \
            "$(readelf -dW "$out/lua5.4" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
    fi
    LD_LIBRARY_PATH="$out" "$out/lua5.4" -v >&2
    echo
    echo "run the benchmark with:"
    echo "  env LD_LIBRARY_PATH=$out $out/lua5.4 $here/bench.lua"
    echo "(the ELF itself; LD_LIBRARY_PATH only matters if lua5.4 links liblua5.4.so.0,"
    echo " which Debian 12's does not; wrapper for interactive use: $out/run-lua)"
}

# --- already built? ------------------------------------------------------
if [ -f "$out/stamp" ] && [ -f "$out/lua5.4" ] && [ -f "$out/liblua5.4.so.0" ]; then
    src_version=$(sed -n 's/^source=//p' "$out/stamp")
    if [ "$(stamp_text "$src_version")" = "$(cat "$out/stamp")" ]; then
        log "already built ($src_version) in $out"
        finish
        exit 0
    fi
fi

[ "$(id -u)" = 0 ] || die "run as root (needs apt-get for deb-src and the build dependencies)"

# --- apt: deb-src, lists, dpkg-dev ---------------------------------------
have_deb_src() {
    grep -Eqs '^[[:space:]]*Types:.*deb-src' /etc/apt/sources.list.d/*.sources ||
    grep -Eqs '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list
}

updated=0
apt_update() { log "apt-get update"; apt-get update -qq; updated=1; }

if ! have_deb_src; then
    # A separate file, so the system's own sources stay as they were: every
    # "deb" entry again as "deb-src".
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        log "adding /etc/apt/sources.list.d/debian-src.sources (deb-src of debian.sources)"
        sed -E 's/^([[:space:]]*Types:).*/\1 deb-src/' /etc/apt/sources.list.d/debian.sources \
            > /etc/apt/sources.list.d/debian-src.sources
    elif grep -Eqs '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list; then
        log "adding /etc/apt/sources.list.d/debian-src.list (deb-src of sources.list)"
        sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' /etc/apt/sources.list \
            > /etc/apt/sources.list.d/debian-src.list
    else
        die "no apt sources found to derive deb-src entries from"
    fi
    apt_update
fi

# Lists missing (fresh machine) or without the source package: update once.
if [ $updated = 0 ] && [ -z "$(apt-cache showsrc "$PKG" 2>/dev/null)" ]; then
    apt_update
fi
[ -n "$(apt-cache showsrc "$PKG" 2>/dev/null)" ] || die "apt-cache showsrc $PKG finds nothing"

apt_install() {   # apt-get with one retry after an update (stale lists: 404)
    apt-get "$@" || { [ $updated = 1 ] && return 1; apt_update; apt-get "$@"; }
}

if ! command -v dpkg-source >/dev/null || ! command -v dpkg-buildpackage >/dev/null; then
    apt_install install -y -qq --no-install-recommends dpkg-dev
fi

# --- source ----------------------------------------------------------------
mkdir -p "$out/src"
srcdir=$(find "$out/src" -mindepth 1 -maxdepth 1 -type d -name "$PKG-*" | head -n1)
if [ -z "$srcdir" ] || [ ! -f "$srcdir/debian/changelog" ]; then
    log "apt-get source $PKG"
    rm -rf "$out/src" && mkdir -p "$out/src"
    (cd "$out/src" && apt_install source -qq "$PKG") >&2
    srcdir=$(find "$out/src" -mindepth 1 -maxdepth 1 -type d -name "$PKG-*" | head -n1)
    [ -n "$srcdir" ] || die "apt-get source $PKG left no $PKG-* directory in $out/src"
fi
src_version=$(cd "$srcdir" && dpkg-parsechangelog -S Version)
log "source: $PKG $src_version in $srcdir"

# --- build dependencies ----------------------------------------------------
if ! (cd "$srcdir" && dpkg-checkbuilddeps) 2>/dev/null; then
    log "apt-get build-dep $PKG"
    apt_install build-dep -y -qq "$PKG"
    (cd "$srcdir" && dpkg-checkbuilddeps) || die "build dependencies still unmet"
fi

# --- build -----------------------------------------------------------------
# Debian's flags (dpkg-buildflags: -g -O2 -ffile-prefix-map -fstack-protector-
# strong -Wformat -Werror=format-security, no frame pointer) plus ours.
jobs=$(nproc 2>/dev/null || echo 1)
log "dpkg-buildpackage -b -uc -us (DEB_CFLAGS_APPEND=$EXTRA_CFLAGS, nocheck, parallel=$jobs); log: $out/build.log"
rm -f "$out"/src/*.deb "$out"/src/*.ddeb "$out"/src/*.changes "$out"/src/*.buildinfo
if ! (cd "$srcdir" &&
      DEB_CFLAGS_APPEND="$EXTRA_CFLAGS" \
      DEB_BUILD_OPTIONS="nocheck parallel=$jobs" \
      dpkg-buildpackage -b -uc -us) > "$out/build.log" 2>&1; then
    tail -n 40 "$out/build.log" >&2
    die "dpkg-buildpackage failed; full log: $out/build.log"
fi
grep -q -- "$EXTRA_CFLAGS" "$out/build.log" \
    || die "$EXTRA_CFLAGS does not appear in the compile lines of $out/build.log"

# --- extract, without installing -----------------------------------------
deb_lua=$(ls "$out"/src/lua5.4_*.deb 2>/dev/null | head -n1)
deb_lib=$(ls "$out"/src/liblua5.4-0_*.deb 2>/dev/null | head -n1)
[ -n "$deb_lua" ] && [ -n "$deb_lib" ] || die "lua5.4 / liblua5.4-0 .deb not produced in $out/src"
rm -rf "$out/root" && mkdir -p "$out/root"
dpkg-deb -x "$deb_lua" "$out/root"
dpkg-deb -x "$deb_lib" "$out/root"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
rm -f "$out/lua5.4" "$out/liblua5.4.so.0"
cp "$out/root/usr/bin/lua5.4" "$out/lua5.4"
cp -L "$out/root/usr/lib/$multiarch/liblua5.4.so.0" "$out/liblua5.4.so.0"

cat > "$out/run-lua" <<EOF
#!/bin/sh
# lua5.4 built by bench/lua/build.sh, with its own liblua5.4.so.0.
# (A supervisor that must exec the ELF itself: env LD_LIBRARY_PATH=$out $out/lua5.4 ...)
LD_LIBRARY_PATH="$out\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$out/lua5.4" "\$@"
EOF
chmod +x "$out/run-lua"

log "built $PKG $src_version into $out"
finish
stamp_text "$src_version" > "$out/stamp"   # only once the checks passed
