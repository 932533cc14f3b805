#pragma once
// The timed self-test (measure/timed_selftest.h) as text, for `workgate
// selftest --timed` and the probe, and as JSON, the probe's "timed_selftest"
// (probe/probe_json.h):
//
// {"workload", "iterations", "pairs" (per phase), "delay_fraction",
//  "run_seconds" (the baseline's median in the A/A phase), "delay_seconds",
//  "expected_ratio", "aa": TIMED | null, "delayed": TIMED | null
//  (report/timed_json.h), "covers_expected" (the delayed interval holds
//  expected_ratio), "outcome": "resolves" | "misses" | "false effect" |
//  "failed", "reason"}

#include <nlohmann/json.hpp>
#include <string>

#include "model/model.h"

namespace workgate {

/// The self-test as the terminal shows it: what ran, each phase's interval,
/// label and reasons, and the outcome.
std::string SelftestText(const TimedSelftest& t);

/// The JSON above.
nlohmann::json SelftestToJson(const TimedSelftest& t);

}  // namespace workgate
