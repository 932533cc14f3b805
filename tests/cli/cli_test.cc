// End-to-end tests of the real workgate binary: every documented exit code
// is reached here, through the same command lines a user types.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_fixture.h"
#include "counter/valgrind_counter.h"
#include "identity/test_programs.h"
#include "launch/launch.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/paths.h"
#include "version.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::KnownLoop;
using testing::SourcePath;
using testing::WorkgateBin;

TEST_F(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(Run({"compare", "--no-such-flag"}).exit_code, 2);
  EXPECT_EQ(Run({"count"}).exit_code, 2);
  LaunchResult r = Run({"count", "--backend", kExactBackend, "--suite",
                        SourcePath("tests/cli/testdata/bad_suite.toml"), "--exe", kKnownWorkA});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad_suite.toml:4: workload 'typo': key 'comand' is not known"),
            std::string::npos)
      << r.err;
  // An option that needs a value never takes the next option as it.
  r = Run({"count", "--backend", kExactBackend, "--json", "--suite",
           SourcePath("workloads/interp.toml"), "--exe", kKnownWorkA});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--json: needs a value, not the option --suite"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(Path("--suite")));
}

TEST_F(CliTest, VersionNamesTheCommitItWasBuiltFrom) {
  LaunchResult r = Run({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "workgate " WORKGATE_VERSION " (" WORKGATE_VERSION_DETAIL ")\n");
  // The source tree's own description of its commit, without --dirty: the
  // build's version is that, or that with -dirty.
  std::string described =
      testing::Output("git -C '" + SourcePath("") + "' describe --always 2>/dev/null");
  if (!described.empty() && described.back() == '\n') described.pop_back();
  const std::string version = WORKGATE_VERSION;
  if (described.empty()) {
    EXPECT_NE(std::string(WORKGATE_VERSION_DETAIL).find("names no commit"), std::string::npos);
    return;
  }
  EXPECT_TRUE(version == described || version == described + "-dirty")
      << "built as " << version << ", the tree is at " << described
      << " (rebuild: the version header is written at every build)";
}

TEST_F(CliTest, NumericOptionsMustBeFiniteAndInRange) {
  const std::string suite = SourcePath("tests/cli/testdata/known_work.toml");
  const std::vector<std::string> compare = {"compare",   "--baseline", kKnownWorkA, "--candidate",
                                            kKnownWorkA, "--suite",    suite};
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  auto with = [](std::vector<std::string> head, std::vector<std::string> tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  const Case cases[] = {
      // nan turned the timeout off; inf and 1e300 timed out at once.
      {{"count", "--timeout", "nan", "--", KnownLoop(), "1"},
       "--timeout: must be a number in (0, 604800], not nan"},
      {{"count", "--timeout", "inf", "--", KnownLoop(), "1"}, "--timeout: must be a number in"},
      {{"count", "--timeout", "1e300", "--", KnownLoop(), "1"}, "--timeout: must be a number in"},
      {{"count", "--timeout", "0", "--", KnownLoop(), "1"}, "--timeout: must be a number in"},
      {{"count", "--timeout", "0x10", "--", KnownLoop(), "1"}, "--timeout: must be a number in"},
      {{"count", "--repeat", "0", "--", KnownLoop(), "1"},
       "--repeat: must be an integer in [1, 1000], not 0"},
      {{"count", "--repeat", "1.5", "--", KnownLoop(), "1"}, "--repeat: must be an integer in"},
      {{"count", "--repeat", "99999999999999999999", "--", KnownLoop(), "1"},
       "--repeat: must be an integer in [1, 1000], not 99999999999999999999"},
      {with(compare, {"--max-work-added", "nan"}),
       "--max-work-added: must be a number in [0, 1000], not nan"},
      {with(compare, {"--max-work-added", "-1"}), "--max-work-added: must be a number in"},
      {with(compare, {"--timeout", "-1"}), "--timeout: must be a number in (0, 604800], not -1"},
      {with(compare, {"--repeat", "0"}), "--repeat: must be an integer in [1, 1000], not 0"},
      {with(compare, {"--jobs", "0"}), "--jobs: must be an integer in [1, 1024], not 0"},
      {with(compare, {"--jobs", "nan"}), "--jobs: must be an integer in [1, 1024], not nan"},
      {with(compare, {"--timed", "-1"}), "--timed: must be an integer in [0, 1000], not -1"},
      {with(compare, {"--explain-top", "0"}), "--explain-top: must be an integer in [1, 1000]"},
      // CLI11 alone read -1 as 2^64-1.
      {with(compare, {"--seed", "-1"}), "--seed: must be an integer in [0, 4294967295], not -1"},
      {{"explain", "--baseline", kKnownWorkA, "--candidate", kKnownWorkA, "--suite", suite,
        "--explain-top", "0"},
       "--explain-top: must be an integer in [1, 1000], not 0"},
      // A missing value is still reported as such.
      {{"count", "--timeout", "--suite", suite},
       "--timeout: needs a value, not the option --suite"},
  };
  for (const Case& c : cases) {
    LaunchResult r = Run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.message << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
  // The ranges are in --help.
  LaunchResult help = Run({"compare", "--backend", kExactBackend, "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("(0, 604800]"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("[1, 1000]"), std::string::npos) << help.out;
}

TEST_F(CountingCliTest, NumericOptionsAreReadInPlainDecimal) {
  // In range, and in plain decimal: "010" is ten repeats, not CLI11's octal eight.
  LaunchResult ok = Run(
      {"count", "--repeat", "010", "--timeout", "1e2", "--json", "r.json", "--", KnownLoop(), "1"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ReadJson("r.json")["runs"].size(), 10u);
}

TEST_F(CliTest, NumericSuiteKeysMustBeFiniteAndInRange) {
  std::ofstream(Path("nan.toml")) << "[[workload]]\nname = \"w\"\ncommand = [\"{exe}\"]\n"
                                     "clock = \"none\"\ntimeout = nan\n";
  LaunchResult r =
      Run({"count", "--backend", kExactBackend, "--suite", Path("nan.toml"), "--exe", kKnownWorkA});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nan.toml:5: workload 'w': key 'timeout' must be a number in (0, 604800] "
                       "(seconds), not nan"),
            std::string::npos)
      << r.err;
  std::ofstream(Path("margin.toml")) << "[[workload]]\nname = \"w\"\ncommand = [\"{exe}\"]\n"
                                        "clock = \"none\"\nmax_work_added = nan\n";
  r = Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--candidate",
           kKnownWorkA, "--suite", Path("margin.toml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("margin.toml:5: workload 'w': key 'max_work_added' must be a number in "
                       "[0, 1000] (percent), not nan"),
            std::string::npos)
      << r.err;
}

TEST_F(CliTest, ASuiteThatIsNoFileSaysWhy) {
  LaunchResult dir =
      Run({"count", "--backend", kExactBackend, "--suite", dir_.path(), "--exe", kKnownWorkA});
  EXPECT_EQ(dir.exit_code, 2);
  EXPECT_NE(dir.err.find("Error: the suite " + dir_.path() + " is a directory, not a file"),
            std::string::npos)
      << dir.err;
  LaunchResult missing = Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA,
                              "--candidate", kKnownWorkA, "--suite", Path("nope.toml")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("Error: the suite " + Path("nope.toml") + " does not exist"),
            std::string::npos)
      << missing.err;
}

TEST_F(CountingCliTest, HostileScoresAreCheckedNotACrashOrAHang) {
  const std::string suite = SourcePath("tests/cli/testdata/hostile_scores.toml");
  LaunchResult r = Run({"count", "--backend", kExactBackend, "--suite", suite, "--exe", "/bin/sh",
                        "--json", "h.json"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  auto j = ReadJson("h.json");
  ASSERT_EQ(j["workloads"].size(), 2u) << r.out << r.err;
  EXPECT_TRUE(j["workloads"][0]["error"].is_null()) << j["workloads"][0]["error"];
  EXPECT_EQ(j["workloads"][0]["score"].get<std::string>(), std::string(50'000, '0') + "7");
  EXPECT_NE(j["workloads"][1]["error"].get<std::string>().find("printed no score"),
            std::string::npos);
}

TEST_F(CountingCliTest, ProbeChoosesABackendAndSaysWhy) {
  LaunchResult r = Run({"probe", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["valgrind"]["found"].get<bool>());
  EXPECT_FALSE(j["auto"]["backend"].get<std::string>().empty());
  if (!j["perf"]["ok"].get<bool>()) {
    // No PMU here: the reason is a sentence, and the choice falls back to Valgrind.
    EXPECT_FALSE(j["perf"]["reason"].get<std::string>().empty());
    EXPECT_NE(j["auto"]["backend"], "perf");
  }
  bool callgrind_exact = false;
  for (const auto& res : j["resolution"]) {
    if (res["backend"] == "callgrind") callgrind_exact = res["exact"].get<bool>();
  }
  EXPECT_TRUE(callgrind_exact) << j["resolution"].dump();
  EXPECT_TRUE(j["system"].contains("kernel_release"));
}

TEST_F(CliTest, NoUsableBackendExitsFive) {
  // Without Valgrind on PATH, a Valgrind backend cannot count, on any machine.
  auto env = MinimalEnvironment(dir_.path());
  env["PATH"] = "/nonexistent";
  LaunchResult named = Run({"count", "--backend", "callgrind", "--", KnownLoop(), "1"}, env);
  EXPECT_EQ(named.exit_code, 5);
  EXPECT_NE(named.err.find("no usable counting backend"), std::string::npos) << named.err;
  EXPECT_EQ(Run({"compare", "--backend", "vgcount", "--baseline", kKnownWorkA, "--candidate",
                 kKnownWorkB, "--", "1"},
                env)
                .exit_code,
            5);
  // And without a PMU as well, auto has nothing left.
  LaunchResult probe = Run({"probe", "--json", "-"}, env);
  auto j = nlohmann::json::parse(probe.out);
  if (j["perf"]["ok"].get<bool>()) GTEST_SKIP() << "perf counts here, so auto has a backend";
  EXPECT_EQ(probe.exit_code, 5);
  EXPECT_EQ(Run({"probe"}, env).exit_code, 5);
  LaunchResult count = Run({"count", "--", KnownLoop(), "1"}, env);
  EXPECT_EQ(count.exit_code, 5);
  EXPECT_NE(count.err.find("no usable counting backend"), std::string::npos) << count.err;
}

TEST_F(CountingCliTest, CountAsIsEqualsAHandRunCallgrind) {
  // Same environment, same command, same output pipes: the totals must agree.
  std::map<std::string, std::string> env = {{"PATH", "/usr/bin:/bin"}, {"HOME", dir_.path()}};
  LaunchResult r = Run({"count", "--backend", "callgrind", "--as-is", "--json", "as_is.json", "--",
                        KnownLoop(), "12345"},
                       env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t counted = ReadJson("as_is.json")["min"].get<uint64_t>();
  LaunchSpec hand;
  hand.argv = {FindValgrind().path, "--tool=callgrind", "--callgrind-out-file=" + Path("hand.out"),
               KnownLoop(), "12345"};
  hand.env = env;
  hand.cwd = dir_.path();
  hand.no_aslr = false;
  LaunchResult h = Launch(hand);
  ASSERT_TRUE(h.ok()) << h.err;
  auto pos = h.err.find("Collected : ");
  ASSERT_NE(pos, std::string::npos) << h.err;
  EXPECT_EQ(counted, std::stoull(h.err.substr(pos + 12)));
}

TEST_F(CountingCliTest, CountReportsEveryRunAsJson) {
  LaunchResult r = Run({"count", "--backend", kExactBackend, "--repeat", "2", "--json", "c.json",
                        "--", KnownLoop(), "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = ReadJson("c.json");
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["exit_status"], 0);
  EXPECT_GT(j["runs"][0]["wall_seconds"].get<double>(), 0);
  EXPECT_EQ(j["min"], j["max"]);  // Valgrind: exact
  EXPECT_FALSE(j["backend"].get<std::string>().empty());
  EXPECT_FALSE(j["event"].get<std::string>().empty());
}

TEST_F(CountingCliTest, CountOfAFailingCommandIsInvalid) {
  LaunchResult crash = Run({"count", "--backend", kExactBackend, "--", KnownLoop(), "--crash"});
  EXPECT_EQ(crash.exit_code, 3);
  EXPECT_NE(crash.out.find("killed by signal 11"), std::string::npos) << crash.out;
  EXPECT_EQ(Run({"count", "--backend", kExactBackend, "--", KnownLoop(), "--exit", "9"}).exit_code,
            3);
  LaunchResult missing = Run({"count", "--backend", kExactBackend, "--", "/nonexistent/prog"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("not found"), std::string::npos) << missing.err;
  LaunchResult slow =
      Run({"count", "--backend", kExactBackend, "--timeout", "1", "--", "/bin/sleep", "30"});
  EXPECT_EQ(slow.exit_code, 3);
  EXPECT_NE(slow.out.find("timed out after 1 s"), std::string::npos) << slow.out;
}

TEST_F(CountingCliTest, IdenticalBuildsPassWithAZeroDelta) {
  LaunchResult r =
      Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--candidate",
           kKnownWorkA, "--timed", "0", "--json", "aa.json", "--", "100000"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = ReadJson("aa.json");
  EXPECT_EQ(j["verdict"], "ok");
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_EQ(j["workloads"][0]["delta"], 0);
}

TEST_F(CountingCliTest, KnownExtraWorkGivesExactlyThatDeltaAndExitsOne) {
  LaunchResult r = Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA,
                        "--candidate", kKnownWorkB, "--timed", "0", "--json", "wa.json",
                        "--markdown", "wa.md", "--", "1000000"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = ReadJson("wa.json");
  EXPECT_EQ(j["verdict"], "work-added");
  EXPECT_EQ(j["workloads"][0]["delta"], 1000000);
  auto md = ReadFile(Path("wa.md"));
  ASSERT_TRUE(md);
  EXPECT_EQ(md->rfind("### workgate: ❌ work added", 0), 0u) << *md;
  // The same delta within a wider margin passes.
  EXPECT_EQ(Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--candidate",
                 kKnownWorkB, "--timed", "0", "--max-work-added", "60", "--", "1000000"})
                .exit_code,
            0);
  // And the other way round, work removed, passes too.
  LaunchResult removed =
      Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkB, "--candidate",
           kKnownWorkA, "--timed", "0", "--json", "wr.json", "--", "1000000"});
  EXPECT_EQ(removed.exit_code, 0);
  EXPECT_EQ(ReadJson("wr.json")["workloads"][0]["verdict"], "work-removed");
}

TEST_F(CountingCliTest, ExplainFindsTheFunctionThatAddedTheWork) {
  // known_work_b's extra 500,000 loop iterations are in main: the whole
  // delta, exactly, in one row, matched across the two differently named
  // builds as {exe}.
  const std::string suite = SourcePath("tests/cli/testdata/known_work.toml");
  LaunchResult r = Run({"explain", "--baseline", kKnownWorkA, "--candidate", kKnownWorkB, "--suite",
                        suite, "--workload", "work", "--json", "e.json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto e = ReadJson("e.json")["workloads"][0]["explanation"];
  ASSERT_GE(e["rows"].size(), 1u) << e.dump();
  EXPECT_EQ(e["rows"][0]["function"], "main");
  EXPECT_EQ(e["rows"][0]["object"], "{exe}");
  EXPECT_EQ(e["rows"][0]["delta"], 1000000);
  EXPECT_EQ(e["total_delta"], 1000000);
  // compare explains a work-added workload by itself, in every report.
  LaunchResult c = Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA,
                        "--candidate", kKnownWorkB, "--suite", suite, "--workload", "work",
                        "--timed", "0", "--json", "ce.json", "--markdown", "ce.md"});
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  EXPECT_EQ(ReadJson("ce.json")["workloads"][0]["explanation"]["rows"][0]["delta"], 1000000);
  EXPECT_NE(c.out.find("main in {exe}"), std::string::npos) << c.out;
  auto md = ReadFile(Path("ce.md"));
  ASSERT_TRUE(md);
  EXPECT_NE(md->find("<details><summary><code>work</code>: where the"), std::string::npos) << *md;
}

// --explain never | work-added | always, and where the profiles come from:
// the Valgrind backends explain from the runs that counted, with no run
// more; the JSON and the reports say which tool profiled and which sides,
// if any, were run again.
TEST_F(CountingCliTest, ExplanationsComeFromTheCountingRunsAndExplainSaysWhich) {
  const std::string suite = SourcePath("tests/cli/testdata/known_work.toml");
  auto compare = [&](const std::string& backend, const std::string& explain,
                     const std::string& candidate, const std::string& json) {
    LaunchResult r = Run({"compare", "--backend", backend, "--baseline", kKnownWorkA, "--candidate",
                          candidate, "--suite", suite, "--workload", "work", "--timed", "0",
                          "--explain", explain, "--events", "never", "--json", json});
    EXPECT_EQ(r.exit_code, candidate == kKnownWorkB ? 1 : 0) << r.out << r.err;
    // No run was made for an explanation: none was announced.
    EXPECT_EQ(r.err.find("explaining"), std::string::npos) << r.err;
    return r;
  };
  for (const std::string& backend : {kExactBackend, std::string("callgrind")}) {
    LaunchResult r = compare(backend, "work-added", kKnownWorkB, "wa.json");
    auto e = ReadJson("wa.json")["workloads"][0]["explanation"];
    ASSERT_TRUE(e.is_object()) << backend;
    EXPECT_EQ(e["profiler"], backend);
    EXPECT_TRUE(e["rerun"].empty()) << e.dump();
    EXPECT_EQ(e["rows"][0]["function"], "main");
    EXPECT_EQ(e["rows"][0]["delta"], 1000000);
    EXPECT_EQ(e["total_delta"], 1000000);
    EXPECT_NE(r.out.find("Profiles: " + backend + ", from the runs that counted."),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("(" + backend + ", self cost)"), std::string::npos) << r.out;
  }
  // never: no explanation, though work was added.
  compare(kExactBackend, "never", kKnownWorkB, "never.json");
  EXPECT_TRUE(ReadJson("never.json")["workloads"][0]["explanation"].is_null());
  EXPECT_EQ(ReadJson("never.json")["settings"]["explain"], "never");
  // work-added leaves an ok workload alone; always explains it too (an
  // A/A comparison: nothing changed, so no row).
  compare(kExactBackend, "work-added", kKnownWorkA, "ok.json");
  EXPECT_TRUE(ReadJson("ok.json")["workloads"][0]["explanation"].is_null());
  compare(kExactBackend, "always", kKnownWorkA, "always.json");
  auto e = ReadJson("always.json")["workloads"][0]["explanation"];
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(e["total_delta"], 0);
  EXPECT_TRUE(e["rows"].empty()) << e.dump();
  EXPECT_EQ(ReadJson("always.json")["settings"]["explain"], "always");
}

TEST_F(CliTest, ExplainTakesOnlyItsThreeWords) {
  LaunchResult r = Run({"compare", "--baseline", "/bin/true", "--candidate", "/bin/true",
                        "--explain", "sometimes"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("never"), std::string::npos) << r.err;
  // The old flag's form, with a value after it, is not taken for a command.
  r = Run({"compare", "--baseline", "/bin/true", "--candidate", "/bin/true", "--explain"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

TEST_F(CountingCliTest, ScoreMismatchCrashAndMissingBuildAreInvalid) {
  const std::string suite = SourcePath("tests/cli/testdata/known_work.toml");
  LaunchResult mismatch = Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA,
                               "--candidate", kKnownWorkB, "--suite", suite, "--workload",
                               "wrong-score", "--timed", "0", "--json", "i.json"});
  EXPECT_EQ(mismatch.exit_code, 3) << mismatch.out << mismatch.err;
  EXPECT_NE(
      ReadJson("i.json")["workloads"][0]["reason"].get<std::string>().find("expected 7, got 1000"),
      std::string::npos);
  EXPECT_EQ(Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--candidate",
                 KnownLoop(), "--timed", "0", "--", "--crash"})
                .exit_code,
            3);
  EXPECT_EQ(Run({"compare", "--backend", kExactBackend, "--baseline", "/nonexistent/a",
                 "--candidate", kKnownWorkB, "--", "1"})
                .exit_code,
            3);
}

TEST_F(CountingCliTest, NoisyCountsStraddlingTheMarginAreInconclusive) {
  // The perf backend's plumbing with a noisy software event: the same build
  // on both sides, task-clock repeats spread by far more than a 0.0001%
  // margin, so the interval of the relative delta straddles it. It does not
  // only if every baseline time falls on one side of every candidate time:
  // for 9 repeats a side, odds of 2 in C(18, 9) = 48,620 (3 gave 1 in 10).
  const std::string refusal = testing::SoftwareEventRefusal(PERF_COUNT_SW_TASK_CLOCK);
  if (!refusal.empty()) GTEST_SKIP() << refusal;
  LaunchResult r =
      Run({"compare", "--backend", "perf", "--event", "perf::task-clock", "--repeat", "9",
           "--max-work-added", "0.0001", "--timed", "0", "--baseline", kKnownWorkA, "--candidate",
           kKnownWorkA, "--json", "inc.json", "--", "3000000"});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_EQ(ReadJson("inc.json")["verdict"], "inconclusive");
}

/// Tests of stored baselines: known_work_a's counts of the workload "work"
/// of `suite_`, stored in base.json.
class StoredBaselineCliTest : public CountingCliTest {
 protected:
  void SetUp() override {
    CountingCliTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    LaunchResult save =
        Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--suite", suite_,
             "--workload", "work", "--save-baseline", "base.json"});
    ASSERT_EQ(save.exit_code, 0) << save.err;
  }
  const std::string suite_ = SourcePath("tests/cli/testdata/known_work.toml");
};

TEST_F(StoredBaselineCliTest, StoredBaselinesCompareAndAreCheckedForCompatibility) {
  LaunchResult same = Run({"compare", "--backend", kExactBackend, "--baseline-results", "base.json",
                           "--candidate", kKnownWorkA, "--suite", suite_, "--workload", "work",
                           "--timed", "0", "--json", "s.json"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_EQ(ReadJson("s.json")["workloads"][0]["delta"], 0);
  LaunchResult added =
      Run({"compare", "--backend", kExactBackend, "--baseline-results", "base.json", "--candidate",
           kKnownWorkB, "--suite", suite_, "--workload", "work", "--timed", "0"});
  EXPECT_EQ(added.exit_code, 1) << added.out << added.err;
  // The same workload name with another definition: not comparable.
  LaunchResult other =
      Run({"compare", "--backend", kExactBackend, "--baseline-results", "base.json", "--candidate",
           kKnownWorkA, "--suite", SourcePath("tests/cli/testdata/known_work_changed.toml"),
           "--timed", "0", "--json", "o.json"});
  EXPECT_EQ(other.exit_code, 3) << other.out;
  EXPECT_NE(ReadJson("o.json")["workloads"][0]["reason"].dump().find("suite"), std::string::npos);
  // A workload the file does not have: missing evidence.
  EXPECT_EQ(
      Run({"compare", "--backend", kExactBackend, "--baseline-results", "base.json", "--candidate",
           kKnownWorkA, "--suite", suite_, "--workload", "work-other-size", "--timed", "0"})
          .exit_code,
      3);
}

TEST_F(StoredBaselineCliTest, AStoredBaselineThatCannotBeUsedSaysWhyAndIsInvalid) {
  auto base = ReadJson("base.json");
  ASSERT_EQ(base["schema_version"], 2);
  base["schema_version"] = 1;  // a baseline saved before profiles were kept
  std::ofstream(Path("v1.json")) << base.dump();
  base["schema_version"] = 2;
  base["workloads"][0]["counts"][0] = 9223372036854775808u;
  std::ofstream(Path("huge.json")) << base.dump();
  std::ofstream(Path("corrupt.json")) << "{ not json";
  std::filesystem::create_directory(Path("dir.json"));
  const std::pair<std::string, std::string> cases[] = {
      {"nope.json", "the stored baseline nope.json does not exist"},
      {"dir.json", "the stored baseline dir.json is a directory, not a file"},
      {"corrupt.json",
       "the stored baseline corrupt.json is corrupt: not valid JSON: parse error "
       "at line 1, column 4"},
      {"v1.json",
       "the stored baseline v1.json has schema_version 1; this workgate reads "
       "version 2 (save the baseline again)"},
      {"huge.json",
       "the stored baseline huge.json is corrupt: workloads[0].counts[0] is "
       "9223372036854775808, above the largest count workgate takes"},
  };
  for (const auto& [file, message] : cases) {
    // Missing evidence: invalid (3), never a pass, with what is wrong with the file.
    LaunchResult r = Run({"compare", "--backend", kExactBackend, "--baseline-results", file,
                          "--candidate", kKnownWorkA, "--suite", suite_, "--workload", "work",
                          "--timed", "0", "--json", "bad.json"});
    EXPECT_EQ(r.exit_code, 3) << file << ": " << r.out << r.err;
    std::string reason = ReadJson("bad.json")["workloads"][0]["reason"].get<std::string>();
    EXPECT_EQ(reason.rfind("baseline: " + message, 0), 0u) << reason;
    EXPECT_EQ(reason.find("has no workload"), std::string::npos) << reason;
  }
}

TEST_F(StoredBaselineCliTest, AStoredBaselineFromAnotherWorkgateBuildIsIncompatible) {
  // Each side's fingerprint holds the commit workgate was built from, so a
  // baseline another build stored is refused, naming both versions.
  auto base = ReadJson("base.json");
  ASSERT_EQ(base["workloads"][0]["fingerprint"]["workgate_version"], WORKGATE_VERSION);
  base["workgate_version"] = "v0.0.9-2-gdeadbee";
  base["workloads"][0]["fingerprint"]["workgate_version"] = "v0.0.9-2-gdeadbee";
  std::ofstream(Path("other.json")) << base.dump();
  LaunchResult r = Run({"compare", "--backend", kExactBackend, "--baseline-results", "other.json",
                        "--candidate", kKnownWorkA, "--suite", suite_, "--workload", "work",
                        "--timed", "0", "--json", "o.json"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const std::string reason = ReadJson("o.json")["workloads"][0]["reason"].get<std::string>();
  EXPECT_NE(reason.find("workgate version differs (baseline v0.0.9-2-gdeadbee, candidate " +
                        std::string(WORKGATE_VERSION) + ")"),
            std::string::npos)
      << reason;
}

TEST_F(CountingCliTest, TimedContextWithFiveSamplesHasABootstrapInterval) {
  // 20M iterations, a few ms a run: long enough that a run twice as long as
  // its siblings (a stall) is rare even on a loaded machine.
  LaunchResult r =
      Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--candidate",
           kKnownWorkA, "--timed", "5", "--json", "t.json", "--", "20000000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto w = ReadJson("t.json")["workloads"][0];
  ASSERT_EQ(w["baseline"]["timed"].size(), 5u);
  ASSERT_EQ(w["candidate"]["timed"].size(), 5u);
  ASSERT_TRUE(w["timed"].is_object()) << w.dump();
  // The same build on both sides, timed by the wall clock (known_work's score
  // is its argument, the same on both sides, so no ratio of scores).
  EXPECT_EQ(w["timed"]["basis"], "wall time");
  // The runs in the order they ran: two warm-ups, then AB BA AB BA AB.
  std::vector<int> base_slots, cand_slots;
  for (const auto& t : w["baseline"]["timed"]) base_slots.push_back(t["slot"]);
  for (const auto& t : w["candidate"]["timed"]) cand_slots.push_back(t["slot"]);
  EXPECT_EQ(base_slots, (std::vector<int>{2, 5, 6, 9, 10}));
  EXPECT_EQ(cand_slots, (std::vector<int>{3, 4, 7, 8, 11}));
  const auto& c = w["timed"]["comparison"];
  if (!w["timed"]["dropped"].empty()) {
    // A run stalled here: with five pairs, one fewer leaves no comparison,
    // and the report says so instead of an interval.
    EXPECT_TRUE(c.is_null()) << w.dump();
    EXPECT_EQ(w["timed"]["label"], "inconclusive");
    EXPECT_NE(w["timed"]["reason"].get<std::string>().find("pairs are left once stalls are dropped"),
              std::string::npos)
        << w.dump();
    return;
  }
  ASSERT_TRUE(c.is_object()) << w.dump();
  // Five pairs cannot give 95%: the interval says what it can have.
  EXPECT_DOUBLE_EQ(c["nominal_confidence"].get<double>(), 0.95);
  EXPECT_DOUBLE_EQ(c["confidence"].get<double>(), 0.9375);
  EXPECT_EQ(c["method"], "exact");
  EXPECT_EQ(c["draws"], 32);
  const double low = c["ci_low"].get<double>();
  const double high = c["ci_high"].get<double>();
  const double median = c["median_ratio"].get<double>();
  // A percentile interval of the median holds the median of the sample.
  EXPECT_LE(low, median);
  EXPECT_GE(high, median);
  EXPECT_GT(low, 0);
  // The median is the median of the five pairs' ratios.
  std::vector<double> ratios;
  for (size_t i = 0; i < 5; ++i) {
    ratios.push_back(w["candidate"]["timed"][i]["wall_seconds"].get<double>() /
                     w["baseline"]["timed"][i]["wall_seconds"].get<double>());
  }
  std::sort(ratios.begin(), ratios.end());
  EXPECT_DOUBLE_EQ(median, ratios[2]);
  // Five pairs can never reject at 0.05, so no label says faster or slower.
  EXPECT_GE(c["p_value"].get<double>(), 0.0625);
  EXPECT_TRUE(w["timed"]["label"] == "within noise" || w["timed"]["label"] == "inconclusive")
      << w["timed"].dump();
}

TEST_F(CountingCliTest, CountJsonKeepsNonUtf8ArgumentsAndEnvironment) {
  // Bytes that are not UTF-8 in an argument and an --env value: the counts
  // are written, the bad bytes as U+FFFD, and nothing is lost.
  LaunchResult r = Run({"count", "--backend", "callgrind", "--json", "bad.json", "--env",
                        "WG_BAD=\xC3\x28", "--", "/bin/true", "arg\xFF\xFE"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto text = ReadFile(Path("bad.json"));
  ASSERT_TRUE(text.has_value());
  nlohmann::json j = nlohmann::json::parse(*text);  // throws on invalid UTF-8
  EXPECT_EQ(j["argv"].back(), "arg\uFFFD\uFFFD") << *text;
  EXPECT_GT(j["min"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["exit_code"], 0);
}

TEST_F(CountingCliTest, ProgramOutputCannotDriveTheTerminalThroughWorkgatesLines) {
  // A score the program printed is quoted in workgate's own line about the
  // workload: the escape sequences in it (window title, clear screen, cursor
  // up) are gone, the score is there.
  std::ofstream(Path("hostile.toml"))
      << "[[workload]]\n"
         "name = \"hostile-score\"\n"
         "command = [\"{exe}\", \"-c\", "
         "\"printf 'score: \\\\033]0;pwned\\\\007\\\\033[2J\\\\033[1A42\\\\n'\"]\n"
         "clock = \"none\"\n"
         "timeout = 60\n"
         "[workload.score]\n"
         "pattern = 'score: (.*)'\n"
         "expect = \"10\"\n";
  LaunchResult r = Run(
      {"count", "--backend", kExactBackend, "--suite", Path("hostile.toml"), "--exe", "/bin/sh"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("hostile-score: invalid: score mismatch: expected 10, got 42"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  // A name in workgate's "Error:" line.
  LaunchResult missing =
      Run({"count", "--backend", kExactBackend, "--", "/nonexistent/\x1b]0;pwned\x07\x1b[2Jprog"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("Error: /nonexistent/prog: command not found"), std::string::npos)
      << missing.err;
  EXPECT_EQ(missing.err.find('\x1b'), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace workgate
