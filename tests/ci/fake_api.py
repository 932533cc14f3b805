"""A fake GitHub and GitLab REST API on loopback for the CI scripts' tests
(standard library only). It keeps comments and notes in memory, serves
their lists a page at a time (GitHub's Link and GitLab's X-Next-Page
headers, per_page and page parameters), creates and edits them with the
rules the real services apply (the token must match; only a comment's
author may edit it; GitHub refuses a body over 65536 characters), keeps
GitHub commit statuses (a status description over 140 characters is
refused), serves files under /files/ and GitLab's job artifacts, and
records every request.
"""

import json
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GITHUB_MAX_BODY = 65536
GITHUB_STATUS_DESCRIPTION = 140


class FakeApi:
    def __init__(self):
        self.requests = []  # (method, path with query, body bytes or None)
        self.gh_tokens = {}  # token -> login
        self.gh_comments = {}  # pr -> [comment]
        # pr -> head sha, or {"sha", "ref", "repo"}: its branch (default
        # "feature") and that branch's repository (default the one asked)
        self.gh_pulls = {}
        self.gh_statuses = {}  # sha -> [status], as posted
        self.gl_tokens = {}  # token -> (id, username)
        self.gl_notes = {}  # mr iid -> [note]
        # (ref, job name, path) -> bytes: a file of the artifacts of the
        # latest successful job of that name on that ref, which a job
        # token in gl_job_tokens may download
        self.gl_artifacts = {}
        self.gl_job_tokens = set()
        self.files = {}  # name -> bytes
        self._next_id = 1000
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _serve(self, method):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                with api._lock:
                    api.requests.append((method, self.path, body))
                    status, headers, payload = api.route(method, self.path, self.headers, body)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

            def do_PATCH(self):
                self._serve("PATCH")

            def do_PUT(self):
                self._serve("PUT")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def new_id(self):
        self._next_id += 1
        return self._next_id

    def writes(self):
        return [(m, p) for m, p, _ in self.requests if m in ("POST", "PATCH", "PUT")]

    # -- routing -----------------------------------------------------------
    def route(self, method, raw_path, headers, body):
        parsed = urllib.parse.urlsplit(raw_path)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        parts = parsed.path.strip("/").split("/")
        if parts[0] == "files" and method == "GET":
            name = "/".join(parts[1:])
            if name in self.files:
                return 200, {"Content-Type": "application/octet-stream"}, self.files[name]
            return 404, {}, {"message": "Not Found"}
        if parts[:2] == ["api", "v4"]:
            return self.gitlab(method, parts[2:], query, headers, body)
        if parts[0] == "repos":
            return self.github(method, parts[1:], query, headers, body)
        return 404, {}, {"message": "Not Found"}

    @staticmethod
    def page(items, query):
        per_page = int(query.get("per_page", 30))
        page = int(query.get("page", 1))
        start = (page - 1) * per_page
        chunk = items[start:start + per_page]
        more = start + per_page < len(items)
        return chunk, page, more

    def github(self, method, parts, query, headers, body):
        auth = headers.get("Authorization", "")
        login = self.gh_tokens.get(auth.removeprefix("Bearer "))
        if login is None:
            return 401, {}, {"message": "Bad credentials"}
        if len(parts) < 3:
            return 404, {}, {"message": "Not Found"}
        repo, rest = "/".join(parts[:2]), parts[2:]
        if rest[0] == "pulls" and len(rest) == 2 and method == "GET":
            pr = int(rest[1])
            if pr not in self.gh_pulls:
                return 404, {}, {"message": "Not Found"}
            head = self.gh_pulls[pr]
            head = head if isinstance(head, dict) else {"sha": head}
            return 200, {}, {"number": pr, "head": {"sha": head["sha"], "ref": head.get("ref", "feature"),
                                                    "repo": {"full_name": head.get("repo", repo)}}}
        if rest[:1] == ["issues"] and len(rest) == 3 and rest[2] == "comments":
            pr = int(rest[1])
            comments = self.gh_comments.setdefault(pr, [])
            if method == "GET":
                chunk, page, more = self.page(comments, query)
                links = {}
                if more:
                    links["Link"] = f'<{self.url}/repos/{repo}/issues/{pr}/comments?page={page + 1}>; rel="next"'
                return 200, links, chunk
            if method == "POST":
                text = json.loads(body)["body"]
                if len(text) > GITHUB_MAX_BODY:
                    return 422, {}, {"message": "body is too long (maximum is 65536 characters)"}
                c = {"id": self.new_id(), "user": {"login": login}, "body": text,
                     "html_url": f"{self.url}/{repo}/pull/{pr}#issuecomment"}
                comments.append(c)
                return 201, {}, c
        if rest[0] == "statuses" and len(rest) == 2 and method == "POST":
            # GitHub's rules: a full SHA, a known state, a description of at
            # most 140 characters.
            status = json.loads(body)
            if not re.fullmatch(r"[0-9a-f]{40}", rest[1]):
                return 422, {}, {"message": "No commit found for SHA"}
            if status.get("state") not in ("error", "failure", "pending", "success"):
                return 422, {}, {"message": "state is not included in the list"}
            if len(status.get("description") or "") > GITHUB_STATUS_DESCRIPTION:
                return 422, {}, {"message": "description is too long (maximum is 140 characters)"}
            self.gh_statuses.setdefault(rest[1], []).append(status)
            return 201, {}, {**status, "id": self.new_id()}
        if rest[:2] == ["issues", "comments"] and len(rest) == 3 and method == "PATCH":
            cid = int(rest[2])
            for comments in self.gh_comments.values():
                for c in comments:
                    if c["id"] == cid:
                        if c["user"]["login"] != login:
                            return 403, {}, {"message": "Resource not accessible by integration"}
                        text = json.loads(body)["body"]
                        if len(text) > GITHUB_MAX_BODY:
                            return 422, {}, {"message": "body is too long"}
                        c["body"] = text
                        return 200, {}, c
            return 404, {}, {"message": "Not Found"}
        return 404, {}, {"message": "Not Found"}

    def gitlab(self, method, parts, query, headers, body):
        # projects/:id/jobs/artifacts/:ref/raw/*path?job=NAME, with a job's own token
        if len(parts) >= 6 and parts[0] == "projects" and parts[2:4] == ["jobs", "artifacts"] and \
                parts[5] == "raw" and method == "GET":
            if headers.get("JOB-TOKEN", "") not in self.gl_job_tokens:
                return 401, {}, {"message": "401 Unauthorized"}
            key = (urllib.parse.unquote(parts[4]), query.get("job", ""), "/".join(parts[6:]))
            if key in self.gl_artifacts:
                return 200, {"Content-Type": "application/octet-stream"}, self.gl_artifacts[key]
            return 404, {}, {"message": "404 Not Found"}
        who = self.gl_tokens.get(headers.get("PRIVATE-TOKEN", ""))
        if who is None:
            return 401, {}, {"message": "401 Unauthorized"}
        if parts == ["user"] and method == "GET":
            return 200, {}, {"id": who[0], "username": who[1]}
        # projects/:id/merge_requests/:iid/notes[/:note_id]
        if len(parts) >= 5 and parts[0] == "projects" and parts[2] == "merge_requests" and parts[4] == "notes":
            iid = int(parts[3])
            notes = self.gl_notes.setdefault(iid, [])
            if len(parts) == 5 and method == "GET":
                chunk, page, more = self.page(notes, query)
                return 200, ({"X-Next-Page": str(page + 1)} if more else {"X-Next-Page": ""}), chunk
            if len(parts) == 5 and method == "POST":
                n = {"id": self.new_id(), "author": {"id": who[0], "username": who[1]},
                     "body": json.loads(body)["body"]}
                notes.append(n)
                return 201, {}, n
            if len(parts) == 6 and method == "PUT":
                for n in notes:
                    if n["id"] == int(parts[5]):
                        if n["author"]["id"] != who[0]:
                            return 403, {}, {"message": "403 Forbidden"}
                        n["body"] = json.loads(body)["body"]
                        return 200, {}, n
                return 404, {}, {"message": "404 Not found"}
        return 404, {}, {"message": "404 Not Found"}
