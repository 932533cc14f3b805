#!/usr/bin/env python3
"""The rules of the GitHub files themselves (ci/github/action.yml,
comment/action.yml, examples/*.yml), read as YAML: a pull-request job only
restores from the Actions cache and only a push to the default branch
saves; the gate and comment workflows have their concurrency groups and
their permissions. The pinning rule is ci/lint-ci pins (CiLint.pins), tested here on
files that break it."""

import glob
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import CI_GITHUB, ROOT, require_module  # noqa: E402

try:
    import yaml
except ImportError:  # python3-yaml comes with yamllint, which ci/setup installs
    yaml = None

LINT = os.path.join(ROOT, "ci", "lint-ci")
DEFAULT_BRANCH_PUSH = ("github.event_name == 'push'",
                       "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)")


def load(name):
    with open(os.path.join(CI_GITHUB, name)) as f:
        # YAML 1.1 reads the key `on` as True.
        doc = yaml.safe_load(f)
    if True in doc:
        doc["on"] = doc.pop(True)
    return doc


def yml_files():
    return sorted(os.path.relpath(p, CI_GITHUB)
                  for p in glob.glob(os.path.join(CI_GITHUB, "**", "*.yml"), recursive=True))


def steps_of(doc):
    """(job `if` or None, step) for every step of a workflow or composite action."""
    if "runs" in doc:
        return [(None, s) for s in doc["runs"].get("steps", [])]
    return [(job.get("if"), s) for job in doc["jobs"].values() for s in job.get("steps", [])]


def squash(text):
    return " ".join(str(text or "").split())


class CacheTest(unittest.TestCase):
    def setUp(self):
        require_module(self, yaml, "python3-yaml (it comes with yamllint)")

    def test_pull_request_jobs_only_restore(self):
        saves = 0
        for name in yml_files():
            for job_if, step in steps_of(load(name)):
                uses = step.get("uses", "")
                if not uses.startswith("actions/cache"):
                    continue
                with self.subTest(file=name, step=step.get("name", uses)):
                    # actions/cache itself saves in its post step, whatever job it is in.
                    self.assertRegex(uses, r"^actions/cache/(restore|save)@",
                                     "use actions/cache/restore, and actions/cache/save on the default branch")
                    if "/save@" in uses:
                        saves += 1
                        condition = squash(step.get("if")) + " " + squash(job_if)
                        for part in DEFAULT_BRANCH_PUSH:
                            self.assertIn(part, condition, "a save outside pushes to the default branch")
        self.assertGreaterEqual(saves, 2, "the action's build and the stored baseline are saved")


class WorkflowTest(unittest.TestCase):
    def setUp(self):
        require_module(self, yaml, "python3-yaml (it comes with yamllint)")

    def test_the_gate_is_read_only_and_one_run_per_pull_request(self):
        for name in ("examples/workgate.yml", "examples/workgate-sharded.yml"):
            with self.subTest(file=name):
                doc = load(name)
                self.assertEqual(doc["permissions"], {"contents": "read"})
                group = doc["concurrency"]["group"]
                self.assertIn("github.event.pull_request.number", group)
                self.assertIn("github.workflow", group)
                self.assertEqual(squash(doc["concurrency"]["cancel-in-progress"]),
                                 "${{ github.event_name == 'pull_request' }}")

    def test_the_comment_workflow_posts_one_at_a_time(self):
        doc = load("examples/workgate-comment.yml")
        self.assertEqual(doc["permissions"],
                         {"actions": "read", "pull-requests": "write", "statuses": "write"})
        group = doc["concurrency"]["group"]
        self.assertIn("github.event.workflow_run.head_repository.full_name", group)
        self.assertIn("github.event.workflow_run.head_branch", group)
        self.assertIs(doc["concurrency"]["cancel-in-progress"], False)


class PinsTest(unittest.TestCase):
    """ci/lint-ci pins on the repository's files and on ones that break it."""

    SHA = "11d5960a326750d5838078e36cf38b85af677262"

    def lint(self, *files):
        return subprocess.run([LINT, "pins", *files], capture_output=True, text=True)

    def check(self, line):
        with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
            f.write("steps:\n" + line + "\n")
            f.flush()
            return self.lint(f.name)

    def test_the_repository_is_pinned(self):
        # From anywhere: ctest runs it in the build directory.
        with tempfile.TemporaryDirectory() as elsewhere:
            r = subprocess.run([LINT, "pins"], capture_output=True, text=True, cwd=elsewhere)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_pinned_placeholders_and_local_paths_pass(self):
        for line in (f"  - uses: actions/checkout@{self.SHA} # v4.4.0",
                     f"      uses: actions/cache/restore@{self.SHA}  # v4.3.0",
                     f"  - uses: 'actions/checkout@{self.SHA}' # v4.4.0",
                     "  - uses: OWNER/workgate/ci/github@REF",
                     "  - uses: OWNER/workgate/ci/github/comment@REF  # SET: where you take workgate from",
                     "  - uses: ./ci/github",
                     # A fork that has made no release pins a bare commit.
                     f"  - uses: someone/workgate/ci/github@{self.SHA}",
                     f"  - uses: actions/checkout@{self.SHA}",
                     f"  - uses: actions/checkout@{self.SHA} # main, 2026-12-01",
                     "permissions:\n  statuses: write  # the commit status"):
            with self.subTest(line=line):
                r = self.check(line)
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_tags_branches_short_shas_and_missing_comments_fail(self):
        for line in ("  - uses: actions/checkout@v4",
                     "  - uses: actions/checkout@v4.4.0 # v4.4.0",
                     "  - uses: actions/checkout@main",
                     "  - uses: actions/checkout@11d5960 # v4.4.0",
                     f"  - uses: actions/checkout@{self.SHA.upper()} # v4.4.0",
                     f"  - uses: actions/checkout@{self.SHA}0 # v4.4.0",
                     "  - uses: docker://alpine:3",
                     "  - uses: someone/workgate/ci/github@REF",
                     "  - {uses: actions/checkout@v4}"):
            with self.subTest(line=line):
                r = self.check(line)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("not pinned", r.stderr)

    def test_a_relative_path_is_read_from_where_it_is_run(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "flow.yml"), "w") as f:
                f.write("steps:\n  - uses: actions/checkout@v4\n")
            r = subprocess.run([LINT, "pins", "flow.yml"], capture_output=True, text=True, cwd=d)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("flow.yml:2: not pinned", r.stderr)
            r = subprocess.run([LINT, "pins", "missing.yml"], capture_output=True, text=True,
                               cwd=d)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("missing.yml: no such file", r.stderr)

    def test_one_action_one_pin(self):
        other = "0057852bfaa89a56745cba8c7296529d2fc39830"
        with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
            f.write(f"steps:\n  - uses: actions/checkout@{self.SHA} # v4.4.0\n"
                    f"  - uses: actions/checkout@{other} # v4.4.0\n")
            f.flush()
            r = self.lint(f.name)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("pinned to more than one", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
