"""What the tests of the CI scripts share: paths, a faked GitHub Actions
environment, running a script, reading GITHUB_OUTPUT, and the rule for a
missing tool (tests/test_requirements.h): a build product that is missing
fails; a tool ci/setup installs fails under CI=true and skips elsewhere."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("WORKGATE_BUILD_DIR", os.path.join(ROOT, "build"))
WORKGATE = os.environ.get("WORKGATE_BIN", os.path.join(BUILD, "workgate"))
CI_GITHUB = os.path.join(ROOT, "ci", "github")
CI_GITLAB = os.path.join(ROOT, "ci", "gitlab")
FAKE_WORKGATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_workgate.py")
MARKER = "<!-- workgate-report -->"


def in_ci():
    return os.environ.get("CI") in ("true", "1")


def require_tool(case, name):
    if shutil.which(name) is None:
        if in_ci():
            case.fail(f"{name} is not installed (CI=true: ci/setup installs it, so it must be here)")
        case.skipTest(f"{name} is not installed (ci/setup installs it; under CI=true this fails)")


def require_module(case, module, package):
    """Skips where `module` (an import that gave None) is missing, on a
    developer's machine; under CI=true ci/setup has installed `package`, so
    its absence fails."""
    if module is None:
        if in_ci():
            case.fail(f"{package} is not installed (CI=true: ci/setup installs it, so it must be here)")
        case.skipTest(f"{package} is not installed (ci/setup installs it; under CI=true this fails)")


def require_built(case, path):
    if not os.access(path, os.X_OK):
        case.fail(f"{path} is missing, but CMake builds it with the tests: the build is broken")


def require_feature(case, argv, option, what):
    """Fails, naming the missing interface, unless `argv --help` lists option:
    a test of a feature this workgate lacks must never pass."""
    out = subprocess.run(argv + ["--help"], capture_output=True, text=True).stdout
    if option not in out:
        case.fail(f"this workgate lacks {what} ({' '.join(argv[1:])} --help names no {option.strip()}): "
                  f"the test needs that option")


class ScriptTest(unittest.TestCase):
    """A temporary directory and a faked GitHub Actions environment."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="workgate-ci-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.summary = os.path.join(self.tmp, "summary.md")
        self.output = os.path.join(self.tmp, "output")
        self.event = os.path.join(self.tmp, "event.json")
        with open(self.event, "w") as f:
            json.dump({"pull_request": {"number": 42, "head": {"sha": "a" * 40}}}, f)
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": self.tmp,
            "LC_ALL": "C.UTF-8",
            "GITHUB_ACTIONS": "true",
            "GITHUB_REPOSITORY": "octo/project",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": self.event,
            "GITHUB_STEP_SUMMARY": self.summary,
            "GITHUB_OUTPUT": self.output,
            "RUNNER_TEMP": self.tmp,
        }
        open(self.summary, "w").close()
        open(self.output, "w").close()

    def path(self, *names):
        return os.path.join(self.tmp, *names)

    def run_script(self, argv, env=None, cwd=None, timeout=600):
        return subprocess.run(argv, env={**self.env, **(env or {})}, cwd=cwd or self.tmp,
                              capture_output=True, text=True, timeout=timeout)

    def outputs(self):
        result = {}
        with open(self.output) as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("=")
                result[key] = value
        return result

    def read(self, *names):
        with open(self.path(*names), encoding="utf-8") as f:
            return f.read()
