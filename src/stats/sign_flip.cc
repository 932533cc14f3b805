#include "stats/sign_flip.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <random>

namespace workgate {
namespace {

// 2^40: a log ratio of a wall time is at most about 1,420 in magnitude (the
// range of a double), so 1,000 of them sum to less than 2^61 in this scale.
constexpr double kFixedPointScale = 1099511627776.0;

std::vector<int64_t> FixedPoint(const std::vector<double>& values) {
  std::vector<int64_t> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(std::llround(v * kFixedPointScale));
  return out;
}

uint64_t AbsoluteSum(int64_t sum) {
  return sum < 0 ? static_cast<uint64_t>(0) - static_cast<uint64_t>(sum)
                 : static_cast<uint64_t>(sum);
}

// Every sign vector in Gray-code order: each step flips one sign, so the sum
// changes by twice that difference and costs one addition.
SignFlipResult Exact(const std::vector<int64_t>& d) {
  const size_t n = d.size();
  int64_t sum = std::accumulate(d.begin(), d.end(), int64_t{0});
  const uint64_t observed = AbsoluteSum(sum);
  std::vector<bool> negative(n, false);
  const uint64_t total = uint64_t{1} << n;
  uint64_t extreme = 1;  // the observed sign vector itself
  for (uint64_t k = 1; k < total; ++k) {
    const int j = std::countr_zero(k);
    sum += negative[j] ? 2 * d[j] : -2 * d[j];
    negative[j] = !negative[j];
    if (AbsoluteSum(sum) >= observed) ++extreme;
  }
  return {static_cast<double>(extreme) / static_cast<double>(total), true, total};
}

SignFlipResult Sampled(const std::vector<int64_t>& d, uint64_t seed) {
  const uint64_t observed = AbsoluteSum(std::accumulate(d.begin(), d.end(), int64_t{0}));
  std::mt19937_64 rng(seed);
  uint64_t extreme = 0;
  for (uint64_t draw = 0; draw < kSignFlipDraws; ++draw) {
    int64_t sum = 0;
    uint64_t bits = 0;
    for (size_t i = 0; i < d.size(); ++i) {
      if (i % 64 == 0) bits = rng();
      sum += (bits & 1) ? -d[i] : d[i];
      bits >>= 1;
    }
    if (AbsoluteSum(sum) >= observed) ++extreme;
  }
  return {static_cast<double>(extreme + 1) / static_cast<double>(kSignFlipDraws + 1), false,
          kSignFlipDraws};
}

}  // namespace

SignFlipResult SignFlipTest(const std::vector<double>& differences, uint64_t seed) {
  if (differences.empty()) return {1, true, 1};
  const std::vector<int64_t> d = FixedPoint(differences);
  if (d.size() <= static_cast<size_t>(kMaxExactSignFlipPairs)) return Exact(d);
  return Sampled(d, seed);
}

std::vector<double> HolmAdjust(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&p](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(m);
  double running = 0;
  for (size_t j = 0; j < m; ++j) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - j) * p[order[j]]));
    adjusted[order[j]] = running;
  }
  return adjusted;
}

}  // namespace workgate
