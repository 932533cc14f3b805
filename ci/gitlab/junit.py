#!/usr/bin/env python3
"""Writes a JUnit XML report of a workgate compare JSON report, for GitLab's
`artifacts:reports:junit` (the merge request's test summary).

One testcase per workload: work-added and invalid are failures (with the
reason), inconclusive is skipped (the counts could not decide), ok,
work-removed and accepted (work added within what the suite accepted) pass. A report that is missing or unreadable, or that has no
workloads, is one failing testcase saying so, so a gate that never ran
never shows as green. Text from the report (workload names, reasons) is
the candidate's to choose: ElementTree escapes it for XML, and characters
XML 1.0 cannot hold at all are replaced by U+FFFD first.

Usage: junit.py REPORT.json OUT.xml [--exit-code N]
Standard library only.
"""

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

# Characters outside XML 1.0's Char production.
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_FAILED = {"work-added", "invalid"}
_PASSED = ("ok", "work-removed", "accepted")


def xml_text(value):
    return _NOT_XML.sub("\ufffd", "" if value is None else str(value))


def side_line(label, side):
    if not isinstance(side, dict):
        return f"{label}: no count"
    return f"{label}: {side.get('instructions')} instructions"


def testcase(suite, workload):
    name = xml_text(workload.get("name", "(unnamed)"))
    verdict = str(workload.get("verdict", "invalid"))
    case = ET.SubElement(suite, "testcase", classname="workgate", name=name, time="0")
    reason = xml_text(workload.get("reason") or verdict)
    if verdict in _FAILED:
        node = ET.SubElement(case, "failure", message=f"{verdict}: {reason}", type=verdict)
        node.text = f"{verdict}: {reason}"
    elif verdict == "inconclusive":
        ET.SubElement(case, "skipped", message=f"inconclusive: {reason}")
    elif verdict not in _PASSED:
        node = ET.SubElement(case, "failure", message=f"unknown verdict {xml_text(verdict)}", type="invalid")
    out = ET.SubElement(case, "system-out")
    out.text = xml_text("\n".join([
        f"verdict: {verdict}",
        side_line("baseline", workload.get("baseline")),
        side_line("candidate", workload.get("candidate")),
        f"delta: {workload.get('delta')} ({workload.get('relative')})",
        f"reason: {reason}",
    ]))
    return verdict


def convert(report_path, exit_code):
    suites = ET.Element("testsuites", name="workgate")
    suite = ET.SubElement(suites, "testsuite", name="workgate")
    problem = None
    workloads = []
    try:
        with open(report_path, "rb") as f:
            report = json.loads(f.read().decode("utf-8", errors="replace"))
        workloads = report.get("workloads") if isinstance(report, dict) else None
        if not isinstance(workloads, list) or not workloads:
            problem = "the report has no workloads"
            workloads = []
    except (OSError, ValueError) as e:
        problem = f"no usable report at {report_path}: {e}"
    if problem and exit_code is not None:
        problem += f" (workgate exited {exit_code})"

    failures = skipped = 0
    for w in workloads:
        verdict = testcase(suite, w if isinstance(w, dict) else {"name": "(not an object)"})
        if verdict == "inconclusive":
            skipped += 1
        elif verdict not in _PASSED:
            failures += 1
    if problem:
        case = ET.SubElement(suite, "testcase", classname="workgate", name="workgate report", time="0")
        ET.SubElement(case, "failure", message=xml_text(problem), type="no-report").text = xml_text(problem)
        failures += 1
    tests = len(suite.findall("testcase"))
    for node in (suite, suites):
        node.set("tests", str(tests))
        node.set("failures", str(failures))
        node.set("errors", "0")
    suite.set("skipped", str(skipped))
    return ET.ElementTree(suites)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("out")
    parser.add_argument("--exit-code", type=int)
    args = parser.parse_args(argv)
    tree = convert(args.report, args.exit_code)
    tree.write(args.out, encoding="utf-8", xml_declaration=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
