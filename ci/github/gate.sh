#!/usr/bin/env bash
# The gate of the workgate GitHub Action (ci/github/action.yml), usable
# outside GitHub: probes the machine, builds the sides it is told to build,
# runs `workgate compare` (or `workgate merge` on shard reports), writes the
# reports, the step summary and the step outputs, and exits by the policy:
# 0 passes; 1 (work added), 3 (invalid), 2 (usage) and 5 (environment) fail;
# 4 (inconclusive) fails unless WG_INCONCLUSIVE=pass. A failing run exits
# with workgate's own code, or with a build command's.
#
# Usage: gate.sh                 compare, configured by the variables below
#        gate.sh merge [PART...] join `compare --shard` reports (default: WG_MERGE)
#
# Inputs (environment; the action maps its inputs to them, so no input is
# ever expanded into a script):
#   WORKGATE              the workgate executable (default: workgate on PATH)
#   WG_SUITE              the suite file (compare)
#   WG_BASELINE           the baseline build; WG_BASELINE_BUILD a bash command
#                         that makes it, run only when it is needed
#   WG_CANDIDATE          the candidate build; WG_CANDIDATE_BUILD likewise
#   WG_BASELINE_RESULTS   a file stored by --save-baseline: used when it is
#                         there and workgate reports it "used"; otherwise the
#                         baseline build is made and counted, and a --note
#                         says which happened
#   WG_SAVE_BASELINE      store the baseline side's counts in this file
#   WG_MAX_WORK_ADDED     --max-work-added PCT;  WG_BACKEND  --backend
#   WG_SHARD              --shard I/N
#   WG_NOTES              lines, each a --note
#   WG_ARGS               lines, each one more argument to compare (no
#                         splitting, no expansion)
#   WG_INCONCLUSIVE       fail (default) or pass: what exit 4 does
#   WG_FAIL               true (default) or false: false reports and exits 0
#                         whatever the verdict (a shard, whose join decides)
#   WG_MERGE              merge: lines, each a report or a directory whose
#                         report.json files (at any depth) are the parts
#   WG_FLAMEGRAPH         true (default) or false: compare writes the explained
#                         workloads' flame graph, WG_OUT/flamegraph.html
#   WG_FLAMEGRAPH_LINK    where WG_OUT is kept, which the comment links beside
#                         the flame graph and for report.json (the input of
#                         the accept command it gives for each work-added
#                         workload: --report-link); default on GitHub the run's page
#                         (its artifacts), from GITHUB_SERVER_URL,
#                         GITHUB_REPOSITORY and GITHUB_RUN_ID
#   WG_SOURCE_BASE        the commit the baseline was built from (compare
#                         --source-base, which matches the baseline's lines
#                         to the candidate's); none for none; default
#                         WORKGATE_MERGE_BASE, else GitLab's
#                         CI_MERGE_REQUEST_DIFF_BASE_SHA, else the merge base
#                         of the pull request's base (GITHUB_EVENT_PATH) and
#                         HEAD; passed only where the checkout has the commit
#   WG_OUT                the report directory (default workgate-report):
#                         report.json, report.md, probe.json, pr-number,
#                         flamegraph.html (where a workload was explained), and
#                         for the commit status the comment workflow sets:
#                         exit-code (workgate's, 0-5; a set-up or build
#                         failure is 2 or 5) and verdict-line (the report's
#                         heading, or why there is none)
#   GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_EVENT_PATH  where set
# Outputs (GITHUB_OUTPUT): exit-code, verdict, result (pass|fail),
#   baseline-source (stored|built|given|none), report-dir.
set -euo pipefail

wg="${WORKGATE:-workgate}"
out="${WG_OUT:-workgate-report}"
inconclusive="${WG_INCONCLUSIVE:-fail}"
fail="${WG_FAIL:-true}"
mode="compare"
if [[ "${1:-}" == "merge" ]]; then
  mode="merge"
  shift
fi

die() {  # die CODE MESSAGE: a failure of the gate's own set-up
  echo "gate.sh: $2" >&2
  echo "::error title=workgate::$2"
  summary_line "**workgate: the gate did not run**: $2"
  output exit-code "$1"
  output result fail
  # In workgate's codes: usage (2), or the gate could not run (5).
  local recorded=5
  if [[ "$1" == 2 ]]; then recorded=2; fi
  record_result "$recorded" "workgate: the gate did not run: $2"
  exit "$1"
}
record_result() {  # record_result CODE LINE: for the comment workflow's commit status
  local code=$1
  if [[ ! "$code" =~ ^[0-5]$ ]]; then code=5; fi  # 128+N: interrupted
  printf '%s\n' "$code" >"$out/exit-code"
  printf '%s\n' "${2//$'\n'/ }" >"$out/verdict-line"
}
output() {
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi
}
summary_line() {
  if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then printf '%s\n\n' "$1" >>"$GITHUB_STEP_SUMMARY"; fi
}
# has_option SUBCOMMAND OPTION: whether this workgate's SUBCOMMAND --help names OPTION.
# The help is read whole before it is searched: grep -q would stop reading
# at its first match, and workgate exits 5 when a reader goes away.
has_option() {
  local help
  help=$("$wg" "$1" --help 2>/dev/null) || return 1
  grep -qE -- "(^|[ ,])$2([ ,=]|$)" <<<"$help"
}
require_option() {  # require_option SUBCOMMAND OPTION WHY
  has_option "$1" "$2" ||
    die 2 "this workgate has no \`$1 $2\` (needed for $3): use a workgate built from a commit that has it"
}
# lines VAR: the non-empty lines of the variable's value, one array element each.
lines() {
  local line
  _lines=()
  while IFS= read -r line; do
    if [[ -n "$line" ]]; then _lines+=("$line"); fi
  done <<<"${!1:-}"
}
build() {  # build SIDE COMMAND: run a build command; its failure fails the gate
  echo "::group::build the $1: $2"
  local code=0
  bash -euo pipefail -c "$2" || code=$?
  echo "::endgroup::"
  if [[ $code -ne 0 ]]; then
    die "$code" "the $1 build command failed (exit $code)"
  fi
}

mkdir -p "$out"
rm -f "$out/exit-code" "$out/verdict-line"
case "$inconclusive" in
  fail | pass) ;;
  *) die 2 "WG_INCONCLUSIVE must be fail or pass, not '$inconclusive'" ;;
esac
case "$fail" in
  true | false) ;;
  *) die 2 "WG_FAIL must be true or false, not '$fail'" ;;
esac
command -v "$wg" >/dev/null || die 5 "workgate not found (WORKGATE='$wg')"
command -v jq >/dev/null || die 5 "jq not found: the gate reads the JSON report with it"
json="$out/report.json"
md="$out/report.md"
flamegraph="$out/flamegraph.html"
rm -f "$json" "$md" "$flamegraph"
output report-dir "$out"

# The pull request this run gates, for the workflow that posts the comment
# (which checks it against the run's own head commit before trusting it).
if [[ -n "${GITHUB_EVENT_PATH:-}" && -f "$GITHUB_EVENT_PATH" ]]; then
  pr=$(jq -r '.pull_request.number // empty' "$GITHUB_EVENT_PATH")
  if [[ "$pr" =~ ^[1-9][0-9]{0,9}$ ]]; then printf '%s\n' "$pr" >"$out/pr-number"; fi
fi

echo "::group::workgate probe"
"$wg" probe --json "$out/probe.json" || echo "gate.sh: workgate probe exited $?; compare says why it cannot count" >&2
echo "::endgroup::"

# Where WG_OUT is kept once uploaded (a run's artifacts), which the comment
# links for the flame graph and for report.json, the accept command's input.
link="${WG_FLAMEGRAPH_LINK:-}"
if [[ -z "$link" && -n "${GITHUB_SERVER_URL:-}" && -n "${GITHUB_REPOSITORY:-}" && -n "${GITHUB_RUN_ID:-}" ]]; then
  link="$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID"
fi
if [[ ! "$link" =~ ^https?://[A-Za-z0-9._:/#-]+$ ]]; then link=""; fi

baseline_source="none"
code=0
if [[ "$mode" == "merge" ]]; then
  if [[ $# -eq 0 ]]; then
    lines WG_MERGE
    set -- "${_lines[@]}"
  fi
  parts=()
  for p in "$@"; do
    if [[ -d "$p" ]]; then
      while IFS= read -r -d '' f; do parts+=("$f"); done < <(find "$p" -name report.json -type f -print0 | LC_ALL=C sort -z)
    else
      parts+=("$p")
    fi
  done
  [[ ${#parts[@]} -gt 0 ]] || die 2 "merge found no shard reports in: $*"
  grep -qE '^ +merge ' <<<"$("$wg" --help 2>/dev/null)" ||
    die 2 "this workgate has no \`workgate merge\` (needed to join shard reports): use a workgate built from a commit that has it"
  merge_args=()
  if [[ -n "$link" ]] && has_option merge --report-link; then merge_args+=(--report-link "$link"); fi
  "$wg" merge "${parts[@]}" --json "$json" --markdown "$md" "${merge_args[@]}" || code=$?
else
  [[ -n "${WG_SUITE:-}" ]] || die 2 "WG_SUITE (the suite input) is required"
  [[ -n "${WG_CANDIDATE:-}" || -n "${WG_SAVE_BASELINE:-}" ]] ||
    die 2 "WG_CANDIDATE (the candidate input) is required, unless a baseline is only stored"
  args=(--suite "$WG_SUITE" --json "$json" --markdown "$md")
  [[ -n "${WG_CANDIDATE:-}" ]] && args+=(--candidate "$WG_CANDIDATE")
  [[ -n "${WG_MAX_WORK_ADDED:-}" ]] && args+=(--max-work-added "$WG_MAX_WORK_ADDED")
  [[ -n "${WG_BACKEND:-}" ]] && args+=(--backend "$WG_BACKEND")
  [[ -n "${WG_SAVE_BASELINE:-}" ]] && args+=(--save-baseline "$WG_SAVE_BASELINE")
  if [[ -n "${WG_SHARD:-}" ]]; then
    require_option compare --shard "the shard input"
    args+=(--shard "$WG_SHARD")
  fi
  # The explained workloads' flame graph, uploaded with the reports, and
  # where the comment finds it. A workgate without the option gates as before.
  if [[ "${WG_FLAMEGRAPH:-true}" == true ]] && has_option compare --flamegraph; then
    args+=(--flamegraph "$flamegraph")
    if [[ -n "$link" ]]; then args+=(--flamegraph-link "$link"); fi
  fi
  # Where the comment's accept command finds report.json.
  if [[ -n "$link" ]] && has_option compare --report-link; then args+=(--report-link "$link"); fi
  # The commit the baseline was built from, so that the explained lines of
  # the baseline are matched to where the candidate's source has them.
  source_base="${WG_SOURCE_BASE:-${WORKGATE_MERGE_BASE:-${CI_MERGE_REQUEST_DIFF_BASE_SHA:-}}}"
  if [[ -z "$source_base" && -n "${GITHUB_EVENT_PATH:-}" && -f "$GITHUB_EVENT_PATH" ]]; then
    pr_base=$(jq -r '.pull_request.base.sha // empty' "$GITHUB_EVENT_PATH")
    if [[ "$pr_base" =~ ^[0-9a-f]{40}$ ]]; then
      source_base=$(git merge-base "$pr_base" HEAD 2>/dev/null || true)
    fi
  fi
  # A revision never starts with "-" (git would take it for an option).
  if [[ -n "$source_base" && "$source_base" != none && "$source_base" != -* ]] &&
    git rev-parse --verify --quiet "$source_base^{commit}" >/dev/null 2>&1 &&
    has_option compare --source-base; then
    args+=(--source-base "$source_base")
  fi
  lines WG_ARGS
  args+=("${_lines[@]}")
  lines WG_NOTES
  notes=("${_lines[@]}")
  if [[ ${#notes[@]} -gt 0 || -n "${WG_BASELINE_RESULTS:-}" ]]; then
    require_option compare --note "notes and the stored-baseline fallback"
  fi
  note_args=()
  for n in "${notes[@]}"; do note_args+=(--note "$n"); done
  have_baseline=false
  [[ -n "${WG_BASELINE:-}" ]] && have_baseline=true

  if [[ -n "${WG_CANDIDATE_BUILD:-}" ]]; then build candidate "$WG_CANDIDATE_BUILD"; fi

  stored="${WG_BASELINE_RESULTS:-}"
  fallback_note=""
  if [[ -n "$stored" ]]; then
    if [[ -f "$stored" || "$have_baseline" == false ]]; then
      # Without a baseline to build, a missing file is compared all the
      # same: workgate's report says the evidence is missing (invalid).
      "$wg" compare "${args[@]}" --baseline-results "$stored" "${note_args[@]}" \
        --note "Compared with the stored baseline $stored." || code=$?
      status="absent"
      problem=""
      if [[ -f "$json" ]]; then
        status=$(jq -r '.stored_baseline.status // "absent"' "$json")
        # One line: it goes into the log and a note.
        problem=$(jq -r '.stored_baseline.problem // "" | gsub("[[:cntrl:]]"; " ")' "$json")
      fi
      if [[ "$status" == "used" ]]; then
        baseline_source="stored"
      elif [[ "$status" == "absent" && -f "$json" ]]; then
        die 2 "this workgate's report has no stored_baseline status: use a workgate built from a commit that has it"
      elif [[ "$have_baseline" == true ]]; then
        fallback_note="The stored baseline $stored was not used ($status${problem:+: $problem}); the baseline build was counted in this job instead."
      fi
    else
      fallback_note="No stored baseline at $stored (missing artifact or cache entry); the baseline build was counted in this job instead."
    fi
  fi
  if [[ -z "$stored" || -n "$fallback_note" ]]; then
    [[ "$have_baseline" == true ]] || die 2 "WG_BASELINE (the baseline input) or a usable stored baseline is required"
    if [[ -n "${WG_BASELINE_BUILD:-}" ]]; then build baseline "$WG_BASELINE_BUILD"; fi
    if [[ -n "$fallback_note" ]]; then
      echo "gate.sh: $fallback_note" >&2
      note_args+=(--note "$fallback_note")
      baseline_source="built"
    else
      baseline_source="given"
    fi
    code=0
    "$wg" compare "${args[@]}" --baseline "$WG_BASELINE" "${note_args[@]}" || code=$?
  fi
fi

verdict="none"
if [[ -f "$json" ]]; then
  verdict=$(jq -r '.verdict // "none"' "$json")
  case "$verdict" in
    ok | work-added | work-removed | inconclusive | invalid | accepted) ;;
    *) verdict="unknown" ;;
  esac
fi
if [[ -f "$md" ]]; then
  if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then cat "$md" >>"$GITHUB_STEP_SUMMARY"; fi
  # The heading, "### workgate: ✅ ok — 0 of 3 workloads over the 1.00% margin".
  line=$(head -n1 "$md")
  record_result "$code" "${line#"${line%%[!# ]*}"}"
else
  summary_line "**workgate exited $code and wrote no report**; its log says why."
  record_result "$code" "workgate exited $code and wrote no report"
fi

result="fail"
if [[ $code -eq 0 ]]; then
  result="pass"
elif [[ $code -eq 4 && "$inconclusive" == "pass" ]]; then
  result="pass"
  echo "::warning title=workgate::inconclusive (exit 4): the counts could not decide; passing because inconclusive is set to pass"
fi
output exit-code "$code"
output verdict "$verdict"
output result "$result"
output baseline-source "$baseline_source"
echo "gate.sh: workgate exited $code (verdict $verdict, baseline $baseline_source): $result" >&2
if [[ "$result" == "fail" ]]; then
  echo "::error title=workgate::the gate failed: workgate exited $code ($verdict)"
  if [[ "$fail" == true ]]; then exit "$code"; fi
fi
exit 0
