"""ci/test's own rules, with each cause simulated: the step table and what
ends a run (ci/lib/steps.sh), and the steps that used to turn a failure into
a skip. Under CI=true a failed download, a boot that does not come, or a
missing compiler fails; only on a developer's machine do the scripts say
"this machine cannot" (exit 77)."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BUILD, ROOT, ScriptTest, require_built  # noqa: E402

STEPS = os.path.join(ROOT, "ci", "lib", "steps.sh")
VM_SH = os.path.join(ROOT, "ci", "pmu-vm.d", "vm.sh")


class StepsTest(ScriptTest):
    """ci/lib/steps.sh: every step's seconds and outcome in one table, and
    the run's exit code."""

    def steps(self, body, env=None, timeout=60):
        script = f"set -euo pipefail\nsource {STEPS}\nsteps_begin\n{body}\n"
        return self.run_script(["bash", "-c", script], env=env, timeout=timeout)

    def table(self, stderr):
        start = stderr.index("ci/test: steps")
        return {line.split()[0]: line for line in stderr[start:].splitlines()[2:]}

    def test_a_passing_run_lists_every_step(self):
        r = self.steps("step one true\nstep two bash -c 'exit 77'\n"
                       "STEP_UNLESS=WORKGATE_SKIP_X step three false\n"
                       "STEP_UNLESS=WORKGATE_SKIP_X step_bg four false\nstep_wait four\n"
                       "STEP_UNLESS=WORKGATE_SKIP_Y step five true",
                       env={"WORKGATE_SKIP_X": "1"})
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.table(r.stderr)
        self.assertRegex(rows["one"], r"one\s+\d+\s+ok$")
        self.assertIn("skipped (this machine cannot", rows["two"])
        self.assertIn("skipped (WORKGATE_SKIP_X=1)", rows["three"])
        self.assertIn("skipped (WORKGATE_SKIP_X=1)", rows["four"])
        self.assertRegex(rows["five"], r"five\s+\d+\s+ok$")
        self.assertRegex(rows["total"], r"total\s+\d+$")

    def test_a_full_run_step_runs_only_in_the_full_run(self):
        body = ("STEP_FULL_ONLY=1 step full bash -c 'echo ran-full'\n"
                "STEP_FULL_ONLY=1 step_bg fullbg bash -c 'echo ran-bg'\nstep_wait fullbg\n"
                "step every true")
        r = self.steps(body)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("ran-full", r.stdout + r.stderr)
        self.assertNotIn("ran-bg", r.stdout + r.stderr)
        rows = self.table(r.stderr)
        self.assertIn("full run only (ci/test --full)", rows["full"])
        self.assertIn("full run only (ci/test --full)", rows["fullbg"])
        self.assertRegex(rows["every"], r"every\s+\d+\s+ok$")
        r = self.steps(body, env={"STEPS_FULL": "1"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ran-full", r.stdout + r.stderr)
        self.assertIn("ran-bg", r.stdout + r.stderr)
        rows = self.table(r.stderr)
        self.assertRegex(rows["full"], r"full\s+\d+\s+ok$")
        self.assertRegex(rows["fullbg"], r"fullbg\s+\d+\s+ok$")

    def test_ci_tests_background_steps_are_programs(self):
        # step_bg starts its command with setsid, which cannot run a function
        # of the script: such a step would fail at once, with exit 127.
        with open(os.path.join(ROOT, "ci", "test"), encoding="utf-8") as f:
            script = f.read().replace("\\\n", " ")
        functions = set(re.findall(r"^([a-z_]+)\(\) \{", script, re.M))
        self.assertIn("run_ctest", functions)
        commands = re.findall(r'^(?:[A-Z_]+=\S+\s+)*step_bg\s+"[^"]+"\s+(\S+)', script, re.M)
        self.assertGreaterEqual(len(commands), 3, "no step_bg found in ci/test")
        for command in commands:
            self.assertNotIn(command, functions, f"step_bg runs {command}, a function of ci/test")

    def test_a_step_that_may_not_skip_fails_on_77(self):
        r = self.steps("STEP_NO_SKIP=1 step strict bash -c 'exit 77'\nstep never true")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("strict may not skip here", r.stderr)
        rows = self.table(r.stderr)
        self.assertIn("FAILED (exit 1)", rows["strict"])
        self.assertNotIn("never", rows)

    def test_a_failure_ends_the_run_with_its_code_and_the_table(self):
        r = self.steps("step first bash -c 'exit 3'\nstep second true")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("FAILED (exit 3)", self.table(r.stderr)["first"])

    def test_a_background_step_is_judged_when_waited_for(self):
        r = self.steps("STEP_NO_SKIP=1 step_bg bg bash -c 'echo from-the-background; exit 77'\n"
                       "step fg true\nstep_wait bg")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("from-the-background", r.stderr)
        rows = self.table(r.stderr)
        self.assertIn("ok", rows["fg"])
        self.assertIn("FAILED (exit 1)", rows["bg"])

    def test_a_background_step_with_any_name_is_listed_once(self):
        name = "set-up (ci/setup, every step's [packages])"
        r = self.steps(f"step_bg \"{name}\" true\nstep_wait \"{name}\"\nstep last true")
        self.assertEqual(r.returncode, 0, r.stderr)
        listed = [line for line in r.stderr.splitlines() if line.strip().startswith(name)]
        self.assertEqual(len(listed), 1, r.stderr)
        self.assertIn("ok", listed[0])
        self.assertNotIn("unfinished", r.stderr)

    def test_an_early_failure_stops_the_background_step(self):
        pid_file = self.path("bg.pid")
        begin = time.monotonic()
        r = self.steps(f"step_bg bg bash -c 'echo $$ >{pid_file}; exec sleep 60'\n"
                       f"while [[ ! -s {pid_file} ]]; do sleep 0.05; done\n"
                       "step fg bash -c 'exit 4'\nstep_wait bg")
        self.assertLess(time.monotonic() - begin, 30)
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("unfinished (stopped)", self.table(r.stderr)["bg"])
        with open(pid_file) as f:
            pid = int(f.read())
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            self.fail(f"the background step's process {pid} outlived the run")


class FormerSkipsTest(ScriptTest):
    """Causes that used to end as a green skip, simulated: each fails under
    CI=true, and only on a developer's machine says "this machine cannot"."""

    def fake_bin(self, name, body):
        d = self.path("bin")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
        return d

    def test_a_failed_source_download_fails_profile_exactness(self):
        # ci/profile-exactness builds its programs first (up to date here).
        require_built(self, os.path.join(BUILD, "tests", "compare_profiles"))
        fake = self.fake_bin("apt-get", "echo 'E: simulated: no network' >&2\nexit 100\n")
        env = {"PATH": f"{fake}:{os.environ['PATH']}"}
        for ci, code in (("true", 1), ("", 77)):
            r = self.run_script([os.path.join(ROOT, "ci", "profile-exactness"), BUILD],
                                env={**env, "CI": ci})
            self.assertEqual(r.returncode, code, f"CI={ci!r}: {r.stderr}")
            self.assertIn("cannot fetch Debian's sqlite3 source package", r.stderr)
            self.assertIn("simulated: no network", r.stderr)

    def boot(self, qemu_body, ci):
        fake = self.fake_bin("qemu-system-aarch64", qemu_body)
        script = (f"source {VM_SH}\nVM_DIR={self.tmp}\n"
                  f"vm_boot {self.path('initrd.gz')} {self.path('console.log')}")
        return self.run_script(["bash", "-c", script],
                               env={"PATH": f"{fake}:{os.environ['PATH']}", "CI": ci,
                                    "WORKGATE_VM_BOOT_LIMIT": "1"})

    def test_a_slow_boot_fails_the_emulated_machine_under_ci(self):
        for ci, code in (("true", 1), ("", 77)):
            r = self.boot("exec sleep 30\n", ci)
            self.assertEqual(r.returncode, code, f"CI={ci!r}: {r.stderr}")
            self.assertIn("did not boot within 1 s", r.stderr)

    def test_a_qemu_that_does_not_start_fails_under_ci(self):
        for ci, code in (("true", 1), ("", 77)):
            r = self.boot("echo 'qemu: simulated: cannot start' >&2\nexit 1\n", ci)
            self.assertEqual(r.returncode, code, f"CI={ci!r}: {r.stderr}")
            self.assertIn("before the machine booted", r.stderr)

    def test_ci_refuses_to_leave_a_step_out(self):
        for var in ("WORKGATE_SKIP_SANITIZERS", "WORKGATE_SKIP_PMU_VM"):
            for ci in ("true", "1"):
                r = self.run_script([os.path.join(ROOT, "ci", "test")],
                                    env={"CI": ci, var: "1"}, timeout=30)
                self.assertEqual(r.returncode, 2, f"{var}, CI={ci}: {r.stderr}")
                self.assertIn(f"{var} is set under CI=true", r.stderr)
                self.assertNotIn("ci/test: ==", r.stderr, "no step may start")

    def test_fuzzing_without_clang_fails(self):
        # A PATH with what ci/fuzz needs before it builds, and no clang++.
        d = self.path("no-clang")
        os.makedirs(d)
        for tool in ("dirname",):
            os.symlink(subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True,
                                      text=True, check=True).stdout.strip(),
                       os.path.join(d, tool))
        r = self.run_script(["/bin/bash", os.path.join(ROOT, "ci", "fuzz"), "7"],
                            env={"PATH": d, "CI": "true",
                                 "WORKGATE_FUZZ_BUILD_DIR": self.path("build-san")})
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertIn("clang++ is not installed", r.stderr)

    def test_a_failed_valgrind_download_fails_the_emulated_machine(self):
        # The kernel and busybox are there; valgrind:arm64, which the arm64
        # build of vgcount needs, cannot be downloaded. A set-up failure
        # (5), never "this machine cannot" (77), with CI=true or without.
        with open(self.path("vmlinuz"), "w") as f:
            f.write("kernel")
        with open(self.path("busybox"), "w") as f:
            f.write("busybox")
        # Its lists update (the retry), the download still fails.
        fake = self.fake_bin("apt-get", '[ "$1" = update ] && exit 0\n'
                             "echo 'E: simulated: no network' >&2\nexit 100\n")
        self.fake_bin("sudo", 'exec "$@"\n')
        script = (f"source {VM_SH}\nVM_DIR={self.tmp}\nVM_VALGRIND={self.path('valgrind-arm64')}\n"
                  "vm_fetch")
        for ci in ("true", ""):
            r = self.run_script(["bash", "-c", script],
                                env={"PATH": f"{fake}:{os.environ['PATH']}", "CI": ci})
            self.assertEqual(r.returncode, 5, f"CI={ci!r}: {r.stderr}")
            self.assertIn("updating apt's lists once", r.stderr)
            self.assertIn("apt-get download valgrind:arm64 failed", r.stderr)
            self.assertIn("simulated: no network", r.stderr)
            self.assertFalse(os.path.exists(self.path("valgrind-arm64")))


class UnprivilegedTest(ScriptTest):
    """ci/unprivileged, the second run of the hostile tests as uid 65534:
    from a checkout the user can reach, and from one under a directory
    closed to it (root's home, mode 700), which it must reach too without
    the machine's file system changing."""

    UNPRIVILEGED = os.path.join(ROOT, "ci", "unprivileged")

    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            self.skipTest("not root: the step runs as root, and only root can become uid 65534")
        # The command's own TMPDIR and HOME, outside the checkout's closed parent.
        self.run_tmp = tempfile.mkdtemp(prefix="workgate-unprivileged-")
        self.addCleanup(shutil.rmtree, self.run_tmp, True)
        os.chown(self.run_tmp, 65534, 65534)

    def checkout(self, parent, mode):
        os.makedirs(parent, exist_ok=True)
        os.chmod(parent, mode)
        project = os.path.join(parent, "project")
        os.makedirs(project)
        os.chmod(project, 0o755)
        with open(os.path.join(project, "data.txt"), "w") as f:
            f.write("reached\n")
        probe = os.path.join(project, "probe.sh")
        with open(probe, "w") as f:
            f.write('#!/bin/sh\nid -u\ncat "$(dirname "$0")/data.txt"\n'
                    'echo "$HOME"\ntest -w "$TMPDIR" && echo tmp-writable\n')
        os.chmod(probe, 0o755)
        return project

    def run_probe(self, project):
        home = os.path.join(self.run_tmp, "home")
        os.makedirs(home, exist_ok=True)
        os.chown(home, 65534, 65534)
        r = self.run_script([self.UNPRIVILEGED, project, home, self.run_tmp,
                             os.path.join(project, "probe.sh")])
        if r.returncode == 77:
            self.skipTest("this machine cannot make a private mount namespace: " + r.stderr)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, f"65534\nreached\n{home}\ntmp-writable\n")

    def test_a_checkout_the_user_reaches(self):
        os.chmod(self.tmp, 0o755)
        self.run_probe(self.checkout(self.path("open"), 0o755))

    def test_a_checkout_under_a_closed_home_directory(self):
        closed = self.path("root")
        project = self.checkout(closed, 0o700)
        with open("/proc/self/mountinfo") as f:
            mounts_before = f.read()
        self.run_probe(project)
        # Nothing of the namespace shows outside it.
        self.assertEqual(os.stat(closed).st_mode & 0o777, 0o700)
        self.assertFalse(os.path.ismount(closed))
        with open("/proc/self/mountinfo") as f:
            self.assertEqual(f.read(), mounts_before)
        self.assertEqual(self.read("root", "project", "data.txt"), "reached\n")


if __name__ == "__main__":
    import unittest
    unittest.main()
