# shellcheck shell=bash
# Shared by ci/test (sourced, not run): runs a CI run's steps, times each,
# and prints one table of every step's seconds and outcome when the run
# ends, whichever way it ends (a failed step, an interruption, success).
#
#   steps_begin                      before the first step
#   step NAME COMMAND...             runs COMMAND in the foreground
#   step_bg NAME COMMAND...          starts COMMAND beside the next steps,
#                                    its output kept in a log of its own
#                                    (a program: a shell function cannot
#                                    start in a session of its own)
#   step_wait NAME                   waits for a step_bg step, prints its
#                                    log, and judges it like `step`
#
# STEP_UNLESS=VAR before `step` or `step_bg` leaves the step out when $VAR is
# 1 (WORKGATE_SKIP_*=1: a developer's shorter run), and the table says so; a
# step_bg step left out that way is not waited for. STEP_FULL_ONLY=1 leaves
# it out, in the same way, unless STEPS_FULL is 1 (ci/test --full: the
# steps that run on a schedule rather than on every change).
#
# A step that exits 0 passed. Exit 77 is the step saying "this machine
# cannot" (its reason is above, in its own output): a skip, unless the step
# was declared with STEP_NO_SKIP=1 in its environment of ci/test (CI=true and
# a step whose skips docs/development.md does not list as properties of the machine),
# in which case it fails like any other code. Any other code fails the run
# with that code, after the table.

_step_names=()
_step_seconds=()
_step_results=()
_step_start=$SECONDS
declare -A _step_bg_pid=() _step_bg_log=() _step_bg_begin=() _step_bg_no_skip=()
declare -A _step_omitted=()

# _step_record NAME SECONDS RESULT
_step_record() {
  _step_names+=("$1")
  _step_seconds+=("$2")
  _step_results+=("$3")
}

# Prints the table on standard error. Steps still running in the background
# are listed as such (an early failure ends the run before they do).
steps_table() {
  local i name
  {
    echo
    echo "ci/test: steps (seconds of wall time; the machine has $(nproc) cores)"
    printf '  %-50s %8s  %s\n' step seconds result
    for i in "${!_step_names[@]}"; do
      printf '  %-50s %8d  %s\n' "${_step_names[$i]}" "${_step_seconds[$i]}" "${_step_results[$i]}"
    done
    for name in "${!_step_bg_pid[@]}"; do
      printf '  %-50s %8d  %s\n' "$name" $((SECONDS - _step_bg_begin[$name])) \
        "unfinished (stopped)"
    done
    printf '  %-50s %8d\n' total $((SECONDS - _step_start))
  } >&2
}

# Stops every background step still running (its whole process group).
_steps_stop_background() {
  local name
  for name in "${!_step_bg_pid[@]}"; do
    kill -TERM -- "-${_step_bg_pid[$name]}" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}

# shellcheck disable=SC2317  # run from the EXIT trap
_steps_on_exit() {
  local code=$?
  _steps_stop_background
  steps_table
  exit "$code"
}

steps_begin() {
  _step_start=$SECONDS
  trap _steps_on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# _step_judge NAME SECONDS CODE NO_SKIP: records the outcome; exits the run
# on a failure.
_step_judge() {
  local name=$1 seconds=$2 code=$3 no_skip=$4
  if [[ $code -eq 0 ]]; then
    _step_record "$name" "$seconds" ok
  elif [[ $code -eq 77 && $no_skip != 1 ]]; then
    _step_record "$name" "$seconds" "skipped (this machine cannot; the reason is above)"
    echo "ci/test: $name skipped: this machine cannot (the reason is above)" >&2
  else
    if [[ $code -eq 77 ]]; then
      echo "ci/test: $name may not skip here (CI=true; only the properties of the machine" \
        "that docs/development.md lists are skips), so its exit 77 fails the run" >&2
      code=1
    fi
    _step_record "$name" "$seconds" "FAILED (exit $code)"
    echo "ci/test: $name failed (exit $code)" >&2
    exit "$code"
  fi
}

# _step_left_out NAME: true, and NAME recorded as skipped, when STEP_UNLESS
# names a variable that is 1, or STEP_FULL_ONLY is 1 outside a full run.
_step_left_out() {
  if [[ ${STEP_FULL_ONLY:-0} == 1 && ${STEPS_FULL:-0} != 1 ]]; then
    echo "ci/test: $1 is left out: it runs in the full run (ci/test --full)" >&2
    _step_record "$1" 0 "full run only (ci/test --full)"
    _step_omitted[$1]=1
    return 0
  fi
  local var=${STEP_UNLESS:-}
  [[ -n $var && "${!var:-}" == 1 ]] || return 1
  echo "ci/test: $1 skipped: $var=1" >&2
  _step_record "$1" 0 "skipped ($var=1)"
  _step_omitted[$1]=1
}

step() {
  local name=$1 begin=$SECONDS code=0 no_skip=${STEP_NO_SKIP:-0}
  shift
  _step_left_out "$name" && return 0
  echo "ci/test: == $name" >&2
  "$@" || code=$?
  _step_judge "$name" $((SECONDS - begin)) "$code" "$no_skip"
}

step_bg() {
  local name=$1 log
  shift
  _step_left_out "$name" && return 0
  log=$(mktemp "${TMPDIR:-/tmp}/ci-test-step.XXXXXX")
  echo "ci/test: == $name (started beside the next steps; its output follows when it ends)" >&2
  # A process group of its own, so that an early end stops all of it.
  setsid "$@" >"$log" 2>&1 </dev/null &
  _step_bg_pid[$name]=$!
  _step_bg_log[$name]=$log
  _step_bg_begin[$name]=$SECONDS
  _step_bg_no_skip[$name]=${STEP_NO_SKIP:-0}
}

step_wait() {
  local name=$1 code=0
  [[ -n ${_step_omitted[$name]:-} ]] && return 0
  wait "${_step_bg_pid[$name]}" || code=$?
  local seconds=$((SECONDS - _step_bg_begin[$name])) no_skip=${_step_bg_no_skip[$name]}
  echo "ci/test: == $name (ran beside the steps above) said:" >&2
  cat "${_step_bg_log[$name]}" >&2
  rm -f "${_step_bg_log[$name]}"
  # Quoted so that unset reads the subscript itself: expanded first, a
  # name with a quote or a bracket in it would unset nothing.
  unset '_step_bg_pid[$name]' '_step_bg_log[$name]' '_step_bg_begin[$name]' \
    '_step_bg_no_skip[$name]'
  _step_judge "$name" "$seconds" "$code" "$no_skip"
}
