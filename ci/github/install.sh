#!/usr/bin/env bash
# Installs workgate for the GitHub Action (ci/github/action.yml) and the
# GitLab template, in one of two ways:
#   - a Debian package (WG_DEB: an https URL, or a file), installed with
#     apt-get so that its declared dependencies come with it; it must be
#     built for the runner's distribution (`cpack -G DEB` on the same
#     release). WG_DEB_SHA256, when set, must match the file;
#   - a source build of WG_SOURCE (default: the checkout this script is in,
#     which for `uses: OWNER/workgate/ci/github@REF` is REF), configured
#     without tests, built and installed with `cmake --install` into
#     WG_PREFIX. A prefix that holds an install of the same source (its
#     .workgate-source-key is the source's key; the action restores WG_PREFIX
#     with actions/cache, the GitLab template with its cache) is kept and
#     the build skipped; the runtime packages are installed either way.
# Prints the directory holding the workgate executable on the last line of
# stdout, and adds it to GITHUB_PATH and to GITHUB_OUTPUT (bin-dir) where set.
#
# Usage: install.sh           install, as above
#        install.sh key       print the cache key of WG_SOURCE: its commit
#                             when it is a clean git checkout, else a digest
#                             of its files (an action downloaded by the runner
#                             has no .git), with the runner image (ImageOS)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="${WG_SOURCE:-$(dirname "$(dirname "$here")")}"
prefix="${WG_PREFIX:-${RUNNER_TEMP:-/tmp}/workgate-prefix}"
build="${WG_BUILD_DIR:-${RUNNER_TEMP:-/tmp}/workgate-build}"

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi

publish() {  # publish BIN_DIR
  "$1/workgate" --version >&2
  if [[ -n "${GITHUB_PATH:-}" ]]; then printf '%s\n' "$1" >>"$GITHUB_PATH"; fi
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then printf 'bin-dir=%s\n' "$1" >>"$GITHUB_OUTPUT"; fi
  printf '%s\n' "$1"
}

source_key() {
  local id
  if [[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" == "$src" &&
        -z "$(git -C "$src" status --porcelain 2>/dev/null)" ]]; then
    id="commit-$(git -C "$src" rev-parse HEAD)"
  else
    id="tree-$(cd "$src" && find . \( -name .git -o -path './build*' \) -prune -o -type f -print0 |
      LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-40)"
  fi
  printf '%s-%s\n' "${ImageOS:-unknown-image}" "$id"
}

if [[ "${1:-}" == "key" ]]; then
  key=$(source_key)
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then printf 'key=%s\n' "$key" >>"$GITHUB_OUTPUT"; fi
  printf '%s\n' "$key"
  exit 0
fi

if [[ -n "${WG_DEB:-}" ]]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  deb="$work/workgate.deb"
  case "$WG_DEB" in
    https://*) curl -fsSL --proto '=https' --retry 3 -o "$deb" -- "$WG_DEB" ;;
    # Loopback only: a package mirror on the runner itself, or a test.
    http://127.0.0.1[:/]* | http://localhost[:/]*) curl -fsSL --retry 3 -o "$deb" -- "$WG_DEB" ;;
    http://*) echo "install.sh: refusing to download a package over plain http: $WG_DEB" >&2; exit 1 ;;
    *) cp -- "$WG_DEB" "$deb" ;;
  esac
  if [[ -n "${WG_DEB_SHA256:-}" ]]; then
    got=$(sha256sum "$deb" | cut -d' ' -f1)
    if [[ "$got" != "$WG_DEB_SHA256" ]]; then
      echo "install.sh: $WG_DEB has sha256 $got, not $WG_DEB_SHA256: not installed" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$deb" >&2
  bin=$(command -v workgate || true)
  if [[ -z "$bin" ]]; then
    echo "install.sh: the package $WG_DEB installed no workgate on PATH" >&2
    exit 1
  fi
  publish "$(dirname "$bin")"
  exit 0
fi

# The packages building and running workgate need (Valgrind among them).
"$src/ci/setup" --build-only
key=$(source_key)
if [[ -x "$prefix/bin/workgate" && "$(cat "$prefix/.workgate-source-key" 2>/dev/null)" == "$key" ]]; then
  echo "install.sh: keeping the workgate of this source installed at $prefix (cached)" >&2
else
  rm -f "$prefix/.workgate-source-key"
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DWORKGATE_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >&2
  cmake --build "$build" -j"$(nproc)" >&2
  cmake --install "$build" --prefix "$prefix" >&2
  if [[ ! -x "$prefix/bin/workgate" ]]; then
    echo "install.sh: cmake --install put no bin/workgate under $prefix: this workgate source has no install rules" >&2
    exit 1
  fi
  printf '%s\n' "$key" >"$prefix/.workgate-source-key"
fi
publish "$prefix/bin"
