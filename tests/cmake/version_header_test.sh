#!/usr/bin/env bash
# Tests cmake/WorkgateVersion.cmake, the script every build runs to write the
# version header: a commit is named by `git describe --always --dirty`, an
# edit makes it -dirty, an unchanged tree leaves the header untouched (so
# nothing recompiles), and a tree without git metadata, alone or unpacked
# inside another repository, gets the project version and says it names no
# commit. Run by ctest (tests/CMakeLists.txt).
# Usage: version_header_test.sh SOURCE_DIR   (CMAKE: the cmake to run)
set -euo pipefail

source_dir=$1
script=$source_dir/cmake/WorkgateVersion.cmake
input=$source_dir/src/version.h.in
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

write_header() {  # write_header TREE: writes $work/version.h for TREE
  "${CMAKE:-cmake}" -DSOURCE_DIR="$1" -DPROJECT_VERSION=7.8.9 -DINPUT="$input" \
    -DOUTPUT="$work/version.h" -P "$script"
}
expect_line() {  # expect_line WHAT LINE: the header has exactly LINE
  if grep -qxF "$2" "$work/version.h"; then
    echo "ok: $1"
  else
    echo "FAIL: $1: no line '$2' in:" >&2
    cat "$work/version.h" >&2
    failures=$((failures + 1))
  fi
}

repo=$work/repo
mkdir "$repo"
git -C "$repo" init -q
echo one >"$repo/file"
git -C "$repo" add file
git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m one
commit=$(git -C "$repo" rev-parse --short HEAD)

write_header "$repo"
expect_line "a clean checkout names its commit" "#define WORKGATE_VERSION \"$commit\""
expect_line "the detail gives the project version" \
  '#define WORKGATE_VERSION_DETAIL "project version 7.8.9"'

before=$(stat -c %y "$work/version.h")
write_header "$repo"
if [[ $(stat -c %y "$work/version.h") == "$before" ]]; then
  echo "ok: an unchanged tree leaves the header untouched"
else
  echo "FAIL: the header was rewritten although its text is the same" >&2
  failures=$((failures + 1))
fi

echo two >"$repo/file"
write_header "$repo"
expect_line "an edited tree is dirty" "#define WORKGATE_VERSION \"$commit-dirty\""

git -C "$repo" -c user.name=t -c user.email=t@t commit -q -am two
git -C "$repo" -c user.name=t -c user.email=t@t tag -a -m release v7.8.9
write_header "$repo"
expect_line "a commit with a release tag is named by the tag" '#define WORKGATE_VERSION "v7.8.9"'

tarball=$work/tarball
mkdir "$tarball"
write_header "$tarball"
expect_line "a tree without git gets the project version" '#define WORKGATE_VERSION "7.8.9"'
expect_line "and says it names no commit" \
  '#define WORKGATE_VERSION_DETAIL "project version 7.8.9; built without git metadata, so it names no commit"'

mkdir "$repo/unpacked"
write_header "$repo/unpacked"
expect_line "a tree unpacked inside another repository does not take its commit" \
  '#define WORKGATE_VERSION "7.8.9"'

exit $((failures > 0))
