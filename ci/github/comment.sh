#!/usr/bin/env bash
# Posts workgate's report on a pull request as one comment, edited in place
# on every later run: the comment is the first one by WG_COMMENT_AUTHOR whose
# body starts with the marker line. Run by the `workflow_run` workflow
# (ci/github/comment/action.yml), which has a token that can write and never
# runs the pull request's code; the report directory it reads is the
# artifact the pull request's own job uploaded, so it is treated as
# untrusted: the pull request number must be a plain integer, that pull
# request's head must be the commit the gating run ran on, the body is
# bounded, and the report is copied as it is, never evaluated.
#
# Usage: comment.sh REPORT_DIR   (report.md and pr-number, as gate.sh writes)
# Environment:
#   GITHUB_TOKEN         a token with pull-requests: write
#   GITHUB_REPOSITORY    owner/name;  GITHUB_API_URL (default https://api.github.com)
#   WG_HEAD_SHA          the gating run's head commit (workflow_run.head_sha);
#                        required: a pull request whose head differs is refused
#   WG_HEAD_BRANCH, WG_HEAD_REPOSITORY
#                        the gating run's branch and its repository (owner/name):
#                        a pull request of that branch whose head has moved on
#                        since is not refused but skipped (superseded, exit 0)
#   WG_RUN_URL           the gating run's page, linked in the footer (optional)
#   WG_MARKER            default <!-- workgate-report -->
#   WG_COMMENT_AUTHOR    whose comment is edited (default github-actions[bot])
#   WG_MAX_BYTES         the body's bound (default 65536, GitHub's limit)
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
repo="$GITHUB_REPOSITORY"
if [[ ! "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
  echo "comment.sh: GITHUB_REPOSITORY '$repo' is not owner/name" >&2
  exit 1
fi

pr=$(comment_pr_number "$dir/pr-number")
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

footer=""
if [[ "${WG_RUN_URL:-}" =~ ^https?://[A-Za-z0-9._:/-]+$ ]]; then
  footer=$'\n'"<sub>[The run and its report artifact]($WG_RUN_URL)</sub>"$'\n'
fi
comment_body "$marker" "$dir/report.md" "$max" "$footer" "$work/body"

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
