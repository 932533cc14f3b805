#!/usr/bin/env python3
"""A stand-in for workgate in the tests of ci/github/gate.sh's own logic
(exit-code policy, outputs, stored-baseline fallback): each `compare` or
`merge` call takes the next entry of the plan in $FAKE_WG_PLAN (a JSON
list: {"exit": N, "verdict": V, "stored_status": S, "reports": true}),
writes the --json and --markdown reports the entry describes, and exits with
its code. `--help` lists the options named in $FAKE_WG_FEATURES (note,
shard, merge, flamegraph, source-base). Every call's argv is appended to $FAKE_WG_LOG as JSON. The
tests that claim the real workgate's behaviour run the real binary.
"""

import json
import os
import sys

argv = sys.argv[1:]
with open(os.environ["FAKE_WG_LOG"], "a") as log:
    log.write(json.dumps(argv) + "\n")
features = os.environ.get("FAKE_WG_FEATURES", "").split(",")


def opt(name):
    return argv[argv.index(name) + 1] if name in argv else None


if argv == ["--help"]:
    print("Subcommands:\n  probe  p\n  compare  c\n" + ("  merge  m\n" if "merge" in features else ""))
    sys.exit(0)
if len(argv) == 2 and argv[1] == "--help":
    print("Options:\n  --json FILE\n  --baseline-results FILE")
    for f in ("note", "shard", "flamegraph", "source-base"):
        if f in features:
            print(f"  --{f} TEXT")
    sys.exit(0)
if argv[0] == "probe":
    with open(opt("--json"), "w") as f:
        json.dump({"auto": {"backend": "vgcount"}}, f)
    sys.exit(0)

with open(os.environ["FAKE_WG_PLAN"]) as f:
    plan = json.load(f)
step = plan.pop(0)
with open(os.environ["FAKE_WG_PLAN"], "w") as f:
    json.dump(plan, f)
if step.get("reports", True):
    report = {"verdict": step.get("verdict", "ok"), "exit_code": step["exit"], "workloads": []}
    if "stored_status" in step:
        report["stored_baseline"] = {"path": opt("--baseline-results"), "status": step["stored_status"],
                                     "problem": step.get("problem")}
    with open(opt("--json"), "w") as f:
        json.dump(report, f)
    notes = [argv[i + 1] for i, a in enumerate(argv) if a == "--note"]
    with open(opt("--markdown"), "w") as f:
        f.write(f"### fake report: {report['verdict']}\n\n" + "".join(f"- {n}\n" for n in notes))
sys.exit(step["exit"])
