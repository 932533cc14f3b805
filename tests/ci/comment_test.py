#!/usr/bin/env python3
"""ci/github/comment.sh and ci/gitlab/note.sh against a fake GitHub and
GitLab API on loopback (fake_api.py): the comment is posted once and edited
in place by later runs, found by its marker among pages of other comments;
the artifact is untrusted (the pull request number, its head, the size, a
hostile report from the real workgate, the exit code and verdict line of
the commit status)."""

import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_api import FakeApi  # noqa: E402
from harness import (BUILD, CI_GITHUB, CI_GITLAB, MARKER, WORKGATE, ScriptTest,  # noqa: E402
                     require_built, require_tool)

COMMENT = os.path.join(CI_GITHUB, "comment.sh")
NOTE = os.path.join(CI_GITLAB, "note.sh")
HEAD = "0123456789abcdef0123456789abcdef01234567"
RUN_URL = "https://github.com/octo/project/actions/runs/7"
BOT = "github-actions[bot]"


class CommentTestBase(ScriptTest):
    def setUp(self):
        super().setUp()
        require_tool(self, "curl")
        require_tool(self, "jq")
        self.api = FakeApi()
        self.addCleanup(self.api.close)
        os.makedirs(self.path("artifact"))
        self.write_report("### workgate: ✅ ok\n\n| workload | verdict |\n|---|---|\n| `a` | ✅ ok |\n")
        self.write_number("42\n")
        self.write_result("0\n", "workgate: ✅ ok — 0 of 1 workload over the 1.00% margin\n")

    def write_result(self, code, line):
        with open(self.path("artifact", "exit-code"), "w") as f:
            f.write(code)
        with open(self.path("artifact", "verdict-line"), "w", encoding="utf-8") as f:
            f.write(line)

    def write_report(self, text):
        with open(self.path("artifact", "report.md"), "w", encoding="utf-8") as f:
            f.write(text)

    def write_number(self, text):
        with open(self.path("artifact", "pr-number"), "w") as f:
            f.write(text)


class GitHubCommentTest(CommentTestBase):
    def setUp(self):
        super().setUp()
        self.api.gh_tokens = {"ghs_token": BOT, "other": "mallory"}
        self.api.gh_pulls = {42: HEAD, 7: "f" * 40}

    def comment(self, **env):
        base = {"GITHUB_TOKEN": "ghs_token", "GITHUB_API_URL": self.api.url, "WG_HEAD_SHA": HEAD,
                "WG_HEAD_BRANCH": "feature", "WG_HEAD_REPOSITORY": "octo/project", "WG_RUN_URL": RUN_URL}
        return self.run_script([COMMENT, self.path("artifact")], {**base, **env})

    def bodies(self, pr=42):
        return [c["body"] for c in self.api.gh_comments.get(pr, [])]

    def comment_writes(self):
        return [w for w in self.api.writes() if "/statuses/" not in w[1]]

    def test_posts_then_edits_in_place(self):
        r = self.comment()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("posted the workgate comment on #42", r.stdout)
        (body,) = self.bodies()
        self.assertEqual(body, MARKER + "\n" + self.read("artifact", "report.md") +
                         f"\n<sub>[The run and its report artifact]({RUN_URL})</sub>\n")
        self.write_report("### workgate: ❌ work added\n")
        r = self.comment()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("edited the workgate comment on #42", r.stdout)
        (body,) = self.bodies()
        self.assertIn("❌ work added", body)
        self.assertEqual(self.api.writes()[-1][0], "PATCH")
        # The token travels in a header, never in the URL.
        self.assertFalse(any("ghs_token" in p for _, p, _ in self.api.requests))

    def test_finds_its_comment_past_the_first_pages(self):
        comments = self.api.gh_comments.setdefault(42, [])
        # Another user's comment that starts with the marker comes first; it is not ours.
        comments.append({"id": 1, "user": {"login": "mallory"}, "body": MARKER + "\nfake report"})
        for i in range(2, 251):
            comments.append({"id": i, "user": {"login": BOT if i % 3 else "someone"}, "body": f"chatter {i}"})
        comments.append({"id": 999, "user": {"login": BOT}, "body": MARKER + "\nold report"})
        r = self.comment()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.comment_writes(), [("PATCH", "/repos/octo/project/issues/comments/999")])
        pages = [p for m, p, _ in self.api.requests if m == "GET" and "/comments" in p]
        self.assertEqual(len(pages), 3)
        self.assertEqual(comments[0]["body"], MARKER + "\nfake report")
        self.assertNotIn("old report", comments[-1]["body"])

    def test_a_marker_not_on_the_first_line_is_not_ours(self):
        self.api.gh_comments[42] = [{"id": 5, "user": {"login": BOT}, "body": "quote:\n" + MARKER + "\n"}]
        r = self.comment()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.comment_writes()[0][0], "POST")
        self.assertEqual(len(self.bodies()), 2)

    def test_a_pr_number_that_is_not_an_integer_is_refused(self):
        for text in ("42; curl evil\n", "$(id)\n", "0\n", "-1\n", "4 2\n", "", "12345678901\n",
                     "42\n43\n", "../../x\n"):
            with self.subTest(text=text):
                self.write_number(text)
                r = self.comment()
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("pull request number", r.stderr)
        self.assertEqual(self.api.requests, [])

    def test_a_missing_artifact_is_refused(self):
        os.remove(self.path("artifact", "pr-number"))
        r = self.comment()
        self.assertEqual(r.returncode, 1)
        self.assertIn("is missing", r.stderr)
        self.write_number("42\n")
        os.remove(self.path("artifact", "report.md"))
        r = self.comment()
        self.assertEqual(r.returncode, 1)
        self.assertIn("nothing to post", r.stderr)
        self.assertEqual(self.api.writes(), [])

    def test_a_report_symlink_is_refused(self):
        os.remove(self.path("artifact", "report.md"))
        os.symlink("/etc/passwd", self.path("artifact", "report.md"))
        r = self.comment()
        self.assertEqual(r.returncode, 1)
        self.assertEqual(self.api.writes(), [])

    def test_another_pull_request_is_refused(self):
        # The artifact names #7, whose head is not the commit this run gated,
        # nor on its branch; nor is a fork's branch of the same name ours.
        self.api.gh_pulls[7] = {"sha": "f" * 40, "ref": "other"}
        self.api.gh_pulls[8] = {"sha": "e" * 40, "ref": "feature", "repo": "mallory/project"}
        for number in ("7\n", "8\n"):
            with self.subTest(number=number):
                self.write_number(number)
                r = self.comment()
                self.assertEqual(r.returncode, 1)
                self.assertIn("not posted", r.stderr)
                self.assertNotIn("::notice", r.stdout)
        self.assertEqual(self.api.writes(), [])

    def test_a_superseded_head_is_skipped_quietly(self):
        # A later push to the pull request's branch: its run reports that commit.
        self.api.gh_pulls[42] = {"sha": "b" * 40, "ref": "feature"}
        r = self.comment()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"::notice title=workgate::pull request #42 has moved on to {'b' * 40} since the run "
                      f"gated {HEAD}: its report is superseded, not posted", r.stdout)
        self.assertEqual(self.api.writes(), [])
        # Without the run's branch, a moved head cannot be told from another pull request's.
        r = self.comment(WG_HEAD_BRANCH="")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not posted", r.stderr)
        # The pull request number is checked before anything else, superseded or not.
        self.write_number("42; x\n")
        r = self.comment()
        self.assertEqual(r.returncode, 1)
        self.assertIn("pull request number", r.stderr)

    def test_sets_the_commit_status_by_the_exit_code(self):
        cases = [("0", "workgate: ✅ ok — 0 of 1 workload over the 1.00% margin", "fail", "success"),
                 ("1", "workgate: ❌ work added — 1 of 3 workloads over the 1.00% margin", "fail", "failure"),
                 ("3", "workgate: ⚠️ invalid", "fail", "failure"),
                 ("4", "workgate: ⚠️ inconclusive", "fail", "failure"),
                 ("4", "workgate: ⚠️ inconclusive", "pass", "success"),
                 ("2", "workgate: the gate did not run: WG_SUITE (the suite input) is required", "fail", "error"),
                 ("5", "workgate exited 5 and wrote no report", "fail", "error")]
        for code, line, inconclusive, state in cases:
            with self.subTest(code=code, inconclusive=inconclusive):
                self.write_result(code + "\n", line + "\n")
                r = self.comment(WG_INCONCLUSIVE=inconclusive)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(self.api.gh_statuses[HEAD][-1],
                                 {"state": state, "description": line, "context": "workgate", "target_url": RUN_URL})
                self.assertIn(f"set the workgate status of {HEAD}: {state}", r.stdout)
        # Set on the gated commit before the comment is written.
        self.assertEqual(self.api.writes()[:2], [("POST", f"/repos/octo/project/statuses/{HEAD}"),
                                                 ("POST", "/repos/octo/project/issues/42/comments")])

    def test_a_hostile_verdict_line_is_plain_and_bounded(self):
        line = ("workgate: \x1b[2J\x1b]8;;https://evil.example\x07ok\r\n::error::forged\u202egnp.exe"
                "\u2028\x00\t\xff" + "é" * 300 + "\n\nsecond line")
        with open(self.path("artifact", "verdict-line"), "wb") as f:
            f.write(line.encode().replace("\xff".encode(), b"\xff"))  # a byte that is not UTF-8
        r = self.comment()
        self.assertEqual(r.returncode, 0, r.stderr)
        (status,) = self.api.gh_statuses[HEAD]
        description = status["description"]
        self.assertEqual(len(description), 140, description)
        self.assertTrue(description.startswith("workgate: [2J ]8;;https://evil.example ok ::error::forged gnp.exe "
                                               "\ufffdéé"), description)
        self.assertTrue(description.endswith("é…"), description)
        self.assertFalse(any(ord(c) < 32 or c in "\x7f\u202e\u2028" for c in description), description)
        self.assertNotIn("\n::", r.stdout)
        self.assertEqual(status["state"], "success")
        # Nothing left once it is cleaned: the exit code says what happened.
        self.write_result("1\n", "\x1b\u202e \n\t\n")
        self.comment()
        self.assertEqual(self.api.gh_statuses[HEAD][-1]["description"], "workgate exited 1")

    def test_a_malformed_result_is_refused(self):
        for code in ("6\n", "1; curl evil\n", "", "01\n", "-1\n", "1\n2\n", "\n", "success\n"):
            with self.subTest(code=code):
                self.write_result(code, "workgate: ✅ ok\n")
                r = self.comment()
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("exit code", r.stderr)
        self.write_result("0\n", "x" * 4097)
        r = self.comment()
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("too long for a verdict line", r.stderr)
        for name in ("exit-code", "verdict-line"):
            with self.subTest(missing=name):
                self.write_result("0\n", "workgate: ✅ ok\n")
                os.remove(self.path("artifact", name))
                os.symlink("/etc/hostname", self.path("artifact", name))
                r = self.comment()
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("not a plain file", r.stderr)
                os.remove(self.path("artifact", name))
                r = self.comment()
                self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(self.api.requests, [])

    def test_links_the_history_of_the_default_branch(self):
        history = ("https://github.com/octo/project/actions/workflows/workgate.yml"
                   "?query=branch%3Amain%20event%3Apush")
        env = {"WG_WORKFLOW_PATH": ".github/workflows/workgate.yml", "WG_DEFAULT_BRANCH": "main",
               "GITHUB_SERVER_URL": "https://github.com"}
        r = self.comment(**env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(self.bodies()[-1].endswith(
            f"\n<sub>[The run and its report artifact]({RUN_URL}) · [The history of main]({history})</sub>\n"))
        # Published elsewhere (GitHub Pages): the page itself.
        r = self.comment(**env, WG_HISTORY_URL="https://octo.github.io/project/")
        self.assertTrue(self.bodies()[-1].endswith("[The history of main](https://octo.github.io/project/)</sub>\n"))
        # What cannot make a plain link makes none.
        for bad in ({"WG_DEFAULT_BRANCH": "main](https://evil.example)"},
                    {"WG_WORKFLOW_PATH": ".github/workflows/x.yml?evil=1"},
                    {"WG_HISTORY_URL": "javascript:alert(1)", "WG_WORKFLOW_PATH": ""}):
            with self.subTest(bad=bad):
                r = self.comment(**{**env, **bad})
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertTrue(self.bodies()[-1].endswith(f"<sub>[The run and its report artifact]({RUN_URL})</sub>\n"),
                                self.bodies()[-1][-200:])

    def test_an_api_error_fails(self):
        r = self.comment(GITHUB_TOKEN="wrong")
        self.assertEqual(r.returncode, 1)
        self.assertIn("HTTP 401", r.stderr)

    def test_the_body_is_bounded_and_cut_at_a_line(self):
        line = "| `workload-%05d` | 1,000 | 1,000 | 0 | 0.00%% | ✅ ok |\n"
        report = "### workgate: ✅ ok\n\n" + "".join(line % i for i in range(3000))
        self.write_report(report)
        r = self.comment()
        self.assertEqual(r.returncode, 0, r.stderr)
        (body,) = self.bodies()
        self.assertLessEqual(len(body.encode()), 65536)
        self.assertIn("*The report was cut to fit a comment", body)
        kept = body.split("\n*The report was cut")[0]
        self.assertTrue(report.startswith(kept[len(MARKER) + 1:]), "the kept part is not the report's start")
        self.assertTrue(kept.endswith("✅ ok |\n"), kept[-80:])

    def test_a_hostile_report_stays_text(self):
        require_built(self, WORKGATE)
        require_tool(self, "cmark-gfm")
        known_loop = os.path.join(BUILD, "probes", "known_loop")
        require_built(self, known_loop)
        name = ("a`b``c <img src=x onerror=alert(1)> @octocat " + MARKER +
                " --> **bold** [link](https://evil.example) | </details> <script>x</script>")
        suite = self.path("hostile.toml")
        with open(suite, "w") as f:
            f.write(f'[[workload]]\nname = {json.dumps(name)}\ncommand = ["{{exe}}", "1000"]\nclock = "none"\n')
        subprocess.run([WORKGATE, "compare", "--baseline", known_loop, "--candidate", known_loop,
                        "--suite", suite, "--timed", "0", "--no-store",
                        "--markdown", self.path("artifact", "report.md")],
                       check=True, capture_output=True)
        report = self.read("artifact", "report.md")
        for _ in range(2):
            r = self.comment()
            self.assertEqual(r.returncode, 0, r.stderr)
        (body,) = self.bodies()  # the marker inside the name did not make a second comment
        self.assertEqual(body, MARKER + "\n" + report + f"\n<sub>[The run and its report artifact]({RUN_URL})</sub>\n")
        html = subprocess.run(["cmark-gfm", "--unsafe", "-e", "table", "-e", "autolink", "-e", "tagfilter",
                               "-e", "strikethrough"], input=body, capture_output=True, text=True,
                              check=True).stdout
        self.assertTrue(html.startswith(MARKER + "\n"), html[:100])
        outside_code = re.sub(r"<code>.*?</code>", "", html, flags=re.S)
        self.assertEqual(outside_code.count("<!--"), 1, "a second HTML comment outside code")
        for bad in ("<img", "<script", "evil.example", "@octocat", "onerror"):
            self.assertNotIn(bad, outside_code)
        self.assertEqual(re.findall(r'<a href="([^"]*)"', html), [RUN_URL])


class GitLabNoteTest(CommentTestBase):
    def setUp(self):
        super().setUp()
        self.api.gl_tokens = {"glpat-token": (77, "project_5_bot"), "other": (8, "mallory")}

    def note(self, **env):
        base = {"WORKGATE_GITLAB_TOKEN": "glpat-token", "CI_API_V4_URL": self.api.url + "/api/v4",
                "CI_PROJECT_ID": "5", "CI_MERGE_REQUEST_IID": "9",
                "WG_RUN_URL": "https://gitlab.example/octo/project/-/pipelines/3"}
        return self.run_script([NOTE, self.path("artifact")], {**base, **env})

    def test_posts_then_edits_in_place(self):
        notes = self.api.gl_notes.setdefault(9, [])
        notes.append({"id": 1, "author": {"id": 8}, "body": MARKER + "\nnot ours"})
        notes.extend({"id": i, "author": {"id": 77}, "body": f"note {i}"} for i in range(2, 130))
        r = self.note()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("posted the workgate note on !9", r.stdout)
        self.assertEqual(notes[-1]["body"], MARKER + "\n" + self.read("artifact", "report.md") +
                         "\n<sub>[The pipeline and its report artifact](https://gitlab.example/octo/project/-/pipelines/3)</sub>\n")
        ours = notes[-1]["id"]
        self.write_report("### workgate: ❌ work added\n")
        r = self.note()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("edited the workgate note on !9", r.stdout)
        self.assertEqual(len(notes), 130)
        self.assertIn("❌ work added", notes[-1]["body"])
        self.assertEqual(self.api.writes()[-1], ("PUT", f"/api/v4/projects/5/merge_requests/9/notes/{ours}"))
        self.assertEqual(notes[0]["body"], MARKER + "\nnot ours")
        self.assertFalse(any("glpat" in p for _, p, _ in self.api.requests))

    def test_refuses_bad_input(self):
        r = self.note(CI_MERGE_REQUEST_IID="9/../../x")
        self.assertEqual(r.returncode, 1)
        r = self.note(WORKGATE_GITLAB_TOKEN="wrong")
        self.assertEqual(r.returncode, 1)
        self.assertIn("HTTP 401", r.stderr)
        self.assertEqual(self.api.writes(), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
