# shellcheck shell=bash
# The machine's release (sourced, not run): which Debian or Ubuntu the CI
# scripts run on, whether workgate is known to build and test there, and the
# Debian codename for the roots and sources they fetch.
#
#   release_read           sets RELEASE_ID (debian, ubuntu, ...),
#                          RELEASE_VERSION (12, 13, 24.04; empty on testing),
#                          RELEASE_CODENAME (bookworm, trixie, noble) and
#                          RELEASE_NAME (for messages) from /etc/os-release,
#                          or from $WORKGATE_OS_RELEASE (the tests' stand-in)
#   release_refuses SCOPE  prints why workgate cannot be set up here for SCOPE
#                          (build: build and run it, and its fast tests;
#                          tests: its whole test suite) and returns 0;
#                          returns 1 when it can
#
# What each release has was checked against its published package lists
# (docs/install.md, "Where workgate builds").

# The RELEASE_ variables are read by the scripts that source this.
# shellcheck disable=SC2034
release_read() {
  local file=${WORKGATE_OS_RELEASE:-/etc/os-release}
  RELEASE_ID=unknown RELEASE_VERSION="" RELEASE_CODENAME="" RELEASE_NAME="an unknown system"
  [[ -r $file ]] || return 0
  local key value
  while IFS='=' read -r key value; do
    value=${value#\"}
    value=${value%\"}
    case $key in
      ID) RELEASE_ID=$value ;;
      VERSION_ID) RELEASE_VERSION=$value ;;
      VERSION_CODENAME) RELEASE_CODENAME=$value ;;
      PRETTY_NAME) RELEASE_NAME=$value ;;
    esac
  done <"$file"
}

release_refuses() {
  local scope=$1
  case $RELEASE_ID:$RELEASE_VERSION in
    ubuntu:22.04 | ubuntu:20.04)
      echo "$RELEASE_NAME has no toml++ package (libtomlplusplus-dev is in Ubuntu" \
        "from 24.04 on), and workgate takes its libraries from the release, never" \
        "from a download: use Ubuntu 24.04 or Debian 12 or newer"
      return 0 ;;
    debian:11 | debian:10)
      echo "$RELEASE_NAME has no toml++ package (libtomlplusplus-dev is in Debian" \
        "from 12 on): use Debian 12 or newer"
      return 0 ;;
  esac
  if [[ $scope == tests && $RELEASE_ID == ubuntu ]]; then
    echo "the whole test suite runs on Debian 12 and 13: Ubuntu ships Chromium, which" \
      "the history page's test drives, only as a snap, and the emulated PMU" \
      "machine's arm64 libraries come from Debian's archive; on $RELEASE_NAME," \
      "ci/setup --build-only sets up what building and running workgate needs, and" \
      "--fast-tests what its fast tests need too"
    return 0
  fi
  return 1
}
