#pragma once
// The JSON of `workgate history --json FILE`: every series with its points
// and figures, for machines (schemas/history.schema.json).
//
// Schema version 3 (kHistorySchemaVersion); version 1 had no steps, rise,
// fall, direction or subject, and its drift was the net change of the
// segment only; version 2 had no committed_at. Changes are fractions
// (0.031 = +3.1%), and so are `margin` and `max_work_added`; figures that do not exist are null,
// never 0.
//
// {"format": "workgate-history", "schema_version",
//  "series": [{"workload", "backend", "event", "margin", "recorded" (points
//    in the whole series), "cumulative", "step_crossed", "steps": [{"point"
//    (its index in points), "ref", "step"}], "rise" and "fall" ({"from",
//    "to" (indexes in points), "from_ref", "to_ref", "change",
//    "beyond_noise"} or null), "drift", "direction" ("added", "removed",
//    "unchanged"), "noise_floor", "noise_differences", "verdict" (the
//    headline the terminal shows),
//    "points": [{"ref", "recorded_at", "committed_at" (the committer date of
//      the commit ref named in the checkout; null for a ref that was no
//      commit, and for every record of a store from before it was kept),
//      "counts", "value" (their median),
//      "step", "cumulative", "break_before", "changed": [part names],
//      "max_work_added", "score", "subject" (--record-subject; null when
//      none was recorded), "conditions", "condition_parts": {name:
//      value}}]}]}

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/history.h"
#include "model/schema_versions.h"

namespace workgate {

inline constexpr const char* kHistoryFormat = "workgate-history";

/// The history as JSON (see above).
nlohmann::json HistoryToJson(const std::vector<WorkloadHistory>& series);

/// Writes HistoryToJson(series) to `path`, or stdout for "-"
/// (report/report_output.h).
bool WriteHistoryJson(const std::string& path, const std::vector<WorkloadHistory>& series,
                      std::string* err);

}  // namespace workgate
