#!/usr/bin/env bash
# Fetches the stored baseline of COMMIT for a merge request pipeline of the
# GitLab template: the workgate-baseline job of the default branch keeps
# workgate-baseline/COMMIT.json as an artifact, and this asks the project's
# latest successful such job for that file, with the job's own token. A file
# that is not there (that job counted a later commit, or never ran) is not
# an error: OUT is left absent and gate.sh builds the merge base instead,
# saying so in the report.
#
# Usage: fetch-baseline.sh COMMIT OUT
# Environment: CI_API_V4_URL, CI_PROJECT_ID, CI_DEFAULT_BRANCH, CI_JOB_TOKEN
# (set by GitLab); WG_BASELINE_JOB (default workgate-baseline).
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: fetch-baseline.sh COMMIT OUT" >&2
  exit 2
fi
commit="$1" out="$2"
if [[ ! "$commit" =~ ^[0-9a-f]{40}$ ]]; then
  echo "fetch-baseline.sh: '$commit' is not a commit id" >&2
  exit 2
fi
job="${WG_BASELINE_JOB:-workgate-baseline}"
url="$CI_API_V4_URL/projects/$CI_PROJECT_ID/jobs/artifacts/$CI_DEFAULT_BRANCH/raw/workgate-baseline/$commit.json?job=$job"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(umask 077 && printf 'JOB-TOKEN: %s\n' "$CI_JOB_TOKEN" >"$work/auth")
rm -f "$out"
status=$(curl -sS --max-time 60 -L -H @"$work/auth" -o "$work/baseline.json" -w '%{http_code}' -- "$url") || status="none"
if [[ "$status" == 200 ]]; then
  mv "$work/baseline.json" "$out"
  echo "fetch-baseline.sh: the stored baseline of $commit is at $out" >&2
else
  echo "fetch-baseline.sh: no stored baseline of $commit (HTTP $status): the merge base will be built" >&2
fi
