#include "decision/stability.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "decision/decision.h"
#include "decision/make_workload.h"

namespace workgate {
namespace {

using testing::MakeWorkload;

WorkloadResult Unstable(std::vector<uint64_t> base, std::vector<uint64_t> cand,
                        double margin = 0.01) {
  WorkloadResult w = MakeWorkload(std::move(base), std::move(cand), margin);
  w.stability.checked = true;
  w.stability.unstable = true;
  MeasureSpread(w, &w.stability.spread, &w.stability.spread_ppm);
  Decide(&w);
  return w;
}

// The orders and coverages below are worked out by hand from the exact
// Mann-Whitney distribution: with n = m, the number of arrangements with
// U = u is the number of partitions of u into at most n parts of at most n.
TEST(RankShiftIntervalTest, FourAndFourTakeTheExtremesAt97Percent) {
  // C(8,4) = 70 arrangements, one with U = 0: k = 1, coverage 1 - 2/70.
  ShiftInterval s = RankShiftInterval({100, 101, 102, 103}, {110, 111, 112, 113});
  EXPECT_DOUBLE_EQ(s.low, 110 - 103);
  EXPECT_DOUBLE_EQ(s.high, 113 - 100);
  EXPECT_DOUBLE_EQ(s.confidence, 1 - 2.0 / 70);
  EXPECT_DOUBLE_EQ(s.estimate, 10);
}

TEST(RankShiftIntervalTest, FiveAndFiveDropTwoDifferencesAtEachEnd) {
  // C(10,5) = 252; P(U <= 2) = (1+1+2)/252 <= 0.025 < P(U <= 3) = 7/252: k = 3.
  const std::vector<uint64_t> base = {0, 10, 20, 30, 40};
  const std::vector<uint64_t> cand = {5, 15, 25, 35, 1000};
  ShiftInterval s = RankShiftInterval(base, cand);
  EXPECT_DOUBLE_EQ(s.confidence, 1 - 8.0 / 252);
  // The 25 differences, sorted: the 3rd smallest and the 3rd largest.
  std::vector<double> d;
  for (uint64_t c : cand)
    for (uint64_t b : base) d.push_back(static_cast<double>(c) - static_cast<double>(b));
  std::sort(d.begin(), d.end());
  EXPECT_DOUBLE_EQ(s.low, d[2]);
  EXPECT_DOUBLE_EQ(s.high, d[22]);
  EXPECT_DOUBLE_EQ(s.estimate, d[12]);
}

TEST(RankShiftIntervalTest, SixAndSix) {
  // C(12,6) = 924; P(U <= 5) = (1+1+2+3+5+7)/924 <= 0.025 < P(U <= 6) = 30/924.
  ShiftInterval s = RankShiftInterval({1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6});
  EXPECT_DOUBLE_EQ(s.confidence, 1 - 38.0 / 924);
  EXPECT_DOUBLE_EQ(s.estimate, 0);
  EXPECT_LT(s.low, 0);
  EXPECT_GT(s.high, 0);
  EXPECT_DOUBLE_EQ(s.low, -s.high);
}

TEST(RankShiftIntervalTest, TooFewCountsSayHowLittleTheyCover) {
  // Two and two: one arrangement in six has U = 0, so the extremes cover 2/3.
  ShiftInterval s = RankShiftInterval({10, 20}, {15, 40});
  EXPECT_DOUBLE_EQ(s.confidence, 1 - 2.0 / 6);
  EXPECT_DOUBLE_EQ(s.low, -5);
  EXPECT_DOUBLE_EQ(s.high, 30);
  EXPECT_DOUBLE_EQ(s.estimate, 12.5);  // of -5, 5, 20, 30
  EXPECT_EQ(RankShiftInterval({}, {1}).confidence, 0);
}

TEST(RankShiftIntervalTest, LargeSamplesUseTheNormalApproximation) {
  std::vector<uint64_t> base, cand;
  for (uint64_t i = 0; i < 40; ++i) {
    base.push_back(1000 + i);
    cand.push_back(1000 + i);
  }
  ShiftInterval s = RankShiftInterval(base, cand);
  EXPECT_GT(s.confidence, 0.945);
  EXPECT_LT(s.confidence, 0.96);
  EXPECT_LT(s.low, 0);
  EXPECT_GT(s.high, 0);
  EXPECT_LT(s.high, 39);  // inside the extremes
}

TEST(StabilityTest, CheckedOnlyWhereOneCountPerSideCouldMislead) {
  auto needs = [](std::vector<uint64_t> b, std::vector<uint64_t> c, double margin = 0.01) {
    WorkloadResult w = MakeWorkload(std::move(b), std::move(c), margin);
    Decide(&w);
    return NeedsStabilityCheck(w);
  };
  EXPECT_FALSE(needs({1'000'000}, {1'000'000}));             // identical: nothing to explain
  EXPECT_TRUE(needs({1'000'000}, {1'000'001}));              // a hair apart
  EXPECT_TRUE(needs({1'000'000}, {1'010'000}));              // at the margin
  EXPECT_TRUE(needs({1'000'000}, {960'001}));                // below, within 4 margins
  EXPECT_FALSE(needs({1'000'000}, {1'040'000}));             // 4 margins away: a real change
  EXPECT_FALSE(needs({1'000'000}, {1'000'001, 1'000'001}));  // already counted twice
  EXPECT_TRUE(needs({1'000'000}, {1'200'000}, 0));           // margin 0: any difference
  WorkloadResult invalid = MakeWorkload({1'000'000}, {1'000'001});
  invalid.candidate.error = "crashed";
  Decide(&invalid);
  EXPECT_FALSE(NeedsStabilityCheck(invalid));
}

TEST(StabilityTest, SpreadIsTheWiderSidesInPartsPerMillion) {
  WorkloadResult w = MakeWorkload({1'000'000, 1'000'010}, {2'000'000, 2'000'004});
  uint64_t spread = 0;
  double ppm = 0;
  MeasureSpread(w, &spread, &ppm);
  EXPECT_EQ(spread, 10u);
  EXPECT_DOUBLE_EQ(ppm, 10.0);
}

TEST(StabilityTest, AnUnstableAaComparisonIsDecidedOnTheShiftNotTheExtremes) {
  // Two clusters, as a thread schedule makes them: the candidate's one low
  // count would make the min-to-min delta -0.24%, a work-removed verdict at
  // a 0.1% margin, and the min/max interval would straddle it.
  const uint64_t hi = 686'480'000, lo = 684'840'000;
  WorkloadResult w = Unstable({hi, hi + 900, hi + 300, hi + 600, hi + 100, hi + 700},
                              {lo, hi + 200, hi + 800, hi + 400, hi + 500, hi + 50}, 0.001);
  EXPECT_EQ(w.verdict, Verdict::kOk) << w.reason;
  EXPECT_NE(w.reason.find("unstable"), std::string::npos);
  EXPECT_LT(std::abs(w.relative), 0.001);
  EXPECT_GE(w.stability.confidence, kUnstableConfidence);
  // The same counts taken as stable give a false work-removed.
  WorkloadResult exact = MakeWorkload(w.baseline.counts, w.candidate.counts, 0.001);
  exact.candidate.counts = {lo};
  exact.baseline.counts = {hi};
  Decide(&exact);
  EXPECT_EQ(exact.verdict, Verdict::kWorkRemoved);
}

TEST(StabilityTest, TooFewCountsOfAnUnstableWorkloadAreInconclusive) {
  WorkloadResult w = Unstable({1000, 1001}, {1500, 1501});
  EXPECT_EQ(w.verdict, Verdict::kInconclusive);
  EXPECT_NE(w.reason.find("only a 66.7% interval"), std::string::npos) << w.reason;
}

TEST(StabilityTest, AnUnstableWorkloadStillShowsRealWork) {
  WorkloadResult w = Unstable({1000, 1003, 1001, 1002}, {1100, 1102, 1101, 1104});
  EXPECT_EQ(w.verdict, Verdict::kWorkAdded) << w.reason;
  EXPECT_EQ(w.delta, 100);  // the median of the 16 differences
  EXPECT_NE(w.reason.find("97.1% interval"), std::string::npos) << w.reason;
}

TEST(StabilityTest, UnstableButStraddlingIsInconclusiveAndSaysSo) {
  WorkloadResult w = Unstable({1000, 1030, 1010, 1020}, {1000, 1030, 1010, 1020});
  EXPECT_EQ(w.verdict, Verdict::kInconclusive);
  EXPECT_NE(w.reason.find("still straddles"), std::string::npos) << w.reason;
}

}  // namespace
}  // namespace workgate
