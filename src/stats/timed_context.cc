#include "stats/timed_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "stats/sign_flip.h"
#include "stats/timed_stats.h"
#include "stats/timing_vs_count.h"

namespace workgate {

std::vector<size_t> StallsOf(const std::vector<double>& cost) {
  std::vector<size_t> stalls;
  if (cost.size() < 5) return stalls;
  for (size_t i = 0; i < cost.size(); ++i) {
    std::vector<double> siblings;
    for (size_t k = 0; k < cost.size(); ++k) {
      if (k != i) siblings.push_back(cost[k]);
    }
    const double m = Median(siblings);
    for (double& s : siblings) s = std::fabs(s - m);
    const double d = Median(siblings);
    if (cost[i] > 2 * m && cost[i] > m + 6 * d) stalls.push_back(i);
  }
  return stalls;
}

void MirroredPairs(const std::vector<double>& runs, std::vector<double>* first,
                   std::vector<double>* second) {
  first->clear();
  second->clear();
  for (size_t j = 0; 2 * j + 1 < runs.size(); ++j) {
    const bool mirrored = j % 2 == 1;
    first->push_back(runs[2 * j + (mirrored ? 1 : 0)]);
    second->push_back(runs[2 * j + (mirrored ? 0 : 1)]);
  }
}

double NoiseFloor(const std::vector<double>& first, const std::vector<double>& second) {
  std::vector<double> spread;
  for (size_t j = 0; j < first.size() && j < second.size(); ++j) {
    spread.push_back(std::fabs(std::log(second[j] / first[j])));
  }
  return spread.empty() ? 0 : std::expm1(Median(spread));
}

namespace {

// Scores are throughput figures: more is better, as the suites' are.
constexpr bool kScoresHigherIsBetter = true;

// What one workload's samples give before the family is known.
struct Prepared {
  std::string basis;
  bool higher_is_better = false;
  std::vector<double> baseline, candidate;  // the pairs kept, in run order
  std::vector<double> aa_first, aa_second;
  std::vector<DroppedSample> dropped;
  int timed_pairs = 0;
  bool compared() const { return baseline.size() >= static_cast<size_t>(kMinPairsForInterval); }
  bool controlled() const { return aa_first.size() >= static_cast<size_t>(kMinPairsForInterval); }
};

// `wall`: the wall times even where every sample has a score.
std::optional<Prepared> Prepare(const WorkloadResult& w, bool wall) {
  const std::vector<TimedSample>& b = w.baseline.timed;
  const std::vector<TimedSample>& c = w.candidate.timed;
  if (b.size() != c.size() || b.size() < static_cast<size_t>(kMinPairsForInterval)) {
    return std::nullopt;
  }
  auto scored = [](const std::vector<TimedSample>& side) {
    return std::all_of(side.begin(), side.end(),
                       [](const TimedSample& t) { return t.score.has_value(); });
  };
  Prepared p;
  const bool scores = !wall && scored(b) && scored(c);
  p.basis = scores ? "score" : "wall time";
  p.higher_is_better = scores && kScoresHigherIsBetter;
  p.timed_pairs = static_cast<int>(b.size());
  std::vector<double> figures[2];
  for (int side = 0; side < 2; ++side) {
    for (const TimedSample& t : side == 0 ? b : c) {
      const double v = scores ? *t.score : t.wall_seconds;
      if (!std::isfinite(v) || v <= 0) return std::nullopt;  // no ratio of it
      figures[side].push_back(v);
    }
  }
  std::vector<bool> drop(b.size(), false);
  for (int side = 0; side < 2; ++side) {
    std::vector<double> cost = figures[side];
    if (p.higher_is_better) {
      for (double& v : cost) v = 1 / v;
    }
    for (size_t i : StallsOf(cost)) {
      std::vector<double> others = figures[side];
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
      p.dropped.push_back({side == 0, static_cast<int>(i), figures[side][i], Median(others)});
      drop[i] = true;
    }
  }
  std::sort(p.dropped.begin(), p.dropped.end(), [](const DroppedSample& x, const DroppedSample& y) {
    return x.sample != y.sample ? x.sample < y.sample : x.baseline > y.baseline;
  });
  for (size_t i = 0; i < b.size(); ++i) {
    if (drop[i]) continue;
    p.baseline.push_back(figures[0][i]);
    p.candidate.push_back(figures[1][i]);
  }
  MirroredPairs(p.baseline, &p.aa_first, &p.aa_second);
  return p;
}

// "p = 0.031", with "after Holm" where the family has more than one workload.
std::string Adjusted(const TimedStats& s) {
  return fmt::format("p = {:.2g}{}", s.comparison->p_adjusted, s.family > 1 ? " after Holm" : "");
}

void Label(const Prepared& p, TimedStats* s) {
  if (!s->comparison) {
    s->label = TimedLabel::kInconclusive;
    s->reason = fmt::format(
        "{} of the {} pairs are left once stalls are dropped, fewer than the {} a test needs",
        p.baseline.size(), p.timed_pairs, kMinPairsForInterval);
    return;
  }
  const TimedTest& t = *s->comparison;
  const bool rejects = t.p_adjusted < kTimedAlpha;
  if (s->aa_effect()) {
    s->label = TimedLabel::kInconclusive;
    s->reason =
        "the A/A control (the baseline against itself) shows an effect, so the timed context of "
        "this runner cannot be trusted";
  } else if (std::fabs(std::log(t.median_ratio)) <= std::log1p(*s->noise_floor)) {
    s->label = TimedLabel::kWithinNoise;
    s->reason = "the median ratio lies within the noise floor of the baseline's own runs";
  } else if (t.excludes_one && rejects) {
    s->label = t.median_ratio > 1 ? TimedLabel::kSlower : TimedLabel::kFaster;
    s->reason = "the interval and the sign-flip test agree, beyond the noise floor";
  } else if (t.excludes_one) {
    s->label = TimedLabel::kInconclusive;
    s->reason = "the interval excludes 1 but the sign-flip test does not reject (" + Adjusted(*s) +
                "): they disagree";
  } else if (rejects) {
    s->label = TimedLabel::kInconclusive;
    s->reason = "the sign-flip test rejects (" + Adjusted(*s) +
                ") but the interval includes 1: they disagree";
  } else {
    s->label = TimedLabel::kInconclusive;
    s->reason =
        "neither the interval nor the sign-flip test resolves an effect (" + Adjusted(*s) + ")";
  }
}

// Holm over the tests `pick` selects from `stats`, written back into them.
template <typename Pick>
void HolmOver(std::vector<TimedStats*>& stats, Pick pick) {
  std::vector<TimedTest*> tests;
  for (TimedStats* s : stats) {
    if (TimedTest* t = pick(s)) tests.push_back(t);
  }
  std::vector<double> p;
  for (const TimedTest* t : tests) p.push_back(t->p_value);
  const std::vector<double> adjusted = HolmAdjust(p);
  for (size_t i = 0; i < tests.size(); ++i) tests[i]->p_adjusted = adjusted[i];
}

}  // namespace

void DecideTimedContext(std::vector<WorkloadResult>* workloads, uint64_t seed) {
  std::vector<std::optional<Prepared>> prepared;
  int family = 0, aa_family = 0;
  for (WorkloadResult& w : *workloads) {
    w.timed_stats.reset();
    w.timing_vs_count.reset();
    prepared.push_back(Prepare(w, false));
    if (prepared.back() && prepared.back()->compared()) ++family;
    if (prepared.back() && prepared.back()->controlled()) ++aa_family;
  }
  std::vector<TimedStats*> all;
  std::vector<const Prepared*> sources;
  for (size_t i = 0; i < workloads->size(); ++i) {
    if (!prepared[i]) continue;
    const Prepared& p = *prepared[i];
    TimedStats& s = (*workloads)[i].timed_stats.emplace();
    s.basis = p.basis;
    s.family = family;
    s.dropped = p.dropped;
    if (p.compared()) {
      s.comparison = PairedTest(p.baseline, p.candidate, p.higher_is_better, family, seed);
      std::vector<double> differences;
      for (size_t k = 0; k < p.baseline.size(); ++k) {
        differences.push_back(p.candidate[k] - p.baseline[k]);
      }
      s.hl_shift = HodgesLehmann(differences);
      s.noise_floor = NoiseFloor(p.aa_first, p.aa_second);
    }
    if (p.controlled()) {
      s.aa_control = PairedTest(p.aa_first, p.aa_second, p.higher_is_better, aa_family, seed);
    }
    all.push_back(&s);
    sources.push_back(&p);
  }
  HolmOver(all, [](TimedStats* s) { return s->comparison ? &*s->comparison : nullptr; });
  HolmOver(all, [](TimedStats* s) { return s->aa_control ? &*s->aa_control : nullptr; });
  for (size_t i = 0; i < all.size(); ++i) Label(*sources[i], all[i]);
  // The wall times against the counts Decide gave before the timed runs.
  std::vector<WallTimes> tested;
  for (size_t i = 0; i < workloads->size(); ++i) {
    WorkloadResult& w = (*workloads)[i];
    if (!prepared[i] || !CountAllowsTimingCheck(w)) continue;
    const std::optional<Prepared> wall =
        prepared[i]->basis == "wall time" ? prepared[i] : Prepare(w, true);
    if (!wall || !wall->controlled()) continue;
    tested.push_back({&w, wall->baseline, wall->candidate, wall->aa_first, wall->aa_second});
  }
  HoldTimingsAgainstCounts(tested, seed);
}

}  // namespace workgate
