#!/usr/bin/env bash
# Posts workgate's report on a GitLab merge request as one note, edited in
# place on every later pipeline: the note is the first by the token's own
# user whose body starts with the marker line. Run by the workgate-note job
# of ci/gitlab/workgate.gitlab-ci.yml, after the gate job, from the gate
# job's report artifact; the report is copied as it is, never evaluated,
# and the body is bounded.
#
# Usage: note.sh REPORT_DIR   (report.md, as ci/github/gate.sh writes it)
# Environment:
#   WORKGATE_GITLAB_TOKEN  a project access token (api scope, Reporter role
#                          is enough to write notes)
#   CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID   set by GitLab
#   WG_MARKER              default <!-- workgate-report -->
#   WG_MAX_BYTES           the body's bound (default 1000000, GitLab's limit)
#   WG_RUN_URL             the pipeline's page, linked in the footer (optional;
#                          the template passes CI_PIPELINE_URL)
# Exit: 0 posted or edited; 1 an API call failed or the input is wrong.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../lib/comment.sh
source "$here/../lib/comment.sh"

if [[ $# -ne 1 ]]; then
  echo "usage: note.sh REPORT_DIR" >&2
  exit 2
fi
dir="$1"
: "${WORKGATE_GITLAB_TOKEN:?WORKGATE_GITLAB_TOKEN (a project access token) must be set}"
: "${CI_API_V4_URL:?CI_API_V4_URL must be set}"
: "${CI_PROJECT_ID:?CI_PROJECT_ID must be set}"
: "${CI_MERGE_REQUEST_IID:?CI_MERGE_REQUEST_IID must be set: run in a merge request pipeline}"
marker="${WG_MARKER:-<!-- workgate-report -->}"
max="${WG_MAX_BYTES:-1000000}"
for v in CI_PROJECT_ID CI_MERGE_REQUEST_IID; do
  if [[ ! "${!v}" =~ ^[1-9][0-9]{0,11}$ ]]; then
    echo "note.sh: $v '${!v}' is not a number" >&2
    exit 1
  fi
done
base="$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
auth="$work/auth"
(umask 077 && printf 'PRIVATE-TOKEN: %s\n' "$WORKGATE_GITLAB_TOKEN" >"$auth")

footer=""
if [[ "${WG_RUN_URL:-}" =~ ^https?://[A-Za-z0-9._:/-]+$ ]]; then
  footer=$'\n'"<sub>[The pipeline and its report artifact]($WG_RUN_URL)</sub>"$'\n'
fi
comment_body "$marker" "$dir/report.md" "$max" "$footer" "$work/body"

status=$(comment_http GET "$CI_API_V4_URL/user" "$auth" "$work/user")
if [[ "$status" != 200 ]]; then
  echo "note.sh: cannot read the token's user (HTTP $status)" >&2
  exit 1
fi
me=$(jq -r '.id // ""' "$work/user")
if [[ ! "$me" =~ ^[0-9]+$ ]]; then
  echo "note.sh: the token's user has no id" >&2
  exit 1
fi

id=""
for ((page = 1; page <= 100; page++)); do
  status=$(comment_http GET "$base?sort=asc&order_by=created_at&per_page=100&page=$page" "$auth" "$work/page")
  if [[ "$status" != 200 ]]; then
    echo "note.sh: cannot list the notes of !$CI_MERGE_REQUEST_IID (HTTP $status)" >&2
    exit 1
  fi
  id=$(jq -r --arg me "$me" --arg start "$marker"$'\n' \
    'first(.[] | select((.author.id | tostring) == $me and (.body // "" | startswith($start))) | .id) // ""' "$work/page")
  [[ -n "$id" || $(jq length "$work/page") -lt 100 ]] && break
done

if [[ -n "$id" ]]; then
  [[ "$id" =~ ^[0-9]+$ ]] || { echo "note.sh: note id '$id' is not a number" >&2; exit 1; }
  status=$(comment_http PUT "$base/$id" "$auth" "$work/response" "$work/body")
  want=200 verb="edited"
else
  status=$(comment_http POST "$base" "$auth" "$work/response" "$work/body")
  want=201 verb="posted"
fi
if [[ "$status" != "$want" ]]; then
  echo "note.sh: the note on !$CI_MERGE_REQUEST_IID could not be $verb (HTTP $status)" >&2
  exit 1
fi
echo "note.sh: $verb the workgate note on !$CI_MERGE_REQUEST_IID (note $(jq -r '.id // ""' "$work/response"))"
