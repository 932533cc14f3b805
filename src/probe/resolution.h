#pragma once
// A backend's resolution on this machine: the probes' known loop
// (probes/known_loop, two instructions per iteration) counted at two sizes,
// several times. The difference between the sizes gives the instructions per
// iteration the backend sees; the repeats give its spread.

#include <cstdint>
#include <string>
#include <vector>

#include "counter/valgrind_counter.h"

namespace workgate {

/// The loop sizes (iterations) and how often each is counted.
inline constexpr unsigned long kResolutionSmall = 100000;
inline constexpr unsigned long kResolutionLarge = 200000;
inline constexpr int kResolutionRepeats = 3;

struct Resolution {
  std::string backend;  // "perf", "callgrind", "vgcount"
  bool ok = false;      // false: `error` says why nothing was measured
  std::string error;
  std::vector<uint64_t> small, large;  // counts per repeat, sorted
  double per_iteration = 0;            // measured instructions per loop iteration
  uint64_t spread = 0;                 // max - min over repeats, the worse size
  /// Exactly the loop's instructions per iteration, the same every repeat.
  bool exact() const;
};

/// The resolution from counts of the small and the large loop (any order):
/// per iteration from the medians, the spread from the worse size. Needs at
/// least one count of each.
Resolution ResolutionFromCounts(const std::string& backend, std::vector<uint64_t> small,
                                std::vector<uint64_t> large);

/// Splits the per-process counts of `known_loop --region-fork` (the parent
/// first, as CountedRun::per_process has it, then one child per size and
/// repeat) into the small and the large loop's counts. The children by size,
/// not by position: they come in pid order, which is not creation order once
/// pids wrap.
/// False with `*err` when the number of processes is not the expected one.
bool SplitForkedCounts(std::vector<uint64_t> per_process, std::vector<uint64_t>* small,
                       std::vector<uint64_t>* large, std::string* err);

/// perf: one launch of known_loop per size and repeat.
Resolution MeasurePerfResolution(const std::string& known_loop, const std::string& events);

/// Valgrind: one start of known_loop, which forks a child per size and
/// repeat, each counting only its own loop.
Resolution MeasureValgrindResolution(const std::string& known_loop, ValgrindCounter::Tool tool);

}  // namespace workgate
