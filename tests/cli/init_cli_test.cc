// `workgate init` as a newcomer runs it: on the bundled workloads and on
// real interpreters (Python, Lua) with a script of their own, it measures
// the clock mode, finds the score, writes a suite that the gate then runs
// as it is, and says how long a count took.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_fixture.h"
#include "workload/workload.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

class InitCliTest : public CountingCliTest {
 protected:
  void SetUp() override {
    CountingCliTest::SetUp();
#ifndef WORKGATE_VGCOUNT_BUILT
    // init measures what a program reads with vgcount; callgrind's path is
    // the same code with the reads unseen.
    WORKGATE_REQUIRE_TOOL(false, "vgcount is not built here");
#endif
  }
  Suite Written(const std::string& name) {
    Suite suite;
    std::string err;
    EXPECT_TRUE(LoadSuite(Path(name), &suite, &err)) << err;
    return suite;
  }
  // init of a shell command that counts its runs in a file and prints the
  // count after `label`, a number that differs in every run whatever the
  // clock (`date` reads the clock, so init counts it on the real one too):
  // exit 3, `said` in the error, and no suite. The file is in the TMPDIR
  // given, a directory that exists: the one place a contained run can keep
  // state for the next (each has a /tmp of its own, and the rest read-only).
  void ExpectNoSuiteForACounter(const std::string& label, const std::string& said) {
    const std::string state = Path("state");
    fs::create_directories(state);
    LaunchResult r =
        Run({"init", "-o", "s.toml", "--env", "TMPDIR=" + state, "--exe", "/bin/sh", "--", "{exe}",
             "-c",
             "n=$(cat \"$TMPDIR/runs\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "
             "\"$TMPDIR/runs\"; date > /dev/null; echo \"" +
                 label + " $n\""});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(Path("s.toml")));
  }
  // The written suite, gated with one build on both sides: it must pass.
  void ExpectAGateOfItPasses(const std::string& exe, const std::string& suite) {
    LaunchResult r = Run({"compare", "--baseline", exe, "--candidate", exe, "--suite", Path(suite),
                          "--timed", "0", "--no-store"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
};

TEST_F(InitCliTest, AProgramThatNeverNeedsTheClockGetsNoneAndItsScore) {
  LaunchResult r = Run({"init", "--exe", kKnownWorkA, "--", "100000"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Wrote workgate.toml (workload known_work_a):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("one count took "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" s with vgcount: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on the real ones its count stayed the same"), std::string::npos) << r.out;
  const Suite suite = Written("workgate.toml");
  ASSERT_EQ(suite.workloads.size(), 1u);
  const Workload& w = suite.workloads[0];
  EXPECT_EQ(w.command, (std::vector<std::string>{"{exe}", "100000"}));
  EXPECT_EQ(w.clock, ClockMode::kNone);
  EXPECT_EQ(w.score_pattern, "score: ([0-9]+)");
  EXPECT_EQ(w.score_expect, "100000");
  // It gates: known_work_b does 1,000,000 instructions more at any size.
  ExpectAGateOfItPasses(kKnownWorkA, "workgate.toml");
  LaunchResult added = Run({"compare", "--baseline", kKnownWorkA, "--candidate", kKnownWorkB,
                            "--suite", Path("workgate.toml"), "--timed", "0", "--no-store"});
  EXPECT_EQ(added.exit_code, 1) << added.out << added.err;
}

TEST_F(InitCliTest, ABenchmarkThatSizesItsWorkFromTheClockIsPinnedAndItsScoreAsserted) {
  const std::string wgmark = testing::BuildPath("workloads/wgmark");
  LaunchResult r = Run({"init", "--exe", wgmark, "-o", "wgmark.toml"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("on the real ones its count moved"), std::string::npos) << r.out;
  const Workload w = Written("wgmark.toml").workloads.at(0);
  EXPECT_EQ(w.clock, ClockMode::kShim);
  // It marks its timed part with <workgate/region.h>: only that is counted.
  EXPECT_TRUE(w.region);
  EXPECT_EQ(w.score_pattern, "score: ([0-9]+\\.[0-9]+)");
  EXPECT_EQ(w.score_expect, "10.000");
  ExpectAGateOfItPasses(wgmark, "wgmark.toml");
}

TEST_F(InitCliTest, APythonScriptBesideTheSuiteIsNamedFromItAndItsChecksumFound) {
  WORKGATE_REQUIRE_TOOL(access("/usr/bin/python3", X_OK) == 0, "no /usr/bin/python3");
  fs::copy_file(testing::SourcePath("tests/cli/testdata/init/dict.py"), Path("dict.py"));
  LaunchResult r = Run({"init", "--exe", "/usr/bin/python3", "--name", "dict", "-o", "py.toml",
                        "--", "{exe}", "dict.py"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const Workload w = Written("py.toml").workloads.at(0);
  EXPECT_EQ(w.name, "dict");
  // A relative file names nothing in the empty directory a workload runs in.
  EXPECT_EQ(w.command, (std::vector<std::string>{"{exe}", "{suite_dir}/dict.py"}));
  EXPECT_EQ(w.clock, ClockMode::kShim) << "it reads the time and prints it";
  EXPECT_EQ(w.score_pattern, "checksum: ([0-9]+)");
  EXPECT_EQ(w.score_expect, "2664667000");
  ExpectAGateOfItPasses("/usr/bin/python3", "py.toml");
}

TEST_F(InitCliTest, ALuaScriptsResultIsTheScoreNotItsTiming) {
  WORKGATE_REQUIRE_TOOL(access("/usr/bin/lua5.4", X_OK) == 0, "no /usr/bin/lua5.4");
  fs::copy_file(testing::SourcePath("tests/cli/testdata/init/fib.lua"), Path("fib.lua"));
  LaunchResult r =
      Run({"init", "--exe", "/usr/bin/lua5.4", "-o", "lua.toml", "--", "{exe}", "fib.lua"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const Workload w = Written("lua.toml").workloads.at(0);
  EXPECT_EQ(w.name, "lua5.4");
  EXPECT_EQ(w.score_expect, "6765");
  ExpectAGateOfItPasses("/usr/bin/lua5.4", "lua.toml");
}

TEST_F(InitCliTest, AScoreThatChangesEveryRunWritesNoSuiteAndSaysWhichRunsPrintedWhat) {
  ExpectNoSuiteForACounter("score:",
                           "Error: no suite was written: the program's score changed between its "
                           "runs with the clock and entropy pinned: line 1 (\"score: 1\") printed "
                           "1 in run 1 and 2 in run 2. A suite asserts a score every run prints "
                           "the same");
}

TEST_F(InitCliTest, APinnedClockWithoutANumberThatRepeatsWritesNoSuiteAndSaysWhy) {
  ExpectNoSuiteForACounter("n:",
                           "Error: no suite was written: no number was printed the same in every "
                           "run with the clock and entropy pinned (line 1 (\"n: 1\") printed 1 in "
                           "run 1 and 2 in run 2), and a suite with clock = \"shim\" must assert "
                           "a score");
}

TEST_F(InitCliTest, ItNeverOverwritesUnlessToldAndWritesNothingForAFailingCommand) {
  std::ofstream(Path("workgate.toml")) << "# mine\n";
  LaunchResult exists = Run({"init", "--exe", kKnownWorkA, "--", "1000"});
  EXPECT_EQ(exists.exit_code, 2);
  EXPECT_NE(exists.err.find("workgate.toml exists; --force replaces it"), std::string::npos)
      << exists.err;
  EXPECT_EQ(*ReadFile(Path("workgate.toml")), "# mine\n");

  LaunchResult failing = Run({"init", "--exe", kKnownWorkA, "-o", "bad.toml"});  // no N: usage
  EXPECT_EQ(failing.exit_code, 3) << failing.out << failing.err;
  EXPECT_NE(failing.err.find("the command failed, so no suite was written"), std::string::npos)
      << failing.err;
  EXPECT_FALSE(fs::exists(Path("bad.toml")));

  LaunchResult as_is = Run({"init", "--exe", kKnownWorkA, "--as-is", "--", "1"});
  EXPECT_EQ(as_is.exit_code, 2);
}

}  // namespace
}  // namespace workgate
