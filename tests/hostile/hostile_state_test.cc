// The real workgate against candidates that keep state between the runs of
// one gate: a result cache a step before workgate left in /tmp, one an
// earlier run left there, and a library the baseline loads that the
// candidate rewrites between two counts of the baseline. Where this machine
// cannot give each run a /tmp of its own, the test says so and skips: the
// report names what the runs share (CandidateReach).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "counter/valgrind_counter.h"
#include "hostile/hostile_paths.h"
#include "hostile/workgate_process.h"
#include "identity/test_programs.h"
#include "launch/launch.h"
#include "test_requirements.h"
#include "util/cleanup.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::BenignWorkload;
using testing::HostileWorkload;
using testing::WorkgateProcess;

// Iterations of the hostile program's cached work: far more instructions
// than the rest of its run.
constexpr char kWork[] = "2000000";
constexpr uint64_t kWorkInstructions = 2000000;

constexpr char kLibrary[] =
    "int wg_work(void) { volatile int i; for (i = 0; i < 100000; ++i) {} return 0; }\n";
constexpr char kProgram[] = "int wg_work(void);\nint main(void) { return wg_work(); }\n";

class HostileStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
    fs::create_directory(Path("tmp"));
    // In /tmp itself, whatever TMPDIR says: where the fresh tmpfs goes.
    char pattern[] = "/tmp/workgate-state.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    in_tmp_ = pattern;
  }
  void TearDown() override {
    if (!in_tmp_.empty()) RemoveTree(in_tmp_);
  }

  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }
  static std::string Backend() {
#ifdef WORKGATE_VGCOUNT_BUILT
    return "vgcount";
#else
    return "callgrind";
#endif
  }
  static bool TmpIsShared() {
    const std::vector<std::string> shared = SharedTemporaryDirectories();
    return !PidNamespaceAvailable() ||
           std::find(shared.begin(), shared.end(), "/tmp") != shared.end();
  }

  std::unique_ptr<WorkgateProcess> Start(const std::vector<std::string>& args) const {
    return std::make_unique<WorkgateProcess>(
        args,
        std::map<std::string, std::string>{{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                           {"HOME", dir_.path()},
                                           {"TMPDIR", Path("tmp")}},
        dir_.path());
  }
  nlohmann::json Json(const std::string& name) const {
    return nlohmann::json::parse(ReadFile(Path(name)).value_or("null"));
  }

  /// A program that loads libwgwork.so from `libs` (its RUNPATH), there.
  std::string BaselineLoadingFrom(const std::string& libs) const {
    fs::create_directories(libs);
    const std::string program = Path("baseline");
    EXPECT_TRUE(testing::CompileC(kLibrary, libs + "/libwgwork.so", "-shared -fPIC"));
    EXPECT_TRUE(testing::CompileC(
        kProgram, program,
        "-L'" + libs + "' -lwgwork -Wl,--enable-new-dtags -Wl,-rpath,'" + libs + "'"));
    return program;
  }

  /// `compare` of `baseline` and the hostile program on a suite of two
  /// workloads, one after the other: in the first the candidate writes
  /// itself over `victim`, which its command does not name (its environment
  /// does); the second only runs. `env` is more of the workloads'
  /// environment (TOML keys).
  std::vector<std::string> CompareOverwriting(const std::string& baseline,
                                              const std::string& victim,
                                              const std::string& env = "") const {
    const std::string environment = "{ HOSTILE_VICTIM = '" + victim + "'" + env + " }";
    std::ofstream(Path("suite.toml"))
        << "[[workload]]\nname = \"first\"\ncommand = [\"{exe}\", \"overwrite\"]\n"
           "clock = \"none\"\nenv = "
        << environment
        << "\n[[workload]]\nname = \"second\"\ncommand = [\"{exe}\", \"sleep\", \"0\"]\n"
           "clock = \"none\"\nenv = "
        << environment << "\n";
    return {"compare",         "--baseline", baseline,  "--candidate",
            HostileWorkload(), "--timed",    "0",       "--no-store",
            "--jobs",          "1",          "--json",  Path("r.json"),
            "--backend",       Backend(),    "--suite", Path("suite.toml")};
  }

  TempDir dir_;
  std::string in_tmp_;
};

// A step before workgate (here the test) leaves a cache in /tmp that lets
// the program skip its work: the counted run does not see it, and does the
// work.
TEST_F(HostileStateTest, ACacheAStepBeforeWorkgateLeftInTmpIsNotSeen) {
  if (TmpIsShared()) GTEST_SKIP() << "this machine gives the runs no /tmp of their own";
  const std::string cache = in_tmp_ + "/cache";
  std::ofstream(cache) << "done\n";
  auto wg = Start({"count", "--backend", Backend(), "--json", Path("c.json"), "--env",
                   "HOSTILE_CACHE=" + cache, "--", HostileWorkload(), "cached-work", kWork});
  ASSERT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
  const nlohmann::json count = Json("c.json");
  EXPECT_GT(count["runs"][0]["instructions"].get<uint64_t>(), kWorkInstructions) << count.dump();
  EXPECT_EQ(ReadFile(cache).value_or(""), "done\n");
}

// What a run leaves in /tmp the next runs do not see: neither the same
// side's next count nor the other side's.
TEST_F(HostileStateTest, WhatARunLeavesInTmpNoLaterRunSees) {
  if (TmpIsShared()) GTEST_SKIP() << "this machine gives the runs no /tmp of their own";
  const std::string cache = in_tmp_ + "/cache";
  auto count =
      Start({"count", "--backend", Backend(), "--repeat", "2", "--json", Path("c.json"), "--env",
             "HOSTILE_CACHE=" + cache, "--", HostileWorkload(), "cached-work", kWork});
  ASSERT_EQ(count->Wait(180), 0) << count->out() << count->err();
  const nlohmann::json counted = Json("c.json");
  ASSERT_EQ(counted["runs"].size(), 2u) << counted.dump();
  EXPECT_GT(counted["runs"][0]["instructions"].get<uint64_t>(), kWorkInstructions);
  EXPECT_EQ(counted["runs"][1]["instructions"], counted["runs"][0]["instructions"]);
  // A/A: had the baseline's cache reached the candidate, it would have
  // skipped the work (work removed).
  auto compare =
      Start({"compare", "--baseline", HostileWorkload(), "--candidate", HostileWorkload(),
             "--timed", "0", "--no-store", "--backend", Backend(), "--json", Path("r.json"),
             "--env", "HOSTILE_CACHE=" + cache, "--", "cached-work", kWork});
  ASSERT_EQ(compare->Wait(180), 0) << compare->out() << compare->err();
  const nlohmann::json report = Json("r.json");
  const nlohmann::json& w = report["workloads"][0];
  EXPECT_EQ(w["verdict"], "ok") << w.dump();
  EXPECT_EQ(w["candidate"]["counts"], w["baseline"]["counts"]) << w.dump();
  EXPECT_FALSE(fs::exists(cache)) << "a run's cache reached the machine's /tmp";
}

// The baseline loads a library from a directory in /tmp (its RUNPATH),
// which the candidate goes for between two baseline counts. Where each run
// has a /tmp of its own the candidate does not find it (the baseline sees
// it, read-only, bound from the machine's /tmp), and every count stands;
// elsewhere the next count of the baseline is invalid, naming the library.
TEST_F(HostileStateTest, ALibraryTheBaselineLoadsFromTmpIsHeld) {
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  const std::string libs = in_tmp_ + "/libs";
  const std::string baseline = BaselineLoadingFrom(libs);
  const std::string library = libs + "/libwgwork.so";
  const std::string before = ReadFile(library).value_or("");
  auto wg = Start(CompareOverwriting(baseline, library));
  const auto code = wg->Wait(180);
  const nlohmann::json report = Json("r.json");
  if (!TmpIsShared()) {
    EXPECT_TRUE(code == 0 || code == 1) << wg->out() << wg->err();
    EXPECT_EQ(ReadFile(library).value_or(""), before) << "the candidate reached the library";
    EXPECT_EQ(wg->out().find("changed during the run"), std::string::npos) << wg->out();
    EXPECT_NE(report["workloads"][1]["verdict"], "invalid") << report.dump();
    return;
  }
  EXPECT_EQ(code, 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("baseline: the files the build " + baseline +
                           " loads changed during the run (the library libwgwork.so at " + library +
                           " changed)"),
            std::string::npos)
      << wg->out();
}

// The same library in a directory every run of the workloads may write:
// their TMPDIR, which their suite sets to a directory that exists, bound
// writable (here in /tmp). The candidate rewrites it; the next baseline
// count is invalid, naming it, and none of the baseline's later counts is
// taken.
TEST_F(HostileStateTest, ALibraryTheCandidateRewritesBetweenBaselineCountsIsNamed) {
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  const std::string shared = in_tmp_ + "/shared";
  const std::string library = shared + "/libs/libwgwork.so";
  const std::string baseline = BaselineLoadingFrom(shared + "/libs");
  auto wg = Start(CompareOverwriting(baseline, library, ", TMPDIR = '" + shared + "'"));
  EXPECT_EQ(wg->Wait(180), 3) << wg->out() << wg->err();
  EXPECT_EQ(ReadFile(library), ReadFile(HostileWorkload())) << "the attack was not made";
  EXPECT_NE(wg->out().find("baseline: the files the build " + baseline +
                           " loads changed during the run (the library libwgwork.so at " + library +
                           " changed)"),
            std::string::npos)
      << wg->out();
  const nlohmann::json second = Json("r.json")["workloads"][1];
  EXPECT_EQ(second["verdict"], "invalid") << second.dump();
  EXPECT_TRUE(second["baseline"]["counts"].empty()) << second.dump();
}

}  // namespace
}  // namespace workgate
