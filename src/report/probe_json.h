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
//  "auto": {"backend" (null when none can count), "reason"}}

#include <nlohmann/json.hpp>

#include "probe/machine_probe.h"

namespace workgate {

inline constexpr int kProbeSchemaVersion = 1;

nlohmann::json ProbeToJson(const ProbeReport& report);

}  // namespace workgate
