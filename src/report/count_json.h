#pragma once
// The JSON of `workgate count --json FILE`: every run and figure of one
// command counted, or of every workload of a suite counted for one build.
//
// Schema version 1 (kCountSchemaVersion). Figures that do not exist are null;
// `spread` and `spread_ppm` are present only beside a `min` and `max`.
//
// A command: {"schema_version", "exit_code", "backend", "backend_reason",
//   "event", "argv", "valid", "error", "clock", "unstable", "runs": [RUN],
//   "notes", "min", "max", "spread", "spread_ppm"}
// A suite: {"schema_version", "exit_code", "backend", "backend_reason",
//   "event", "exe", "suite",
//   "workloads": [{"name", "score", "expected_score", "instructions" (the
//     first run's count), "error", "unstable", "runs": [RUN], "notes", "min",
//     "max", "spread", "spread_ppm"}]}
// RUN = {"instructions", "exit_status", "signal", "timed_out",
//        "wall_seconds", "error",
//        "events": [{"event", "value", "time_enabled_ns", "time_running_ns",
//                    "multiplexed"}],
//        "per_process" (Valgrind, where it counted processes: the launched
//          process first, the others in pid order, which is not creation
//          order)}

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "measure/measure.h"
#include "util/exit_codes.h"

namespace workgate {

inline constexpr int kCountSchemaVersion = 1;

/// The spread `hi - lo` in parts per million of `lo` (0 when `lo` is 0).
double SpreadPpm(uint64_t lo, uint64_t hi);

/// `workgate count -- CMD`: one command counted `--repeat` times.
struct CommandCount {
  std::string backend, backend_reason, event;
  CountedWorkload result;
  bool valid = false;     // every repeat gave a valid count
  std::string clock;      // "shim", "env" or "none"
  bool unstable = false;  // repeats differed on an exact backend
  int exit_code = kExitPass;
};

/// One workload of `workgate count --suite FILE --exe PATH`.
struct SuiteWorkloadCount {
  std::string name;
  std::optional<std::string> expected_score;
  CountedWorkload result;
  bool unstable = false;  // repeats differed on an exact backend
};

struct SuiteCount {
  std::string backend, backend_reason, event, exe, suite;
  std::vector<SuiteWorkloadCount> workloads;
  int exit_code = kExitPass;
};

nlohmann::json CommandCountToJson(const CommandCount& count);
nlohmann::json SuiteCountToJson(const SuiteCount& count);

}  // namespace workgate
