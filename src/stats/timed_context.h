#pragma once
// The timed context of a comparison: for each workload with enough timed
// pairs, which pairs count (stalls are dropped and listed), the comparison of
// the builds and the A/A control of the baseline against itself
// (stats/timed_stats.h), the noise floor, Holm's adjustment across the
// workloads, and the label. Context only: nothing here changes a verdict.
//
// A label needs two tests to agree: the bootstrap interval of the median
// ratio must exclude 1 and the exact sign-flip test must reject after Holm
// (p_adjusted < kTimedAlpha). Where one says "effect" and the other does not,
// the label is inconclusive: the percentile bootstrap is only approximate at
// a few pairs, the sign-flip test is exact, and a disagreement means the
// interval cannot be read at its level.

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace workgate {

/// The indices of the stalls among one side's figures `cost` (larger is
/// slower: wall seconds, or 1/score for a throughput score). A figure is a
/// stall when it is more than twice the median M of the side's other figures
/// and more than M + 6 D above it, D being those others' median absolute
/// deviation from M: a run that took many times as long as its siblings, far
/// outside their spread. Needs at least 4 siblings (5 figures); none before.
/// The rule looks at one side only, whose spread has the same distribution
/// whether or not the builds differ, so dropping cannot bias the comparison.
std::vector<size_t> StallsOf(const std::vector<double>& cost);

/// The A/A pairs of one side's runs, in run order: runs (2j, 2j+1) make pair
/// j, the first of the two taken as "first" in even pairs and the second in
/// odd ones, so that the pairs mirror one another as A B B A does and a drift
/// that is linear over the runs adds as much to one half as to the other. An
/// odd last run is left out.
void MirroredPairs(const std::vector<double>& runs, std::vector<double>* first,
                   std::vector<double>* second);

/// The noise floor of the A/A pairs: the median over pairs of
/// |ln(second / first)|, as a fraction exp(m) - 1 (0 for no pairs). Half of
/// the baseline's own pairs differ by more than this; an effect of that size
/// is what two runs of one build show.
double NoiseFloor(const std::vector<double>& first, const std::vector<double>& second);

/// Sets the timed_stats of every workload of `workloads` from its timed
/// samples (and resets it where there are fewer than kMinPairsForInterval
/// pairs, the sides' counts differ, or a figure is not positive and finite).
/// The figures are the scores when every sample of both sides has one
/// (higher is better), else the wall times. For each such workload:
///  1. stalls (StallsOf) on either side are dropped with their pairs, listed;
///  2. with kMinPairsForInterval or more pairs left, the comparison of the
///     builds (PairedTest, seeded by `seed`), the Hodges-Lehmann shift of the
///     pairs' differences, and the noise floor of the baseline's own runs
///     (MirroredPairs, NoiseFloor);
///  3. with kMinPairsForInterval or more A/A pairs, the A/A control: the same
///     test on the baseline against itself.
/// The workloads with a comparison make one family: their intervals are at
/// 1 - kTimedAlpha / family and their p-values Holm-adjusted together; the
/// A/A controls are a family of their own. Then each label: inconclusive
/// without a comparison or when the A/A control shows an effect (this
/// runner's timed context cannot be trusted); within noise when the median
/// ratio lies within the noise floor, whatever the tests say; faster or
/// slower when both tests find an effect; inconclusive when they disagree or
/// neither does. Last, the wall times of each workload whose count has
/// figures (CountAllowsTimingCheck: call this after Decide) and that keeps
/// kMinPairsForInterval or more A/A pairs of them are held against its count
/// (stats/timing_vs_count.h: timing_vs_count, none for every other workload).
/// Deterministic for given samples, counts and seed, so `merge` decides the
/// merged suite's family again from its parts' samples.
void DecideTimedContext(std::vector<WorkloadResult>* workloads, uint64_t seed);

}  // namespace workgate
