#!/usr/bin/env bash
# What each runner can count, for the runner-capability workflow
# (ci/github/examples/workgate-runners.yml, the action's probe and
# probe-merge modes):
#   probe.sh run LABEL      `workgate probe --json --label LABEL` into WG_OUT
#                           (probe.json, probe.md)
#   probe.sh merge PATH...  `workgate probe --merge` of the probe.json files
#                           found in each PATH (a file, or a directory searched
#                           at any depth) into one table, WG_OUT/probes.md and
#                           probes.json, appended to GITHUB_STEP_SUMMARY
#                           where set; PATHs default to the lines of WG_MERGE
# WORKGATE names the executable (default: workgate on PATH). Exits with
# workgate's code; 2 when this workgate lacks the probe options used.
set -euo pipefail
wg="${WORKGATE:-workgate}"
out="${WG_OUT:-workgate-report}"

need() {  # need OPTION: this workgate's probe must have OPTION
  # Read whole before it is searched: workgate exits 5 when a reader goes away.
  if ! grep -qE -- "(^|[ ,])$1([ ,=]|$)" <<<"$("$wg" probe --help 2>/dev/null)"; then
    echo "probe.sh: this workgate has no \`probe $1\`: use a workgate built from a commit that has it" >&2
    exit 2
  fi
}

mkdir -p "$out"
case "${1:-}" in
  run)
    [[ $# -eq 2 && -n "$2" ]] || { echo "usage: probe.sh run LABEL" >&2; exit 2; }
    need --label
    need --markdown
    code=0
    "$wg" probe --json "$out/probe.json" --label "$2" --markdown "$out/probe.md" || code=$?
    # A runner that cannot count is an answer, not a failure of this job.
    if [[ $code -ne 0 && $code -ne 5 ]]; then exit "$code"; fi
    [[ -f "$out/probe.json" ]] || { echo "probe.sh: workgate probe wrote no $out/probe.json" >&2; exit 1; }
    ;;
  merge)
    shift
    if [[ $# -eq 0 && -n "${WG_MERGE:-}" ]]; then
      mapfile -t lines <<<"$WG_MERGE"
      for l in "${lines[@]}"; do if [[ -n "$l" ]]; then set -- "$@" "$l"; fi; done
    fi
    files=()
    for p in "$@"; do
      if [[ -d "$p" ]]; then
        while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$p" -name probe.json -type f -print0 | LC_ALL=C sort -z)
      else
        files+=("$p")
      fi
    done
    [[ ${#files[@]} -gt 0 ]] || { echo "probe.sh: no probe.json found in: $*" >&2; exit 2; }
    need --merge
    "$wg" probe --merge "${files[@]}" --markdown "$out/probes.md" --json "$out/probes.json"
    if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then cat "$out/probes.md" >>"$GITHUB_STEP_SUMMARY"; fi
    ;;
  *)
    echo "usage: probe.sh run LABEL | probe.sh merge PATH..." >&2
    exit 2
    ;;
esac
