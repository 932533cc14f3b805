#include "decision/stability.h"

#include <algorithm>
#include <cmath>

#include "decision/decision.h"

namespace workgate {

bool NeedsStabilityCheck(const WorkloadResult& w) {
  if (!HasDelta(w) || !w.baseline.error.empty() || !w.candidate.error.empty()) return false;
  // A side counted more than once already shows whether it repeats.
  if (w.baseline.counts.size() > 1 || w.candidate.counts.size() > 1) return false;
  if (w.delta == 0) return false;
  if (w.max_work_added <= 0) return true;
  return std::fabs(w.relative) < kStabilityCheckMargins * w.max_work_added;
}

void MeasureSpread(const WorkloadResult& w, uint64_t* spread, double* spread_ppm) {
  *spread = 0;
  *spread_ppm = 0;
  for (const SideResult* side : {&w.baseline, &w.candidate}) {
    if (side->counts.empty()) continue;
    const uint64_t s = side->max() - side->min();
    const double ppm =
        side->min() > 0 ? 1e6 * static_cast<double>(s) / static_cast<double>(side->min()) : 0;
    if (s > *spread || (s == *spread && ppm > *spread_ppm)) {
      *spread = s;
      *spread_ppm = ppm;
    }
  }
}

namespace {

// Sizes up to which the Mann-Whitney distribution is computed exactly; the
// table has n*m*(n*m+1) entries at most (about 6.5 MB of doubles at 30).
constexpr size_t kExactUpTo = 30;

// P(U <= u) for u = 0 .. n*m under the null hypothesis (no shift), U the
// Mann-Whitney statistic of samples of sizes n and m: the number of
// arrangements of n and m items with U = u, over all C(n+m, n) of them.
// ways(i, j, u) = ways(i-1, j, u-j) + ways(i, j-1, u): the largest of the
// i+j items comes from the first sample (and beats the j of the second) or
// from the second.
std::vector<double> MannWhitneyCdf(size_t n, size_t m) {
  const size_t top = n * m;
  // ways[i][j] over u, rolled over i.
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>(top + 1, 0));
  for (size_t j = 0; j <= m; ++j) prev[j][0] = 1;  // i = 0: one arrangement, U = 0
  for (size_t i = 1; i <= n; ++i) {
    std::vector<std::vector<double>> cur(m + 1, std::vector<double>(top + 1, 0));
    cur[0][0] = 1;
    for (size_t j = 1; j <= m; ++j) {
      for (size_t u = 0; u <= i * j; ++u) {
        double v = cur[j - 1][u];
        if (u >= j) v += prev[j][u - j];
        cur[j][u] = v;
      }
    }
    prev = std::move(cur);
  }
  std::vector<double> cdf(top + 1);
  double total = 0;
  for (size_t u = 0; u <= top; ++u) total += prev[m][u];
  double running = 0;
  for (size_t u = 0; u <= top; ++u) {
    running += prev[m][u];
    cdf[u] = running / total;
  }
  return cdf;
}

// The interval's order k (1-based) and its coverage 1 - 2 P(U <= k-1).
void ChooseOrder(size_t n, size_t m, double level, size_t* k, double* coverage) {
  const double alpha_half = (1 - level) / 2;
  if (n <= kExactUpTo && m <= kExactUpTo) {
    const std::vector<double> cdf = MannWhitneyCdf(n, m);
    // The largest k with P(U <= k-1) <= alpha/2; at least 1.
    size_t best = 1;
    for (size_t c = 1; c <= n * m / 2 + 1; ++c) {
      if (cdf[c - 1] <= alpha_half + 1e-12)
        best = c;
      else
        break;
    }
    *k = best;
    *coverage = std::max(0.0, 1 - 2 * cdf[best - 1]);
    return;
  }
  // Normal approximation of U: mean nm/2, variance nm(n+m+1)/12.
  const double nm = static_cast<double>(n * m);
  const double sd = std::sqrt(nm * static_cast<double>(n + m + 1) / 12);
  // The normal quantile of alpha/2, by bisection of its upper tail.
  double lo = 0, z = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + z) / 2;
    if (0.5 * std::erfc(mid / std::sqrt(2.0)) > alpha_half)
      lo = mid;
    else
      z = mid;
  }
  const double u = std::floor(nm / 2 - z * sd - 0.5);
  *k = static_cast<size_t>(std::max(1.0, u + 1));
  const double tail =
      0.5 * std::erfc((nm / 2 - (static_cast<double>(*k) - 0.5)) / sd / std::sqrt(2.0));
  *coverage = std::max(0.0, 1 - 2 * tail);
}

}  // namespace

ShiftInterval RankShiftInterval(const std::vector<uint64_t>& baseline,
                                const std::vector<uint64_t>& candidate, double level) {
  ShiftInterval out;
  if (baseline.empty() || candidate.empty()) return out;
  std::vector<double> diffs;
  diffs.reserve(baseline.size() * candidate.size());
  for (uint64_t c : candidate) {
    for (uint64_t b : baseline) {
      // Exact in integers, then to double: counts are at most kMaxCount.
      diffs.push_back(static_cast<double>(static_cast<int64_t>(c) - static_cast<int64_t>(b)));
    }
  }
  std::sort(diffs.begin(), diffs.end());
  const size_t total = diffs.size();
  out.estimate = total % 2 == 1 ? diffs[total / 2] : (diffs[total / 2 - 1] + diffs[total / 2]) / 2;
  size_t k = 1;
  ChooseOrder(baseline.size(), candidate.size(), level, &k, &out.confidence);
  k = std::min(k, (total + 1) / 2);
  out.low = diffs[k - 1];
  out.high = diffs[total - k];
  return out;
}

}  // namespace workgate
