// The timed ratio held against the count's, on fixed samples: timings within
// the factor of what the count allows, beyond it either way, a count whose
// interval explains the timing, and timed contexts that cannot be trusted,
// which make no claim. Synthetic data with known effects; never the clock.

#include "stats/timing_vs_count.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "stats/timed_context.h"

namespace workgate {
namespace {

// n pairs of wall times in the order compare runs them (AB, BA, ...): the
// machine's speed moves between pairs, each run has up to 2% of its own, and
// the candidate takes `effect` times as long as the baseline.
WorkloadResult TimedAgainstCount(int n, double effect, uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  auto noise = [&rng] { return 1 + 0.02 * (static_cast<double>(rng() >> 11) * 0x1p-52 - 0.5); };
  WorkloadResult w;
  w.name = "w";
  for (int i = 0; i < n; ++i) {
    const double machine = 0.1 * (1 + 0.03 * (i % 4));
    const int first = 2 + 2 * i;
    const bool ab = i % 2 == 0;
    w.baseline.timed.push_back({std::nullopt, machine * noise(), ab ? first : first + 1});
    w.candidate.timed.push_back({std::nullopt, machine * effect * noise(), ab ? first + 1 : first});
  }
  return w;
}

// What Decide leaves for a workload whose counts give the relative delta
// `relative`, with the interval [low, high] (a point on Valgrind).
void CountedAs(WorkloadResult* w, double relative, double low, double high,
               Verdict verdict = Verdict::kOk) {
  w->baseline.counts = {1000000};
  w->candidate.counts = {static_cast<uint64_t>(1000000 * (1 + relative))};
  w->verdict = verdict;
  w->relative = relative;
  w->relative_low = low;
  w->relative_high = high;
}

void CountedAs(WorkloadResult* w, double relative) { CountedAs(w, relative, relative, relative); }

// The workload after DecideTimedContext, alone in its family.
WorkloadResult HeldAgainstCount(WorkloadResult w) {
  std::vector<WorkloadResult> one = {std::move(w)};
  DecideTimedContext(&one, 1);
  return one[0];
}

TEST(TimingVsCountTest, ATimingWithinTheFactorOfTheCountAgreesWithIt) {
  // 30% slower with no work added: a change of cache or branch behaviour
  // can do that, and the timed label says so, but the count stands.
  WorkloadResult w = TimedAgainstCount(12, 1.3);
  CountedAs(&w, 0);
  w = HeldAgainstCount(w);
  ASSERT_TRUE(w.timed_stats);
  EXPECT_EQ(w.timed_stats->label, TimedLabel::kSlower);
  ASSERT_TRUE(w.timing_vs_count);
  const TimingVsCount& t = *w.timing_vs_count;
  EXPECT_EQ(t.disagreement, CountDisagreement::kNone);
  EXPECT_EQ(t.count_low, 1);
  EXPECT_EQ(t.count_high, 1);
  EXPECT_EQ(t.factor, kTimingCountFactor);
  EXPECT_DOUBLE_EQ(t.bound, 2);  // the side the timing lies on: above
  EXPECT_EQ(t.family, 1);
  // Every pair is below the bound: the test against it rejects, on the
  // other side, which is no disagreement.
  EXPECT_LT(t.p_adjusted, kTimedAlpha);
}

TEST(TimingVsCountTest, ACandidateFarSlowerThanItsCountDisagreesWithIt) {
  // The count sees no work added; natively the candidate takes 2.9 times as
  // long (it did its work only when it was not counted).
  WorkloadResult w = TimedAgainstCount(12, 2.9);
  CountedAs(&w, 0);
  w = HeldAgainstCount(w);
  ASSERT_TRUE(w.timing_vs_count);
  const TimingVsCount& t = *w.timing_vs_count;
  EXPECT_EQ(t.disagreement, CountDisagreement::kSlower);
  EXPECT_DOUBLE_EQ(t.bound, 2);
  EXPECT_GT(t.ci_low, t.bound);
  EXPECT_EQ(t.pairs, 12);
  EXPECT_EQ(t.median_ratio, w.timed_stats->comparison->median_ratio);  // wall time: one basis
  // All 12 pairs above the bound: the exact test's smallest p, 2 / 2^12.
  EXPECT_DOUBLE_EQ(t.p_value, 2.0 / 4096);
  // Context only: the verdict is what the counts made it.
  EXPECT_EQ(w.verdict, Verdict::kOk);
}

TEST(TimingVsCountTest, ACandidateFarFasterThanItsCountDisagreesWithIt) {
  WorkloadResult w = TimedAgainstCount(12, 0.3);
  CountedAs(&w, 0);
  w = HeldAgainstCount(w);
  ASSERT_TRUE(w.timing_vs_count);
  EXPECT_EQ(w.timing_vs_count->disagreement, CountDisagreement::kFaster);
  EXPECT_DOUBLE_EQ(w.timing_vs_count->bound, 0.5);
  // Four times the work counted, and natively no slower: faster than counted.
  WorkloadResult more = TimedAgainstCount(12, 1.0);
  CountedAs(&more, 3.0, 3.0, 3.0, Verdict::kWorkAdded);
  more = HeldAgainstCount(more);
  ASSERT_TRUE(more.timing_vs_count);
  EXPECT_EQ(more.timing_vs_count->disagreement, CountDisagreement::kFaster);
  EXPECT_DOUBLE_EQ(more.timing_vs_count->bound, 2);
}

TEST(TimingVsCountTest, WorkTheCountSeesExplainsTheTime) {
  // Three times the instructions and 2.9 times the time: they agree.
  WorkloadResult w = TimedAgainstCount(12, 2.9);
  CountedAs(&w, 2.0, 2.0, 2.0, Verdict::kWorkAdded);
  w = HeldAgainstCount(w);
  ASSERT_TRUE(w.timing_vs_count);
  EXPECT_EQ(w.timing_vs_count->disagreement, CountDisagreement::kNone);
  EXPECT_DOUBLE_EQ(w.timing_vs_count->count_high, 3);
}

TEST(TimingVsCountTest, TheCountsWholeIntervalIsAllowed) {
  // Unstable counts (or perf's repeats) put the change between +0% and
  // +60%: the bound is 2 x 1.6, above a 2.9 timing.
  WorkloadResult wide = TimedAgainstCount(12, 2.9);
  CountedAs(&wide, 0.1, 0.0, 0.6);
  wide = HeldAgainstCount(wide);
  ASSERT_TRUE(wide.timing_vs_count);
  EXPECT_DOUBLE_EQ(wide.timing_vs_count->count_low, 1.0);
  EXPECT_DOUBLE_EQ(wide.timing_vs_count->count_high, 1.6);
  EXPECT_DOUBLE_EQ(wide.timing_vs_count->bound, 3.2);
  EXPECT_EQ(wide.timing_vs_count->disagreement, CountDisagreement::kNone);
  // Between +0% and +20%: the bound is 2.4, below it.
  WorkloadResult narrow = TimedAgainstCount(12, 2.9);
  CountedAs(&narrow, 0.1, 0.0, 0.2);
  narrow = HeldAgainstCount(narrow);
  ASSERT_TRUE(narrow.timing_vs_count);
  EXPECT_DOUBLE_EQ(narrow.timing_vs_count->bound, 2.4);
  EXPECT_EQ(narrow.timing_vs_count->disagreement, CountDisagreement::kSlower);
}

TEST(TimingVsCountTest, AnIntervalThatReachesTheBoundClaimsNothing) {
  // A timing of about twice the count's ratio: its interval holds 2.
  WorkloadResult w = TimedAgainstCount(12, 2.0);
  CountedAs(&w, 0);
  w = HeldAgainstCount(w);
  ASSERT_TRUE(w.timing_vs_count);
  EXPECT_LT(w.timing_vs_count->ci_low, 2);
  EXPECT_EQ(w.timing_vs_count->disagreement, CountDisagreement::kNone);
}

TEST(TimingVsCountTest, ATimedContextThatCannotBeTrustedMakesNoClaim) {
  // Nine pairs: a comparison, but no A/A control (it takes ten baseline runs).
  WorkloadResult few = TimedAgainstCount(9, 2.9);
  CountedAs(&few, 0);
  few = HeldAgainstCount(few);
  ASSERT_TRUE(few.timed_stats && few.timed_stats->comparison);
  EXPECT_FALSE(few.timed_stats->aa_control);
  EXPECT_FALSE(few.timing_vs_count);
  // An A/A control that shows an effect: the second of each of the
  // baseline's mirrored pairs ran 30% longer, so this runner's timings
  // cannot be trusted.
  WorkloadResult aa = TimedAgainstCount(12, 2.9);
  for (size_t i = 0; i < aa.baseline.timed.size(); ++i) {
    const bool second = (i % 4 == 1) || (i % 4 == 2);  // runs 2j+1 of even j, 2j of odd j
    aa.baseline.timed[i].wall_seconds = 0.1 * (second ? 1.3 : 1.0) * (1 + 0.001 * (i % 3));
  }
  CountedAs(&aa, 0);
  aa = HeldAgainstCount(aa);
  ASSERT_TRUE(aa.timed_stats);
  EXPECT_TRUE(aa.timed_stats->aa_effect());
  EXPECT_FALSE(aa.timing_vs_count);
  // An invalid workload's figures are no count to hold a timing against.
  WorkloadResult invalid = TimedAgainstCount(12, 2.9);
  CountedAs(&invalid, 0, 0, 0, Verdict::kInvalid);
  EXPECT_FALSE(HeldAgainstCount(invalid).timing_vs_count);
  // Nor is a workload without counts.
  WorkloadResult uncounted = TimedAgainstCount(12, 2.9);
  uncounted.verdict = Verdict::kOk;
  EXPECT_FALSE(HeldAgainstCount(uncounted).timing_vs_count);
}

TEST(TimingVsCountTest, TheWorkloadsHeldAgainstTheirCountsAreOneHolmFamily) {
  std::vector<WorkloadResult> ws = {TimedAgainstCount(12, 2.9, 1), TimedAgainstCount(12, 1.1, 2),
                                    TimedAgainstCount(9, 2.9, 3)};
  for (WorkloadResult& w : ws) CountedAs(&w, 0);
  DecideTimedContext(&ws, 1);
  ASSERT_TRUE(ws[0].timing_vs_count && ws[1].timing_vs_count);
  EXPECT_FALSE(ws[2].timing_vs_count);  // no A/A control: not in the family
  for (int i : {0, 1}) {
    EXPECT_EQ(ws[i].timing_vs_count->family, 2);
    // Both tests reject at the exact test's smallest p (each timing lies
    // wholly on one side of its bound), so Holm doubles both.
    EXPECT_DOUBLE_EQ(ws[i].timing_vs_count->p_value, 2.0 / 4096);
    EXPECT_DOUBLE_EQ(ws[i].timing_vs_count->p_adjusted, 4.0 / 4096);
  }
  EXPECT_EQ(ws[0].timing_vs_count->disagreement, CountDisagreement::kSlower);
  EXPECT_EQ(ws[1].timing_vs_count->disagreement, CountDisagreement::kNone);
  // Deciding the timed context again gives the same: merge relies on it.
  std::vector<WorkloadResult> again = ws;
  DecideTimedContext(&again, 1);
  EXPECT_EQ(again[0].timing_vs_count->p_adjusted, ws[0].timing_vs_count->p_adjusted);
  EXPECT_EQ(again[0].timing_vs_count->disagreement, ws[0].timing_vs_count->disagreement);
}

TEST(TimingVsCountTest, DisagreementOfNeedsTheIntervalBeyondTheBoundAndTheTest) {
  TimingVsCount t;
  t.count_low = t.count_high = 1;
  t.bound = 2;
  t.p_adjusted = 0.01;
  t.ci_low = 2.1;
  t.ci_high = 3;
  EXPECT_EQ(DisagreementOf(t), CountDisagreement::kSlower);
  t.p_adjusted = 0.06;  // the test does not reject
  EXPECT_EQ(DisagreementOf(t), CountDisagreement::kNone);
  t.p_adjusted = 0.01;
  t.ci_low = 1.9;  // the interval reaches the bound
  EXPECT_EQ(DisagreementOf(t), CountDisagreement::kNone);
  t.bound = 0.5;
  t.ci_low = 0.3;
  t.ci_high = 0.45;
  EXPECT_EQ(DisagreementOf(t), CountDisagreement::kFaster);
  t.ci_high = 0.55;
  EXPECT_EQ(DisagreementOf(t), CountDisagreement::kNone);
}

TEST(TimingVsCountTest, TheWallTimeDecidesWhateverTheProgramScores) {
  // A suite whose score is a fixed correctness check ("score: 1") makes the
  // timed context's basis a constant: within noise. The wall times, which
  // workgate measures, still show the candidate at 2.9 times the baseline.
  WorkloadResult fixed = TimedAgainstCount(12, 2.9);
  for (SideResult* side : {&fixed.baseline, &fixed.candidate}) {
    for (TimedSample& t : side->timed) t.score = 1;
  }
  CountedAs(&fixed, 0);
  fixed = HeldAgainstCount(fixed);
  ASSERT_TRUE(fixed.timed_stats);
  EXPECT_EQ(fixed.timed_stats->basis, "score");
  EXPECT_EQ(fixed.timed_stats->label, TimedLabel::kWithinNoise);
  ASSERT_TRUE(fixed.timing_vs_count);
  EXPECT_EQ(fixed.timing_vs_count->disagreement, CountDisagreement::kSlower);
  // A candidate that prints a score three times the baseline's (faster, by
  // its own word) while it takes 2.9 times as long.
  WorkloadResult forged = TimedAgainstCount(12, 2.9);
  for (TimedSample& t : forged.baseline.timed) t.score = 100;
  for (TimedSample& t : forged.candidate.timed) t.score = 300;
  CountedAs(&forged, 0);
  forged = HeldAgainstCount(forged);
  EXPECT_EQ(forged.timed_stats->label, TimedLabel::kFaster);
  ASSERT_TRUE(forged.timing_vs_count);
  EXPECT_EQ(forged.timing_vs_count->disagreement, CountDisagreement::kSlower);
  EXPECT_GT(forged.timing_vs_count->median_ratio, 2.5);
}

}  // namespace
}  // namespace workgate
