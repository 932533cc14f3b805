#pragma once
// The JSON of `workgate probe --json FILE`.
//
// Schema version 1 (kProbeSchemaVersion):
// {"schema_version", "exit_code", "label" (probe --label; by default the hostname),
//  "system": {...} (probe/system_info.h ToJson),
//  "perf": {"event", "ok", "reason" (null when ok), "errno"},
//  "valgrind": {"found", "path", "version"}, "vgcount": {"built"},
//  "pid_namespace",
//  "resolution": [{"backend", "ok": false, "error"} |
//                 {"backend", "ok": true, "sizes": [small, large], "repeats",
//                  "counts_small", "counts_large", "instructions_per_iteration",
//                  "expected_per_iteration", "exact", "spread"}],
//  "auto": {"backend" (null when none can count), "reason"},
//  "timed_selftest": SELFTEST (report/selftest_report.h) | null (without
//    probe --selftest-timed)}

#include <nlohmann/json.hpp>

#include <optional>

#include "gate/model.h"
#include "probe/machine_probe.h"

namespace workgate {

inline constexpr int kProbeSchemaVersion = 1;

/// The probe's JSON, with the timed self-test's result where it ran.
nlohmann::json ProbeToJson(const ProbeReport& report,
                           const std::optional<TimedSelftest>& selftest = std::nullopt);

}  // namespace workgate
