#include "decision/decision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "decision/make_workload.h"

namespace workgate {
namespace {

using testing::MakeWorkload;

Verdict VerdictOf(std::vector<uint64_t> base, std::vector<uint64_t> cand, double margin = 0.01) {
  WorkloadResult w = MakeWorkload(std::move(base), std::move(cand), margin);
  Decide(&w);
  return w.verdict;
}

TEST(DecisionTest, ExactlyAtTheMarginIsWorkAdded) {
  WorkloadResult w = MakeWorkload({1000}, {1010});
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kWorkAdded);
  EXPECT_EQ(w.delta, 10);
  EXPECT_DOUBLE_EQ(w.relative, 0.01);
  EXPECT_EQ(w.relative_low, w.relative_high);
  EXPECT_EQ(w.reason, "+1.00% >= 1.00% margin");
  // Realistic sizes and other margins hit the boundary exactly too.
  EXPECT_EQ(VerdictOf({1'204'331'900}, {1'216'375'219}), Verdict::kWorkAdded);
  EXPECT_EQ(VerdictOf({40'000}, {41'000}, 0.025), Verdict::kWorkAdded);
}

TEST(DecisionTest, AroundTheMargin) {
  EXPECT_EQ(VerdictOf({100'000}, {100'999}), Verdict::kOk);
  EXPECT_EQ(VerdictOf({100'000}, {101'001}), Verdict::kWorkAdded);
  EXPECT_EQ(VerdictOf({100'000}, {100'000}), Verdict::kOk);
  EXPECT_EQ(VerdictOf({100'000}, {99'001}), Verdict::kOk);
  EXPECT_EQ(VerdictOf({100'000}, {99'000}), Verdict::kWorkRemoved);
  EXPECT_EQ(VerdictOf({100'000}, {50'000}), Verdict::kWorkRemoved);
  EXPECT_EQ(VerdictOf({100'000}, {104'000}, 0.05), Verdict::kOk);
}

TEST(DecisionTest, ReasonsForOkAndWorkRemoved) {
  WorkloadResult ok = MakeWorkload({1000}, {1002});
  Decide(&ok);
  EXPECT_EQ(ok.reason, "+0.20% < 1.00% margin");
  WorkloadResult removed = MakeWorkload({1000}, {970});
  Decide(&removed);
  EXPECT_EQ(removed.verdict, Verdict::kWorkRemoved);
  EXPECT_EQ(removed.reason, "-3.00% <= -1.00% margin");
}

TEST(DecisionTest, PointEstimateUsesTheMinimumOfEachSide) {
  WorkloadResult w = MakeWorkload({1002, 1000, 1001}, {1013, 1010, 1011});
  Decide(&w);
  EXPECT_EQ(w.delta, 10);
  EXPECT_DOUBLE_EQ(w.relative, 0.01);
  EXPECT_DOUBLE_EQ(w.relative_low, (1010.0 - 1002) / 1002);
  EXPECT_DOUBLE_EQ(w.relative_high, (1013.0 - 1000) / 1000);
}

TEST(DecisionTest, SpreadStraddlingTheMarginIsInconclusive) {
  WorkloadResult w = MakeWorkload({1000, 1000}, {1005, 1015});
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInconclusive);
  EXPECT_NE(w.reason.find("straddles the 1.00% margin"), std::string::npos) << w.reason;
  EXPECT_NE(w.reason.find("candidate 1005..1015"), std::string::npos) << w.reason;
  // The baseline's spread alone can straddle as well.
  EXPECT_EQ(VerdictOf({1000, 1010}, {1015}), Verdict::kInconclusive);
  // Straddling minus the margin is not inconclusive: the whole interval is below M.
  EXPECT_EQ(VerdictOf({1000}, {985, 995}), Verdict::kOk);
}

TEST(DecisionTest, SpreadWhollyOnOneSideDecides) {
  EXPECT_EQ(VerdictOf({1000, 1001}, {1020, 1022}), Verdict::kWorkAdded);
  EXPECT_EQ(VerdictOf({1000, 1001}, {1002, 1005}), Verdict::kOk);
  EXPECT_EQ(VerdictOf({1000, 1001}, {950, 960}), Verdict::kWorkRemoved);
  WorkloadResult w = MakeWorkload({1000, 1001}, {1020, 1022});
  Decide(&w);
  EXPECT_EQ(w.reason, "+1.90% to +2.20%, all >= 1.00% margin");
}

TEST(DecisionTest, ZeroMarginAllowsNoWorkAdded) {
  EXPECT_EQ(VerdictOf({1000}, {1000}, 0), Verdict::kOk);
  EXPECT_EQ(VerdictOf({1000}, {1001}, 0), Verdict::kWorkAdded);
  EXPECT_EQ(VerdictOf({1000}, {999}, 0), Verdict::kWorkRemoved);
  EXPECT_EQ(VerdictOf({1000}, {999, 1001}, 0), Verdict::kInconclusive);
}

TEST(DecisionTest, SideErrorsAreInvalidWithTheReason) {
  WorkloadResult w = MakeWorkload({1000}, {1000});
  w.candidate.error = "exited with status 1";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_EQ(w.reason, "candidate: exited with status 1");
  w.baseline.error = "timed out after 60 s";
  Decide(&w);
  EXPECT_EQ(w.reason, "baseline: timed out after 60 s; candidate: exited with status 1");
}

TEST(DecisionTest, MissingCountsAreInvalid) {
  WorkloadResult w = MakeWorkload({}, {1000});
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_EQ(w.reason, "baseline: no instruction count");
  EXPECT_FALSE(HasDelta(w));
  EXPECT_EQ(w.delta, 0);
}

TEST(DecisionTest, ZeroBaselineCountIsInvalid) {
  WorkloadResult w = MakeWorkload({0}, {10});
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_NE(w.reason.find("0 instructions"), std::string::npos);
}

TEST(DecisionTest, ExpectedScoreMustBePrintedAndMatch) {
  WorkloadResult w = MakeWorkload({1000}, {1000});
  w.expected_score = "10.000";
  w.baseline.score = "10.000";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_EQ(w.reason, "candidate: no score printed (expected 10.000)");

  w.candidate.score = "9.000";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_NE(w.reason.find("candidate: score 9.000 differs"), std::string::npos) << w.reason;

  w.candidate.score = "10.0";  // the same number, printed differently
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kOk) << w.reason;
}

// score.previous: a change that alters the score on purpose is gated on its
// counts, and says so; any other score on either side is still invalid.
TEST(DecisionTest, AScoreChangedOnPurposeIsDecidedOnItsCounts) {
  WorkloadResult w = MakeWorkload({1000000}, {1100000});
  w.expected_score = "1200";
  w.previous_score = "1000";
  w.baseline.score = "1000";
  w.candidate.score = "1200";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kWorkAdded) << w.reason;
  EXPECT_TRUE(w.score_changed);
  EXPECT_EQ(w.delta, 100000);

  w.candidate.counts = {1000000};
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kOk) << w.reason;
  EXPECT_TRUE(w.score_changed);

  // Both print the new score (the change is in the base already): an
  // ordinary comparison.
  w.baseline.score = "1200";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kOk) << w.reason;
  EXPECT_FALSE(w.score_changed);

  // The candidate printing the old score did not make the change.
  w.baseline.score = "1000";
  w.candidate.score = "1000";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_FALSE(w.score_changed);
  EXPECT_EQ(w.reason,
            "candidate: score 1000 differs from the expected 1200 (1000 is score.previous, the "
            "score before this change: only the baseline may print it), so it did other work");

  // A baseline that printed neither score did other work.
  w.baseline.score = "900";
  w.candidate.score = "1200";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_FALSE(w.score_changed);
  EXPECT_EQ(w.reason,
            "baseline: score 900 differs from the expected 1200 (or the previous 1000), so it did "
            "other work");

  // Without score.previous the old score is a mismatch, as it always was.
  w.previous_score.reset();
  w.baseline.score = "1000";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_FALSE(w.score_changed);
  EXPECT_EQ(w.reason, "baseline: score 1000 differs from the expected 1200, so it did other work");
}

TEST(DecisionTest, SidesPrintingDifferentScoresAreInvalid) {
  WorkloadResult w = MakeWorkload({1000}, {1000});
  w.baseline.score = "42";
  w.candidate.score = "43";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_NE(w.reason.find("scores differ"), std::string::npos) << w.reason;
}

TEST(DecisionTest, IncompatibleFingerprintsAreInvalidButKeepTheFigures) {
  WorkloadResult w = MakeWorkload({1000}, {1100});
  w.baseline.fingerprint.backend = "callgrind";
  w.candidate.fingerprint.backend = "perf";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_NE(w.reason.find("counting backend differs"), std::string::npos) << w.reason;
  EXPECT_EQ(w.delta, 100);
  EXPECT_DOUBLE_EQ(w.relative, 0.1);
}

TEST(DecisionTest, ScoresFollowTheOneScoreRule) {
  // Decide compares with ScoresEqual (workload/score.h): exact decimals,
  // blanks ignored, anything else as text.
  WorkloadResult w = MakeWorkload({1000}, {1000});
  w.baseline.score = " 10.000\n";
  w.candidate.score = "10";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kOk) << w.reason;
  // The same double, different numbers: before one rule served both, the
  // sides' scores were compared through strtod and these were equal.
  w.baseline.score = "9007199254740993";
  w.candidate.score = "9007199254740992";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  // strtod read "0x10" as 16; the one rule compares it as text.
  w.baseline.score = "0x10";
  w.candidate.score = "16";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  w.expected_score = "10";
  w.baseline.score = "10";
  w.candidate.score = "1e1";
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_NE(w.reason.find("candidate: score 1e1 differs from the expected 10"), std::string::npos)
      << w.reason;
}

constexpr uint64_t kInt64Max = static_cast<uint64_t>(INT64_MAX);

TEST(DecisionTest, CountsAtInt64MaxAreDecidedExactly) {
  WorkloadResult w = MakeWorkload({kInt64Max}, {kInt64Max});
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kOk) << w.reason;
  EXPECT_EQ(w.delta, 0);
  w = MakeWorkload({1}, {kInt64Max});
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kWorkAdded) << w.reason;
  EXPECT_EQ(w.delta, INT64_MAX - 1);
  w = MakeWorkload({kInt64Max}, {1});
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kWorkRemoved) << w.reason;
  EXPECT_EQ(w.delta, 1 - INT64_MAX);
  // The widest spread on both sides: both ends of the interval are extreme.
  w = MakeWorkload({1, kInt64Max}, {0, kInt64Max});
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInconclusive) << w.reason;
  EXPECT_DOUBLE_EQ(w.relative_low, -1.0);
  EXPECT_GT(w.relative_high, 1e18);
}

TEST(DecisionTest, CountsAboveInt64MaxAreInvalid) {
  // Such a baseline count once wrapped to a negative int64_t: a wrong delta,
  // reported as ok.
  WorkloadResult w = MakeWorkload({kInt64Max + 1}, {1000});
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
  EXPECT_EQ(w.reason,
            "baseline: a count of 9223372036854775808 is above the largest workgate "
            "takes (9223372036854775807), so it is not a real count");
  EXPECT_FALSE(HasDelta(w));
  EXPECT_EQ(w.delta, 0);
  for (auto [base, cand] : {std::pair<uint64_t, uint64_t>{1000, UINT64_MAX},
                            {UINT64_MAX, UINT64_MAX},
                            {UINT64_MAX, 0},
                            {kInt64Max + 1, kInt64Max}}) {
    w = MakeWorkload({base}, {cand});
    Decide(&w);
    EXPECT_EQ(w.verdict, Verdict::kInvalid) << base << " " << cand;
    EXPECT_NE(w.reason.find("above the largest workgate takes"), std::string::npos) << w.reason;
    EXPECT_FALSE(HasDelta(w));
  }
  // Among repeats too: the maximum decides.
  w = MakeWorkload({1000, kInt64Max + 1}, {1000});
  Decide(&w);
  EXPECT_EQ(w.verdict, Verdict::kInvalid);
}

TEST(DecisionTest, AMarginThatIsNotANumberIsInvalid) {
  for (double margin : {std::nan(""), -0.01, HUGE_VAL}) {
    WorkloadResult w = MakeWorkload({1000}, {1000}, margin);
    Decide(&w);
    EXPECT_EQ(w.verdict, Verdict::kInvalid) << margin;
    EXPECT_NE(w.reason.find("is not a finite non-negative fraction"), std::string::npos)
        << w.reason;
  }
}

WorkloadResult WithVerdict(Verdict v) {
  WorkloadResult w;
  w.verdict = v;
  return w;
}

TEST(DecisionTest, ExitCodes) {
  EXPECT_EQ(ExitCodeFor(Verdict::kOk), 0);
  EXPECT_EQ(ExitCodeFor(Verdict::kWorkRemoved), 0);
  EXPECT_EQ(ExitCodeFor(Verdict::kWorkAdded), 1);
  EXPECT_EQ(ExitCodeFor(Verdict::kInvalid), 3);
  EXPECT_EQ(ExitCodeFor(Verdict::kInconclusive), 4);
}

TEST(DecisionTest, TheWorstWorkloadWinsInTheOrderInvalidAddedInconclusivePass) {
  const Verdict order[] = {Verdict::kInvalid, Verdict::kWorkAdded, Verdict::kInconclusive,
                           Verdict::kOk, Verdict::kWorkRemoved};
  for (size_t i = 0; i < std::size(order); ++i) {
    for (size_t j = i; j < std::size(order); ++j) {
      std::vector<WorkloadResult> suite = {WithVerdict(order[j]), WithVerdict(order[i]),
                                           WithVerdict(order[j])};
      EXPECT_EQ(SuiteVerdict(suite), order[i])
          << VerdictName(order[i]) << " vs " << VerdictName(order[j]);
      EXPECT_EQ(SuiteExitCode(suite), ExitCodeFor(order[i]));
    }
  }
  CompareReport report;
  report.workloads = {WithVerdict(Verdict::kWorkRemoved), WithVerdict(Verdict::kInconclusive)};
  DecideSuite(&report);
  EXPECT_EQ(report.verdict, Verdict::kInconclusive);
  EXPECT_EQ(report.exit_code, kExitInconclusive);
}

TEST(DecisionTest, AnEmptySuiteIsNeverAPass) {
  EXPECT_EQ(SuiteVerdict({}), Verdict::kInvalid);
  EXPECT_EQ(SuiteExitCode({}), kExitUsage);
}

TEST(DecisionTest, VerdictNames) {
  EXPECT_STREQ(VerdictName(Verdict::kOk), "ok");
  EXPECT_STREQ(VerdictName(Verdict::kWorkAdded), "work-added");
  EXPECT_STREQ(VerdictName(Verdict::kWorkRemoved), "work-removed");
  EXPECT_STREQ(VerdictName(Verdict::kInconclusive), "inconclusive");
  EXPECT_STREQ(VerdictName(Verdict::kInvalid), "invalid");
}

TEST(DecisionTest, SideMinAndMax) {
  SideResult s;
  EXPECT_EQ(s.min(), 0u);
  EXPECT_EQ(s.max(), 0u);
  s.counts = {7, 3, 9};
  EXPECT_EQ(s.min(), 3u);
  EXPECT_EQ(s.max(), 9u);
}

}  // namespace
}  // namespace workgate
