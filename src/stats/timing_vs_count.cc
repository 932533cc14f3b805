#include "stats/timing_vs_count.h"

#include <cmath>

#include "stats/sign_flip.h"
#include "stats/timed_stats.h"

namespace workgate {

bool CountAllowsTimingCheck(const WorkloadResult& w) {
  return w.verdict != Verdict::kInvalid && HasDelta(w) && std::isfinite(w.relative_low) &&
         std::isfinite(w.relative_high) && 1 + w.relative_low > 0;
}

namespace {

// Wall times: lower is better.
constexpr bool kWallHigherIsBetter = false;

// The comparison's figures and the bound of `w`, before Holm.
TimingVsCount TestAgainstCount(const WallTimes& w, int family, uint64_t seed) {
  const TimedTest c = PairedTest(w.baseline, w.candidate, kWallHigherIsBetter, family, seed);
  TimingVsCount t;
  t.pairs = c.pairs;
  t.median_ratio = c.median_ratio;
  t.ci_low = c.ci_low;
  t.ci_high = c.ci_high;
  t.confidence = c.confidence;
  t.count_low = 1 + w.workload->relative_low;
  t.count_high = 1 + w.workload->relative_high;
  t.factor = kTimingCountFactor;
  t.family = family;
  // The side is the one the median ratio lies on, seen from the middle of
  // the count's interval (on a log scale, as ratios are).
  const bool above = t.median_ratio >= std::sqrt(t.count_low * t.count_high);
  t.bound = above ? t.count_high * t.factor : t.count_low / t.factor;
  std::vector<double> beyond;
  for (size_t k = 0; k < w.baseline.size(); ++k) {
    beyond.push_back(
        std::log(OrientedRatio(w.baseline[k], w.candidate[k], kWallHigherIsBetter) / t.bound));
  }
  // Another stream than the comparison's two, from the same seed.
  t.p_value = t.p_adjusted = SignFlipTest(beyond, seed ^ 0xc2b2ae3d27d4eb4fu).p_value;
  return t;
}

}  // namespace

void HoldTimingsAgainstCounts(const std::vector<WallTimes>& tested, uint64_t seed) {
  const int family = static_cast<int>(tested.size());
  std::vector<TimingVsCount> checks;
  std::vector<TimedTest> controls;
  std::vector<double> p, aa_p;
  for (const WallTimes& w : tested) {
    checks.push_back(TestAgainstCount(w, family, seed));
    controls.push_back(PairedTest(w.aa_first, w.aa_second, kWallHigherIsBetter, family, seed));
    p.push_back(checks.back().p_value);
    aa_p.push_back(controls.back().p_value);
  }
  const std::vector<double> adjusted = HolmAdjust(p), aa_adjusted = HolmAdjust(aa_p);
  for (size_t i = 0; i < tested.size(); ++i) {
    controls[i].p_adjusted = aa_adjusted[i];
    // Identical runs that differ systematically: no timing here is evidence.
    if (ShowsEffect(controls[i])) continue;
    TimingVsCount& t = tested[i].workload->timing_vs_count.emplace(checks[i]);
    t.p_adjusted = adjusted[i];
    t.disagreement = DisagreementOf(t);
  }
}

}  // namespace workgate
