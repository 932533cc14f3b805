#pragma once
// The JSON of `workgate explain --json FILE`: each named workload's
// per-function explanation, the same object the compare report shows under
// "explanation" (report/json_report.h).
//
// Schema version 4 (kExplainSchemaVersion; 2 added the explanation's
// stored_baseline, always false here, and its rows' lines, 3 its
// profile_cuts, 4 its "simulated" and its rows' and lines' "events", null
// here: explain runs no simulation, and a row's renamed_from and its lines'
// numbering, changed and folded):
// {"schema_version", "exit_code",
//  "workloads": [{"name", "explanation": EXPLANATION | null}]}

#include <nlohmann/json.hpp>
#include <vector>

#include "model/model.h"
#include "model/schema_versions.h"

namespace workgate {

/// `workloads` are the explained workloads: name and explanation.
nlohmann::json ExplanationsToJson(const std::vector<WorkloadResult>& workloads, int exit_code);

}  // namespace workgate
