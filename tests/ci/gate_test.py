#!/usr/bin/env python3
"""ci/github/gate.sh and probe.sh, the action's logic, in a faked GitHub
Actions environment: the exit-code policy, the step summary and outputs,
the stored-baseline fallback, merge; first with a stand-in workgate for the
script's own branches, then end to end with the real one."""

import json
import os
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (BUILD, CI_GITHUB, FAKE_WORKGATE, ROOT, WORKGATE, ScriptTest,  # noqa: E402
                     require_built, require_feature)

GATE = os.path.join(CI_GITHUB, "gate.sh")
PROBE = os.path.join(CI_GITHUB, "probe.sh")


class FakeWorkgateTest(ScriptTest):
    """gate.sh's own decisions, against a stand-in that exits as planned."""

    def gate(self, plan, features="note,shard,merge", args=None, **env):
        with open(self.path("plan.json"), "w") as f:
            json.dump(plan, f)
        base = {"WORKGATE": FAKE_WORKGATE, "FAKE_WG_PLAN": self.path("plan.json"),
                "FAKE_WG_LOG": self.path("calls.jsonl"), "FAKE_WG_FEATURES": features,
                "WG_OUT": self.path("report"), "WG_SUITE": "suite.toml",
                "WG_BASELINE": "base/prog", "WG_CANDIDATE": "head/prog"}
        return self.run_script([GATE] + (args or []), {**base, **env})

    def calls(self, sub="compare"):
        if not os.path.exists(self.path("calls.jsonl")):
            return []
        with open(self.path("calls.jsonl")) as f:
            return [c for c in map(json.loads, f) if c and c[0] == sub and "--help" not in c]

    def test_exit_codes_follow_the_policy(self):
        cases = [(0, "fail", 0, "pass"), (1, "fail", 1, "fail"), (2, "fail", 2, "fail"),
                 (3, "fail", 3, "fail"), (4, "fail", 4, "fail"), (4, "pass", 0, "pass"),
                 (5, "fail", 5, "fail"), (1, "pass", 1, "fail"), (3, "pass", 3, "fail")]
        for code, inconclusive, want, result in cases:
            with self.subTest(code=code, inconclusive=inconclusive):
                open(self.output, "w").close()
                r = self.gate([{"exit": code, "verdict": "ok"}], WG_INCONCLUSIVE=inconclusive)
                self.assertEqual(r.returncode, want, r.stderr)
                self.assertEqual(self.outputs()["result"], result)
                self.assertEqual(self.outputs()["exit-code"], str(code))

    def test_fail_false_reports_without_failing(self):
        r = self.gate([{"exit": 1, "verdict": "work-added"}], WG_FAIL="false")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.outputs()["result"], "fail")

    def test_bad_policy_is_a_usage_error(self):
        r = self.gate([{"exit": 0}], WG_INCONCLUSIVE="maybe")
        self.assertEqual(r.returncode, 2)
        self.assertIn("WG_INCONCLUSIVE must be fail or pass", r.stderr)
        self.assertEqual(self.calls(), [])

    def test_summary_outputs_and_pr_number(self):
        r = self.gate([{"exit": 1, "verdict": "work-added"}])
        self.assertEqual(r.returncode, 1)
        self.assertIn("### fake report: work-added", self.read("summary.md"))
        out = self.outputs()
        self.assertEqual(out["verdict"], "work-added")
        self.assertEqual(out["baseline-source"], "given")
        self.assertEqual(self.read("report", "pr-number"), "42\n")
        self.assertTrue(os.path.exists(self.path("report", "probe.json")))
        self.assertIn("::error title=workgate::the gate failed: workgate exited 1", r.stdout)

    def test_the_result_is_recorded_for_the_commit_status(self):
        cases = [([{"exit": 1, "verdict": "work-added"}], {}, "1", "fake report: work-added"),
                 ([{"exit": 4, "verdict": "inconclusive"}], {"WG_INCONCLUSIVE": "pass"}, "4",
                  "fake report: inconclusive"),
                 ([{"exit": 5, "reports": False}], {}, "5", "workgate exited 5 and wrote no report"),
                 ([{"exit": 130, "reports": False}], {}, "5", "workgate exited 130 and wrote no report"),
                 ([], {"WG_INCONCLUSIVE": "maybe"}, "2",
                  "workgate: the gate did not run: WG_INCONCLUSIVE must be fail or pass, not 'maybe'"),
                 ([], {"WG_CANDIDATE_BUILD": "echo 'x\ny'; exit 3"}, "5",
                  "workgate: the gate did not run: the candidate build command failed (exit 3)")]
        for plan, env, code, line in cases:
            with self.subTest(env=env, plan=plan):
                self.gate(plan, **env)
                self.assertEqual(self.read("report", "exit-code"), code + "\n")
                self.assertEqual(self.read("report", "verdict-line"), line + "\n")

    def test_no_report_is_said_in_the_summary(self):
        r = self.gate([{"exit": 5, "reports": False}])
        self.assertEqual(r.returncode, 5)
        self.assertIn("workgate exited 5 and wrote no report", self.read("summary.md"))
        self.assertEqual(self.outputs()["verdict"], "none")

    def test_a_pr_number_that_is_not_an_integer_is_not_written(self):
        with open(self.event, "w") as f:
            json.dump({"pull_request": {"number": "42; touch pwned"}}, f)
        self.gate([{"exit": 0}])
        self.assertFalse(os.path.exists(self.path("report", "pr-number")))

    def test_arguments_are_passed_as_they_are(self):
        self.gate([{"exit": 0}], WG_ARGS="--workload\ninterp/a b\n$(touch pwned)\n",
                  WG_NOTES="a note with `ticks` and $HOME", WG_MAX_WORK_ADDED="0.5", WG_BACKEND="vgcount")
        (call,) = self.calls()
        self.assertIn("interp/a b", call)
        self.assertIn("$(touch pwned)", call)
        self.assertEqual(call[call.index("--note") + 1], "a note with `ticks` and $HOME")
        self.assertEqual(call[call.index("--max-work-added") + 1], "0.5")
        self.assertFalse(os.path.exists(self.path("pwned")))

    def test_the_flame_graph_is_written_with_the_reports_and_linked(self):
        features = "note,shard,merge,flamegraph"
        github = {"GITHUB_SERVER_URL": "https://github.example", "GITHUB_REPOSITORY": "o/r",
                  "GITHUB_RUN_ID": "42"}
        self.gate([{"exit": 0}], features=features, **github)
        (call,) = self.calls()
        self.assertEqual(call[call.index("--flamegraph") + 1], self.path("report", "flamegraph.html"))
        self.assertEqual(call[call.index("--flamegraph-link") + 1],
                         "https://github.example/o/r/actions/runs/42")
        os.remove(self.path("calls.jsonl"))
        self.gate([{"exit": 0}], features=features, WG_FLAMEGRAPH_LINK="https://ci.example/j/1#a")
        (call,) = self.calls()
        self.assertEqual(call[call.index("--flamegraph-link") + 1], "https://ci.example/j/1#a")
        # Turned off, or a workgate without the option: none.
        for env, feats in (({"WG_FLAMEGRAPH": "false", **github}, features), (github, "note")):
            os.remove(self.path("calls.jsonl"))
            r = self.gate([{"exit": 0}], features=feats, **env)
            self.assertEqual(r.returncode, 0, r.stderr)
            (call,) = self.calls()
            self.assertNotIn("--flamegraph", call)
            self.assertNotIn("--flamegraph-link", call)

    def git(self, *args):
        subprocess.run(["git", "-C", self.tmp, "-c", "user.name=t", "-c", "user.email=t@t", *args],
                       check=True, capture_output=True)

    def test_the_source_base_is_the_baselines_commit_where_the_checkout_has_it(self):
        self.git("init", "-q")
        self.git("commit", "-q", "--allow-empty", "-m", "base")
        base = subprocess.run(["git", "-C", self.tmp, "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
        self.git("commit", "-q", "--allow-empty", "-m", "head")
        with open(self.path("event.json"), "w") as f:
            json.dump({"pull_request": {"number": 3, "base": {"sha": base}}}, f)
        features = "note,shard,merge,source-base"
        cases = (({"GITHUB_EVENT_PATH": self.path("event.json")}, base),
                 ({"WORKGATE_MERGE_BASE": base}, base),
                 ({"CI_MERGE_REQUEST_DIFF_BASE_SHA": base}, base),
                 ({"WG_SOURCE_BASE": "HEAD~1"}, "HEAD~1"),
                 ({"WG_SOURCE_BASE": "none", "WORKGATE_MERGE_BASE": base}, None),
                 ({"WORKGATE_MERGE_BASE": "f" * 40}, None),  # not in the checkout
                 ({"WG_SOURCE_BASE": "--output=x"}, None))
        for env, expected in cases:
            with self.subTest(env=env):
                if os.path.exists(self.path("calls.jsonl")):
                    os.remove(self.path("calls.jsonl"))
                r = self.gate([{"exit": 0}], features=features, **env)
                self.assertEqual(r.returncode, 0, r.stderr)
                (call,) = self.calls()
                if expected is None:
                    self.assertNotIn("--source-base", call)
                else:
                    self.assertEqual(call[call.index("--source-base") + 1], expected)
        # A workgate without the option gates without it.
        os.remove(self.path("calls.jsonl"))
        self.gate([{"exit": 0}], WORKGATE_MERGE_BASE=base)
        (call,) = self.calls()
        self.assertNotIn("--source-base", call)

    def test_stored_baseline_used(self):
        open(self.path("stored.json"), "w").close()
        r = self.gate([{"exit": 0, "stored_status": "used"}], WG_BASELINE_RESULTS="stored.json",
                      WG_BASELINE_BUILD="touch built-baseline")
        self.assertEqual(r.returncode, 0, r.stderr)
        (call,) = self.calls()
        self.assertEqual(call[call.index("--baseline-results") + 1], "stored.json")
        self.assertNotIn("--baseline", call)
        self.assertIn("Compared with the stored baseline stored.json.", call)
        self.assertFalse(os.path.exists(self.path("built-baseline")), "the baseline was built for nothing")
        self.assertEqual(self.outputs()["baseline-source"], "stored")

    def test_incompatible_stored_baseline_falls_back_to_building(self):
        open(self.path("stored.json"), "w").close()
        plan = [{"exit": 3, "verdict": "invalid", "stored_status": "incompatible",
                 "problem": "Valgrind version differs\n::error::injected"},
                {"exit": 0, "verdict": "ok"}]
        r = self.gate(plan, WG_BASELINE_RESULTS="stored.json", WG_BASELINE_BUILD="touch built-baseline")
        self.assertEqual(r.returncode, 0, r.stderr)
        first, second = self.calls()
        self.assertIn("--baseline-results", first)
        self.assertEqual(second[second.index("--baseline") + 1], "base/prog")
        note = second[second.index("--note") + 1]
        self.assertEqual(note, "The stored baseline stored.json was not used (incompatible: Valgrind version "
                               "differs ::error::injected); the baseline build was counted in this job instead.")
        self.assertTrue(os.path.exists(self.path("built-baseline")))
        self.assertIn(note, self.read("summary.md"))
        self.assertEqual(self.outputs()["baseline-source"], "built")

    def test_missing_stored_baseline_falls_back_to_building(self):
        r = self.gate([{"exit": 1, "verdict": "work-added"}], WG_BASELINE_RESULTS="absent.json")
        self.assertEqual(r.returncode, 1)
        (call,) = self.calls()
        self.assertNotIn("--baseline-results", call)
        self.assertIn("No stored baseline at absent.json (missing artifact or cache entry); the baseline build "
                      "was counted in this job instead.", call)
        self.assertIn("No stored baseline at absent.json", self.read("summary.md"))
        self.assertEqual(self.outputs()["baseline-source"], "built")

    def test_missing_stored_baseline_without_a_build_is_invalid(self):
        r = self.gate([{"exit": 3, "verdict": "invalid", "stored_status": "missing"}],
                      WG_BASELINE_RESULTS="absent.json", WG_BASELINE="")
        self.assertEqual(r.returncode, 3)
        (call,) = self.calls()
        self.assertIn("--baseline-results", call)

    def test_a_workgate_without_notes_fails_clearly(self):
        r = self.gate([{"exit": 0}], features="", WG_BASELINE_RESULTS="stored.json")
        self.assertEqual(r.returncode, 2)
        self.assertIn("this workgate has no `compare --note`", r.stderr)

    def test_a_failed_build_fails_the_gate(self):
        r = self.gate([{"exit": 0}], WG_CANDIDATE_BUILD="echo building; exit 7")
        self.assertEqual(r.returncode, 7)
        self.assertEqual(self.calls(), [])
        self.assertIn("the candidate build command failed (exit 7)", self.read("summary.md"))
        self.assertEqual(self.outputs()["result"], "fail")

    def test_merge_joins_the_parts_found(self):
        for shard in ("2", "1"):
            os.makedirs(self.path("parts", f"workgate-shard-{shard}"))
            open(self.path("parts", f"workgate-shard-{shard}", "report.json"), "w").close()
        r = self.gate([{"exit": 4, "verdict": "inconclusive"}], args=["merge"], WG_MERGE="parts\n",
                      WG_INCONCLUSIVE="pass")
        self.assertEqual(r.returncode, 0, r.stderr)
        (call,) = self.calls("merge")
        self.assertEqual(call[1:3], ["parts/workgate-shard-1/report.json", "parts/workgate-shard-2/report.json"])
        self.assertIn("::warning title=workgate::inconclusive", r.stdout)

    def test_merge_without_the_command_fails_clearly(self):
        open(self.path("part.json"), "w").close()
        r = self.gate([{"exit": 0}], features="note", args=["merge", "part.json"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("this workgate has no `workgate merge`", r.stderr)


class RealWorkgateBase(ScriptTest):
    """gate.sh with the real workgate and the bundled interpreter."""

    def setUp(self):
        super().setUp()
        require_built(self, WORKGATE)
        self.base = os.path.join(BUILD, "workloads", "wgi-baseline")
        self.cand = os.path.join(BUILD, "workloads", "wgi-candidate")
        require_built(self, self.base)
        require_built(self, self.cand)

    def gate(self, candidate, **env):
        base = {"WORKGATE": WORKGATE, "WG_OUT": self.path("report"),
                "WG_SUITE": os.path.join(ROOT, "workloads", "interp.toml"),
                "WG_BASELINE": self.base, "WG_CANDIDATE": candidate,
                "WG_ARGS": "--workload\ninterp/strings\n--timed\n0\n--jobs\n1"}
        return self.run_script([GATE], {**base, **env})



class RealWorkgateTest(RealWorkgateBase):
    def test_pass_and_work_added(self):
        for candidate, code, verdict in ((self.base, 0, "ok"), (self.cand, 1, "work-added")):
            with self.subTest(verdict=verdict):
                open(self.summary, "w").close()
                open(self.output, "w").close()
                r = self.gate(candidate)
                self.assertEqual(r.returncode, code, r.stderr)
                self.assertEqual(self.outputs()["verdict"], verdict)
                summary = self.read("summary.md")
                self.assertTrue(summary.startswith("### workgate: "), summary[:200])
                self.assertIn("`interp/strings`", summary)
                with open(self.path("report", "report.json")) as f:
                    self.assertEqual(json.load(f)["exit_code"], code)
                self.assertEqual(self.read("report", "exit-code"), f"{code}\n")
                heading = {"ok": "✅ ok — 0 of", "work-added": "❌ work added — 1 of"}[verdict]
                self.assertRegex(self.read("report", "verdict-line"),
                                 rf"^workgate: {heading} \d+ workloads? over the 1\.00% margin\n$")

    def test_history_records_and_renders_the_page(self):
        # The action's history mode, as the default branch's job runs it, on two commits.
        env = {"WORKGATE": WORKGATE, "WG_MODE": "history", "WG_OUT": self.path("history"),
               "WG_SUITE": os.path.join(ROOT, "workloads", "interp.toml"), "WG_BASELINE": self.base,
               "WG_STORE": self.path("store", "results.sqlite3")}
        for sha in ("1" * 40, "2" * 40):
            r = self.run_script([os.path.join(CI_GITHUB, "run.sh")], {**env, "GITHUB_SHA": sha})
            self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("history", "history.json")) as f:
            series = json.load(f)["series"]
        self.assertTrue(series)
        for s in series:
            self.assertEqual([p["ref"] for p in s["points"]], ["1" * 40, "2" * 40])
        self.assertIn("<svg", self.read("history", "index.html"))
        self.assertIn("**workgate history**: " + "2" * 40 + " recorded", self.read("summary.md"))
        r = self.run_script([os.path.join(CI_GITHUB, "run.sh")], {**env, "WG_HISTORY_LAST": "0; x"})
        self.assertEqual(r.returncode, 2)

    def test_history_records_the_commit_subject(self):
        # A commit of a checkout, whose subject its author chose: an option to
        # git's eyes, markup and a terminal escape. It is recorded as text.
        repo = self.path("repo")
        os.makedirs(repo)
        subject = "--output=" + self.path("owned") + " <b>bold</b> \x1b]0;title\x07 fix"
        git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run(["git", "init", "-q", repo], check=True)
        subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", subject], check=True)
        sha = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True,
                             text=True).stdout.strip()
        env = {"WORKGATE": WORKGATE, "WG_MODE": "history", "WG_OUT": self.path("history"),
               "WG_SUITE": os.path.join(ROOT, "workloads", "interp.toml"), "WG_BASELINE": self.base,
               "WG_STORE": self.path("store", "results.sqlite3"), "GITHUB_SHA": sha}
        r = self.run_script([os.path.join(CI_GITHUB, "run.sh")], env, cwd=repo)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(self.path("owned")))
        with open(self.path("history", "history.json")) as f:
            series = json.load(f)["series"]
        self.assertTrue(series)
        for s in series:
            # Control characters are recorded as spaces.
            self.assertEqual([p["subject"] for p in s["points"]],
                             [subject.replace("\x1b", " ").replace("\x07", " ")])
        page = self.read("history", "index.html")
        self.assertIn("&lt;b&gt;bold&lt;/b&gt;", page)
        self.assertNotIn("<b>bold", page)
        # A ref that is no commit here records no subject.
        r = self.run_script([os.path.join(CI_GITHUB, "run.sh")], {**env, "GITHUB_SHA": "3" * 40},
                            cwd=repo)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("history", "history.json")) as f:
            self.assertIsNone(json.load(f)["series"][0]["points"][-1]["subject"])

    def test_a_missing_candidate_is_invalid(self):
        # workgate refuses before counting and writes no report: exit 3 all the same.
        r = self.gate(self.path("missing"))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(self.outputs()["result"], "fail")
        self.assertIn("workgate exited 3 and wrote no report", self.read("summary.md"))



class NewCliTest(RealWorkgateBase):
    """What needs the newer options (compare --note and stored_baseline,
    --shard and merge, probe --label and --merge): each test fails, naming
    what is missing, until this workgate has it."""

    def stored_baseline_run(self, stored, **env):
        return self.gate(self.base, WG_BASELINE_RESULTS=stored, **env)

    def test_stored_baseline_used_then_fallback(self):
        require_feature(self, [WORKGATE, "compare"], "--note", "compare --note")
        stored = self.path("stored.json")
        r = self.gate(self.base, WG_SAVE_BASELINE=stored)
        self.assertEqual(r.returncode, 0, r.stderr)
        open(self.output, "w").close()
        r = self.stored_baseline_run(stored)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.outputs()["baseline-source"], "stored")
        with open(self.path("report", "report.json")) as f:
            self.assertEqual(json.load(f)["stored_baseline"]["status"], "used")
        # A stored baseline that is not one, and none at all: the baseline is counted.
        with open(stored, "w") as f:
            f.write("not json")
        for path, said in ((stored, "was not used (unreadable"), (self.path("absent.json"), "No stored baseline")):
            with self.subTest(path=path):
                open(self.output, "w").close()
                r = self.stored_baseline_run(path)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(self.outputs()["baseline-source"], "built")
                self.assertIn(said, self.read("report", "report.md"))

    def test_shards_merge_into_one_report(self):
        require_feature(self, [WORKGATE, "compare"], "--shard", "compare --shard")
        require_feature(self, [WORKGATE], " merge", "workgate merge")
        env = {"WG_ARGS": "--workload\ninterp/strings\n--workload\ninterp/loop\n--timed\n0", "WG_FAIL": "false"}
        for shard in ("1", "2"):
            r = self.gate(self.cand, WG_SHARD=f"{shard}/2", WG_OUT=self.path("parts", shard), **env)
            self.assertEqual(r.returncode, 0, r.stderr)
        open(self.output, "w").close()
        r = self.run_script([GATE, "merge", self.path("parts")],
                            {"WORKGATE": WORKGATE, "WG_OUT": self.path("report")})
        self.assertEqual(r.returncode, 1, r.stderr)
        with open(self.path("report", "report.json")) as f:
            names = sorted(w["name"] for w in json.load(f)["workloads"])
        self.assertEqual(names, ["interp/loop", "interp/strings"])

    def test_probe_table_of_two_runners(self):
        require_feature(self, [WORKGATE, "probe"], "--label", "probe --label")
        require_feature(self, [WORKGATE, "probe"], "--merge", "probe --merge")
        env = {"WORKGATE": WORKGATE}
        for label in ("runner-a", "runner-b"):
            r = self.run_script([PROBE, "run", label], {**env, "WG_OUT": self.path("probes", label)})
            self.assertEqual(r.returncode, 0, r.stderr)
        r = self.run_script([PROBE, "merge", self.path("probes")], {**env, "WG_OUT": self.path("table")})
        self.assertEqual(r.returncode, 0, r.stderr)
        summary = self.read("summary.md")
        self.assertIn("runner-a", summary)
        self.assertIn("runner-b", summary)


if __name__ == "__main__":
    unittest.main(verbosity=2)
