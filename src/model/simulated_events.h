#pragma once
// The simulated events a Valgrind backend counts beside the instructions
// (counter/counter.h, CountOptions::simulate): their names, the figures the
// reports derive from them, and the estimate of cycles a suite may gate on
// (`metric = "estimated-cycles"`). docs/counting.md, "Simulated events",
// states the cache geometry and the weights.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace workgate {

/// The simulated events by cachegrind's names, in the order callgrind
/// writes them after "Ir": data reads and writes, first-level misses
/// (instruction, data read, data write), last-level misses (the same three),
/// conditional branches and their mispredictions, indirect branches and
/// theirs.
inline constexpr std::array<std::string_view, 12> kSimulatedEventNames = {
    "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim"};
inline constexpr size_t kSimulatedEventCount = kSimulatedEventNames.size();

/// Each event's cost, in kSimulatedEventNames' order.
using SimulatedCosts = std::array<uint64_t, kSimulatedEventCount>;

/// The weights of the estimate of cycles: every instruction fetch and data
/// access that hits the first level costs `l1_hit`, one that misses it and
/// hits the last level `ll_hit`, one that misses both `memory`, and every
/// mispredicted branch (conditional or indirect) `mispredict` more. The
/// first three are the weights Itamar Turner-Trauring's Cachegrind estimate
/// gave, which gungraun (iai-callgrind) and CodSpeed use; the penalty of a
/// misprediction is the 15 to 20 cycles Agner Fog's microarchitecture guide
/// measures on current x86 cores, taken at its low end.
struct CycleWeights {
  uint64_t l1_hit = 1;
  uint64_t ll_hit = 5;
  uint64_t memory = 35;
  uint64_t mispredict = 15;
};
inline constexpr CycleWeights kCycleWeights = {};

/// What a suite gates a workload on (`metric` in a suite, docs/suites.md).
enum class Metric {
  kInstructions,     // instructions retired: the count
  kEstimatedCycles,  // EstimatedCycles of the simulated events of every counted run
};
/// "instructions", "estimated-cycles".
const char* MetricName(Metric metric);
/// The inverse of MetricName; false for any other text.
bool ParseMetric(std::string_view text, Metric* metric);
/// How the reports name the metric's figures: "instructions", "estimated cycles".
const char* MetricWords(Metric metric);

/// One side's simulated events: the instructions of the run that simulated
/// them and each event's total.
struct SimulatedEvents {
  uint64_t instructions = 0;
  SimulatedCosts costs = {};
  bool operator==(const SimulatedEvents&) const = default;
};

/// The events named as CountedRun::simulated names them; nullopt when one of
/// kSimulatedEventNames is missing or another name is there.
std::optional<SimulatedCosts> SimulatedCostsOf(const std::map<std::string, uint64_t>& events);
/// `costs` by name.
std::map<std::string, uint64_t> SimulatedCostsByName(const SimulatedCosts& costs);

/// Mispredicted branches: Bcm + Bim.
uint64_t MispredictedBranches(const SimulatedCosts& c);
/// First-level misses: I1mr + D1mr + D1mw.
uint64_t L1Misses(const SimulatedCosts& c);
/// Last-level misses: ILmr + DLmr + DLmw.
uint64_t LastLevelMisses(const SimulatedCosts& c);
/// The estimate of cycles of `instructions` retired with `c`'s events, by
/// kCycleWeights: L1 hits (instructions + Dr + Dw - L1Misses) + 5 LL hits
/// (L1Misses - LastLevelMisses) + 35 memory accesses (LastLevelMisses) + 15
/// mispredicted branches. Saturates at UINT64_MAX; a hit count a forged
/// profile makes negative counts as 0.
uint64_t EstimatedCycles(uint64_t instructions, const SimulatedCosts& c);

/// One figure the reports show of simulated events, both sides'.
struct SimulatedFigure {
  const char* key;    // its JSON name: "instructions", "mispredicted_branches", ...
  const char* words;  // as the reports say it: "mispredicted branches"
  uint64_t baseline = 0;
  uint64_t candidate = 0;
  /// candidate - baseline, within INT64_MIN + 1 .. INT64_MAX.
  int64_t delta() const {
    const uint64_t up = candidate >= baseline ? candidate - baseline : baseline - candidate;
    const int64_t size = up > uint64_t{INT64_MAX} ? INT64_MAX : static_cast<int64_t>(up);
    return candidate >= baseline ? size : -size;
  }
};

/// The figures, in the order the reports show them: instructions,
/// mispredicted branches, L1 misses, last-level misses, estimated cycles.
std::vector<SimulatedFigure> SimulatedFigures(const SimulatedEvents& baseline,
                                              const SimulatedEvents& candidate);

}  // namespace workgate
