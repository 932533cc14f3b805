#!/usr/bin/env bash
# Installs the build (cmake --install) to one prefix, moves the tree
# elsewhere, and uses it from there: workgate finds its companions from its
# own location (FindCompanion in src/util/paths.cc), so the moved tree must
# probe (vgcount built, its resolution exact), compare known_work_a with
# known_work_b (delta exactly 1,000,000) and count with the clock shim. Also
# checks the installed files, and that no link in the tree points into the
# build or source tree. Run by ctest (tests/CMakeLists.txt).
# Usage: relocated_install_test.sh BUILD_DIR SOURCE_DIR BACKEND
#   BACKEND: vgcount where the build made it, else callgrind; CMAKE: the
#   cmake to install with
# Exit 77 (a skip) only where Valgrind is missing outside CI.
set -euo pipefail

build=$(realpath "$1")
source=$(realpath "$2")
backend=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The result store of this test's own (removed with it): counts made here
# never reach the user's store, and none of the user's is taken from it.
export XDG_CACHE_HOME="$work/cache"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

if ! command -v valgrind >/dev/null; then
  if [[ "${CI:-}" == true || "${CI:-}" == 1 ]]; then
    echo "FAIL: valgrind is not on PATH (CI=true: ci/setup installs it)" >&2
    exit 1
  fi
  echo "skip: valgrind is not on PATH (ci/setup installs it)"
  exit 77
fi

"${CMAKE:-cmake}" --install "$build" --prefix "$work/first" >/dev/null
mv "$work/first" "$work/moved"
prefix=$work/moved

for f in bin/workgate lib/workgate/known_loop lib/workgate/libworkgate-clock.so \
  include/workgate/region.h share/man/man1/workgate.1.gz share/doc/workgate/copyright; do
  [[ -f "$prefix/$f" ]] || fail "$f is not installed"
done
if [[ $backend == vgcount ]]; then
  compgen -G "$prefix/lib/workgate/valgrind-lib/vgcount-*-linux" >/dev/null ||
    fail "the vgcount tool is not installed in lib/workgate/valgrind-lib"
fi
# The README and every page it links to in docs/, at the same relative paths.
[[ -f "$prefix/share/doc/workgate/README.md" ]] || fail "README.md is not installed"
for page in "$source"/docs/*.md "$source"/docs/img/*.png; do
  [[ -e "$page" ]] || continue
  rel=${page#"$source"/}
  [[ -f "$prefix/share/doc/workgate/$rel" ]] || fail "$rel is not installed"
done
for schema in "$source"/schemas/*.json; do
  [[ -e "$schema" ]] || continue
  [[ -f "$prefix/share/workgate/schemas/$(basename "$schema")" ]] ||
    fail "schemas/$(basename "$schema") is not installed"
done
# grep reads all of it: with pipefail, a grep -q that stops at the first
# match could leave zcat writing into a closed pipe, and fail the check.
zcat "$prefix/share/man/man1/workgate.1.gz" | grep '^\.TH "workgate" "1"' >/dev/null ||
  fail "the man page is not workgate(1) in roff"
while IFS= read -r link; do
  target=$(readlink "$link")
  case $target in
    "$build"/* | "$source"/*) fail "$link points into the build or source tree: $target" ;;
  esac
  [[ -e "$link" ]] || fail "$link is dangling: $target"
done < <(find "$prefix" -type l)
ok "installed files"

# Nothing but the tree's own location may lead workgate to its companions.
run() { env -u WORKGATE_VGCOUNT_LIB -u WORKGATE_CLOCK_SHIM -u WORKGATE_VALGRIND "$@"; }
cd "$work"

if run "$prefix/bin/workgate" probe --json probe.json >probe.txt 2>&1; then
  python3 - "$backend" <<'PY' || fail "probe: $(cat probe.txt)"
import json, sys
backend = sys.argv[1]
probe = json.load(open("probe.json"))
assert probe["vgcount"]["built"] == (backend == "vgcount"), probe["vgcount"]
rows = [r for r in probe["resolution"] if r["backend"] == backend]
assert rows and rows[0]["ok"] and rows[0]["exact"], probe["resolution"]
PY
  ok "probe from the moved tree: known_loop found, $backend exact"
else
  fail "probe exited $?: $(cat probe.txt)"
fi

mkdir builds
cp "$build/probes/known_work_a" "$build/probes/known_work_b" builds/
set +e
run "$prefix/bin/workgate" compare --backend "$backend" --baseline builds/known_work_a \
  --candidate builds/known_work_b --timed 0 --json compare.json -- 1000 >compare.txt 2>&1
code=$?
set -e
if [[ $code -eq 1 ]] && python3 -c '
import json
assert json.load(open("compare.json"))["workloads"][0]["delta"] == 1000000' 2>/dev/null; then
  ok "compare from the moved tree: work added, delta 1000000"
else
  fail "compare exited $code (expected 1, delta 1000000): $(cat compare.txt)"
fi

# date reads the clock once; the shim's first wall-clock reading is
# WORKGATE_CLOCK_START's default, 1577836800 (src/shim/README.md). count
# passes the program's output through behind "  | ".
if run "$prefix/bin/workgate" count --backend "$backend" --clock shim -- /bin/date +%s \
  >count.txt 2>&1 && grep -qx '  | 1577836800' count.txt; then
  ok "count --clock shim from the moved tree: the shim pinned the clock"
else
  fail "count --clock shim: $(cat count.txt)"
fi

exit $((failures > 0))
