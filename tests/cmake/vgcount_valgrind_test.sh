#!/usr/bin/env bash
# Tests how configure picks the Valgrind vgcount is built against
# (tools/vgcount/CMakeLists.txt) and what it says where it cannot build
# vgcount: the Valgrind found, by version and valgrind.pc, and why. The
# Valgrinds are made here from the installed one's pieces, under other
# versions: one that is none of the tested versions and compiles, one whose
# tool headers lack a function vgcount calls, one without its coregrind
# archive, and a prefix without a valgrind.pc. All are configured one after
# the other in one build directory, as a user who changes
# VGCOUNT_VALGRIND_PREFIX does. Run by ctest (tests/CMakeLists.txt).
# Usage: vgcount_valgrind_test.sh SOURCE_DIR   (CMAKE: the cmake to run)
# Exits 77 (skipped) where no Valgrind with its tool-building pieces is
# installed, or on an architecture vgcount is not built for.
set -euo pipefail

source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

pc_dir=$(pkg-config --variable=pcfiledir valgrind 2>/dev/null) || true
case "$(uname -m)" in x86_64) platform=amd64-linux ;; aarch64) platform=arm64-linux ;; *) platform= ;; esac
if [[ -z $platform || -z $pc_dir ]]; then
  echo "skipped: no Valgrind that pkg-config finds, or an architecture vgcount is not built for"
  exit 77
fi
pc=$pc_dir/valgrind.pc
archives=$(pkg-config --variable=libdir "$pc")/valgrind
headers=$(pkg-config --variable=includedir "$pc")
prefix=$(pkg-config --variable=prefix "$pc")

# fake_valgrind DIR VERSION: a Valgrind installed at DIR (as make install
# lays it out), of the installed one's pieces, that says it is VERSION.
fake_valgrind() {
  mkdir -p "$1/lib/pkgconfig" "$1/lib/valgrind" "$1/include" "$1/libexec/valgrind" "$1/bin"
  cp -r "$headers" "$1/include/valgrind"
  ln -s "$archives"/*.a "$1/lib/valgrind/"
  ln -s "$prefix/libexec/valgrind/none-$platform" "$1/libexec/valgrind/"
  sed -e "s|^prefix=.*|prefix=$1|" -e "s|^libdir=.*|libdir=$1/lib|" \
    -e "s|^includedir=.*|includedir=$1/include/valgrind|" -e "s|^Version:.*|Version: $2|" \
    "$pc" >"$1/lib/pkgconfig/valgrind.pc"
}
configure() {  # configure PREFIX: configures $work/build against PREFIX's Valgrind
  "${CMAKE:-cmake}" -S "$source_dir" -B "$work/build" -DWORKGATE_BUILD_TESTS=OFF \
    -DVGCOUNT_VALGRIND_PREFIX="$1" 2>&1 | grep '^-- vgcount: ' >"$work/said" || true
}
expect_in() {  # expect_in FILE WHAT TEXT: FILE has a line holding TEXT
  if grep -qF -- "$3" "$1"; then
    echo "ok: $2"
  else
    echo "FAIL: $2: no line with '$3' in:" >&2
    cat "$1" >&2
    failures=$((failures + 1))
  fi
}
expect_said() { expect_in "$work/said" "$@"; }  # expect_said WHAT TEXT: configure said TEXT

newer=$work/valgrind-9.1.0
fake_valgrind "$newer" 9.1.0
configure "$newer"
expect_said "an untested Valgrind that vgcount compiles against is named as untested" \
  "vgcount: Valgrind 9.1.0 ($newer/lib/pkgconfig/valgrind.pc) is none of the Valgrinds vgcount is tested against ("
expect_said "and vgcount is built against it, to run under its launcher" \
  "against Valgrind 9.1.0 ($newer/lib/pkgconfig/valgrind.pc), to run under $newer/bin/valgrind"
record=$work/build/valgrind-lib/vgcount.valgrind
expect_in "$record" "the build records that Valgrind's version beside the tool" \
  "version: valgrind-9.1.0"
expect_in "$record" "and its launcher" "launcher: $newer/bin/valgrind"

older=$work/valgrind-3.1.0
fake_valgrind "$older" 3.1.0
sed -i '/VG_(HT_count_nodes)/d' "$older/include/valgrind/pub_tool_hashtable.h"
configure "$older"
expect_said "a Valgrind whose tool interface lacks what vgcount calls is named, with why" \
  "vgcount: not built (Valgrind 3.1.0 ($older/lib/pkgconfig/valgrind.pc) is none of the Valgrinds vgcount is tested against"
expect_said "and the compiler's first error says what is missing" \
  "and vgcount does not compile against its tool headers: "
expect_said "naming the function" "HT_count_nodes"

bare=$work/valgrind-9.2.0
fake_valgrind "$bare" 9.2.0
rm "$bare/lib/valgrind/libcoregrind-$platform.a"
configure "$bare"
expect_said "a Valgrind without its coregrind archive is named, with what it lacks" \
  "vgcount: not built (Valgrind 9.2.0 ($bare/lib/pkgconfig/valgrind.pc) has no $bare/lib/valgrind/libcoregrind-$platform.a"

configure "$work/nowhere"
expect_said "a prefix without a valgrind.pc says so" \
  "vgcount: not built (VGCOUNT_VALGRIND_PREFIX=$work/nowhere has no $work/nowhere/lib/pkgconfig/valgrind.pc"

exit $((failures > 0))
