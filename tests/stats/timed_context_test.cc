// The timed context on fixed datasets: stalls, the A/A control, the noise
// floor, the two tests and their agreement, Holm across workloads. Synthetic
// data with known effects, and the published figures of a benchmark harness
// that reported an effect on identical code; never the real clock.

#include "stats/timed_context.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "stats/timed_stats.h"

namespace workgate {
namespace {

// Pair i of wall times, run as compare runs it: AB for even pairs, BA for odd.
WorkloadResult Timed(const std::vector<double>& base, const std::vector<double>& cand) {
  WorkloadResult w;
  w.name = "w";
  for (size_t i = 0; i < base.size(); ++i) {
    const int first = 2 + 2 * static_cast<int>(i);
    const bool ab = i % 2 == 0;
    w.baseline.timed.push_back({std::nullopt, base[i], ab ? first : first + 1});
    w.candidate.timed.push_back({std::nullopt, cand[i], ab ? first + 1 : first});
  }
  return w;
}

// Uniform in [-1, 1) from the raw generator (the same on every library).
double Noise(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; }

// n pairs: machine speed varies between pairs (pairing removes it), each
// run has up to `noise` of its own, the candidate takes `effect` times as long.
WorkloadResult Synthetic(int n, double effect, double noise, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> base, cand;
  for (int i = 0; i < n; ++i) {
    const double machine = 2.0 * (1 + 0.03 * (i % 4));
    base.push_back(machine * (1 + noise * Noise(rng)));
    cand.push_back(machine * effect * (1 + noise * Noise(rng)));
  }
  return Timed(base, cand);
}

const TimedStats& Decided(WorkloadResult* w, uint64_t seed = 1) {
  std::vector<WorkloadResult> one = {*w};
  DecideTimedContext(&one, seed);
  *w = one[0];
  EXPECT_TRUE(w->timed_stats.has_value());
  static const TimedStats none;
  return w->timed_stats ? *w->timed_stats : none;
}

TEST(TimedContextTest, AStallIsManyTimesItsSiblingsAndFarOutsideTheirSpread) {
  // One slot stalled on a cache download: 8.169 s among runs of about 3.3 s
  // (the figure a CI benchmark harness published for a stalled runner).
  EXPECT_EQ(StallsOf({3.286, 3.31, 3.25, 3.30, 8.169, 3.27, 3.29, 3.28, 3.30, 3.26}),
            (std::vector<size_t>{4}));
  // 1.9 times the others, far outside their spread: slow, but not many times.
  EXPECT_TRUE(StallsOf({1, 1.01, 0.99, 1.9, 1, 1.02}).empty());
  EXPECT_EQ(StallsOf({1, 1.01, 0.99, 2.1, 1, 1.02}), (std::vector<size_t>{3}));
  // Twice the median of a side that spreads widely is within six deviations.
  EXPECT_TRUE(StallsOf({1, 2.0, 0.5, 4.5, 1.5, 3.0, 0.8}).empty());
  // Too few siblings to judge.
  EXPECT_TRUE(StallsOf({1, 1, 1, 10}).empty());
}

TEST(TimedContextTest, StallsAreDroppedWithTheirPairsAndListed) {
  // The published A/A run: identical code on ten runners, seven agreeing to
  // within 0.12 s, two with a stalled candidate slot (8.169 s where the runner
  // took 3.286 s, 10.030 s where it took 4.449 s). A mean over those pairs
  // said "slower" by 0.821 s; here the stalls are dropped, by a rule that
  // looks at one side only, and listed.
  const std::vector<double> base = {3.286, 4.449, 3.51, 3.62, 3.75, 3.40, 3.95, 3.58, 3.71, 3.47};
  const std::vector<double> cand = {8.169, 10.030, 3.55, 3.52, 3.84, 3.37, 3.90, 3.66, 3.63, 3.55};
  WorkloadResult w = Timed(base, cand);
  const TimedStats& s = Decided(&w);
  ASSERT_EQ(s.dropped.size(), 2u);
  EXPECT_FALSE(s.dropped[0].baseline);
  EXPECT_EQ(s.dropped[0].sample, 0);
  EXPECT_EQ(s.dropped[0].value, 8.169);
  EXPECT_EQ(s.dropped[1].sample, 1);
  EXPECT_EQ(s.dropped[1].value, 10.030);
  EXPECT_NEAR(s.dropped[1].sibling_median, 3.63, 0.05);
  ASSERT_TRUE(s.comparison);
  EXPECT_EQ(s.comparison->pairs, 8);
  EXPECT_NE(s.label, TimedLabel::kSlower);
  EXPECT_NE(s.label, TimedLabel::kFaster);
}

TEST(TimedContextTest, TooFewPairsLeftIsInconclusiveAndSaysWhy) {
  WorkloadResult w = Timed({1, 1, 1, 1, 1}, {1, 1, 5, 1, 1});
  const TimedStats& s = Decided(&w);
  EXPECT_FALSE(s.comparison);
  EXPECT_FALSE(s.hl_shift);
  EXPECT_EQ(s.dropped.size(), 1u);
  EXPECT_EQ(s.label, TimedLabel::kInconclusive);
  EXPECT_EQ(s.reason,
            "4 of the 5 pairs are left once stalls are dropped, fewer than the 5 a "
            "test needs");
}

TEST(TimedContextTest, MirroredPairsCancelALinearDrift) {
  std::vector<double> runs;
  for (int i = 0; i < 8; ++i) runs.push_back(1 + 0.01 * i);
  std::vector<double> first, second;
  MirroredPairs(runs, &first, &second);
  EXPECT_EQ(first, (std::vector<double>{runs[0], runs[3], runs[4], runs[7]}));
  EXPECT_EQ(second, (std::vector<double>{runs[1], runs[2], runs[5], runs[6]}));
  double drift = 0;
  for (size_t j = 0; j < first.size(); ++j) drift += second[j] - first[j];
  EXPECT_NEAR(drift, 0, 1e-12);
  MirroredPairs({1, 2, 3}, &first, &second);  // the odd run is left out
  EXPECT_EQ(first.size(), 1u);
}

TEST(TimedContextTest, TheNoiseFloorIsTheMedianSpreadOfTheBaselinesOwnPairs) {
  EXPECT_NEAR(NoiseFloor({1, 1, 1}, {1.01, 1.02, 0.97}), 0.02, 1e-12);
  EXPECT_EQ(NoiseFloor({}, {}), 0);
}

TEST(TimedContextTest, AKnownEffectIsSlowerOrFasterWhenBothTestsAgree) {
  WorkloadResult slow = Synthetic(12, 1.10, 0.01, 3);
  const TimedStats& s = Decided(&slow);
  ASSERT_TRUE(s.comparison);
  EXPECT_EQ(s.label, TimedLabel::kSlower) << s.reason;
  EXPECT_TRUE(s.comparison->excludes_one);
  EXPECT_LT(s.comparison->p_adjusted, 0.05);
  EXPECT_NEAR(*s.hl_shift, 0.2 * 1.045, 0.03);  // 10% of about 2.1 s
  EXPECT_EQ(s.family, 1);
  ASSERT_TRUE(s.aa_control);  // 12 baseline runs: 6 A/A pairs
  EXPECT_FALSE(s.aa_effect());
  WorkloadResult fast = Synthetic(12, 0.90, 0.01, 3);
  EXPECT_EQ(Decided(&fast).label, TimedLabel::kFaster);
}

TEST(TimedContextTest, NoEffectIsNotALabel) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    WorkloadResult w = Synthetic(12, 1.0, 0.01, seed);
    const TimedLabel label = Decided(&w).label;
    EXPECT_TRUE(label == TimedLabel::kWithinNoise || label == TimedLabel::kInconclusive)
        << seed << ": " << TimedLabelName(label);
  }
}

TEST(TimedContextTest, AnEffectWithinTheNoiseFloorIsWithinNoiseWhateverItsP) {
  // The candidate is 2% slower in every pair, so both tests find it; but two
  // runs of the baseline differ by about 10%, and 2% is within that.
  std::vector<double> base, cand;
  for (int i = 0; i < 12; ++i) {
    base.push_back(i % 2 ? 2.2 : 2.0);
    cand.push_back(base.back() * 1.02);
  }
  WorkloadResult w = Timed(base, cand);
  const TimedStats& s = Decided(&w);
  ASSERT_TRUE(s.comparison);
  EXPECT_TRUE(s.comparison->excludes_one);
  EXPECT_LT(s.comparison->p_value, 0.05);
  EXPECT_NEAR(*s.noise_floor, 0.1, 1e-9);
  EXPECT_EQ(s.label, TimedLabel::kWithinNoise) << s.reason;
}

TEST(TimedContextTest, TheTestsMustAgree) {
  // Five pairs all 10% slower: the bootstrap interval is [min, max] and
  // excludes 1, but no sign-flip test of five pairs gets below 0.0625.
  WorkloadResult few = Timed({2.0, 2.01, 2.0, 2.01, 2.0}, {2.2, 2.21, 2.2, 2.22, 2.19});
  const TimedStats& s = Decided(&few);
  ASSERT_TRUE(s.comparison);
  EXPECT_TRUE(s.comparison->excludes_one);
  EXPECT_DOUBLE_EQ(s.comparison->p_value, 0.0625);
  EXPECT_DOUBLE_EQ(s.comparison->confidence, 0.9375);  // what five pairs can have
  EXPECT_EQ(s.label, TimedLabel::kInconclusive);
  EXPECT_NE(s.reason.find("the interval excludes 1 but the sign-flip test does not reject"),
            std::string::npos)
      << s.reason;

  // Fourteen pairs a hair faster, six much slower: the median stays below 1
  // and its interval holds 1, while the sum the sign flips test is carried by
  // the six.
  std::vector<double> base(20, 1.0), cand;
  for (int i = 0; i < 20; ++i) cand.push_back(i % 10 < 7 ? 0.999 : 1.5);
  WorkloadResult split = Timed(base, cand);
  const TimedStats& t = Decided(&split);
  ASSERT_TRUE(t.comparison);
  EXPECT_FALSE(t.comparison->excludes_one);
  EXPECT_LT(t.comparison->p_value, 0.05);
  EXPECT_EQ(t.label, TimedLabel::kInconclusive);
  EXPECT_NE(t.reason.find("the sign-flip test rejects"), std::string::npos) << t.reason;
}

TEST(TimedContextTest, AnAaControlThatShowsAnEffectMakesTheContextUntrusted) {
  // The second run of every A/A pair is 10% slower (a slot that pays for
  // something the others do not): the baseline differs from itself.
  std::vector<double> base;
  for (int j = 0; j < 12; ++j) {
    const bool mirrored = j % 2 == 1;
    base.push_back(mirrored ? 2.2 : 2.0);
    base.push_back(mirrored ? 2.0 : 2.2);
  }
  std::vector<double> cand = base;
  for (double& c : cand) c *= 1.3;
  WorkloadResult w = Timed(base, cand);
  const TimedStats& s = Decided(&w);
  ASSERT_TRUE(s.aa_control);
  EXPECT_EQ(s.aa_control->pairs, 12);
  EXPECT_TRUE(s.aa_effect());
  EXPECT_DOUBLE_EQ(s.aa_control->median_ratio, 1.1);
  EXPECT_EQ(s.label, TimedLabel::kInconclusive);
  EXPECT_NE(s.reason.find("cannot be trusted"), std::string::npos) << s.reason;
}

TEST(TimedContextTest, WorkloadsAreOneFamilyForHolmAndTheIntervals) {
  std::vector<WorkloadResult> ws = {Synthetic(12, 1.10, 0.01, 3), Synthetic(12, 1.10, 0.01, 4),
                                    Synthetic(3, 1.10, 0.01, 5)};
  DecideTimedContext(&ws, 1);
  ASSERT_TRUE(ws[0].timed_stats && ws[1].timed_stats);
  EXPECT_FALSE(ws[2].timed_stats);  // three pairs: no statistics, and not in the family
  for (int i = 0; i < 2; ++i) {
    const TimedStats& s = *ws[i].timed_stats;
    EXPECT_EQ(s.family, 2);
    EXPECT_DOUBLE_EQ(s.comparison->nominal_confidence, 0.975);
    // Both exact p-values are the smallest, 2/4096; Holm doubles the smaller.
    EXPECT_DOUBLE_EQ(s.comparison->p_value, 2.0 / 4096);
    EXPECT_DOUBLE_EQ(s.comparison->p_adjusted, 4.0 / 4096);
    EXPECT_EQ(s.label, TimedLabel::kSlower);
  }
}

TEST(TimedContextTest, TheMirroredOrderCancelsALinearDriftThatABAWouldNot) {
  // No effect, and a machine that slows by 0.5% per run over the job.
  auto drifting = [](bool mirrored) {
    WorkloadResult w;
    for (int i = 0; i < 12; ++i) {
      const bool ab = !mirrored || i % 2 == 0;
      const int a = 2 + 2 * i + (ab ? 0 : 1), b = 2 + 2 * i + (ab ? 1 : 0);
      w.baseline.timed.push_back({std::nullopt, 2.0 * (1 + 0.005 * a), a});
      w.candidate.timed.push_back({std::nullopt, 2.0 * (1 + 0.005 * b), b});
    }
    return w;
  };
  WorkloadResult abba = drifting(true);
  const TimedStats& mirrored = Decided(&abba);
  EXPECT_NEAR(mirrored.comparison->median_ratio, 1.0, 1e-3);
  EXPECT_NEAR(*mirrored.hl_shift, 0, 1e-3);
  EXPECT_NE(mirrored.label, TimedLabel::kSlower);
  EXPECT_FALSE(mirrored.comparison->excludes_one);
  EXPECT_GT(mirrored.comparison->p_value, 0.5);
  EXPECT_FALSE(mirrored.aa_effect());
  // The same drift with the baseline always first fools both tests: every
  // pair's candidate ran one slot later. (Only the noise floor, two slots of
  // drift between the baseline's own runs, keeps it from a label.)
  WorkloadResult abab = drifting(false);
  const TimedStats& plain = Decided(&abab);
  EXPECT_NEAR(plain.comparison->median_ratio, 1.005, 1e-3);
  EXPECT_TRUE(plain.comparison->excludes_one);
  EXPECT_DOUBLE_EQ(plain.comparison->p_value, 2.0 / 4096);
}

TEST(TimedContextTest, ScoresAreHigherIsBetterAndAStallIsALowScore) {
  WorkloadResult w;
  for (int i = 0; i < 10; ++i) {
    w.baseline.timed.push_back({100.0 + i % 3, 2.0, 2 * i});
    w.candidate.timed.push_back({i == 6 ? 30.0 : 90.0 + i % 3, 2.0, 2 * i + 1});
  }
  const TimedStats& s = Decided(&w);
  EXPECT_EQ(s.basis, "score");
  ASSERT_EQ(s.dropped.size(), 1u);
  EXPECT_EQ(s.dropped[0].value, 30.0);
  EXPECT_EQ(s.label, TimedLabel::kSlower);  // 10% lower scores
  EXPECT_GT(s.comparison->median_ratio, 1.1);
  EXPECT_LT(*s.hl_shift, 0);  // in score points: the candidate scores less
}

TEST(TimedContextTest, NoStatisticsWithoutEnoughEqualPairsOrWithUnusableFigures) {
  std::vector<WorkloadResult> ws = {Timed({1, 1, 1, 1}, {1, 1, 1, 1}),
                                    Timed({1, 1, 1, 1, 1}, {1, 1, 0, 1, 1}),
                                    Timed({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1})};
  ws[2].candidate.timed.pop_back();
  for (WorkloadResult& w : ws) w.timed_stats = TimedStats{};  // a stale one is reset
  DecideTimedContext(&ws, 1);
  for (const WorkloadResult& w : ws) EXPECT_FALSE(w.timed_stats);
}

TEST(TimedContextTest, LabelsHaveTheirNames) {
  for (TimedLabel label : {TimedLabel::kFaster, TimedLabel::kSlower, TimedLabel::kWithinNoise,
                           TimedLabel::kInconclusive}) {
    TimedLabel back;
    ASSERT_TRUE(ParseTimedLabel(TimedLabelName(label), &back));
    EXPECT_EQ(back, label);
  }
  TimedLabel unused;
  EXPECT_FALSE(ParseTimedLabel("faster!", &unused));
  EXPECT_STREQ(TimedLabelName(TimedLabel::kWithinNoise), "within noise");
}

}  // namespace
}  // namespace workgate
