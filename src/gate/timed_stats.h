#pragma once
// Statistics for the timed context (never part of the verdict): the order in
// which timed runs alternate, and a paired ratio with a bootstrap interval.
//
// Why paired ABBA: on a shared runner the machine drifts during a job (other
// tenants, thermal state, caches warming). Comparing runs in pairs taken close
// together removes what the pair shares, and the mirrored order A B B A puts
// each side's runs symmetrically about the middle, so a drift that is linear
// over the job cancels; plain A B A B biases the later side by one slot's
// drift. The independent unit is the pair, so the bootstrap resamples pairs.

#include <cstdint>
#include <optional>
#include <vector>

#include "gate/model.h"

namespace workgate {

/// The order of 2 * `pairs` timed runs: 'A' the baseline, 'B' the candidate,
/// "AB" for even pairs and "BA" for odd ones, giving "ABBAABBA...". Pair i is
/// runs 2i and 2i+1 and always means (baseline sample i, candidate sample i),
/// whichever ran first. Run one discarded warm-up per side before these, so
/// the first slot does not pay for cold caches alone. Empty for pairs <= 0.
std::vector<char> AbbaOrder(int pairs);

/// Fewest pairs for which PairedRatioStats gives an interval.
inline constexpr int kMinPairsForInterval = 5;

/// Bootstrap resamples PairedRatioStats draws.
inline constexpr int kBootstrapResamples = 10000;

/// Median of the per-pair ratios, oriented so that above 1 means the candidate
/// is worse: candidate/baseline for lower-is-better figures (wall time),
/// baseline/candidate when `higher_is_better` (a throughput score). With a
/// percentile bootstrap 95% interval of that median: kBootstrapResamples
/// resamples of the pairs with replacement, drawn from std::mt19937_64 seeded
/// with `seed`, so the same input and seed give the same interval on every
/// platform. excludes_one when the whole interval is above or below 1.
/// nullopt when the sides differ in length, have fewer than
/// kMinPairsForInterval pairs, or hold a value that is not positive and finite
/// (a ratio needs both). `basis` is left empty for the caller.
std::optional<TimedStats> PairedRatioStats(const std::vector<double>& baseline,
                                           const std::vector<double>& candidate,
                                           bool higher_is_better, uint64_t seed);

/// PairedRatioStats over a workload's timed samples: the scores when every
/// sample on both sides has one (basis "score", oriented by
/// `score_higher_is_better`), else the wall times (basis "wall time", lower
/// is better). nullopt when there are too few pairs.
std::optional<TimedStats> TimedStatsFor(const SideResult& baseline, const SideResult& candidate,
                                        bool score_higher_is_better, uint64_t seed);

/// The median of `values` (the mean of the middle two for an even count);
/// 0 for none.
double Median(std::vector<double> values);

}  // namespace workgate
