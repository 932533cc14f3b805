#!/usr/bin/env bash
# Runs the README's quick start as written, on a project of "the user's own":
# a small C program in a git repository whose head commit adds work to a
# function, built by a Makefile. Fails when the README's commands stop
# working, when the gate no longer says "work added" (exit 1) with the
# workload named in the comment, when the A/A check (`compare --aa`) of the
# deterministic program does not pass and say so, or when the gate takes
# more than five commands. Run by ctest as DocsQuickStart (tests/CMakeLists.txt).
#
# Usage: quickstart_test.sh BUILD_DIR SOURCE_DIR
#
# What is run: the fenced blocks under the README's "## Quick start" heading,
# in order. The first block gets workgate (a build and an install); it is
# the one block not run: the build under test stands in for it, first on
# PATH. Every other `sh` block runs, as it stands, in the project's checkout;
# a `toml` block is the suite file that a later block names with --suite,
# written there under that name. Exit 77 (a skip) only where a tool the
# quick start needs is missing outside CI.
set -euo pipefail

build=$(realpath "$1")
source=$(realpath "$2")
readme=$source/README.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

for tool in git make cc valgrind; do
  command -v "$tool" >/dev/null && continue
  if [[ "${CI:-}" == true || "${CI:-}" == 1 ]]; then
    echo "FAIL: $tool is not on PATH (CI=true: ci/setup installs it)" >&2
    exit 1
  fi
  echo "skip: $tool is not on PATH (ci/setup installs it)"
  exit 77
done
[[ -x "$build/workgate" ]] || { echo "FAIL: no $build/workgate" >&2; exit 1; }

# The quick start's fenced blocks, one file each: $work/blocks/N.LANG.
mkdir "$work/blocks"
awk -v dir="$work/blocks" '
  /^## / { inside = ($0 ~ /^## Quick start/); next }
  !inside { next }
  /^```/ {
    if (fenced) { fenced = 0; next }
    fenced = 1; n++; lang = substr($0, 4); if (lang == "") lang = "text"
    file = sprintf("%s/%d.%s", dir, n, lang); printf "" > file; next
  }
  fenced { print >> file }
' "$readme"
mapfile -t blocks < <(find "$work/blocks" -type f -printf '%f\n' | sort -n)
if [[ ${#blocks[@]} -lt 2 || ${blocks[0]} != 1.sh ]]; then
  echo "FAIL: README.md's \"## Quick start\" has no sh block that gets workgate followed by" \
    "the gate's blocks (found: ${blocks[*]:-none})" >&2
  exit 1
fi
grep -q 'cmake --install' "$work/blocks/1.sh" ||
  fail "the quick start's first block is not the one that gets workgate (no cmake --install)"

# The user's project: the default branch holds a program, and the pull
# request's head doubles the work of its one function.
project=$work/project
mkdir -p "$project" "$work/home"
export HOME=$work/home XDG_CACHE_HOME=$work/cache GIT_CONFIG_NOSYSTEM=1
export PATH="$build:$PATH"
cat >"$project/prog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>

static unsigned long mix(unsigned long n) {
  unsigned long h = 1469598103934665603ul;
  for (unsigned long i = 0; i < n * 1000; ++i) h = (h ^ i) * 1099511628211ul;
  return h;
}

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
  printf("%lu\n", mix(n));
  return 0;
}
EOF
cat >"$project/Makefile" <<'EOF'
prog: prog.c
	$(CC) -O1 -g -o $@ prog.c
EOF
printf 'prog\nreport.md\n' >"$project/.gitignore"
(
  cd "$project"
  git init -q -b main
  git config user.name "A. User"
  git config user.email user@example.org
  git add -A && git commit -q -m "the program"
  git checkout -q -b faster-hash
  sed -i 's/  return h;/  for (unsigned long i = 0; i < n * 1000; ++i) h ^= h >> 7;\n  return h;/' prog.c
  git commit -q -am "a second pass over the hash"
)

# The commands of a block: its lines that are neither blank nor comments,
# each `&&`, `||` or `;` starting one more.
commands() {
  grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "$1" |
    awk '{ n++; n += gsub(/&&|\|\||;/, "") } END { print n + 0 }'
}

gates=0
for block in "${blocks[@]:1}"; do
  file=$work/blocks/$block
  case $block in
    *.toml)
      # Its name is the one a later block gives to --suite.
      name=$(cat "$work"/blocks/*.sh | grep -o -- '--suite [^ ]*' | head -1 | cut -d' ' -f2)
      [[ -n $name ]] || { fail "block $block: no later block runs it with --suite"; continue; }
      cp "$file" "$project/$name"
      continue
      ;;
    *.sh) ;;
    *)
      fail "block $block: the quick start's blocks are sh or toml"
      continue
      ;;
  esac
  n=$(commands "$file")
  if [[ $n -gt 5 ]]; then
    fail "block $block has $n commands; the README promises the gate in five or fewer"
  fi
  rm -f "$project/report.md"
  set +e
  (cd "$project" && bash -e "$file") >"$work/out" 2>&1
  code=$?
  set -e
  # The workload the report must name: the suite's, --name's, else an ad hoc
  # command's default name.
  if grep -q -- '--suite' "$file"; then
    expect=$(sed -n 's/^name = "\(.*\)"$/\1/p' "$project/$(grep -o -- '--suite [^ ]*' "$file" | cut -d' ' -f2)")
  elif grep -q -- '--name ' "$file"; then
    expect=$(grep -o -- '--name [^ ]*' "$file" | cut -d' ' -f2)
  else
    expect='command'
  fi
  if grep -q 'workgate compare --aa' "$file"; then
    # The A/A check of a deterministic program: exit 0, and the report says so.
    if [[ $code -ne 0 ]]; then
      fail "block $block exited $code, not 0 (the A/A check of a deterministic program):"
      sed 's/^/  | /' "$work/out" >&2
    elif ! grep -q 'deterministic on this machine' "$project/report.md"; then
      fail "block $block: report.md does not say the workloads are deterministic"
    else
      ok "block $block ($n commands): the A/A check says deterministic"
    fi
  elif grep -q 'workgate compare' "$file"; then
    gates=$((gates + 1))
    if [[ $code -ne 1 ]]; then
      fail "block $block exited $code, not 1 (work added):"
      sed 's/^/  | /' "$work/out" >&2
    elif ! grep -q 'work added' "$project/report.md"; then
      fail "block $block: report.md does not say work added"
    elif ! grep -qF "\`$expect\`" "$project/report.md"; then
      fail "block $block: report.md does not name the workload $expect"
    else
      ok "block $block ($n commands): work added, $expect named in report.md"
    fi
  elif [[ $code -ne 0 ]]; then
    fail "block $block exited $code:"
    sed 's/^/  | /' "$work/out" >&2
  else
    ok "block $block ($n commands)"
  fi
done
[[ $gates -ge 1 ]] || fail "no block of the quick start runs workgate compare"

if [[ $failures -gt 0 ]]; then
  echo "$failures failures" >&2
  exit 1
fi
echo "the README's quick start works"
