#pragma once
// The statistics of one paired comparison of timed runs (context, never the
// verdict): the median paired ratio with a seeded bootstrap interval at the
// level it can really have, the exact sign-flip test beside it
// (stats/sign_flip.h), and the Hodges-Lehmann shift. What is compared with
// what, stalls, the A/A control and the labels are stats/timed_context.h.
//
// Why pairs: on a shared runner the machine drifts during a job (other
// tenants, thermal state, caches warming). Runs taken back to back share most
// of that, so the ratio within a pair removes it; the independent unit is the
// pair, so the bootstrap resamples pairs and the test flips pairs.

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace workgate {

/// Fewest pairs whose exact two-sided sign-flip test can reject at
/// kTimedAlpha for one workload: its smallest p is 2/2^n, 0.0625 for 5 pairs
/// and 0.031 for 6. Fewer can give "within noise" or "inconclusive", never
/// "faster" or "slower"; m workloads under Holm need 2/2^n < 0.05/m.
inline constexpr int kMinPairsForLabel = 6;

/// Bootstrap resamples an interval draws.
inline constexpr int kBootstrapResamples = 10000;

/// The percentile bootstrap interval of the median of `values` at `level`
/// (0.95: the 2.5th and 97.5th percentiles of the resampled medians):
/// kBootstrapResamples resamples with replacement, indices drawn from
/// std::mt19937_64 seeded with `seed` by a rejection rule written out here
/// (std::uniform_int_distribution's algorithm is each library's own), so a
/// seed gives the same interval on every platform. {0, 0} for no values.
std::pair<double, double> BootstrapMedianInterval(const std::vector<double>& values, double level,
                                                  uint64_t seed);

/// 1 - 2^(1-n): the coverage of [min, max] as an interval of the median of n
/// independent values of a continuous distribution (it misses only when all
/// n fall on one side of the median). Every resampled median lies in
/// [min, max], so a bootstrap interval of the median cannot cover it more
/// often than this: 93.75% for 5 pairs, 96.9% for 6, 98.4% for 7.
double MostCoverageOfMedian(size_t n);

/// The Hodges-Lehmann estimate of the centre of `d`: the median of the n(n+1)/2
/// Walsh averages (d_i + d_j) / 2, i <= j. Robust like the median (it takes
/// 29% of the values to move it arbitrarily), nearly as efficient as the mean
/// on normal data. 0 for none.
double HodgesLehmann(const std::vector<double>& d);

/// The ratio of a pair oriented so that above 1 means `second` is worse:
/// second / first for lower-is-better figures (wall time), first / second
/// when `higher_is_better` (a throughput score).
double OrientedRatio(double first, double second, bool higher_is_better);

/// One paired comparison of `first` with `second` (pair i is first[i],
/// second[i]; the same length, at least kMinPairsForInterval, every value
/// positive and finite): the median of the oriented ratios, its bootstrap
/// interval at the nominal level 1 - kTimedAlpha / `family` (Bonferroni's
/// share of the family, the level Holm's first step tests at) and the level
/// it can really have (the smaller of that and MostCoverageOfMedian), and the
/// sign-flip test of the ratios' logarithms, with p_adjusted = p_value until
/// the family's Holm step (stats/timed_context.h) sets it. Seeded by `seed`.
TimedTest PairedTest(const std::vector<double>& first, const std::vector<double>& second,
                     bool higher_is_better, int family, uint64_t seed);

}  // namespace workgate
