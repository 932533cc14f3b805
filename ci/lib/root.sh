# shellcheck shell=bash
# A fresh Debian root for the CI scripts (sourced, not run):
# debootstrap --variant=minbase into a tmpfs, proc, sys and dev mounted in it,
# and all of it undone when the script exits, a failed or interrupted run
# included. ci/package-test installs the .deb into one, ci/release-test
# builds and tests workgate in one.
#
#   root_begin PURPOSE SIZE   makes the tmpfs ($ROOT, SIZE such as 2g) and
#                             sets the exit trap; 77 with the reason when
#                             this machine cannot (no chroot, no mounts)
#   root_make CODENAME        debootstraps Debian CODENAME into $ROOT, with
#                             the release's updates and security archives
#                             when it has them (STABLE=1); 5 when it fails
#   root_mount                mounts proc, sys and dev, and apt's archive
#                             cache of CODENAME
#   in_root COMMAND...        COMMAND in the root, as root, in a bare
#                             environment
#
# The caller is root (each script re-runs itself through sudo first). Only
# the first run downloads: debootstrap's packages and apt's archive are kept
# per release in $ROOT_CACHE (default .package-test/ under the checkout); the
# root is made from them afresh every time. WORKGATE_PACKAGE_TEST_MIRROR
# overrides the mirror (default http://deb.debian.org/debian).

ROOT="" ROOT_CODENAME=""
ROOT_CACHE=$(realpath -m "${WORKGATE_PACKAGE_TEST_CACHE:-${WORKGATE_ROOT:-.}/.package-test}")
ROOT_MIRROR=${WORKGATE_PACKAGE_TEST_MIRROR:-http://deb.debian.org/debian}
_root_log=""

# Every mount at or below the root, deepest first (debootstrap mounts some
# itself).
# shellcheck disable=SC2317  # both run from the EXIT trap
_root_mounts() {
  awk -v root="$ROOT" '$5 == root || index($5, root "/") == 1 { print $5 }' \
    /proc/self/mountinfo | sort -r
}
# shellcheck disable=SC2317
_root_cleanup() {
  local m
  for m in $(_root_mounts); do
    umount "$m" 2>/dev/null || umount -l "$m" || true
  done
  if [[ -n $(_root_mounts) ]]; then
    echo "ci: mounts are left below $ROOT: $(_root_mounts | tr '\n' ' ')" >&2
  else
    rmdir "$ROOT"
  fi
  rm -f "$_root_log"
}

root_begin() {
  local purpose=$1 size=$2
  if ! chroot / /bin/true 2>/dev/null; then
    echo "ci: skipped: chroot(2) is not allowed here" >&2
    return 77
  fi
  # The root lives in a tmpfs: dpkg syncs every file it writes, which on a
  # disk made debootstrap take 90 s here against 34 s in memory, and removing
  # the root is one umount.
  ROOT=$(mktemp -d "${TMPDIR:-/tmp}/workgate-$purpose.XXXXXX")
  if ! mount -t tmpfs -o "size=$size,mode=0755" "workgate-$purpose" "$ROOT" 2>/dev/null; then
    rmdir "$ROOT"
    echo "ci: skipped: this machine does not allow mounts (the root, and proc, sys and dev" \
      "in it)" >&2
    return 77
  fi
  _root_log=$(mktemp)
  trap _root_cleanup EXIT
  # An interrupted run exits, and so cleans up, too.
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

root_make() {
  ROOT_CODENAME=$1
  # Each release's packages apart: the names of two releases' files may agree.
  mkdir -p "$ROOT_CACHE/$ROOT_CODENAME/debootstrap" \
    "$ROOT_CACHE/$ROOT_CODENAME/apt-archives/partial"
  debootstrap --variant=minbase --cache-dir="$ROOT_CACHE/$ROOT_CODENAME/debootstrap" \
    "$ROOT_CODENAME" "$ROOT" "$ROOT_MIRROR" >"$_root_log" 2>&1 || {
    tail -20 "$_root_log" >&2
    return 5
  }
  # What an installation of a stable release has beside the release itself
  # (testing and unstable have neither).
  if [[ ${STABLE:-1} == 1 ]]; then
    cat >>"$ROOT/etc/apt/sources.list" <<SOURCES
deb $ROOT_MIRROR $ROOT_CODENAME-updates main
deb http://deb.debian.org/debian-security $ROOT_CODENAME-security main
SOURCES
  fi
}

root_mount() {
  mount -t proc proc "$ROOT/proc"
  mount -t sysfs sys "$ROOT/sys"
  mount --bind /dev "$ROOT/dev"
  mount --bind "$ROOT_CACHE/$ROOT_CODENAME/apt-archives" "$ROOT/var/cache/apt/archives"
}

in_root() {
  chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}

# root_log: the file to send a noisy command's output to (tail it on failure).
root_log() { echo "$_root_log"; }
