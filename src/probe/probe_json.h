#pragma once
// The JSON of `workgate probe --json FILE`.
//
// Schema version 1 (kProbeSchemaVersion):
// {"schema_version", "exit_code", "label" (probe --label; by default the hostname),
//  "system": {...} (machine/system_info.h ToJson),
//  "perf": {"event", "ok", "reason" (null when ok), "errno"},
//  "valgrind": {"found", "path", "version"},
//  "vgcount": {"built", "usable", "reason" (why it cannot count; null when usable),
//              "fallback" (what counting with Valgrind falls back to, and what that
//              costs; null when usable)},
//  "pid_namespace",
//  "resolution": [{"backend", "ok": false, "error"} |
//                 {"backend", "ok": true, "sizes": [small, large], "repeats",
//                  "counts_small", "counts_large", "instructions_per_iteration",
//                  "expected_per_iteration", "exact", "spread"}],
//  "auto": {"backend" (null when none can count), "reason"},
//  "timed_selftest": SELFTEST (report/selftest_report.h) | null (without
//    probe --selftest-timed)}

#include <nlohmann/json.hpp>

#include "model/schema_versions.h"
#include "probe/machine_probe.h"

namespace workgate {

/// The probe's JSON, with the timed self-test's result where it ran
/// (`timed_selftest`: report/selftest_report.h SelftestToJson; null where it
/// did not run).
nlohmann::json ProbeToJson(const ProbeReport& report,
                           const nlohmann::json& timed_selftest = nullptr);

}  // namespace workgate
