#!/usr/bin/env python3
"""ci/gitlab/junit.py: one testcase per workload, failures for work-added
and invalid, skipped for inconclusive, escaping of hostile names, and a
failing testcase when there is no report."""

import json
import os
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import CI_GITLAB, ScriptTest  # noqa: E402

JUNIT = os.path.join(CI_GITLAB, "junit.py")
HOSTILE = 'a<b>&"c\' ]]> <!-- x --> \x01\x1b[31m @here \ufffe'


def workload(name, verdict, reason=None):
    return {"name": name, "verdict": verdict, "reason": reason, "delta": 10, "relative": 0.1,
            "baseline": {"instructions": 100}, "candidate": {"instructions": 110}}


class JunitTest(ScriptTest):
    def convert(self, report, *extra):
        path = self.path("report.json")
        with open(path, "w") as f:
            f.write(report if isinstance(report, str) else json.dumps(report))
        subprocess.run([sys.executable, JUNIT, path, self.path("junit.xml"), *extra], check=True)
        return ET.parse(self.path("junit.xml")).getroot()

    def test_one_testcase_per_workload(self):
        root = self.convert({"workloads": [
            workload("w/ok", "ok"), workload("w/removed", "work-removed"),
            workload("w/added", "work-added", "+10.00% >= 1.00% margin"),
            workload("w/invalid", "invalid", "score mismatch: expected 1, got 2"),
            workload("w/noisy", "inconclusive", "straddles"),
            workload("w/accepted", "accepted", "work added, accepted: cmov")]})
        suite = root.find("testsuite")
        cases = {c.get("name"): c for c in suite.findall("testcase")}
        self.assertEqual(list(cases), ["w/ok", "w/removed", "w/added", "w/invalid", "w/noisy", "w/accepted"])
        self.assertEqual((suite.get("tests"), suite.get("failures"), suite.get("skipped")), ("6", "2", "1"))
        self.assertIsNone(cases["w/ok"].find("failure"))
        self.assertIsNone(cases["w/accepted"].find("failure"))
        self.assertIn("reason: work added, accepted: cmov", cases["w/accepted"].find("system-out").text)
        self.assertIsNone(cases["w/removed"].find("failure"))
        self.assertEqual(cases["w/added"].find("failure").get("message"), "work-added: +10.00% >= 1.00% margin")
        self.assertEqual(cases["w/invalid"].find("failure").get("type"), "invalid")
        self.assertIsNotNone(cases["w/noisy"].find("skipped"))
        self.assertIn("baseline: 100 instructions", cases["w/added"].find("system-out").text)

    def test_hostile_text_is_escaped(self):
        root = self.convert({"workloads": [workload(HOSTILE, "work-added", HOSTILE)]})
        case = root.find("testsuite/testcase")
        want = HOSTILE.replace("\x01", "\ufffd").replace("\x1b", "\ufffd").replace("\ufffe", "\ufffd")
        self.assertEqual(case.get("name"), want)
        self.assertEqual(case.find("failure").get("message"), "work-added: " + want)
        self.assertEqual(len(root.findall(".//testcase")), 1)

    def test_no_report_is_a_failure(self):
        for report in ("not json", {"workloads": []}, [1, 2]):
            with self.subTest(report=report):
                root = self.convert(report, "--exit-code", "5")
                (case,) = root.findall("testsuite/testcase")
                self.assertIn("(workgate exited 5)", case.find("failure").get("message"))
                self.assertEqual(root.get("failures"), "1")


if __name__ == "__main__":
    unittest.main(verbosity=2)
