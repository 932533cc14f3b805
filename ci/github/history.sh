#!/usr/bin/env bash
# The history page of the default branch, for the action's `history` mode
# (ci/github/action.yml; the `baseline` job of examples/workgate.yml runs it
# on every push to the default branch): records the build's counts in the
# result store under this commit (`workgate count --suite --record`) and
# renders the last commits' history (`workgate history --html --json`) into
# WG_OUT as index.html and history.json, which the action uploads as an
# artifact. The store is the action's, restored from and saved to the
# Actions cache; a pull request's job never saves it.
#
# Environment:
#   WORKGATE           the workgate executable (default: workgate on PATH)
#   WG_SUITE           the suite file;  WG_BASELINE  the build to record
#   WG_BASELINE_BUILD  a bash command that makes it, run when it is missing
#   WG_RECORD          the ref to record under (default GITHUB_SHA); where it
#                      names a commit of the checkout in the working directory,
#                      its subject is recorded with it (--record-subject)
#   WG_HISTORY_LAST    how many recorded commits the page shows (default 30)
#   WG_STORE           the result store file (default: workgate's own)
#   WG_BACKEND         --backend;  WG_OUT  the page's directory (default workgate-history)
# Exit: 0 recorded and rendered, drift or not (drift is a ::warning: no
# single commit made it, so no push is to blame); workgate's code otherwise.
set -euo pipefail
wg="${WORKGATE:-workgate}"
out="${WG_OUT:-workgate-history}"
ref="${WG_RECORD:-${GITHUB_SHA:-}}"
last="${WG_HISTORY_LAST:-30}"

fail() {  # fail CODE MESSAGE
  echo "history.sh: $2" >&2
  echo "::error title=workgate history::$2"
  exit "$1"
}
[[ -n "${WG_SUITE:-}" ]] || fail 2 "WG_SUITE (the suite input) is required"
[[ -n "${WG_BASELINE:-}" ]] || fail 2 "WG_BASELINE (the baseline input: the build to record) is required"
[[ -n "$ref" ]] || fail 2 "WG_RECORD or GITHUB_SHA (the commit to record) is required"
[[ "$last" =~ ^[1-9][0-9]{0,3}$ ]] || fail 2 "WG_HISTORY_LAST must be a number of commits, not '$last'"
command -v "$wg" >/dev/null || fail 5 "workgate not found (WORKGATE='$wg')"

store_args=()
if [[ -n "${WG_STORE:-}" ]]; then
  mkdir -p "$(dirname "$WG_STORE")"
  store_args=(--store "$WG_STORE")
fi
if [[ ! -e "$WG_BASELINE" && -n "${WG_BASELINE_BUILD:-}" ]]; then
  echo "::group::build the baseline: $WG_BASELINE_BUILD"
  code=0
  bash -euo pipefail -c "$WG_BASELINE_BUILD" || code=$?
  echo "::endgroup::"
  [[ $code -eq 0 ]] || fail "$code" "the baseline build command failed (exit $code)"
fi
count_args=(--suite "$WG_SUITE" --exe "$WG_BASELINE" --record "$ref")
# The commit's subject, for the page. The ref is an argument after
# --end-of-options, never an option of git's, whatever it holds; a ref that
# is no commit here (a label), or no checkout, records no subject. workgate
# bounds and escapes the subject: a pull request's author wrote it.
subject="$(git log -1 --format=%s --end-of-options "$ref" -- 2>/dev/null || true)"
# One argument with "=": a subject that starts with "-" stays a value.
if [[ -n "$subject" ]]; then count_args+=("--record-subject=$subject"); fi
if [[ -n "${WG_BACKEND:-}" ]]; then count_args+=(--backend "$WG_BACKEND"); fi

mkdir -p "$out"
rm -f "$out/index.html" "$out/history.json"
echo "::group::workgate count --record $ref"
"$wg" count "${count_args[@]}" "${store_args[@]}" >&2
echo "::endgroup::"
code=0
"$wg" history --last "$last" --html "$out/index.html" --json "$out/history.json" "${store_args[@]}" || code=$?
case "$code" in
  0) ;;
  1) echo "::warning title=workgate history::drift: over the last $last recorded commits a workload's counts rose beyond the margin, in steps each under it (the page marks it)" ;;
  *) fail "$code" "workgate history exited $code" ;;
esac
if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  printf '**workgate history**: %s recorded; the page of the last %s recorded commits is index.html in the %s artifact of this run.\n\n' \
    "$ref" "$last" "${WG_ARTIFACT_NAME:-workgate-history}" >>"$GITHUB_STEP_SUMMARY"
fi
echo "history.sh: recorded $ref; $out/index.html shows the last $last recorded commits" >&2
