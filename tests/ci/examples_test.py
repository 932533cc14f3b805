#!/usr/bin/env python3
"""The example workflows (ci/github/examples/) and the GitLab template
(ci/gitlab/workgate.gitlab-ci.yml) as a newcomer uses them: each file's
marked block, and nothing else, is filled in for a small project of this
test's own (a C program in a git repository, with a suite, and a pull
request that adds work), and its jobs run here as the runner would run
them (fake_runner.py). GitHub: the pull request's gate, its candidate built
at the top of the checkout and its baseline at the top of the merge base's
worktree; the default branch's baseline job; the gate again, on the stored
baseline; the comment and commit status posted to the fake API; the sharded
gate; the runners' probe table. GitLab: the gate, the note, the baseline
job, the gate on the stored baseline, and a job that fails saying so where
WORKGATE_REPO is not set. And in every file no line outside the block names
a placeholder (OWNER, REF, myprog, bench/suite.toml, SET).

workgate is this build's: the repository the block names is a copy of this
checkout's ci/, whose install.sh hands over WORKGATE_BIN instead of building
one; install.sh itself is tested by install_test.py.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_api import FakeApi  # noqa: E402
from harness import MARKER, ROOT, WORKGATE, ScriptTest, require_built, require_module, require_tool  # noqa: E402

try:
    import yaml
    import fake_runner
    from fake_runner import GitHubWorld, GitLabWorld, Pipeline, WorkflowRun
except ImportError:  # python3-yaml comes with yamllint, which ci/setup installs
    yaml = None

EXAMPLES = os.path.join(ROOT, "ci", "github", "examples")
TEMPLATE = os.path.join(ROOT, "ci", "gitlab", "workgate.gitlab-ci.yml")
FILES = [os.path.join(EXAMPLES, n) for n in sorted(os.listdir(EXAMPLES)) if n.endswith(".yml")] + [TEMPLATE]

BLOCK_START = re.compile(r"^# SET: .*the only lines to edit")
BLOCK_END = re.compile(r"^# End of SET")
ENTRY = re.compile(r"^  ([A-Z][A-Z0-9_]*):")
PLACEHOLDER = re.compile(r"\b(OWNER|REF|SET)\b|myprog|bench/suite\.toml")
# Entries whose defaults suit the small project as they are.
KEEP = {"WORKGATE_MAX_WORK_ADDED", "WORKGATE_INCONCLUSIVE", "WORKGATE_DEB"}

TINY_C = r"""#include <stdio.h>
#include <stdlib.h>

static unsigned long mix(unsigned long n) {
  unsigned long h = 1469598103934665603ul;
  for (unsigned long i = 0; i < n * 100; ++i) h = (h ^ i) * 1099511628211ul;
  return h;
}

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
  printf("%lu\n", mix(n));
  return 0;
}
"""
SUITE = """[[workload]]
name = "tiny/small"
command = ["{exe}", "100"]
clock = "none"

[[workload]]
name = "tiny/big"
command = ["{exe}", "300"]
clock = "none"
"""
# The small project's values, as a newcomer writes them into the block.
PROJECT = {
    "WORKGATE_SUITE": "perf/tiny.toml",
    "WORKGATE_BUILD": "mkdir -p out && cc -O1 -g -o out/tiny tiny.c",
    "WORKGATE_PROGRAM": "out/tiny",
    "WORKGATE_SHARDS": "2",
    "WORKGATE_RUNNERS": "runner-a runner-b",
}
STAND_IN_INSTALL = """#!/usr/bin/env bash
# examples_test.py's stand-in for install.sh: `key` is the real script's
# (install.real.sh); the install hands over this build's workgate instead
# of building this checkout into the prefix, which it only makes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ "${1:-}" == key ]]; then exec "$here/install.real.sh" key; fi
prefix="${WG_PREFIX:-${RUNNER_TEMP:-/tmp}/workgate-prefix}"
mkdir -p "$prefix"
"$here/install.real.sh" key >"$prefix/.workgate-source-key"
bin=%s
if [[ -n "${GITHUB_PATH:-}" ]]; then printf '%%s\\n' "$bin" >>"$GITHUB_PATH"; fi
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then printf 'bin-dir=%%s\\n' "$bin" >>"$GITHUB_OUTPUT"; fi
printf '%%s\\n' "$bin"
"""


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def block_of(text):
    """The file's lines, and the index of the block's first and last line
    (its two markers), or an AssertionError saying what is wrong."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if BLOCK_START.match(line)]
    ends = [i for i, line in enumerate(lines) if BLOCK_END.match(line)]
    if len(starts) != 1 or len(ends) != 1 or starts[0] > ends[0]:
        raise AssertionError(f"not one block from a `# SET: ... the only lines to edit` line to an "
                             f"`# End of SET` line (starts at lines {[i + 1 for i in starts]}, "
                             f"ends at {[i + 1 for i in ends]})")
    return lines, starts[0], ends[0]


def fill(text, values):
    """The text with the block's entries set to values (KEEP's left as
    they are); an entry with neither is an AssertionError."""
    lines, start, end = block_of(text)
    for i in range(start + 1, end):
        m = ENTRY.match(lines[i])
        if not m:
            continue
        key = m.group(1)
        if key in values:
            lines[i] = f"  {key}: {json.dumps(values[key])}\n"
        elif key not in KEEP:
            raise AssertionError(f"the block has {key}, which this test does not know: give it the "
                                 f"small project's value in PROJECT, or its default in KEEP")
    return "".join(lines)


def git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.org", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


class BlockTest(unittest.TestCase):
    def setUp(self):
        require_module(self, yaml, "python3-yaml (it comes with yamllint)")

    def test_every_value_to_set_is_in_the_block_at_the_top(self):
        for path in FILES:
            name = os.path.relpath(path, ROOT)
            with self.subTest(file=name):
                lines, start, end = block_of(read(path))
                for n, line in enumerate(lines):
                    if not start <= n <= end:
                        self.assertNotRegex(line, PLACEHOLDER,
                                            f"{name}:{n + 1}: a value to set outside the marked block")
                for n, line in enumerate(lines[:start]):
                    self.assertTrue(line.strip() in ("", "---") or line.startswith("#"),
                                    f"{name}:{n + 1}: the marked block is not at the top")
                # The block is the file's whole top-level env (variables).
                key = "variables" if path == TEMPLATE else "env"
                self.assertEqual(lines[start + 1], f"{key}:\n", f"{name}: the block is not the {key}: mapping")
                entries = [ENTRY.match(line).group(1) for line in lines[start + 2:end] if ENTRY.match(line)]
                loader = fake_runner.GitLabLoader if path == TEMPLATE else yaml.SafeLoader
                self.assertEqual(entries, list(yaml.load(read(path), Loader=loader)[key]))  # noqa: S506

    def test_a_value_left_outside_the_block_is_found(self):
        text = read(os.path.join(EXAMPLES, "workgate.yml"))
        lines, start, end = block_of(text.replace("baseline: ${{ env.WORKGATE_PROGRAM }}", "baseline: build/myprog"))
        self.assertTrue(any(PLACEHOLDER.search(line) for line in lines[end + 1:]))


class ExamplesBase(ScriptTest):
    """The small project (its origin repository: main, a pull request's
    branch that adds work, the pull request's merge commit) and the
    repository workgate is taken from."""

    def setUp(self):
        super().setUp()
        require_module(self, yaml, "python3-yaml (it comes with yamllint)")
        for tool in ("git", "cc", "jq", "curl"):
            require_tool(self, tool)
        require_built(self, WORKGATE)
        self.api = FakeApi()
        self.addCleanup(self.api.close)
        self.make_project()
        self.make_workgate_repository()

    def make_project(self):
        origin = self.origin = self.path("origin")
        os.makedirs(os.path.join(origin, "perf"))
        git(origin, "init", "-q", "-b", "main")
        with open(os.path.join(origin, "tiny.c"), "w") as f:
            f.write(TINY_C)
        with open(os.path.join(origin, "perf", "tiny.toml"), "w") as f:
            f.write(SUITE)
        with open(os.path.join(origin, ".gitignore"), "w") as f:
            f.write("out/\n")
        git(origin, "add", "-A")
        git(origin, "commit", "-q", "-m", "the program")
        self.merge_base = git(origin, "rev-parse", "HEAD")
        git(origin, "checkout", "-q", "-b", "feature")
        with open(os.path.join(origin, "tiny.c"), "w") as f:
            f.write(TINY_C.replace("  return h;", "  for (unsigned long i = 0; i < n * 100; ++i) h ^= h >> 7;\n"
                                                  "  return h;"))
        git(origin, "commit", "-q", "-am", "a second pass over the hash")
        self.head = git(origin, "rev-parse", "HEAD")
        git(origin, "checkout", "-q", "main")
        with open(os.path.join(origin, "README"), "w") as f:
            f.write("tiny\n")
        git(origin, "add", "README")
        git(origin, "commit", "-q", "-m", "a README")
        self.main = git(origin, "rev-parse", "HEAD")
        git(origin, "checkout", "-q", "-b", "pull-1-merge")
        git(origin, "merge", "-q", "--no-ff", "-m", "merge", "feature")
        self.merge = git(origin, "rev-parse", "HEAD")
        git(origin, "checkout", "-q", "main")

    def make_workgate_repository(self):
        repo = self.workgate_repo = self.path("workgate")
        shutil.copytree(os.path.join(ROOT, "ci"), os.path.join(repo, "ci"),
                        ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
        install = os.path.join(repo, "ci", "github", "install.sh")
        os.rename(install, os.path.join(repo, "ci", "github", "install.real.sh"))
        with open(install, "w") as f:
            f.write(STAND_IN_INSTALL % shlex.quote(os.path.dirname(os.path.abspath(WORKGATE))))
        os.chmod(install, 0o755)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "workgate")
        git(repo, "tag", "-a", "v0.0-test", "-m", "a release")
        self.workgate_sha = git(repo, "rev-parse", "HEAD")

    def filled(self, path, **values):
        out = self.path("filled", os.path.basename(path))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w", encoding="utf-8") as f:
            f.write(fill(read(path), {**PROJECT, **values}))
        return out

    def report(self, directory, log):
        """report.json in directory; its absence fails with the job's log."""
        path = os.path.join(directory, "report.json")
        self.assertTrue(os.path.exists(path), f"no {path}; the job's log:\n{log}")
        with open(path) as f:
            return json.load(f)


class GitHubExamplesTest(ExamplesBase):
    def setUp(self):
        super().setUp()
        self.world = GitHubWorld(self.path("runner"), {"octo/project": self.origin,
                                                       "example/workgate": self.workgate_repo},
                                 self.api.url, "ghs_token", "octo/project")
        self.api.gh_tokens = {"ghs_token": "github-actions[bot]"}
        self.api.gh_pulls = {1: {"sha": self.head, "ref": "feature"}}

    def workflow(self, name):
        return self.filled(os.path.join(EXAMPLES, name), WORKGATE_REPOSITORY="example/workgate",
                           WORKGATE_REF=self.workgate_sha)

    def repository(self):
        return {"default_branch": "main", "full_name": "octo/project"}

    def pull_request(self, path):
        event = {"action": "synchronize", "number": 1, "repository": self.repository(),
                 "pull_request": {"number": 1, "head": {"sha": self.head, "ref": "feature",
                                                        "repo": {"full_name": "octo/project"}},
                                  "base": {"sha": self.main, "ref": "main"}}}
        return WorkflowRun(self.world, path, "pull_request", event, self.merge, "refs/pull/1/merge").run()

    def push(self, path, sha, branch="main"):
        event = {"ref": f"refs/heads/{branch}", "after": sha, "repository": self.repository()}
        return WorkflowRun(self.world, path, "push", event, sha, f"refs/heads/{branch}").run()

    def artifact(self, run, name, job):
        self.assertIn(name, self.world.artifacts.get(run.id, {}), f"no artifact {name}; the job's log:\n{job.log()}")
        return self.world.artifacts[run.id][name]

    def test_gate_baseline_and_comment(self):
        flow = self.workflow("workgate.yml")
        # A pull request, nothing stored: the merge base is built in its worktree.
        first = self.pull_request(flow)
        self.assertEqual(first.result("baseline"), "skipped")
        (gate,) = first.jobs["gate"]
        (step,) = gate.step("./.workgate/ci/github")
        self.assertEqual(step.outputs.get("verdict"), "work-added", gate.log())
        self.assertEqual(step.outputs["baseline-source"], "built")
        self.assertEqual(gate.result, "failure")  # work added fails the check
        report = self.report(self.artifact(first, "workgate-report", gate), gate.log())
        self.assertEqual((report["candidate_label"], report["baseline_label"]),
                         ("out/tiny", "../workgate-base/out/tiny"))
        self.assertEqual(sorted(w["name"] for w in report["workloads"]), ["tiny/big", "tiny/small"])
        self.assertTrue(os.path.exists(os.path.join(gate.workspace, "..", "workgate-base", "out", "tiny")))
        self.assertEqual(first.concurrency, ("workgate-1", True))

        # The merge base lands on the default branch: its baseline is stored.
        landed = self.push(flow, self.merge_base)
        self.assertEqual(landed.result("gate"), "skipped")
        (baseline,) = landed.jobs["baseline"]
        self.assertEqual(baseline.result, "success", baseline.log())
        self.assertIn(f"workgate-baseline-Linux-X64-{self.merge_base}", self.world.cache)
        self.assertTrue(os.path.exists(os.path.join(self.artifact(landed, "workgate-history", baseline),
                                                    "index.html")))
        self.assertEqual(landed.concurrency, ("workgate-refs/heads/main", False))
        # A push to another branch runs nothing.
        other = self.push(flow, self.head, "feature")
        self.assertEqual([other.result(j) for j in ("gate", "baseline")], ["skipped", "skipped"])

        # The pull request again: compared with the stored baseline, nothing built for it.
        second = self.pull_request(flow)
        (gate,) = second.jobs["gate"]
        (step,) = gate.step("./.workgate/ci/github")
        self.assertEqual(step.outputs.get("verdict"), "work-added", gate.log())
        self.assertEqual(step.outputs["baseline-source"], "stored", gate.log())
        self.assertFalse(os.path.exists(os.path.join(gate.workspace, "..", "workgate-base")))

        # The comment workflow posts the second run's report and sets the status.
        event = {"action": "completed", "repository": self.repository(),
                 "workflow_run": {"id": second.id, "name": "workgate", "event": "pull_request",
                                  "conclusion": "failure", "head_sha": self.head, "head_branch": "feature",
                                  "head_repository": {"full_name": "octo/project"},
                                  "html_url": f"https://github.com/octo/project/actions/runs/{second.id}",
                                  "path": ".github/workflows/workgate.yml"}}
        comment = WorkflowRun(self.world, self.workflow("workgate-comment.yml"), "workflow_run", event,
                              self.main, "refs/heads/main").run()
        (job,) = comment.jobs["comment"]
        self.assertEqual(job.result, "success", job.log())
        (body,) = [c["body"] for c in self.api.gh_comments[1]]
        self.assertTrue(body.startswith(MARKER + "\n### workgate: ❌ work added"), body[:200])
        self.assertEqual(self.api.gh_statuses[self.head][-1]["state"], "failure")
        self.assertEqual(comment.concurrency, ("workgate-comment-octo/project-feature", False))

    def test_sharded_gate(self):
        run = self.pull_request(self.workflow("workgate-sharded.yml"))
        shards = run.jobs["shard"]
        self.assertEqual([j.matrix for j in shards], [{"shard": 1}, {"shard": 2}])
        parts = []
        for job in shards:
            self.assertEqual(job.result, "success", job.log())  # fail: 'false'
            part = self.artifact(run, f"workgate-shard-{job.matrix['shard']}", job)
            parts += [w["name"] for w in self.report(part, job.log())["workloads"]]
        self.assertEqual(sorted(parts), ["tiny/big", "tiny/small"])
        (join,) = run.jobs["join"]
        (step,) = join.step("./.workgate/ci/github")
        self.assertEqual(step.outputs.get("verdict"), "work-added", join.log())
        self.assertEqual(join.result, "failure")
        merged = self.report(self.artifact(run, "workgate-report", join), join.log())
        self.assertEqual(sorted(w["name"] for w in merged["workloads"]), ["tiny/big", "tiny/small"])

    def test_runners_table(self):
        path = self.workflow("workgate-runners.yml")
        run = WorkflowRun(self.world, path, "workflow_dispatch", {"repository": self.repository()},
                          self.main, "refs/heads/main").run()
        self.assertEqual([j.matrix for j in run.jobs["probe"]], [{"runner": "runner-a"}, {"runner": "runner-b"}])
        for job in run.jobs["probe"]:
            self.assertEqual(job.result, "success", job.log())
        (table,) = run.jobs["table"]
        self.assertEqual(table.result, "success", table.log())
        summary = read(table.summary)
        self.assertIn("runner-a", summary)
        self.assertIn("runner-b", summary)


class GitLabTemplateTest(ExamplesBase):
    def setUp(self):
        super().setUp()
        self.api.gl_tokens = {"glpat-token": (77, "project_5_bot")}
        self.world = GitLabWorld(self.path("runner"), self.origin, self.api,
                                 {"WORKGATE_GITLAB_TOKEN": ("glpat-token", "workgate-note")})

    def template(self, ref):
        return self.filled(TEMPLATE, WORKGATE_REPO="file://" + self.workgate_repo, WORKGATE_REF=ref)

    def merge_request(self, path):
        return Pipeline(self.world, path, "merge_request_event", self.head,
                        mr={"iid": 9, "base": self.merge_base, "branch": "feature"}).run()

    def test_gate_note_and_baseline(self):
        # A merge request, nothing stored, workgate at a commit.
        first = self.merge_request(self.template(self.workgate_sha))
        self.assertEqual(sorted(first.jobs), ["workgate-gate", "workgate-note"])
        gate = first.jobs["workgate-gate"]
        self.assertEqual(gate.result, "failure", gate.log)  # work added
        out = os.path.join(gate.dir, "workgate-report")
        report = self.report(out, gate.log)
        self.assertEqual(report["verdict"], "work-added", gate.log)
        self.assertEqual((report["candidate_label"], report["baseline_label"]),
                         ("out/tiny", "../workgate-base/out/tiny"))
        self.assertIn("No stored baseline", read(os.path.join(out, "report.md")))
        self.assertIn('name="tiny/small"', read(os.path.join(out, "junit.xml")))
        self.assertNotIn("WORKGATE_GITLAB_TOKEN", gate.variables)
        note = first.jobs["workgate-note"]
        self.assertEqual(note.result, "success", note.log)
        (posted,) = self.api.gl_notes[9]
        self.assertTrue(posted["body"].startswith(MARKER + "\n### workgate: ❌ work added"), posted["body"][:200])

        # The merge base on the default branch, workgate at a tag: its baseline is kept.
        landed = Pipeline(self.world, self.template("v0.0-test"), "push", self.merge_base, branch="main").run()
        self.assertEqual(sorted(landed.jobs), ["workgate-baseline"])
        baseline = landed.jobs["workgate-baseline"]
        self.assertEqual(baseline.result, "success", baseline.log)
        self.assertIn(("main", "workgate-baseline", f"workgate-baseline/{self.merge_base}.json"),
                      self.api.gl_artifacts)

        # The merge request again, workgate at a branch: the stored baseline is used.
        second = self.merge_request(self.template("main"))
        gate = second.jobs["workgate-gate"]
        out = os.path.join(gate.dir, "workgate-report")
        self.assertEqual(self.report(out, gate.log)["verdict"], "work-added", gate.log)
        self.assertIn("Compared with the stored baseline", read(os.path.join(out, "report.md")), gate.log)
        self.assertFalse(os.path.exists(os.path.join(gate.dir, "..", "workgate-base")))
        self.assertEqual(len(self.api.gl_notes[9]), 1, "the note is edited, not posted again")

    def test_an_unset_repository_fails_saying_so(self):
        run = self.merge_request(TEMPLATE)
        gate = run.jobs["workgate-gate"]
        self.assertEqual(gate.result, "failure")
        self.assertIn("WORKGATE_REPO and WORKGATE_REF are not set", gate.log)


if __name__ == "__main__":
    unittest.main(verbosity=2)
