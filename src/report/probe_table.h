#pragma once
// The runners' capabilities side by side: `workgate probe --markdown FILE`
// (this machine's row under the header) and `workgate probe --merge
// FILE...` (one row per runner's `probe --json`), as text for the terminal,
// Markdown for a step summary, and JSON.
//
// JSON, schema version 1 (kProbeTableSchemaVersion):
// {"schema_version", "runners": [{"label", "file" | null, "pmu": {"event",
//   "counts", "reason" | null}, "perf_event_paranoid" | null, "backend" | null,
//   "resolution": [{"backend", "ok", "exact" | null, "spread" | null,
//                   "instructions_per_iteration" | null, "error" | null}],
//   "hypervisor": {"present" | null, "name" | null}}]}

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/schema_versions.h"
#include "report/probe_row.h"

namespace workgate {

/// The perf reason cut for a table cell: its first clause (up to "; ", ". ",
/// ", so " or ": "), at most 80 characters, ending in "..." where cut.
std::string ShortReason(std::string_view reason);

/// Aligned columns: runner, PMU, perf_event_paranoid, backend, resolution,
/// hypervisor. Every cell made safe for a terminal (util/text.h).
std::string ProbeTableText(const std::vector<ProbeRow>& rows);

/// The same as a GitHub-flavoured Markdown table with its header; every text
/// a runner's file gave is a code span (report/markdown_text.h).
std::string ProbeTableMarkdown(const std::vector<ProbeRow>& rows);

nlohmann::json ProbeTableToJson(const std::vector<ProbeRow>& rows);

}  // namespace workgate
