#!/usr/bin/env python3
"""Self-test of check.py's judgement of multiplexed counts, with samples made
up here: runs under ctest (tests/CMakeLists.txt) without the emulated
machine."""
import importlib.util
import os
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


if __name__ == "__main__":
    unittest.main()
