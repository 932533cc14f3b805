#pragma once
// The JSON of `workgate count --json FILE`: every run and figure of one
// command counted, or of every workload of a suite counted for one build.
//
// Schema version 4 (kCountSchemaVersion; 2 added the result store to a
// suite's counts; 3 what the runs met and pinned: "deterministic",
// "unpinned", and each run's "inputs_seen", "pinned", "unpinned"; 4 a
// suite workload's "metric", which its "instructions", "min" and "max" are
// counts of). Figures
// that do not exist are null;
// `spread` and `spread_ppm` are present only beside a `min` and `max`.
//
// A command: {"schema_version", "exit_code", "backend", "backend_reason",
//   "event", "argv", "valid", "error", "clock", "unstable", "runs": [RUN],
//   "notes", "deterministic", "unpinned": [text], "min", "max", "spread",
//   "spread_ppm"}
// A suite: {"schema_version", "exit_code", "backend", "backend_reason",
//   "event", "exe", "suite", "store": {"path" | null, "notes", "recorded_as"
//   (--record REF) | null} | null,
//   "workloads": [{"name", "score", "expected_score", "instructions" (the
//     first count), "error", "unstable", "runs": [RUN] (those run: none for
//     counts the store gave), "notes", "deterministic", "unpinned": [text],
//     "min", "max", "spread", "spread_ppm",
//     "from_store": {"counted_at", "ref" | null, "label", "counts"} | null}]}
// RUN = {"instructions", "exit_status", "signal", "timed_out",
//        "wall_seconds", "error",
//        "events": [{"event", "value", "time_enabled_ns", "time_running_ns",
//                    "multiplexed"}],
//        "per_process" (Valgrind, where it counted processes: the launched
//          process first, the others in pid order, which is not creation
//          order),
//        "inputs_seen" (vgcount pinning: the counter saw every input),
//        "pinned": {kind: N}, "unpinned": {kind: N} (vgcount's lists, summed
//          over the processes)}

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "measure/measure.h"
#include "model/model.h"
#include "model/schema_versions.h"
#include "util/exit_codes.h"

namespace workgate {

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
  /// What its counts are of: instructions, or (a suite's `metric`)
  /// estimated cycles.
  Metric metric = Metric::kInstructions;
  std::optional<std::string> expected_score;
  CountedWorkload result;
  bool unstable = false;                // repeats differed on an exact backend
  std::optional<FromStore> from_store;  // the result store gave counts
  /// Unstable, and its runs met threads (measure/thread_runtime.h); in the
  /// text only.
  std::optional<ThreadHint> thread_hint;
};

struct SuiteCount {
  std::string backend, backend_reason, event, exe, suite;
  /// The result store used ("" none), what went wrong with it, and the
  /// --record REF the results went into history under ("" none).
  std::string store;
  std::vector<std::string> store_notes;
  std::string recorded_as;
  std::vector<SuiteWorkloadCount> workloads;
  int exit_code = kExitPass;
};

nlohmann::json CommandCountToJson(const CommandCount& count);
nlohmann::json SuiteCountToJson(const SuiteCount& count);

}  // namespace workgate
