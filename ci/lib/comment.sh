# shellcheck shell=bash
# Shared by ci/github/comment.sh and ci/gitlab/note.sh (sourced, not run):
# reading the report artifact, which a pull request's own job wrote and is
# therefore untrusted, building the comment body and the commit status, and
# calling a REST API with curl. Nothing read from the artifact is ever
# evaluated, expanded or used to build a URL except the pull request number,
# and that only after it is checked to be a plain decimal integer.

# comment_pr_number FILE: prints the number in FILE (a decimal integer of at
# most 10 digits and a newline, nothing else) or fails saying why.
comment_pr_number() {
  local file="$1" text
  if [[ ! -f "$file" || -L "$file" ]]; then
    echo "comment: $file is missing or not a plain file: no pull request to comment on" >&2
    return 1
  fi
  if [[ $(wc -c <"$file") -gt 12 ]]; then
    echo "comment: $file is too long for a pull request number" >&2
    return 1
  fi
  text=$(<"$file")
  if [[ ! "$text" =~ ^[1-9][0-9]{0,9}$ ]]; then
    echo "comment: $file does not hold a pull request number (a decimal integer)" >&2
    return 1
  fi
  printf '%s\n' "$text"
}

# comment_body MARKER REPORT MAX_BYTES FOOTER OUT: writes to OUT the marker
# on a line of its own, then the report's lines as they are, then FOOTER, in
# at most MAX_BYTES bytes (a character is at least a byte, so this also
# bounds the characters). The report is Markdown that workgate escaped; it is
# copied byte for byte, never unescaped or re-rendered, and cut only at a line
# end (workgate keeps each escaped text on one line), with a line saying so.
comment_body() {
  local marker="$1" report="$2" max="$3" footer="$4" out="$5"
  if [[ ! -f "$report" || -L "$report" ]]; then
    echo "comment: $report is missing or not a plain file: nothing to post" >&2
    return 1
  fi
  # Byte lengths: ${#var} counts bytes in the C locale.
  local LC_ALL=C total cut_note room
  total=$(wc -c <"$report")
  cut_note=$'\n'"*The report was cut to fit a comment ($total bytes in all): the whole report is in the report artifact of the run.*"$'\n'
  room=$((max - ${#marker} - 1 - ${#footer}))
  {
    printf '%s\n' "$marker"
    if [[ $total -le $room ]]; then
      cat "$report"
    else
      # Whole lines while they fit, and the line that says it was cut.
      LC_ALL=C awk -v room="$((room - ${#cut_note}))" \
        '{ n = length($0) + 1; if (used + n > room) exit; print; used += n }' "$report"
      printf '%s' "$cut_note"
    fi
    printf '%s' "$footer"
  } >"$out"
}

# comment_http METHOD URL AUTH_HEADER_FILE RESPONSE [BODY_FILE [json]]: one
# REST call; prints the HTTP status. The token travels in a header file,
# never on a command line. BODY_FILE is sent as JSON {"body": its text}, or,
# with `json`, as the JSON document it already is.
comment_http() {
  local method="$1" url="$2" auth="$3" response="$4" body="${5:-}" kind="${6:-text}"
  local args=(-sS --max-time 60 --retry 2 -X "$method" -H @"$auth"
    -H "Content-Type: application/json" -o "$response" -w '%{http_code}')
  if [[ -n "$body" && "$kind" == json ]]; then
    args+=(--data-binary @"$body")
  elif [[ -n "$body" ]]; then
    jq -n --rawfile body "$body" '{body: $body}' >"$response.request"
    args+=(--data-binary @"$response.request")
  fi
  curl "${args[@]}" -- "$url"
}

# comment_exit_code FILE: prints the gate's exit code in FILE (one of
# workgate's codes, 0-5, and a newline, nothing else) or fails saying why.
comment_exit_code() {
  local file="$1" text
  if [[ ! -f "$file" || -L "$file" || $(wc -c <"$file") -gt 2 ]]; then
    echo "comment: $file is missing, not a plain file or too long: no exit code for the commit status" >&2
    return 1
  fi
  text=$(<"$file")
  if [[ ! "$text" =~ ^[0-5]$ ]]; then
    echo "comment: $file does not hold one of workgate's exit codes (0-5)" >&2
    return 1
  fi
  printf '%s\n' "$text"
}

# comment_status_description FILE FALLBACK: prints the verdict line in FILE
# as a commit status description: control, format and line-separator
# characters (escapes, bidirectional overrides, newlines) made spaces,
# trimmed, and cut to GitHub's 140 characters; FALLBACK when nothing is left.
# A FILE over 4096 bytes, or not a plain file, is refused.
comment_status_description() {
  local file="$1" fallback="$2"
  if [[ ! -f "$file" || -L "$file" || $(wc -c <"$file") -gt 4096 ]]; then
    echo "comment: $file is missing, not a plain file or too long for a verdict line" >&2
    return 1
  fi
  # jq reads bytes that are not UTF-8 as U+FFFD and counts characters.
  jq -Rrs --arg fallback "$fallback" '
    gsub("[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\s]+"; " ") | ltrimstr(" ") | rtrimstr(" ")
    | if . == "" then $fallback else . end
    | if length > 140 then .[0:139] + "…" else . end' "$file"
}
