#include "gate/timed_stats.h"

#include <algorithm>
#include <cmath>
#include <random>

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

bool Usable(double v) { return std::isfinite(v) && v > 0; }

}  // namespace

std::vector<char> AbbaOrder(int pairs) {
  std::vector<char> order;
  for (int i = 0; i < pairs; ++i) {
    if (i % 2 == 0) {
      order.push_back('A');
      order.push_back('B');
    } else {
      order.push_back('B');
      order.push_back('A');
    }
  }
  return order;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::optional<TimedStats> PairedRatioStats(const std::vector<double>& baseline,
                                           const std::vector<double>& candidate,
                                           bool higher_is_better, uint64_t seed) {
  const size_t n = baseline.size();
  if (candidate.size() != n || n < static_cast<size_t>(kMinPairsForInterval)) return std::nullopt;
  std::vector<double> ratios(n);
  for (size_t i = 0; i < n; ++i) {
    if (!Usable(baseline[i]) || !Usable(candidate[i])) return std::nullopt;
    ratios[i] = higher_is_better ? baseline[i] / candidate[i] : candidate[i] / baseline[i];
  }

  TimedStats stats;
  stats.median_ratio = Median(ratios);
  std::mt19937_64 rng(seed);
  std::vector<double> medians(kBootstrapResamples);
  std::vector<double> sample(n);
  for (double& m : medians) {
    for (double& s : sample) s = ratios[UniformIndex(rng, n)];
    m = Median(sample);
  }
  std::sort(medians.begin(), medians.end());
  stats.ci_low = Percentile(medians, 0.025);
  stats.ci_high = Percentile(medians, 0.975);
  stats.excludes_one = stats.ci_low > 1 || stats.ci_high < 1;
  return stats;
}

std::optional<TimedStats> TimedStatsFor(const SideResult& baseline, const SideResult& candidate,
                                        bool score_higher_is_better, uint64_t seed) {
  auto all_scored = [](const SideResult& s) {
    return std::all_of(s.timed.begin(), s.timed.end(),
                       [](const TimedSample& t) { return t.score.has_value(); });
  };
  const bool scores = all_scored(baseline) && all_scored(candidate);
  std::vector<double> b, c;
  for (const TimedSample& t : baseline.timed) b.push_back(scores ? *t.score : t.wall_seconds);
  for (const TimedSample& t : candidate.timed) c.push_back(scores ? *t.score : t.wall_seconds);
  std::optional<TimedStats> stats =
      PairedRatioStats(b, c, scores ? score_higher_is_better : false, seed);
  if (stats) stats->basis = scores ? "score" : "wall time";
  return stats;
}

}  // namespace workgate
