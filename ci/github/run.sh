#!/usr/bin/env bash
# The action's one step that runs workgate: picks the script for WG_MODE
# (the action's `mode` input): compare and merge go to gate.sh, probe and
# probe-merge to probe.sh, history to history.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
case "${WG_MODE:-compare}" in
  compare) exec "$here/gate.sh" ;;
  merge) exec "$here/gate.sh" merge ;;
  probe) exec "$here/probe.sh" run "${WG_LABEL:-${RUNNER_NAME:-runner}}" ;;
  probe-merge) exec "$here/probe.sh" merge ;;
  history) exec "$here/history.sh" ;;
  *)
    echo "run.sh: mode must be compare, merge, probe, probe-merge or history, not '${WG_MODE}'" >&2
    exit 2
    ;;
esac
