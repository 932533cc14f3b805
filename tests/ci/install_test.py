#!/usr/bin/env python3
"""ci/github/install.sh: the cache key of a source, a Debian package from a
URL (checked against its sha256, installed with apt-get), and the source
build kept when the cached prefix holds the same source. apt-get and cmake
are stand-ins on PATH that record their arguments: the real package install
and build are what the packaging work tests."""

import hashlib
import os
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_api import FakeApi  # noqa: E402
from harness import CI_GITHUB, ScriptTest, require_tool  # noqa: E402

INSTALL = os.path.join(CI_GITHUB, "install.sh")


class InstallTest(ScriptTest):
    def setUp(self):
        super().setUp()
        require_tool(self, "curl")
        self.stubs = self.path("stubs")
        os.makedirs(self.stubs)
        self.log = self.path("calls.log")
        self.stub("apt-get", 'echo "apt-get $*" >>"$STUB_LOG"\n'
                  'if [[ "$1" == install ]]; then printf "#!/bin/sh\\necho workgate 9.9\\n" >"$STUB_BIN/workgate";'
                  ' chmod +x "$STUB_BIN/workgate"; fi')
        self.stub("sudo", '"$@"')
        self.stub("cmake", 'echo "cmake $*" >>"$STUB_LOG"\n'
                  'if [[ "$1" == --install && -n "${STUB_INSTALLS:-}" ]]; then mkdir -p "$4/bin";'
                  ' printf "#!/bin/sh\\necho workgate src\\n" >"$4/bin/workgate"; chmod +x "$4/bin/workgate"; fi')
        os.makedirs(self.path("stub-bin"))
        self.env["PATH"] = f"{self.stubs}:{self.path('stub-bin')}:{self.env['PATH']}"
        self.env.update(STUB_LOG=self.log, STUB_BIN=self.path("stub-bin"), GITHUB_PATH=self.path("github_path"))
        # A source tree whose ci/setup records that it ran.
        self.src = self.path("src")
        os.makedirs(os.path.join(self.src, "ci"))
        self.stub_at(os.path.join(self.src, "ci", "setup"), 'echo "setup $*" >>"$STUB_LOG"')
        with open(os.path.join(self.src, "CMakeLists.txt"), "w") as f:
            f.write("project(x)\n")

    def stub(self, name, body):
        self.stub_at(os.path.join(self.stubs, name), body)

    def stub_at(self, path, body):
        with open(path, "w") as f:
            f.write("#!/usr/bin/env bash\nset -euo pipefail\n" + body + "\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return f.read().splitlines()

    def install(self, *args, **env):
        return self.run_script([INSTALL, *args], {"WG_SOURCE": self.src, "WG_PREFIX": self.path("prefix"),
                                                  "WG_BUILD_DIR": self.path("build"), **env})

    def test_key_is_the_commit_or_the_content(self):
        r = self.install("key", ImageOS="ubuntu24")
        self.assertEqual(r.returncode, 0, r.stderr)
        tree = r.stdout.strip()
        self.assertRegex(tree, r"^ubuntu24-tree-[0-9a-f]{40}$")
        self.assertIn(f"key={tree}", self.read("output"))
        with open(os.path.join(self.src, "CMakeLists.txt"), "a") as f:
            f.write("# changed\n")
        self.assertNotEqual(self.install("key", ImageOS="ubuntu24").stdout.strip(), tree)
        git = ["git", "-C", self.src, "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(git + ["init", "-q"], check=True)
        subprocess.run(git + ["add", "."], check=True)
        subprocess.run(git + ["commit", "-qm", "x"], check=True)
        head = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        self.assertEqual(self.install("key").stdout.strip(), f"unknown-image-commit-{head}")

    def test_a_package_from_a_url(self):
        api = FakeApi()
        self.addCleanup(api.close)
        api.files["workgate.deb"] = b"!<arch>\nnot really a package"
        good = hashlib.sha256(api.files["workgate.deb"]).hexdigest()
        url = api.url + "/files/workgate.deb"
        r = self.install(WG_DEB=url, WG_DEB_SHA256="0" * 64)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not installed", r.stderr)
        self.assertEqual(self.calls(), [])
        r = self.install(WG_DEB=url, WG_DEB_SHA256=good)
        self.assertEqual(r.returncode, 0, r.stderr)
        install = [c for c in self.calls() if c.startswith("apt-get install")]
        self.assertEqual(len(install), 1)
        self.assertTrue(install[0].endswith("/workgate.deb"), install)
        self.assertEqual(r.stdout.strip().splitlines()[-1], self.path("stub-bin"))
        self.assertEqual(self.read("github_path"), self.path("stub-bin") + "\n")
        r = self.install(WG_DEB=api.url + "/files/absent.deb")
        self.assertNotEqual(r.returncode, 0)
        r = self.install(WG_DEB="http://example.invalid/workgate.deb")
        self.assertEqual(r.returncode, 1)
        self.assertIn("refusing to download a package over plain http", r.stderr)

    def test_source_build_then_kept(self):
        r = self.install(STUB_INSTALLS="1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip().splitlines()[-1], self.path("prefix", "bin"))
        calls = self.calls()
        self.assertEqual(calls[0], "setup --build-only")
        self.assertIn("-DWORKGATE_BUILD_TESTS=OFF", calls[1])
        self.assertTrue(calls[-1].startswith("cmake --install"))
        # The same source again: the prefix (as actions/cache restores it) is kept.
        os.remove(self.log)
        r = self.install(STUB_INSTALLS="1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.calls(), ["setup --build-only"])
        # Another source: built again.
        with open(os.path.join(self.src, "CMakeLists.txt"), "a") as f:
            f.write("# changed\n")
        r = self.install(STUB_INSTALLS="1")
        self.assertTrue(any(c.startswith("cmake --install") for c in self.calls()))

    def test_a_source_without_install_rules_fails_clearly(self):
        r = self.install()
        self.assertEqual(r.returncode, 1)
        self.assertIn("cmake --install put no bin/workgate", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
