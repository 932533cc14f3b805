#!/usr/bin/env bash
# Posts workgate's report on a pull request as one comment, edited in place
# on every later run: the comment is the first one by WG_COMMENT_AUTHOR whose
# body starts with the marker line; and sets the commit status `workgate` of
# the gated commit by the gate's exit code, described by its verdict line. Run by the `workflow_run` workflow
# (ci/github/comment/action.yml), which has a token that can write and never
# runs the pull request's code; the report directory it reads is the
# artifact the pull request's own job uploaded, so it is treated as
# untrusted: the pull request number must be a plain integer, that pull
# request's head must be the commit the gating run ran on, the body is
# bounded, and the report is copied as it is, never evaluated.
#
# Usage: comment.sh REPORT_DIR   (report.md, pr-number, exit-code and
#                                 verdict-line, as gate.sh writes them)
# Environment:
#   GITHUB_TOKEN         a token with pull-requests: write and statuses: write
#   GITHUB_REPOSITORY    owner/name;  GITHUB_API_URL (default https://api.github.com)
#   WG_HEAD_SHA          the gating run's head commit (workflow_run.head_sha);
#                        required: a pull request whose head differs is refused
#   WG_HEAD_BRANCH, WG_HEAD_REPOSITORY
#                        the gating run's branch and its repository (owner/name):
#                        a pull request of that branch whose head has moved on
#                        since is not refused but skipped (superseded, exit 0)
#   WG_RUN_URL           the gating run's page, linked in the footer (optional)
#   WG_HISTORY_URL       the default branch's history page, linked in the
#                        footer; default, from WG_WORKFLOW_PATH (the gating
#                        workflow's file, workflow_run.path) and
#                        WG_DEFAULT_BRANCH: that workflow's runs of pushes to
#                        the default branch on GITHUB_SERVER_URL, whose
#                        workgate-history artifact holds the page (optional)
#   WG_MARKER            default <!-- workgate-report -->
#   WG_COMMENT_AUTHOR    whose comment is edited (default github-actions[bot])
#   WG_MAX_BYTES         the body's bound (default 65536, GitHub's limit)
#   WG_INCONCLUSIVE      fail (default) or pass: the status of exit 4, as the
#                        gate's own inconclusive input
#   WG_STATUS_CONTEXT    the commit status's name (default workgate)
# The status: exit 0 success; 1 (work added), 3 (invalid) and 4 failure;
# 2 (usage) and 5 (environment: the gate could not run) error. Its target is
# WG_RUN_URL.
# Exit: 0 posted or edited, or skipped as superseded (a ::notice says so);
# 1 refused or an API call failed (nothing posted unless it says so).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../lib/comment.sh
source "$here/../lib/comment.sh"

if [[ $# -ne 1 ]]; then
  echo "usage: comment.sh REPORT_DIR" >&2
  exit 2
fi
dir="$1"
: "${GITHUB_TOKEN:?GITHUB_TOKEN must be set}"
: "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY must be set}"
: "${WG_HEAD_SHA:?WG_HEAD_SHA (the gating run head_sha) must be set}"
api="${GITHUB_API_URL:-https://api.github.com}"
marker="${WG_MARKER:-<!-- workgate-report -->}"
author="${WG_COMMENT_AUTHOR:-github-actions[bot]}"
max="${WG_MAX_BYTES:-65536}"
context="${WG_STATUS_CONTEXT:-workgate}"
repo="$GITHUB_REPOSITORY"
if [[ ! "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
  echo "comment.sh: GITHUB_REPOSITORY '$repo' is not owner/name" >&2
  exit 1
fi
if [[ ! "$WG_HEAD_SHA" =~ ^[0-9a-f]{40}$ ]]; then
  echo "comment.sh: WG_HEAD_SHA '$WG_HEAD_SHA' is not a commit's full SHA" >&2
  exit 1
fi
case "${WG_INCONCLUSIVE:-fail}" in
  fail | pass) ;;
  *) echo "comment.sh: WG_INCONCLUSIVE must be fail or pass, not '$WG_INCONCLUSIVE'" >&2; exit 2 ;;
esac
if [[ ! "$context" =~ ^[A-Za-z0-9_./:\ -]{1,100}$ ]]; then
  echo "comment.sh: WG_STATUS_CONTEXT '$context' is not a plain name" >&2
  exit 2
fi
run_url=""
if [[ "${WG_RUN_URL:-}" =~ ^https?://[A-Za-z0-9._:/-]+$ ]]; then run_url="$WG_RUN_URL"; fi

# Everything taken from the artifact is checked before any request is made.
pr=$(comment_pr_number "$dir/pr-number")
code=$(comment_exit_code "$dir/exit-code")
description=$(comment_status_description "$dir/verdict-line" "workgate exited $code")
case "$code" in
  0) state=success ;;
  1 | 3) state=failure ;;
  4) if [[ "${WG_INCONCLUSIVE:-fail}" == pass ]]; then state=success; else state=failure; fi ;;
  *) state=error ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
auth="$work/auth"
(umask 077 && printf 'Authorization: Bearer %s\nAccept: application/vnd.github+json\nX-GitHub-Api-Version: 2022-11-28\n' "$GITHUB_TOKEN" >"$auth")

# The artifact names the pull request; the run's own head commit, which
# GitHub gives the workflow_run event, must be that pull request's head.
status=$(comment_http GET "$api/repos/$repo/pulls/$pr" "$auth" "$work/pull")
if [[ "$status" != 200 ]]; then
  echo "comment.sh: cannot read pull request #$pr (HTTP $status)" >&2
  exit 1
fi
head=$(jq -r '.head.sha // ""' "$work/pull")
if [[ "$head" != "$WG_HEAD_SHA" ]]; then
  # Its own branch moved on while the report was made or waited for this
  # run (a later push): a newer run reports that commit. Any other pull
  # request is not the one the run gated.
  if [[ "$head" =~ ^[0-9a-f]{40}$ && -n "${WG_HEAD_BRANCH:-}" && -n "${WG_HEAD_REPOSITORY:-}" &&
        "$(jq -r '.head.ref // ""' "$work/pull")" == "$WG_HEAD_BRANCH" &&
        "$(jq -r '.head.repo.full_name // ""' "$work/pull")" == "$WG_HEAD_REPOSITORY" ]]; then
    echo "::notice title=workgate::pull request #$pr has moved on to $head since the run gated $WG_HEAD_SHA: its report is superseded, not posted"
    exit 0
  fi
  echo "comment.sh: pull request #$pr has head $head, not $WG_HEAD_SHA, the commit the report was made on: not posted" >&2
  exit 1
fi

# The history page: given, or the latest default-branch runs of the gating
# workflow, which upload it (ci/github/history.sh).
history_url=""
workflow_file="${WG_WORKFLOW_PATH:-}"
workflow_file="${workflow_file##*/}"
server="${GITHUB_SERVER_URL:-https://github.com}"
if [[ "${WG_HISTORY_URL:-}" =~ ^https?://[A-Za-z0-9._:/-]+$ ]]; then
  history_url="$WG_HISTORY_URL"
elif [[ "$workflow_file" =~ ^[A-Za-z0-9_.-]+\.ya?ml$ && "${WG_DEFAULT_BRANCH:-}" =~ ^[A-Za-z0-9._/-]+$ &&
        "$server" =~ ^https?://[A-Za-z0-9._:-]+$ ]]; then
  query=$(jq -rn --arg q "branch:$WG_DEFAULT_BRANCH event:push" '$q | @uri')
  history_url="$server/$repo/actions/workflows/$workflow_file?query=$query"
fi
links=()
if [[ -n "$run_url" ]]; then links+=("[The run and its report artifact]($run_url)"); fi
if [[ -n "$history_url" ]]; then links+=("[The history of ${WG_DEFAULT_BRANCH:-the default branch}]($history_url)"); fi
footer=""
if [[ ${#links[@]} -gt 0 ]]; then
  footer=$'\n'"<sub>${links[0]}${links[1]:+ · ${links[1]}}</sub>"$'\n'
fi
comment_body "$marker" "$dir/report.md" "$max" "$footer" "$work/body"

# The verdict as a commit status of the gated commit (which a branch
# protection rule can require), set before the comment.
jq -n --arg state "$state" --arg description "$description" --arg context "$context" --arg url "$run_url" \
  '{state: $state, description: $description, context: $context}
   + (if $url == "" then {} else {target_url: $url} end)' >"$work/status.json"
status=$(comment_http POST "$api/repos/$repo/statuses/$WG_HEAD_SHA" "$auth" "$work/status-response" "$work/status.json" json)
if [[ "$status" != 201 ]]; then
  echo "comment.sh: the $context status of $WG_HEAD_SHA could not be set (HTTP $status): $(jq -r '.message // ""' "$work/status-response" 2>/dev/null)" >&2
  exit 1
fi
echo "comment.sh: set the $context status of $WG_HEAD_SHA: $state ($description)"

# Our comment: the first by the author whose first line is the marker.
id=""
for ((page = 1; page <= 100; page++)); do
  status=$(comment_http GET "$api/repos/$repo/issues/$pr/comments?per_page=100&page=$page" "$auth" "$work/page")
  if [[ "$status" != 200 ]]; then
    echo "comment.sh: cannot list the comments of #$pr (HTTP $status)" >&2
    exit 1
  fi
  id=$(jq -r --arg author "$author" --arg start "$marker"$'\n' \
    'first(.[] | select(.user.login == $author and (.body // "" | startswith($start))) | .id) // ""' "$work/page")
  [[ -n "$id" || $(jq length "$work/page") -lt 100 ]] && break
done

if [[ -n "$id" ]]; then
  [[ "$id" =~ ^[0-9]+$ ]] || { echo "comment.sh: comment id '$id' is not a number" >&2; exit 1; }
  status=$(comment_http PATCH "$api/repos/$repo/issues/comments/$id" "$auth" "$work/response" "$work/body")
  want=200 verb="edited"
else
  status=$(comment_http POST "$api/repos/$repo/issues/$pr/comments" "$auth" "$work/response" "$work/body")
  want=201 verb="posted"
fi
if [[ "$status" != "$want" ]]; then
  echo "comment.sh: the comment on #$pr could not be $verb (HTTP $status): $(jq -r '.message // ""' "$work/response" 2>/dev/null)" >&2
  exit 1
fi
echo "comment.sh: $verb the workgate comment on #$pr: $(jq -r '.html_url // ""' "$work/response")"
