#!/usr/bin/env python3
"""Judges what ci/pmu-vm.d/guest-tests.sh left in the emulated arm64 machine.

Usage: check.py DIR   (DIR holds NAME.out, NAME.err, NAME.rc, NAME.json)

Prints one TAP line per check and a summary; exits 0 when every check passed,
1 otherwise.
"""
import json
import os
import sys

LOOP = 2  # instructions per iteration of the known loop (probes/known_loop.c)
# Each count below is of a whole process from exec to exit; two runs that
# differ only in the loop's size differ by exactly LOOP * (N2 - N1). The
# absolute count differs from the zero-iteration run only by parsing a longer
# argument: a few dozen instructions.
ARGV_SLACK = 200
# workgate and the reference counter run a program with the same environment
# but a different argv[0]: glibc's start-up scans argv[0] (strrchr for
# program_invocation_short_name), which cost 11 instructions more for
# workgate's longer path, measured.
EXEC_SLACK = 50
# Callgrind adds a block's cost when the thread's next block starts, so it
# never counts a thread's last block, which vgcount counts: with the same
# environment, vgcount's total of one process is callgrind's Ir plus that
# block. VEX translates at most 50 instructions a block (--vex-guest-max-insns).
VEX_BLOCK = 50
# What a --region count holds beyond the loop under Valgrind: the blocks of
# the markers' requests and the call into the loop (a few dozen).
VALGRIND_REGION_SLACK = 100


class Results:
    def __init__(self, root):
        self.root = root
        self.passed = 0
        self.failed = 0

    def text(self, name, ext):
        try:
            with open(os.path.join(self.root, f"{name}.{ext}")) as f:
                return f.read()
        except OSError:
            return ""

    def rc(self, name):
        t = self.text(name, "rc").strip()
        return int(t) if t else None

    def json(self, name):
        t = self.text(name, "json")
        return json.loads(t) if t else None

    def check(self, ok, what, detail=""):
        n = self.passed + self.failed + 1
        if ok:
            self.passed += 1
            print(f"ok {n} - {what}")
        else:
            self.failed += 1
            print(f"not ok {n} - {what}")
            for line in str(detail).splitlines()[:12]:
                print(f"#   {line}")

    def step(self, name):
        """Outcome of step NAME for failure messages."""
        return (f"{name}: exit {self.rc(name)}\nstdout: {self.text(name, 'out').strip()[-600:]}"
                f"\nstderr: {self.text(name, 'err').strip()[-600:]}")

    def count(self, name, event_index=0):
        """The single count of a `workgate count --json` step, or None."""
        j = self.json(name)
        if not j or not j.get("valid") or not j.get("runs"):
            return None
        events = j["runs"][0].get("events") or []
        if event_index >= len(events):
            return None
        return events[event_index]["value"]


def not_scaled(events, single):
    """Whether EVENTS, one event opened several times in one run with some of
    them multiplexed, hold the raw counts rather than counts scaled by
    time_enabled / time_running. SINGLE is the same run counted by one
    counter alone. Returns (ok, detail).

    A raw count is what one counter saw while the kernel had it on the PMU:
    never more than SINGLE, and since the PMU's k counters (k < number of
    events) run k of the events at every moment, the values add up to k
    whole runs. A scaled count estimates the whole run, so each comes to
    about SINGLE and they add up to about one whole run per event; a test
    that only asks "at most SINGLE" passes a scaled value that happened to
    come out a little low."""
    values = [e["value"] for e in events]
    detail = f"values {values}, single-event count {single}"
    if single is None or single <= 0 or not events:
        return False, "no single-event count or no events: " + detail
    if not any(e["multiplexed"] for e in events):
        return False, "nothing was multiplexed: " + detail
    if any(v > single for v in values):
        return False, "a value is above the single-event count (scaled): " + detail
    runs = sum(values) / single
    detail += f"; they add up to {runs:.3f} runs"
    # k whole runs for raw counts, k <= len(events) - 1; about len(events)
    # runs when scaled.
    if runs > len(events) - 0.5:
        return False, "as many runs as events (scaled): " + detail
    return True, detail


def check_vgcount(r, perf_delta):
    """vgcount, built for arm64, under the arm64 Valgrind: what it counts,
    against the loop's known size, perf's delta and callgrind's count of the
    same launch. PERF_DELTA is perf's known_loop 3000000 minus 1000000."""
    v1, v3, cg = r.count("vg_1m"), r.count("vg_3m"), r.count("cg_1m")
    j1 = r.json("vg_1m") or {}
    r.check(r.rc("vg_1m") == 0 and v1 is not None and j1.get("backend") == "vgcount",
            "count --backend vgcount counts known_loop 1000000", r.step("vg_1m"))
    runs = [run["events"][0]["value"] for run in j1.get("runs") or [] if run.get("events")]
    r.check(len(runs) == 2 and runs[0] == runs[1] and j1.get("spread") == 0,
            "vgcount: two runs of one count are identical", f"counts {runs}")
    r.check(j1.get("deterministic") is True,
            "vgcount: the count is deterministic (time and entropy pinned, every input seen)",
            f"deterministic {j1.get('deterministic')}, unpinned {j1.get('unpinned')}")
    # An iteration of the loop is subs and b.ne (probes/two_instruction_loop.h).
    r.check(v1 is not None and v3 is not None and v3 - v1 == LOOP * 2_000_000
            and (r.json("vg_3m") or {}).get("backend") == "vgcount",
            "vgcount: known_loop 3000000 minus known_loop 1000000 is exactly 4,000,000",
            f"counts {v1} and {v3}\n" + r.step("vg_3m"))
    r.check(v1 is not None and v3 is not None and perf_delta is not None
            and v3 - v1 == perf_delta,
            "vgcount's delta of known_loop equals perf's on the emulated PMU",
            f"vgcount {None if v1 is None or v3 is None else v3 - v1}, perf {perf_delta}")
    r.check(v1 is not None and cg is not None and (r.json("cg_1m") or {}).get("backend") ==
            "callgrind" and 0 < v1 - cg <= VEX_BLOCK,
            "vgcount's total of known_loop 1000000 is callgrind's Ir plus the last block "
            f"(1 to {VEX_BLOCK}), which callgrind never counts",
            f"vgcount {v1}, callgrind {cg}\n" + r.step("cg_1m"))
    vr = r.count("vg_region")
    r.check(vr is not None and LOOP * 10_000 <= vr < LOOP * 10_000 + VALGRIND_REGION_SLACK,
            "--region: vgcount counts the 20,000 of the loop inside the region and under "
            f"{VALGRIND_REGION_SLACK} more", f"count {vr}\n" + r.step("vg_region"))
    vp, cp = r.count("vg_region_probe"), r.count("cg_region_probe")
    r.check(vp is not None and cp is not None and vp == cp
            and LOOP * 100_000 <= vp < LOOP * 100_000 + VALGRIND_REGION_SLACK,
            "--region: vgcount counts what callgrind counts, the 200,000 of the loop and "
            f"under {VALGRIND_REGION_SLACK} more",
            f"vgcount {vp}, callgrind {cp}\n" + r.step("vg_region_probe") + "\n"
            + r.step("cg_region_probe"))


def main():
    r = Results(sys.argv[1])
    fmt = "{:,}".format

    # The machine and the probe.
    r.check(r.text("paranoid", "txt").strip() == "3",
            "the guest kernel has perf_event_paranoid=3 (Debian's default)",
            r.text("paranoid", "txt"))
    probe = r.json("probe")
    r.check(r.rc("probe") == 0 and probe is not None, "workgate probe exits 0", r.step("probe"))
    probe = probe or {}
    system = probe.get("system") or {}
    pmus = [p["name"] for p in system.get("kernel_pmus") or [] if p.get("is_core")]
    r.check(any(p.startswith("armv8_pmuv3") for p in pmus),
            "probe finds the armv8_pmuv3 PMU", json.dumps(system.get("kernel_pmus")))
    perf = probe.get("perf") or {}
    r.check(perf.get("ok") is True and perf.get("event") == "instructions:u",
            "probe can count instructions:u with perf", json.dumps(perf))
    r.check((probe.get("auto") or {}).get("backend") == "perf",
            "probe chooses the perf backend", json.dumps(probe.get("auto")))
    res = [x for x in probe.get("resolution") or [] if x.get("backend") == "perf"]
    r.check(bool(res) and res[0].get("ok") and res[0].get("instructions_per_iteration") == 2
            and res[0].get("exact") is True,
            "probe measures exactly 2 instructions per known_loop iteration",
            json.dumps(res))

    # Exact deltas and the absolute count.
    c1, c3 = r.count("count_1m"), r.count("count_3m")
    r.check(c1 is not None and (r.json("count_1m") or {}).get("backend") == "perf",
            "count --backend perf counts known_loop 1000000", r.step("count_1m"))
    r.check(c1 is not None and c3 is not None and c3 - c1 == LOOP * 2_000_000,
            "known_loop 3000000 minus known_loop 1000000 is exactly 4,000,000",
            f"counts {c1} and {c3}")
    j3 = r.json("count_3m") or {}
    r.check(j3.get("valid") and len(j3.get("runs", [])) == 3 and j3.get("spread") == 0,
            "three repeats of one count are identical",
            f"min {j3.get('min')} max {j3.get('max')}")
    z = r.count("zero_dynamic")
    r.check(c1 is not None and z is not None and 0 <= c1 - z - LOOP * 1_000_000 <= ARGV_SLACK,
            "known_loop 1000000 counts 2,000,000 plus the count of known_loop 0 "
            f"(within {ARGV_SLACK})",
            f"known_loop 1000000: {c1}, known_loop 0: {z}")
    s0, s1 = r.count("zero_static"), r.count("static_1m")
    r.check(s0 is not None and s1 is not None and 0 <= s1 - s0 - LOOP * 1_000_000 <= ARGV_SLACK,
            "static known_loop: 1000000 counts 2,000,000 plus the count of 0 "
            f"(within {ARGV_SLACK})", f"{s1} and {s0}")

    # inherit: the child's loop is counted.
    f1, f2 = r.count("fork_1m"), r.count("fork_2m")
    r.check(f1 is not None and f2 is not None and f2 - f1 == LOOP * 1_000_000,
            "inherit: known_loop --fork counts its child's loop exactly",
            f"--fork 1000000: {f1}, --fork 2000000: {f2}\n" + r.step("fork_1m"))

    # enable_on_exec: the launcher's own work before exec is not counted.
    # exec_count (ci/pmu-vm.d/exec_count.c) counts the same program from exec
    # with nothing of its own in between; workgate must count the same. That
    # reference is the bound, not a fixed number: glibc's own start-up is
    # what a program counts at 0 iterations, and it differs by release
    # (static, arm64: 11,875 on Debian 12's glibc 2.36, 103,857 on
    # Debian 13's 2.41).
    for kind, mine in (("dynamic", z), ("static", s0)):
        t = r.text(f"ref_zero_{kind}", "out").strip()
        ref = int(t) if t.isdigit() else None
        r.check(mine is not None and ref is not None and abs(mine - ref) <= EXEC_SLACK,
                f"enable_on_exec: workgate counts known_loop 0 ({kind}) as a bare fork+exec "
                f"counter does (within {EXEC_SLACK})",
                f"workgate {mine}, exec_count {ref}\n" + r.step(f"ref_zero_{kind}"))

    # Region markers.
    g1, g2, g0 = r.count("region_10k"), r.count("region_20k"), r.count("noregion")
    r.check(g1 is not None and g2 is not None and g2 - g1 == LOOP * 10_000,
            "--region: 20000 iterations inside minus 10000 inside is exactly 20,000",
            f"{g1} and {g2}\n" + r.step("region_10k"))
    r.check(g1 is not None and LOOP * 10_000 <= g1 < LOOP * 10_000 + 1_000,
            "--region: the 2 x 1000000 iterations outside the region are not counted",
            f"count {g1}")
    h1, h2 = r.count("region_fork_10k"), r.count("region_fork_20k")
    r.check(h1 is not None and h2 is not None and h2 - h1 == LOOP * 10_000
            and LOOP * 10_000 <= h1 < LOOP * 10_000 + 1_000,
            "--region: markers in a forked child enable the inherited counters",
            f"--region-fork 10000: {h1}, 20000: {h2}\n" + r.step("region_fork_10k"))
    r.check(g0 is not None and g0 >= LOOP * 2_010_000,
            "without --region the whole program is counted", f"count {g0}")

    # Several events.
    j2 = r.json("events2") or {}
    ev = (j2.get("runs") or [{}])[0].get("events") or []
    r.check(r.rc("events2") == 0 and [e["event"] for e in ev] == ["instructions:u", "cycles:u"]
            and ev[1]["value"] > 0,
            "--event instructions:u,cycles:u counts both in one run", r.step("events2"))
    r.check(len(ev) == 2 and not any(e["multiplexed"] for e in ev) and ev[0]["value"] == c1,
            "two events are not multiplexed and instructions:u matches the single-event count",
            json.dumps(ev))
    err3 = r.text("events3", "out") + r.text("events3", "err")
    r.check(r.rc("events3") not in (0, None) and "no such event (branches:u)" in err3,
            "--event ...,branches:u (QEMU's PMU has no branch event) fails: no such event "
            "(branches:u)",
            r.step("events3"))
    j8 = r.json("events8") or {}
    ev8 = (j8.get("runs") or [{}])[0].get("events") or []
    mux = [e for e in ev8 if e["multiplexed"]]
    r.check(r.rc("events8") == 0 and len(ev8) == 8 and mux,
            "8 events on a PMU with 6 programmable counters: multiplexing is reported",
            r.step("events8") + "\n" + json.dumps(ev8))
    raw, why = not_scaled(ev8, c1)
    r.check(raw and "multiplexed" in r.text("events8", "out"),
            "multiplexed counts are not scaled, and the terminal report says multiplexed",
            why + "\n" + json.dumps(ev8))

    # Hardware events beside a gate's count: read in one more run a side,
    # never the verdict; an event the PMU lacks is a note.
    def hardware(name):
        report = r.json(name) or {}
        return ((report.get("workloads") or [{}])[0]).get("hardware_events") or {}
    hw = hardware("hw_cycles")
    events = hw.get("events") or []
    r.check(r.rc("hw_cycles") in (0, 1, 4) and len(events) == 1
            and events[0].get("event") == "cycles:u" and events[0].get("baseline", 0) > 0
            and events[0].get("candidate", 0) > 0,
            "compare --hardware-events cycles:u reads the PMU's cycles on each side",
            json.dumps(hw) + "\n" + r.step("hw_cycles"))
    hb = hardware("hw_branches")
    r.check(r.rc("hw_branches") in (0, 1, 4) and not hb.get("events")
            and "branches:u" in (hb.get("note") or ""),
            "compare --hardware-events branches:u (no such event here) is a note, not a verdict",
            json.dumps(hb) + "\n" + r.step("hw_branches"))

    check_vgcount(r, c3 - c1 if c1 is not None and c3 is not None else None)

    # perf_event_paranoid=3 as a user: the documented reason, exit 5.
    up = r.json("user_probe") or {}
    reason = (up.get("perf") or {}).get("reason") or ""
    r.check(r.rc("user_probe") == 5 and up.get("perf", {}).get("ok") is False,
            "as a user, probe exits 5: perf cannot count and Valgrind is not on PATH",
            r.step("user_probe"))
    r.check("perf_event_paranoid=3" in reason and "Debian" in reason,
            "as a user, probe gives perf_event_paranoid=3 (Debian's patch) as the reason", reason)
    r.check(bool(up) and (up.get("auto") or {}).get("backend") is None,
            "as a user, probe chooses no backend", json.dumps(up.get("auto")))
    uc = r.text("user_count", "err")
    r.check(r.rc("user_count") == 5 and "perf_event_paranoid=3" in uc,
            "as a user, count (auto) exits 5 naming perf_event_paranoid=3", r.step("user_count"))
    ucp = r.text("user_count_perf", "out") + r.text("user_count_perf", "err")
    r.check(r.rc("user_count_perf") == 5 and "perf_event_paranoid=3" in ucp,
            "as a user, count --backend perf exits 5 naming perf_event_paranoid=3",
            r.step("user_count_perf"))

    print(f"1..{r.passed + r.failed}")
    print(f"{r.passed} passed, {r.failed} failed")
    return 0 if r.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
