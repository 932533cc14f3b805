// The timed self-test's judgement, on fixed phases: no clock is read here
// (tests/cli/selftest_cli_test.cc runs the real thing, for its plumbing).

#include "measure/timed_selftest.h"

#include <gtest/gtest.h>

#include <string>

namespace workgate {
namespace {

TimedStats Phase(TimedLabel label, double low, double high, const std::string& reason = "why") {
  TimedStats s;
  s.basis = "wall time";
  s.family = 1;
  TimedTest t;
  t.pairs = 20;
  t.median_ratio = (low + high) / 2;
  t.ci_low = low;
  t.ci_high = high;
  s.comparison = t;
  s.hl_shift = 0;
  s.noise_floor = 0.01;
  s.label = label;
  s.reason = reason;
  return s;
}

TimedSelftest Phases(TimedStats aa, TimedStats delayed) {
  TimedSelftest t;
  t.delay_fraction = 0.05;
  t.expected_ratio = 1.05;
  t.aa = aa;
  t.delayed = delayed;
  return t;
}

TEST(TimedSelftestTest, ResolvesWhenIdenticalRunsShowNothingAndTheDelayReadsSlower) {
  TimedSelftest t =
      Phases(Phase(TimedLabel::kWithinNoise, 0.99, 1.01), Phase(TimedLabel::kSlower, 1.03, 1.06));
  JudgeSelftest(&t);
  EXPECT_EQ(t.outcome, SelftestOutcome::kResolves);
  EXPECT_TRUE(t.covers_expected);
  EXPECT_NE(t.reason.find("a delay of 5% of the run reads slower"), std::string::npos) << t.reason;
  // Resolving does not need the interval to hold the true ratio: it says so.
  t.delayed = Phase(TimedLabel::kSlower, 1.06, 1.09);
  JudgeSelftest(&t);
  EXPECT_EQ(t.outcome, SelftestOutcome::kResolves);
  EXPECT_FALSE(t.covers_expected);
  t.aa = Phase(TimedLabel::kInconclusive, 0.97, 1.02);
  JudgeSelftest(&t);
  EXPECT_EQ(t.outcome, SelftestOutcome::kResolves);
}

TEST(TimedSelftestTest, AnEffectBetweenIdenticalRunsIsAFalseEffect) {
  for (TimedLabel aa : {TimedLabel::kSlower, TimedLabel::kFaster}) {
    TimedSelftest t = Phases(Phase(aa, 1.02, 1.04), Phase(TimedLabel::kSlower, 1.03, 1.06));
    JudgeSelftest(&t);
    EXPECT_EQ(t.outcome, SelftestOutcome::kFalseEffect);
    EXPECT_NE(t.reason.find("effects that are not there"), std::string::npos) << t.reason;
  }
}

TEST(TimedSelftestTest, ADelayThatDoesNotReadSlowerIsMissed) {
  for (TimedLabel delayed :
       {TimedLabel::kWithinNoise, TimedLabel::kInconclusive, TimedLabel::kFaster}) {
    TimedSelftest t = Phases(Phase(TimedLabel::kWithinNoise, 0.99, 1.01),
                             Phase(delayed, 0.99, 1.08, "the tests disagree"));
    JudgeSelftest(&t);
    EXPECT_EQ(t.outcome, SelftestOutcome::kMisses);
    EXPECT_TRUE(t.covers_expected);
    EXPECT_NE(
        t.reason.find(std::string("reads ") + TimedLabelName(delayed) + " (the tests disagree)"),
        std::string::npos)
        << t.reason;
  }
  // A phase without a comparison (stalls left too few pairs) misses too.
  TimedSelftest t =
      Phases(Phase(TimedLabel::kWithinNoise, 0.99, 1.01), Phase(TimedLabel::kSlower, 1.03, 1.06));
  t.delayed->comparison.reset();
  JudgeSelftest(&t);
  EXPECT_EQ(t.outcome, SelftestOutcome::kMisses);
  EXPECT_FALSE(t.covers_expected);
}

TEST(TimedSelftestTest, OutcomesHaveTheirNames) {
  EXPECT_STREQ(SelftestOutcomeName(SelftestOutcome::kResolves), "resolves");
  EXPECT_STREQ(SelftestOutcomeName(SelftestOutcome::kMisses), "misses");
  EXPECT_STREQ(SelftestOutcomeName(SelftestOutcome::kFalseEffect), "false effect");
  EXPECT_STREQ(SelftestOutcomeName(SelftestOutcome::kFailed), "failed");
}

}  // namespace
}  // namespace workgate
