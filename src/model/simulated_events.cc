#include "model/simulated_events.h"

namespace workgate {
namespace {

enum SimulatedIndex { kDr, kDw, kI1mr, kD1mr, kD1mw, kILmr, kDLmr, kDLmw, kBc, kBcm, kBi, kBim };

// a + b, UINT64_MAX where it overflows.
uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  uint64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t product;
  return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

// a - b, 0 below.
uint64_t FloorSub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

const char* MetricName(Metric metric) {
  return metric == Metric::kEstimatedCycles ? "estimated-cycles" : "instructions";
}

bool ParseMetric(std::string_view text, Metric* metric) {
  for (Metric m : {Metric::kInstructions, Metric::kEstimatedCycles}) {
    if (text == MetricName(m)) {
      *metric = m;
      return true;
    }
  }
  return false;
}

const char* MetricWords(Metric metric) {
  return metric == Metric::kEstimatedCycles ? "estimated cycles" : "instructions";
}

std::optional<SimulatedCosts> SimulatedCostsOf(const std::map<std::string, uint64_t>& events) {
  if (events.size() != kSimulatedEventCount) return std::nullopt;
  SimulatedCosts costs = {};
  for (size_t i = 0; i < kSimulatedEventCount; ++i) {
    const auto found = events.find(std::string(kSimulatedEventNames[i]));
    if (found == events.end()) return std::nullopt;
    costs[i] = found->second;
  }
  return costs;
}

std::map<std::string, uint64_t> SimulatedCostsByName(const SimulatedCosts& costs) {
  std::map<std::string, uint64_t> out;
  for (size_t i = 0; i < kSimulatedEventCount; ++i) {
    out[std::string(kSimulatedEventNames[i])] = costs[i];
  }
  return out;
}

uint64_t MispredictedBranches(const SimulatedCosts& c) { return SaturatingAdd(c[kBcm], c[kBim]); }

uint64_t L1Misses(const SimulatedCosts& c) {
  return SaturatingAdd(SaturatingAdd(c[kI1mr], c[kD1mr]), c[kD1mw]);
}

uint64_t LastLevelMisses(const SimulatedCosts& c) {
  return SaturatingAdd(SaturatingAdd(c[kILmr], c[kDLmr]), c[kDLmw]);
}

uint64_t EstimatedCycles(uint64_t instructions, const SimulatedCosts& c) {
  const CycleWeights& w = kCycleWeights;
  const uint64_t accesses = SaturatingAdd(SaturatingAdd(instructions, c[kDr]), c[kDw]);
  const uint64_t l1_misses = L1Misses(c);
  const uint64_t ll_misses = LastLevelMisses(c);
  uint64_t cycles = SaturatingMul(FloorSub(accesses, l1_misses), w.l1_hit);
  cycles = SaturatingAdd(cycles, SaturatingMul(FloorSub(l1_misses, ll_misses), w.ll_hit));
  cycles = SaturatingAdd(cycles, SaturatingMul(ll_misses, w.memory));
  return SaturatingAdd(cycles, SaturatingMul(MispredictedBranches(c), w.mispredict));
}

std::vector<SimulatedFigure> SimulatedFigures(const SimulatedEvents& baseline,
                                              const SimulatedEvents& candidate) {
  const SimulatedCosts& b = baseline.costs;
  const SimulatedCosts& c = candidate.costs;
  return {
      {"instructions", "instructions", baseline.instructions, candidate.instructions},
      {"mispredicted_branches", "mispredicted branches", MispredictedBranches(b),
       MispredictedBranches(c)},
      {"l1_misses", "L1 misses", L1Misses(b), L1Misses(c)},
      {"last_level_misses", "last-level misses", LastLevelMisses(b), LastLevelMisses(c)},
      {"estimated_cycles", "estimated cycles", EstimatedCycles(baseline.instructions, b),
       EstimatedCycles(candidate.instructions, c)},
  };
}

}  // namespace workgate
