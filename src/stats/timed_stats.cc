#include "stats/timed_stats.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "stats/sign_flip.h"

namespace workgate {
namespace {

// An index in [0, n) from the generator without modulo bias. Written out
// rather than std::uniform_int_distribution, whose algorithm the standard
// leaves to each library, so the interval for a seed is the same everywhere.
size_t UniformIndex(std::mt19937_64& rng, size_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return static_cast<size_t>(x % n);
}

// Percentile of sorted values by linear interpolation between closest ranks
// (Hyndman & Fan type 7, R's default).
double Percentile(const std::vector<double>& sorted, double p) {
  const double pos = p * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

}  // namespace

std::pair<double, double> BootstrapMedianInterval(const std::vector<double>& values, double level,
                                                  uint64_t seed) {
  const size_t n = values.size();
  if (n == 0) return {0, 0};
  std::mt19937_64 rng(seed);
  std::vector<double> medians(kBootstrapResamples);
  std::vector<double> sample(n);
  for (double& m : medians) {
    for (double& s : sample) s = values[UniformIndex(rng, n)];
    m = Median(sample);
  }
  std::sort(medians.begin(), medians.end());
  const double tail = (1 - level) / 2;
  return {Percentile(medians, tail), Percentile(medians, 1 - tail)};
}

double MostCoverageOfMedian(size_t n) {
  if (n == 0) return 0;
  return 1 - std::ldexp(1.0, 1 - static_cast<int>(std::min<size_t>(n, 1100)));
}

double HodgesLehmann(const std::vector<double>& d) {
  std::vector<double> walsh;
  walsh.reserve(d.size() * (d.size() + 1) / 2);
  for (size_t i = 0; i < d.size(); ++i) {
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  }
  return Median(std::move(walsh));
}

double OrientedRatio(double first, double second, bool higher_is_better) {
  return higher_is_better ? first / second : second / first;
}

TimedTest PairedTest(const std::vector<double>& first, const std::vector<double>& second,
                     bool higher_is_better, int family, uint64_t seed) {
  const size_t n = first.size();
  std::vector<double> ratios(n), logs(n);
  for (size_t i = 0; i < n; ++i) {
    ratios[i] = OrientedRatio(first[i], second[i], higher_is_better);
    logs[i] = std::log(ratios[i]);
  }
  TimedTest t;
  t.pairs = static_cast<int>(n);
  t.median_ratio = Median(ratios);
  t.nominal_confidence = 1 - kTimedAlpha / std::max(1, family);
  t.confidence = std::min(t.nominal_confidence, MostCoverageOfMedian(n));
  std::tie(t.ci_low, t.ci_high) = BootstrapMedianInterval(ratios, t.nominal_confidence, seed);
  t.excludes_one = t.ci_low > 1 || t.ci_high < 1;
  // Another stream than the bootstrap's, from the same seed.
  const SignFlipResult flip = SignFlipTest(logs, seed ^ 0x9e3779b97f4a7c15u);
  t.p_value = t.p_adjusted = flip.p_value;
  t.exact = flip.exact;
  t.draws = flip.draws;
  return t;
}

}  // namespace workgate
