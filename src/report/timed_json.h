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
//
// A compare report's workloads[].timing_vs_count (stats/timing_vs_count.h):
// VS = {"disagreement": "none" | "slower" | "faster",
//       "pairs", "median_ratio", "ci_low", "ci_high", "confidence" (the wall
//         times' paired comparison, candidate to baseline, as in TEST),
//       "count_low", "count_high" (the time ratio the count allows: 1 + the
//         relative delta's interval), "factor" (how far beyond it a timing
//         must lie), "bound" (the ratio tested), "p_value" (sign-flip test
//         against the bound), "p_adjusted" (Holm), "family" (workloads whose
//         wall times were tested against their counts)} | null

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

/// VS, or null where the timing was not held against the count.
nlohmann::json TimingVsCountToJson(const std::optional<TimingVsCount>& t);

/// Reads VS at `where` into `w->timing_vs_count` (`j` null: none), after
/// `w`'s figures, samples and timed stats were read: a VS needs timed stats
/// and no more pairs than the samples, count_low and count_high must be
/// 1 + relative_low and 1 + relative_high, the bound on one side of them by
/// the factor, and the disagreement what the interval, the bound and the
/// adjusted p say (DisagreementOf). False with `*err`.
bool TimingVsCountFromJson(const nlohmann::json* j, const std::string& where, WorkloadResult* w,
                           std::string* err);

}  // namespace workgate
