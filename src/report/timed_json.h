#pragma once
// The timed context as JSON (a compare report's workloads[].timed, and the
// phases of the timed self-test), and its strict reader for reports that come
// back (report/json_fields.h: every field the writer writes, of its type and
// range, and no other).
//
// TIMED = {"basis": "score" | "wall time",
//          "label": "faster" | "slower" | "within noise" | "inconclusive",
//          "reason", "family" (workloads in Holm's family),
//          "comparison": TEST | null (null: too few pairs left after stalls),
//          "hl_shift" (candidate - baseline, in the basis' unit) | null,
//          "noise_floor" (a fraction: 0.012 is 1.2%) | null,
//          "aa_control": TEST | null,
//          "dropped": [{"side": "baseline" | "candidate", "sample",
//                       "value", "sibling_median"}]}
// TEST = {"pairs", "median_ratio", "ci_low", "ci_high",
//         "confidence" (the level the interval can really have),
//         "nominal_confidence" (the level asked of the bootstrap),
//         "excludes_one", "p_value", "p_adjusted" (Holm),
//         "method": "exact" | "sampled", "draws"}

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/model.h"

namespace workgate {

/// TIMED, or null without stats.
nlohmann::json TimedStatsToJson(const std::optional<TimedStats>& stats);

/// Reads TIMED at `where` (`j` null: no stats). False with `*err`.
bool TimedStatsFromJson(const nlohmann::json* j, const std::string& where,
                        std::optional<TimedStats>* out, std::string* err);

}  // namespace workgate
