# shellcheck shell=bash
# The two builds of workgate the CI scripts share (sourced, not run), so that
# ci/test, ci/fuzz, ci/demo and ci/package-test configure each the same way
# and never compile the core more often than these two:
#
#   build/      GCC (the system's c++), -O2 (C++ without -g): the product, its
#               tests, the demo and the Debian package;
#   build-san/  clang++ with AddressSanitizer and UndefinedBehaviorSanitizer
#               (WORKGATE_SANITIZE=ON): the sanitized test suite, and the
#               libFuzzer targets, which link the same sanitized core.
#
# Both compile the core in unity batches (WORKGATE_UNITY_BUILD, said
# explicitly, so that a build directory configured otherwise by hand is
# set back: ci/compile-alone and ci/mutations read build/'s batches). The C
# programs whose instructions the tests count (probes, workloads, the clock
# shim, vgcount) are compiled by the system's cc in both, so a count means
# the same in either.

# builds_configure_main DIR: configures DIR as the GCC build. -O2 as users
# build it, so the optimiser's warnings are the ones users meet, but the C++
# without debug information: nothing the steps run reads workgate's own, and
# it is a third of a core batch's compile time (GCC 12, a unity batch of
# src/util: 9.4 s with -g, 6.1 s without). The C flags keep RelWithDebInfo's
# -g: the probes and workloads (C) are what the tests' profiles name by line.
builds_configure_main() {
  cmake -S "$WORKGATE_ROOT" -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWORKGATE_UNITY_BUILD=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" >/dev/null
}

# builds_configure_sanitized DIR: configures DIR as the clang build with the
# sanitizers and the fuzzers. -O1 with line tables: what AddressSanitizer's
# documentation advises for reports with file and line, and about half the
# compile time of -O2 -g.
builds_configure_sanitized() {
  if ! command -v clang++ >/dev/null; then
    echo "ci: clang++ is not installed (ci/setup installs clang)" >&2
    return 5
  fi
  CC=cc CXX=clang++ cmake -S "$WORKGATE_ROOT" -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DWORKGATE_UNITY_BUILD=ON -DWORKGATE_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" >/dev/null
}

# builds_make DIR [TARGET...]: builds DIR (everything, or the TARGETs) on
# every core.
builds_make() {
  local dir=$1
  shift
  local -a targets=()
  [[ $# -gt 0 ]] && targets=(--target "$@")
  cmake --build "$dir" -j"$(nproc)" "${targets[@]}"
}

WORKGATE_ROOT=${WORKGATE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
