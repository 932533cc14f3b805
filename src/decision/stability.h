#pragma once
// Whether a workload counts the same on every run, and how the gate decides
// when it does not.
//
// On Valgrind a count is exact, so one count per side is all the gate needs,
// but only for a program that does the same work every run. One count per
// side cannot show that it does not: a program whose thread schedule, hash
// seed or clock reads move its count by 0.2% looks exactly like a change that
// adds 0.2%. So the gate checks a workload's stability, cheaply, where a
// wrong answer would matter (NeedsStabilityCheck): it counts the same build
// once more. Two equal counts: the workload is stable and the exact rule of
// decision/decision.h stands. Two different counts: the workload is unstable,
// both sides are counted several times (the comparison raises the repeats
// until the verdict is decisive or the cap is reached), and the verdict is
// taken from a distribution-free interval of the shift between the two
// samples (RankShiftInterval) instead of from single counts.

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace workgate {

/// Sides that differ by less than this many margins get a stability check in
/// auto mode: a spread of that size could have made the delta, or hidden one.
inline constexpr double kStabilityCheckMargins = 4.0;

/// The confidence the interval of an unstable workload must reach before it
/// may decide anything but inconclusive.
inline constexpr double kUnstableConfidence = 0.95;

/// The repeats an unstable workload starts with on each side: the fewest at
/// which the shift interval reaches kUnstableConfidence (97.1% at 4 and 4).
inline constexpr int kUnstableStartRepeats = 4;

/// True when `w` (counted on an exact backend, decided once from its counts)
/// should be counted once more to learn whether it is stable, in auto mode:
/// both sides have counts, neither side already shows more than one count,
/// and the sides differ, by less than kStabilityCheckMargins times the
/// margin (by anything at all when the margin is 0).
bool NeedsStabilityCheck(const WorkloadResult& w);

/// The larger within-side spread of `w`'s counts (max - min), and that side's
/// spread relative to its minimum, in parts per million.
void MeasureSpread(const WorkloadResult& w, uint64_t* spread, double* spread_ppm);

/// The interval of the shift between two samples of counts, from the n*m
/// differences candidate_i - baseline_j: their k-th smallest and k-th largest,
/// with k the largest order for which the exact Mann-Whitney distribution
/// gives the interval at least `level` coverage (a normal approximation above
/// 30 counts a side). The estimate is the Hodges-Lehmann shift, the median of
/// the differences. When no k reaches `level` (too few counts), k is 1 (the
/// extremes) and `confidence` says how much the interval really covers.
struct ShiftInterval {
  double low = 0;  // instructions, candidate - baseline
  double high = 0;
  double estimate = 0;  // Hodges-Lehmann
  double confidence = 0;
};
ShiftInterval RankShiftInterval(const std::vector<uint64_t>& baseline,
                                const std::vector<uint64_t>& candidate,
                                double level = kUnstableConfidence);

}  // namespace workgate
