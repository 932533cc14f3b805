// A pull request that changes a workload's printed score on purpose, end to
// end: the suite's score.previous lets the baseline print the old score, the
// candidate must print the new one, the verdict comes from the counts, and
// every report says the sides did different work by design.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli_fixture.h"

namespace workgate {
namespace {

/// probes/known_work_c: known_work_b's work, printing "score: 1200" for 1000.
const std::string kKnownWorkC = testing::BuildPath("probes/known_work_c");

class ScoreChangeCliTest : public CountingCliTest {
 protected:
  LaunchResult Compare(const std::string& baseline, const std::string& candidate,
                       const std::string& workload, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"compare", "--backend", kExactBackend, "--candidate",
                                     candidate, "--suite",   suite_,        "--workload",
                                     workload,  "--timed",   "0"};
    if (!baseline.empty()) args.insert(args.end(), {"--baseline", baseline});
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }
  bool Contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }
  const std::string suite_ = testing::SourcePath("tests/cli/testdata/known_work_score_change.toml");
  const std::string old_suite_ = testing::SourcePath("tests/cli/testdata/known_work.toml");
};

TEST_F(ScoreChangeCliTest, TheChangedScorePassesOrGatesOnTheCountsAndEveryReportSaysSo) {
  // The same work, a new score: ok.
  LaunchResult same = Compare(kKnownWorkB, kKnownWorkC, "work",
                              {"--no-store", "--json", "ok.json", "--markdown", "ok.md"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  nlohmann::json w = ReadJson("ok.json")["workloads"][0];
  EXPECT_EQ(w["verdict"], "ok") << w.dump();
  EXPECT_EQ(w["score_changed"], true);
  EXPECT_EQ(w["expected_score"], "1200");
  EXPECT_EQ(w["previous_score"], "1000");
  EXPECT_EQ(w["baseline"]["score"], "1000");
  EXPECT_EQ(w["candidate"]["score"], "1200");
  EXPECT_TRUE(Contains(same.out,
                       "work: score changed on purpose: the baseline printed 1000 (the suite's "
                       "score.previous), the candidate 1200 (its score.expect); the two sides did "
                       "different work by design, so the delta includes that change"))
      << same.out;
  EXPECT_TRUE(Contains(same.out, "workgate: ok (0 of 1 workload over the 1.00% margin, 1 with a "
                                 "score changed on purpose)"))
      << same.out;
  std::optional<std::string> md = ReadFile(Path("ok.md"));
  ASSERT_TRUE(md);
  EXPECT_TRUE(Contains(*md, "| `work` (score `1000` \u2192 `1200`, changed on purpose) |")) << *md;
  EXPECT_TRUE(Contains(*md, "- `work`: score changed on purpose: the baseline printed `1000`"))
      << *md;

  // A million instructions more with the new score: work added, as ever.
  LaunchResult added = Compare(kKnownWorkA, kKnownWorkC, "work", {"--no-store", "--json", "a.json"});
  EXPECT_EQ(added.exit_code, 1) << added.out << added.err;
  w = ReadJson("a.json")["workloads"][0];
  EXPECT_EQ(w["verdict"], "work-added");
  EXPECT_EQ(w["score_changed"], true);
  EXPECT_EQ(w["delta"], 1000000);
}

TEST_F(ScoreChangeCliTest, AnyOtherScoreOnEitherSideIsStillInvalid) {
  // The candidate printing the old score did not make the change.
  LaunchResult old = Compare(kKnownWorkC, kKnownWorkB, "work", {"--no-store", "--json", "c.json"});
  EXPECT_EQ(old.exit_code, 3) << old.out << old.err;
  nlohmann::json w = ReadJson("c.json")["workloads"][0];
  EXPECT_EQ(w["verdict"], "invalid");
  EXPECT_EQ(w["score_changed"], false);
  EXPECT_TRUE(Contains(w["reason"].get<std::string>(),
                       "candidate: score mismatch: expected 1200, got 1000 (1000 is "
                       "score.previous, the score before this change: only the baseline may "
                       "print it)"))
      << w.dump();
  EXPECT_TRUE(Contains(old.out, "work: invalid: candidate: score mismatch")) << old.out;
  // A baseline that printed neither the new score nor the previous one.
  LaunchResult base =
      Compare(kKnownWorkA, kKnownWorkC, "unknown-previous", {"--no-store", "--json", "b.json"});
  EXPECT_EQ(base.exit_code, 3) << base.out << base.err;
  w = ReadJson("b.json")["workloads"][0];
  EXPECT_EQ(w["score_changed"], false);
  EXPECT_TRUE(Contains(w["reason"].get<std::string>(),
                       "baseline: score mismatch: expected 1200 (or the previous 900), got 1000"))
      << w.dump();
}

// A stored baseline saved before the change (known_work.toml asserted 1000)
// compares with a candidate that prints the new score: the expected scores
// are no part of the workload's definition, so its fingerprint still fits,
// and its stored score is checked against the suite as it is now.
TEST_F(ScoreChangeCliTest, AStoredBaselineOfTheOldScoreStillCompares) {
  LaunchResult save = Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA,
                           "--suite", old_suite_, "--workload", "work", "--no-store",
                           "--save-baseline", "base.json"});
  ASSERT_EQ(save.exit_code, 0) << save.out << save.err;
  ASSERT_EQ(ReadJson("base.json")["workloads"][0]["score"], "1000");
  LaunchResult r = Compare("", kKnownWorkC, "work",
                           {"--baseline-results", "base.json", "--no-store", "--json", "s.json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json j = ReadJson("s.json");
  EXPECT_EQ(j["stored_baseline"]["status"], "used") << j["stored_baseline"].dump();
  EXPECT_EQ(j["workloads"][0]["verdict"], "work-added");
  EXPECT_EQ(j["workloads"][0]["score_changed"], true);
  EXPECT_EQ(j["workloads"][0]["delta"], 1000000);
  // The stored score is checked as a run's would be: a candidate that
  // prints the old score against it is invalid.
  r = Compare("", kKnownWorkB, "work",
              {"--baseline-results", "base.json", "--no-store", "--json", "b.json"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(ReadJson("b.json")["workloads"][0]["score_changed"], false);
}

// The result store keeps a side's count with the score it printed, under a
// key without the expected scores: the baseline's count from before the
// change serves the baseline, and a stored count of the old score never
// serves the candidate.
TEST_F(ScoreChangeCliTest, TheResultStoreChecksAStoredScoreAgainstTheSideItServes) {
  const std::string store = Path("store.sqlite");
  LaunchResult before = Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA,
                             "--candidate", kKnownWorkB, "--suite", old_suite_, "--workload",
                             "work", "--timed", "0", "--store", store});
  ASSERT_EQ(before.exit_code, 1) << before.out << before.err;
  LaunchResult r = Compare(kKnownWorkA, kKnownWorkC, "work", {"--store", store, "--json", "s.json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json w = ReadJson("s.json")["workloads"][0];
  EXPECT_TRUE(w["baseline"]["from_store"].is_object()) << w["baseline"].dump();
  EXPECT_EQ(w["score_changed"], true);
  // known_work_b's stored count printed 1000: as a candidate it is counted
  // again, and its score makes the workload invalid.
  r = Compare(kKnownWorkA, kKnownWorkB, "work", {"--store", store, "--json", "b.json"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  nlohmann::json j = ReadJson("b.json");
  EXPECT_TRUE(j["workloads"][0]["candidate"]["from_store"].is_null());
  EXPECT_TRUE(Contains(j["store"]["notes"].dump(), "the stored count's score is not the one asserted"))
      << j["store"].dump();
}

}  // namespace
}  // namespace workgate
