#!/usr/bin/env python3
"""The rules of the GitHub files themselves (ci/github/action.yml,
comment/action.yml, examples/*.yml), read as YAML: a pull-request job only
restores from the Actions cache and only a push to the default branch
saves."""

import glob
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import CI_GITHUB  # noqa: E402

try:
    import yaml
except ImportError:  # python3-yaml comes with yamllint, which ci/setup installs
    yaml = None

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
        if yaml is None:
            self.skipTest("python3-yaml is not installed (it comes with yamllint)")

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
