#!/usr/bin/env python3
"""Self-test of check.py's judgement of multiplexed counts and of vgcount's
counts, with samples made up here: runs under ctest (tests/CMakeLists.txt)
without the emulated machine."""
import contextlib
import importlib.util
import io
import json
import os
import tempfile
import unittest

_spec = importlib.util.spec_from_file_location(
    "check", os.path.join(os.path.dirname(os.path.abspath(__file__)), "check.py"))
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

SINGLE = 2_076_225  # known_loop 1000000 counted by one counter (docs/counting.md)


def event(value, running, enabled=1000):
    return {"event": "instructions:u", "value": value, "time_enabled_ns": enabled,
            "time_running_ns": running, "multiplexed": running < enabled}


def raw_sample(counters=7, events=8):
    """What `events` counters on a PMU with `counters` of them read when the
    kernel rotates them evenly: each ran counters/events of the run, and at
    every moment `counters` of them counted."""
    share = SINGLE * counters // events
    values = [share] * events
    values[0] += SINGLE * counters - share * events  # the remainder
    return [event(v, 1000 * counters // events) for v in values]


def scaled(sample):
    """The same sample scaled by time_enabled / time_running, as perf stat
    prints an estimate (rounded)."""
    return [dict(e, value=round(e["value"] * e["time_enabled_ns"] / e["time_running_ns"]))
            for e in sample]


class NotScaledTest(unittest.TestCase):
    def test_raw_counts_pass(self):
        for counters in (6, 7):
            ok, why = check.not_scaled(raw_sample(counters), SINGLE)
            self.assertTrue(ok, why)

    def test_scaled_counts_fail(self):
        for counters in (6, 7):
            ok, why = check.not_scaled(scaled(raw_sample(counters)), SINGLE)
            self.assertFalse(ok, why)

    def test_scaled_counts_a_little_low_fail(self):
        # Every estimate 2% under the true count: each one is below the
        # single-event count, which the old check ("at most SINGLE") passed.
        low = [dict(e, value=e["value"] * 98 // 100) for e in scaled(raw_sample())]
        self.assertTrue(all(e["value"] <= SINGLE for e in low))
        ok, why = check.not_scaled(low, SINGLE)
        self.assertFalse(ok, why)

    def test_nothing_multiplexed_fails(self):
        ok, _ = check.not_scaled([event(SINGLE, 1000)] * 2, SINGLE)
        self.assertFalse(ok)

    def test_missing_single_count_fails(self):
        ok, _ = check.not_scaled(raw_sample(), None)
        self.assertFalse(ok)


# Figures of the kind the machine gives (vgcount's whole-program counts are
# not perf's: Valgrind's launch differs), and the same delta as perf's.
PERF_DELTA = 4_000_000
GOOD_VGCOUNT = {"vg_1m": [2_081_000, 2_081_000], "vg_3m": [6_081_000],
                "cg_1m": [2_080_993], "vg_region": [20_027],
                "vg_region_probe": [200_022], "cg_region_probe": [200_022]}
BACKENDS = {"vg_1m": "vgcount", "vg_3m": "vgcount", "cg_1m": "callgrind",
            "vg_region": "vgcount", "vg_region_probe": "vgcount",
            "cg_region_probe": "callgrind"}


class VgcountTest(unittest.TestCase):
    """check_vgcount on made-up step outputs: the right figures pass, and
    each wrong one fails."""

    def judge(self, counts=None, perf_delta=PERF_DELTA, change=None):
        counts = dict(GOOD_VGCOUNT if counts is None else counts)
        with tempfile.TemporaryDirectory() as d:
            for name, values in counts.items():
                report = {"valid": True, "backend": BACKENDS[name], "deterministic": True,
                          "unpinned": [], "spread": max(values) - min(values),
                          "runs": [{"events": [{"event": "Ir", "value": v}]} for v in values]}
                if change and name in change:
                    report.update(change[name])
                with open(os.path.join(d, name + ".json"), "w") as f:
                    json.dump(report, f)
                with open(os.path.join(d, name + ".rc"), "w") as f:
                    f.write("0\n")
            r = check.Results(d)
            with contextlib.redirect_stdout(io.StringIO()) as out:
                check.check_vgcount(r, perf_delta)
        return r.failed, out.getvalue()

    def with_counts(self, **changed):
        return dict(GOOD_VGCOUNT, **changed)

    def test_right_figures_pass(self):
        failed, out = self.judge()
        self.assertEqual(failed, 0, out)

    def test_delta_off_by_one_iteration_fails(self):
        failed, out = self.judge(self.with_counts(vg_3m=[6_081_002]))
        self.assertGreater(failed, 0, out)

    def test_delta_unlike_perfs_fails(self):
        failed, out = self.judge(perf_delta=4_000_002)
        self.assertEqual(failed, 1, out)

    def test_repeats_that_differ_fail(self):
        failed, out = self.judge(self.with_counts(vg_1m=[2_081_000, 2_081_001]))
        self.assertGreater(failed, 0, out)

    def test_one_run_where_two_were_asked_fails(self):
        failed, out = self.judge(self.with_counts(vg_1m=[2_081_000]))
        self.assertEqual(failed, 1, out)

    def test_not_deterministic_fails(self):
        failed, out = self.judge(change={"vg_1m": {"deterministic": False}})
        self.assertEqual(failed, 1, out)

    def test_another_backend_fails(self):
        failed, out = self.judge(change={"vg_1m": {"backend": "perf"}})
        self.assertGreater(failed, 0, out)

    def test_total_equal_to_callgrinds_fails(self):
        # vgcount counts the last block, which callgrind leaves out.
        failed, out = self.judge(self.with_counts(cg_1m=[2_081_000]))
        self.assertEqual(failed, 1, out)

    def test_total_more_than_a_block_above_callgrinds_fails(self):
        failed, out = self.judge(self.with_counts(cg_1m=[2_081_000 - 51]))
        self.assertEqual(failed, 1, out)

    def test_region_unlike_callgrinds_fails(self):
        failed, out = self.judge(self.with_counts(cg_region_probe=[200_023]))
        self.assertEqual(failed, 1, out)

    def test_empty_regions_fail(self):
        # Markers compiled without the client request: neither tool counts.
        failed, out = self.judge(self.with_counts(vg_region_probe=[0], cg_region_probe=[0]))
        self.assertEqual(failed, 1, out)

    def test_region_with_the_outside_work_fails(self):
        # The 2 x 1000000 iterations outside region_loop's region counted.
        failed, out = self.judge(self.with_counts(vg_region=[4_020_027]))
        self.assertEqual(failed, 1, out)

    def test_missing_steps_fail_every_check(self):
        _, good = self.judge()
        failed, out = self.judge({})
        self.assertEqual(failed, good.count("ok "), out)


if __name__ == "__main__":
    unittest.main()
