// The stability check end to end: the real workgate comparing real programs,
// one whose count depends on the real clock (testdata/jitter.c) and two
// builds that differ by an exact amount of work (probes/known_work.c).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli_fixture.h"

namespace workgate {
namespace {

using testing::BuildPath;

const std::string kWorkA = BuildPath("probes/known_work_a");
const std::string kWorkB = BuildPath("probes/known_work_b");

class StabilityCliTest : public CliTest {
 protected:
  // compare of `baseline` against `candidate`, ad hoc, no timed runs, the
  // JSON report in r.json; returns its one workload.
  nlohmann::json Compare(const std::string& baseline, const std::string& candidate,
                         std::vector<std::string> extra, const std::string& argument,
                         LaunchResult* result = nullptr) {
    // --no-store: every count is taken, so two of one build can differ.
    std::vector<std::string> args = {"compare",      "--baseline", baseline, "--candidate",
                                     candidate,      "--timed",    "0",      "--json",
                                     Path("r.json"), "--no-store"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "{exe}", argument});
    LaunchResult r = Run(args);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 4) << r.out << r.err;
    if (result) *result = r;
    nlohmann::json j = ReadJson("r.json");
    return j.is_object() ? j["workloads"][0] : nlohmann::json();
  }
};

// vgcount pins the clock inside the counter whatever --clock says; --as-is
// is what leaves it unpinned.
TEST_F(StabilityCliTest, AnUnpinnedClockMakesTheWorkloadUnstableAndNeverBlocks) {
  LaunchResult r;
  nlohmann::json w = Compare(kJitter, kJitter, {"--backend", "vgcount", "--as-is"}, "1000000", &r);
  ASSERT_TRUE(w.is_object());
  EXPECT_TRUE(w["stability"]["checked"]);
  EXPECT_TRUE(w["stability"]["unstable"]) << w.dump(1);
  EXPECT_GT(w["stability"]["spread_ppm"].get<double>(), 0);
  EXPECT_GE(w["stability"]["confidence"].get<double>(), 0.95);
  // Raised to four counts a side, where the shift's interval reaches 97.1%.
  EXPECT_GE(w["baseline"]["counts"].size(), 4u);
  EXPECT_GE(w["candidate"]["counts"].size(), 4u);
  // The same build on both sides: never work added or removed. The jitter
  // is at most 4,096 iterations in a million, under the 1% margin.
  EXPECT_EQ(w["verdict"], "ok") << w["reason"];
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("ok (unstable)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("counts of one build differ by up to"), std::string::npos) << r.out;
}

TEST_F(StabilityCliTest, VgcountPinsTheClockEvenWithoutTheShim) {
  nlohmann::json w =
      Compare(kJitter, kJitter, {"--backend", "vgcount", "--clock", "none"}, "1000000");
  ASSERT_TRUE(w.is_object());
  EXPECT_EQ(w["delta"], 0);
  EXPECT_FALSE(w["stability"]["checked"]);
  EXPECT_TRUE(w["deterministic"]) << w.dump(1);
  EXPECT_TRUE(w["unpinned"].empty());
  EXPECT_TRUE(w["baseline"]["deterministic"]);
}

TEST_F(StabilityCliTest, ThePinnedClockMakesItRepeatAndNothingIsCountedTwice) {
  nlohmann::json w =
      Compare(kJitter, kJitter, {"--backend", "vgcount", "--clock", "shim"}, "1000000");
  ASSERT_TRUE(w.is_object());
  EXPECT_EQ(w["delta"], 0);
  EXPECT_FALSE(w["stability"]["checked"]);
  EXPECT_EQ(w["baseline"]["counts"].size(), 1u);
  EXPECT_EQ(w["candidate"]["counts"].size(), 1u);
}

TEST_F(StabilityCliTest, ASmallDeltaIsCheckedOnceAndThenTrustedExactly) {
  // known_work_b does exactly 1,000,000 instructions more: 2.5% of about
  // 40 M, within four margins of 1%, so the baseline is counted again.
  LaunchResult r;
  nlohmann::json w = Compare(kWorkA, kWorkB, {"--backend", "vgcount"}, "20000000", &r);
  ASSERT_TRUE(w.is_object());
  EXPECT_TRUE(w["stability"]["checked"]);
  EXPECT_FALSE(w["stability"]["unstable"]);
  EXPECT_EQ(w["baseline"]["counts"].size(), 2u);
  EXPECT_EQ(w["candidate"]["counts"].size(), 1u);
  EXPECT_EQ(w["baseline"]["counts"][0], w["baseline"]["counts"][1]);
  EXPECT_EQ(w["delta"], 1000000);
  EXPECT_EQ(w["verdict"], "work-added");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("counted more than once to check that it repeats: it did"),
            std::string::npos)
      << r.out;
}

TEST_F(StabilityCliTest, NeverTrustsSingleCounts) {
  nlohmann::json w = Compare(
      kJitter, kJitter, {"--backend", "vgcount", "--as-is", "--stability", "never"}, "1000000");
  ASSERT_TRUE(w.is_object());
  EXPECT_FALSE(w["stability"]["checked"]);
  EXPECT_EQ(w["baseline"]["counts"].size(), 1u);
  EXPECT_EQ(w["candidate"]["counts"].size(), 1u);
}

TEST_F(StabilityCliTest, CallgrindNamesTheFunctionWhoseCostMovedBetweenTwoRuns) {
  nlohmann::json w =
      Compare(kJitter, kJitter, {"--backend", "callgrind", "--clock", "none"}, "1000000");
  ASSERT_TRUE(w.is_object());
  ASSERT_TRUE(w["stability"]["unstable"]) << w.dump(1);
  EXPECT_EQ(w["stability"]["functions_side"], "baseline");
  const nlohmann::json& functions = w["stability"]["functions"];
  ASSERT_FALSE(functions.empty());
  // The loop sized from the clock is main's own code, in the build, named as
  // explanations name it: {exe}, not its copy's file name.
  EXPECT_EQ(functions[0]["function"], "main") << functions.dump(1);
  EXPECT_EQ(functions[0]["object"], "{exe}") << functions.dump(1);
  EXPECT_NE(functions[0]["delta"], 0);
}

TEST_F(StabilityCliTest, ASavedBaselineRemembersThatItRepeats) {
  LaunchResult r = Run({"compare", "--backend", "vgcount", "--baseline", kWorkA, "--timed", "0",
                        "--save-baseline", Path("base.json"), "--", "{exe}", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json saved = ReadJson("base.json");
  const nlohmann::json& counts = saved["workloads"][0]["counts"];
  ASSERT_EQ(counts.size(), 2u) << saved.dump(1);
  EXPECT_EQ(counts[0], counts[1]);
  // A candidate compared against it is not counted twice: the stored
  // baseline already shows that the workload repeats.
  r = Run({"compare", "--backend", "vgcount", "--baseline-results", Path("base.json"),
           "--candidate", kWorkA, "--timed", "0", "--json", Path("r.json"), "--no-store", "--",
           "{exe}", "1000"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json w = ReadJson("r.json")["workloads"][0];
  EXPECT_EQ(w["candidate"]["counts"].size(), 1u) << w.dump(1);
  EXPECT_TRUE(w["stability"]["checked"]);
  EXPECT_FALSE(w["stability"]["unstable"]);
}

TEST_F(StabilityCliTest, CountSaysWhenRepeatsDifferAndSuggestsPinningTheClock) {
  LaunchResult r = Run({"count", "--backend", "callgrind", "--clock", "none", "--repeat", "2",
                        "--quiet", "--json", Path("c.json"), "--", kJitter, "100000"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("unstable: 2 counts of the same command differ by up to"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("with --clock shim, or with --backend vgcount"), std::string::npos) << r.out;
  nlohmann::json j = ReadJson("c.json");
  EXPECT_TRUE(j["unstable"]);
  EXPECT_EQ(j["clock"], "none");
  EXPECT_GT(j["spread_ppm"].get<double>(), 0);
  // By default the clock is pinned, and the same command repeats exactly.
  r = Run({"count", "--backend", "vgcount", "--repeat", "2", "--quiet", "--json", Path("c.json"),
           "--", kJitter, "100000"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("unstable"), std::string::npos) << r.out;
  j = ReadJson("c.json");
  EXPECT_FALSE(j["unstable"]);
  EXPECT_EQ(j["clock"], "shim");
  EXPECT_EQ(j["spread"], 0);
}

TEST_F(StabilityCliTest, CountSaysWhatVgcountPinned) {
  // No shim: the clock_gettime system call is answered inside the counter.
  LaunchResult r = Run({"count", "--backend", "vgcount", "--clock", "none", "--repeat", "2",
                        "--quiet", "--json", Path("c.json"), "--", kJitter, "100000"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("unstable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pinned by vgcount: clock 1"), std::string::npos) << r.out;
  nlohmann::json j = ReadJson("c.json");
  EXPECT_EQ(j["spread"], 0);
  EXPECT_TRUE(j["deterministic"]) << j.dump(1);
  EXPECT_EQ(j["runs"][0]["pinned"]["clock"], 1) << j.dump(1);
  EXPECT_TRUE(j["runs"][0]["inputs_seen"]);
  EXPECT_TRUE(j["runs"][0]["unpinned"].empty());
  // --as-is: nothing pinned, nothing claimed.
  r = Run({"count", "--backend", "vgcount", "--as-is", "--quiet", "--json", Path("c.json"), "--",
           kJitter, "100000"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  j = ReadJson("c.json");
  EXPECT_FALSE(j["deterministic"]);
  EXPECT_FALSE(j["runs"][0]["inputs_seen"]);
  EXPECT_TRUE(j["runs"][0]["pinned"].empty()) << j.dump(1);
}

TEST_F(StabilityCliTest, AWorkVerdictStandsOnOneCountOnlyWhereTheCountIsDeterministic) {
  // known_work_b does 1,000,000 instructions more than a: far over four
  // margins, so only the determinism rule can count either side again.
  nlohmann::json w = Compare(kWorkA, kWorkB, {"--backend", "vgcount"}, "1000");
  ASSERT_TRUE(w.is_object());
  EXPECT_EQ(w["verdict"], "work-added");
  EXPECT_TRUE(w["deterministic"]) << w.dump(1);
  EXPECT_FALSE(w["stability"]["checked"]);
  EXPECT_EQ(w["baseline"]["counts"].size(), 1u);
  EXPECT_EQ(w["candidate"]["counts"].size(), 1u);
  // Callgrind cannot see a raw clock read: both sides are counted again.
  w = Compare(kWorkA, kWorkB, {"--backend", "callgrind"}, "1000");
  ASSERT_TRUE(w.is_object());
  EXPECT_EQ(w["verdict"], "work-added");
  EXPECT_FALSE(w["deterministic"]);
  EXPECT_TRUE(w["stability"]["checked"]);
  EXPECT_FALSE(w["stability"]["unstable"]);
  EXPECT_NE(w["stability"]["trigger"].get<std::string>().find("callgrind cannot see"),
            std::string::npos)
      << w["stability"].dump(1);
  EXPECT_EQ(w["baseline"]["counts"].size(), 2u);
  EXPECT_EQ(w["candidate"]["counts"].size(), 2u);
  // An identical build is ok on one count a side, whatever the backend.
  w = Compare(kWorkA, kWorkA, {"--backend", "callgrind"}, "1000");
  ASSERT_TRUE(w.is_object());
  EXPECT_EQ(w["verdict"], "ok");
  EXPECT_EQ(w["baseline"]["counts"].size(), 1u);
}

}  // namespace
}  // namespace workgate
