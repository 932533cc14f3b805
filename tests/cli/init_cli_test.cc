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
  EXPECT_NE(r.out.find("Wrote workgate.toml (1 workload):\n  workload known_work_a:\n"),
            std::string::npos)
      << r.out;
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

TEST_F(InitCliTest, EachScriptOfAGlobIsAWorkloadOfOneSuiteAndAppendAddsMore) {
  WORKGATE_REQUIRE_TOOL(access("/usr/bin/lua5.4", X_OK) == 0, "no /usr/bin/lua5.4");
  fs::create_directories(Path("bench"));
  fs::copy_file(testing::SourcePath("tests/cli/testdata/init/fib.lua"), Path("bench/fib.lua"));
  std::ofstream(Path("bench/sum.lua")) << "local s = 0\nfor i = 1, 20000 do s = s + i end\n"
                                          "print(\"sum: \" .. s)\n";
  std::ofstream(Path("bench/notes.txt")) << "not a script\n";
  LaunchResult r = Run({"init", "--exe", "/usr/bin/lua5.4", "--each", "bench/*.lua", "-o",
                        "suite.toml"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Wrote suite.toml (2 workloads):\n  workload fib:\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n  workload sum:\n"), std::string::npos) << r.out;
  Suite suite = Written("suite.toml");
  ASSERT_EQ(suite.workloads.size(), 2u);
  EXPECT_EQ(suite.workloads[0].name, "fib");
  EXPECT_EQ(suite.workloads[0].command,
            (std::vector<std::string>{"{exe}", "{suite_dir}/bench/fib.lua"}));
  EXPECT_EQ(suite.workloads[0].score_expect, "6765");
  EXPECT_EQ(suite.workloads[1].name, "sum");
  EXPECT_EQ(suite.workloads[1].score_expect, "200010000");
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  std::string text = ReadFile(Path("suite.toml")).value_or("");
  EXPECT_EQ(count(text, "# A workgate suite, written by workgate init"), 1u) << text;
  EXPECT_NE(text.find("#   workgate init --exe /usr/bin/lua5.4 --each 'bench/*.lua'\n"),
            std::string::npos)
      << text;

  // One more, appended: one more header line for it, the rest unchanged.
  fs::create_directories(Path("more"));
  std::ofstream(Path("more/count.lua")) << "local n = 0\nfor i = 1, 3000 do n = n + 1 end\n"
                                           "print(\"count: \" .. n)\n";
  LaunchResult appended = Run({"init", "--append", "--each", "more/*.lua", "-o", "suite.toml",
                               "--", "/usr/bin/lua5.4", "{file}"});
  ASSERT_EQ(appended.exit_code, 0) << appended.out << appended.err;
  EXPECT_NE(appended.out.find("Added to suite.toml (1 workload):\n  workload count:\n"),
            std::string::npos)
      << appended.out;
  const std::string longer = ReadFile(Path("suite.toml")).value_or("");
  EXPECT_EQ(longer.rfind(text, 0), 0u) << "the suite's own text comes first, as it was";
  EXPECT_EQ(count(longer, "# A workgate suite, written by"), 1u) << longer;
  EXPECT_EQ(count(longer, "# Workloads added to this suite, written by workgate init"), 1u)
      << longer;
  suite = Written("suite.toml");
  ASSERT_EQ(suite.workloads.size(), 3u);
  EXPECT_EQ(suite.workloads[2].name, "count");
  EXPECT_EQ(suite.workloads[2].command,
            (std::vector<std::string>{"{exe}", "{suite_dir}/more/count.lua"}));
  ExpectAGateOfItPasses("/usr/bin/lua5.4", "suite.toml");

  // A name the suite has already: nothing is measured or written.
  LaunchResult again = Run({"init", "--append", "--exe", "/usr/bin/lua5.4", "--each",
                            "more/*.lua", "-o", "suite.toml"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("--append: suite.toml has a workload count already"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(ReadFile(Path("suite.toml")).value_or(""), longer);
  LaunchResult none = Run({"init", "--exe", "/usr/bin/lua5.4", "--each", "none/*.lua", "-o",
                           "other.toml"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--each 'none/*.lua': no file matches it"), std::string::npos)
      << none.err;
  LaunchResult exists = Run({"init", "--exe", "/usr/bin/lua5.4", "--each", "more/*.lua", "-o",
                             "suite.toml"});
  EXPECT_EQ(exists.exit_code, 2);
  EXPECT_NE(exists.err.find("suite.toml exists; --append adds to it, --force replaces it"),
            std::string::npos)
      << exists.err;
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

TEST_F(InitCliTest, WithoutExeTheCommandsFirstWordIsTheBuild) {
  LaunchResult given = Run({"init", "-o", "given.toml", "--exe", kKnownWorkA, "--", "100000"});
  ASSERT_EQ(given.exit_code, 0) << given.out << given.err;
  LaunchResult first = Run({"init", "-o", "first.toml", "--", kKnownWorkA, "100000"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("  workload known_work_a:\n"), std::string::npos) << first.out;
  EXPECT_EQ(Written("first.toml").workloads.at(0).command,
            (std::vector<std::string>{"{exe}", "100000"}));
  const std::string text = ReadFile(Path("first.toml")).value_or("");
  // The same suite, but for the command that made it, which its header quotes.
  auto body = [](const std::string& suite) { return suite.substr(suite.find("\n[[workload]]")); };
  EXPECT_EQ(body(text), body(ReadFile(Path("given.toml")).value_or("\n[[workload]]")));

  LaunchResult nothing = Run({"init"});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("name the build to measure: --exe BUILD, or a command after --"),
            std::string::npos)
      << nothing.err;
  LaunchResult placeholder = Run({"init", "--", "/bin/sh", "{exe}"});
  EXPECT_EQ(placeholder.exit_code, 2);
  EXPECT_NE(placeholder.err.find("{exe} stands for --exe's build"), std::string::npos)
      << placeholder.err;
}

TEST_F(InitCliTest, ItNeverOverwritesUnlessToldAndWritesNothingForAFailingCommand) {
  std::ofstream(Path("workgate.toml")) << "# mine\n";
  LaunchResult exists = Run({"init", "--exe", kKnownWorkA, "--", "1000"});
  EXPECT_EQ(exists.exit_code, 2);
  EXPECT_NE(exists.err.find("workgate.toml exists; --append adds to it, --force replaces it"),
            std::string::npos)
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
