#include <gtest/gtest.h>

#include <fstream>

#include "util/paths.h"
#include "workload/run_plan.h"
#include "workload/workload.h"

namespace workgate {
namespace {

class SuiteTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    path_ = dir_.path() + "/suite.toml";
    std::ofstream(path_) << text;
    return path_;
  }
  std::string LoadError(const std::string& text) {
    Suite suite;
    std::string err;
    EXPECT_FALSE(LoadSuite(Write(text), &suite, &err));
    return err;
  }
  TempDir dir_;
  std::string path_;
};

constexpr const char* kGood = R"(description = "two workloads"
[[workload]]
name = "fib"
command = ["{exe}", "{suite_dir}/fib.wg"]
clock = "env"
timeout = 30
env = { WGI_MODE = "fast" }
max_work_added = 2.5
[workload.score]
pattern = 'score: ([0-9.]+)'
expect = "10.000"

[[workload]]
name = "plain"
command = ["{exe}"]
clock = "none"
)";

TEST_F(SuiteTest, ReadsEveryField) {
  Suite suite;
  std::string err;
  ASSERT_TRUE(LoadSuite(Write(kGood), &suite, &err)) << err;
  ASSERT_EQ(suite.workloads.size(), 2u);
  const Workload& w = suite.workloads[0];
  EXPECT_EQ(w.name, "fib");
  EXPECT_EQ(w.command, (std::vector<std::string>{"{exe}", "{suite_dir}/fib.wg"}));
  EXPECT_EQ(w.clock, ClockMode::kEnv);
  EXPECT_EQ(w.timeout_seconds, 30);
  EXPECT_EQ(w.env.at("WGI_MODE"), "fast");
  EXPECT_EQ(w.max_work_added_percent, 2.5);
  EXPECT_EQ(w.score_expect, "10.000");
  EXPECT_EQ(w.origin, path_ + ":2");
  EXPECT_EQ(suite.dir, RealPath(dir_.path()));
  EXPECT_FALSE(suite.workloads[1].score_pattern.has_value());
}

TEST_F(SuiteTest, SelectsWorkloadsByName) {
  Suite suite;
  std::string err;
  ASSERT_TRUE(LoadSuite(Write(kGood), &suite, &err));
  EXPECT_FALSE(SelectWorkloads(&suite, {"nope"}, &err));
  // The names there are, so the user need not open the file.
  EXPECT_NE(err.find("no workload named 'nope'; its workloads are 'fib', 'plain'"),
            std::string::npos)
      << err;
  ASSERT_TRUE(SelectWorkloads(&suite, {"plain"}, &err));
  ASSERT_EQ(suite.workloads.size(), 1u);
  EXPECT_EQ(suite.workloads[0].name, "plain");
}

TEST_F(SuiteTest, AnUnknownNameInALongSuiteListsTheFirstTwentyAndCountsTheRest) {
  std::string text;
  for (int i = 0; i < 25; ++i) {
    text += "[[workload]]\nname = \"w" + std::to_string(i) +
            "\"\ncommand = [\"{exe}\"]\nclock = \"none\"\n";
  }
  Suite suite;
  std::string err;
  ASSERT_TRUE(LoadSuite(Write(text), &suite, &err)) << err;
  EXPECT_FALSE(SelectWorkloads(&suite, {"w99"}, &err));
  EXPECT_NE(err.find("'w18', 'w19' and 5 more"), std::string::npos) << err;
  EXPECT_EQ(err.find("'w20'"), std::string::npos) << err;
}

TEST(AdHocCommandTest, TheBuildIsArgvZeroUnlessAnArgumentNamesIt) {
  EXPECT_EQ(AdHocCommand({"--size", "10"}), (std::vector<std::string>{"{exe}", "--size", "10"}));
  EXPECT_EQ(AdHocCommand({}), (std::vector<std::string>{"{exe}"}));
  EXPECT_EQ(AdHocCommand({"/usr/bin/python3", "{exe}/bench.py"}),
            (std::vector<std::string>{"/usr/bin/python3", "{exe}/bench.py"}));
  EXPECT_FALSE(NamesTheBuild({"a", "{suite_dir}/b"}));
  EXPECT_TRUE(NamesTheBuild({"--in={exe}"}));
}

TEST(WorkloadNameTest, AnAdHocNameIsOneLineOfAtMost200Bytes) {
  std::string err;
  EXPECT_TRUE(CheckWorkloadName("sort", &err));
  EXPECT_TRUE(CheckWorkloadName("sort 10⁶ `x`", &err));
  EXPECT_TRUE(CheckWorkloadName(std::string(200, 'a'), &err));
  EXPECT_FALSE(CheckWorkloadName("", &err));
  EXPECT_EQ(err, "a workload's name cannot be empty");
  EXPECT_FALSE(CheckWorkloadName(std::string(201, 'a'), &err));
  EXPECT_EQ(err, "a workload's name is at most 200 bytes; this one has 201");
  EXPECT_FALSE(CheckWorkloadName("a\nb", &err));
  EXPECT_EQ(err, "a workload's name cannot hold control characters (byte 0x0a)");
  EXPECT_FALSE(CheckWorkloadName("a\x1b[31m", &err));
}

TEST_F(SuiteTest, ErrorsNameFileLineAndKey) {
  std::string err = LoadError("[[workload]]\nname = \"a\"\ncomand = [\"{exe}\"]\nclock = \"none\"\n");
  EXPECT_NE(err.find("suite.toml:3: workload 'a': key 'comand' is not known"), std::string::npos)
      << err;
  err = LoadError("[[workload]]\nname = \"a\"\nclock = \"none\"\n");
  EXPECT_NE(err.find("suite.toml:1: workload 'a': missing key 'command'"), std::string::npos)
      << err;
  err = LoadError("[[workload]]\nname = \"a\"\ncommand = [\"{exe}\"]\nclock = \"none\"\ntimeout = \"5\"\n");
  EXPECT_NE(err.find(":5: workload 'a': key 'timeout' must be a number in (0, 604800] (seconds)"),
            std::string::npos)
      << err;
  err = LoadError("[[workload]]\nname = \"a\"\ncommand = [\"./prog\"]\nclock = \"none\"\n");
  EXPECT_NE(err.find(":3: workload 'a': key 'command' must use {exe}"), std::string::npos) << err;
  err = LoadError("[[workload]]\nname = \"a\"\ncommand = [\"{exe}\"]\nclock = \"fake\"\n");
  EXPECT_NE(err.find(":4: workload 'a': key 'clock' is 'fake'"), std::string::npos) << err;
}

TEST_F(SuiteTest, ScorePatternsAreChecked) {
  const std::string head = "[[workload]]\nname = \"a\"\ncommand = [\"{exe}\"]\nclock = \"env\"\n";
  std::string err = LoadError(head);
  EXPECT_NE(err.find("missing table 'score'"), std::string::npos) << err;
  err = LoadError(head + "[workload.score]\npattern = 'score: [0-9.]+'\nexpect = \"1\"\n");
  EXPECT_NE(err.find(":6: workload 'a': key 'score.pattern': the pattern must have exactly one "
                     "capture group, it has 0"),
            std::string::npos) << err;
  err = LoadError(head + "[workload.score]\npattern = 'score: ([0-9.]+'\nexpect = \"1\"\n");
  EXPECT_NE(err.find("not a valid regular expression"), std::string::npos) << err;
  err = LoadError(head + "[workload.score]\npattern = '(score): ([0-9.]+)'\nexpect = \"1\"\n");
  EXPECT_NE(err.find("suite.toml:6: workload 'a': key 'score.pattern': the pattern must have "
                     "exactly one capture group, it has 2"),
            std::string::npos)
      << err;
  err = LoadError(head + "[workload.score]\nexpect = \"1\"\npattern = '(a)\\1'\n");
  EXPECT_NE(err.find("suite.toml:7: workload 'a': key 'score.pattern': not a valid regular "
                     "expression (RE2 syntax)"),
            std::string::npos)
      << err;
  err = LoadError(head + "[workload.score]\npattern = '(x)'\nexpect = 10\n");
  EXPECT_NE(err.find(":7: workload 'a': key 'score.expect' must be a string"), std::string::npos)
      << err;
}

TEST_F(SuiteTest, APreviousScoreIsAStringThatDiffersFromTheExpectedOne) {
  const std::string head =
      "[[workload]]\nname = \"a\"\ncommand = [\"{exe}\"]\nclock = \"env\"\n"
      "[workload.score]\npattern = 'score: ([0-9.]+)'\nexpect = \"1200\"\n";
  Suite suite;
  std::string err;
  ASSERT_TRUE(LoadSuite(Write(head + "previous = \"1000\"\n"), &suite, &err)) << err;
  ASSERT_EQ(suite.workloads.size(), 1u);
  EXPECT_EQ(suite.workloads[0].score_expect, "1200");
  EXPECT_EQ(suite.workloads[0].score_previous, "1000");
  ASSERT_TRUE(LoadSuite(Write(head), &suite, &err)) << err;
  EXPECT_EQ(suite.workloads.back().score_previous, std::nullopt);

  err = LoadError(head + "previous = 1000\n");
  EXPECT_NE(err.find("suite.toml:8: workload 'a': key 'score.previous' must be a string"),
            std::string::npos)
      << err;
  // The same number written otherwise is the same score: nothing changed.
  err = LoadError(head + "previous = \"1200.0\"\n");
  EXPECT_NE(err.find("suite.toml:8: workload 'a': key 'score.previous' is '1200.0', the score "
                     "'score.expect' asserts already"),
            std::string::npos)
      << err;
  err = LoadError(head + "was = \"1000\"\n");
  EXPECT_NE(err.find("suite.toml:8: workload 'a': key 'score.was' is not known (known: pattern, "
                     "expect, previous)"),
            std::string::npos)
      << err;
}

// The expected scores say what a run must print, not what it runs: a change
// that edits them keeps the workload's directory (WorkDirKey) and its
// definition's digest, so a stored baseline of the old score still compares.
TEST_F(SuiteTest, TheExpectedScoresAreNoPartOfTheDefinition) {
  const std::string head =
      "[[workload]]\nname = \"a\"\ncommand = [\"{exe}\"]\nclock = \"env\"\n"
      "[workload.score]\npattern = 'score: ([0-9.]+)'\n";
  auto load = [this](const std::string& text) {
    Suite suite;
    std::string err;
    EXPECT_TRUE(LoadSuite(Write(text), &suite, &err)) << err;
    return suite.workloads.empty() ? Workload{} : suite.workloads[0];
  };
  const Workload before = load(head + "expect = \"1000\"\n");
  const Workload after = load(head + "expect = \"1200\"\nprevious = \"1000\"\n");
  EXPECT_EQ(before.Canonical(), after.Canonical());
  EXPECT_EQ(WorkDirKey(before, "/s"), WorkDirKey(after, "/s"));
  std::string digests[2], err;
  ASSERT_TRUE(WorkloadDigest(before, "/s", &digests[0], &err)) << err;
  ASSERT_TRUE(WorkloadDigest(after, "/s", &digests[1], &err)) << err;
  EXPECT_EQ(digests[0], digests[1]);
  // The pattern decides which text is the score: it stays in the definition.
  const Workload other = load(
      "[[workload]]\nname = \"a\"\ncommand = [\"{exe}\"]\nclock = "
      "\"env\"\n[workload.score]\npattern = 'result: ([0-9.]+)'\n"
      "expect = \"1000\"\n");
  EXPECT_NE(before.Canonical(), other.Canonical());
}

TEST_F(SuiteTest, NumbersMustBeFiniteAndInRange) {
  const std::string head = "[[workload]]\nname = \"a\"\ncommand = [\"{exe}\"]\nclock = \"none\"\n";
  // nan turned the timeout off; inf and 1e300 timed out at once; nan as the
  // margin made every verdict inconclusive.
  for (const char* bad :
       {"nan", "+inf", "-inf", "1e300", "0", "-5", "604801", "9223372036854775807"}) {
    std::string err = LoadError(head + "timeout = " + bad + "\n");
    EXPECT_NE(err.find("suite.toml:5: workload 'a': key 'timeout' must be a number in (0, "
                       "604800] (seconds), not "),
              std::string::npos)
        << bad << ": " << err;
  }
  for (const char* bad : {"nan", "inf", "-0.5", "1000.5", "1e300"}) {
    std::string err = LoadError(head + "max_work_added = " + bad + "\n");
    EXPECT_NE(err.find("suite.toml:5: workload 'a': key 'max_work_added' must be a number in "
                       "[0, 1000] (percent), not "),
              std::string::npos)
        << bad << ": " << err;
  }
  EXPECT_NE(LoadError(head + "timeout = nan\n").find("not nan"), std::string::npos);
  EXPECT_NE(LoadError(head + "timeout = true\n").find("key 'timeout' must be a number in"),
            std::string::npos);
  Suite suite;
  std::string err;
  ASSERT_TRUE(LoadSuite(Write(head + "timeout = 604800\nmax_work_added = 0\n"), &suite, &err))
      << err;
  ASSERT_EQ(suite.workloads.size(), 1u);
  EXPECT_EQ(suite.workloads[0].timeout_seconds, 604800);
  EXPECT_EQ(suite.workloads[0].max_work_added_percent, 0.0);
  ASSERT_TRUE(LoadSuite(Write(head + "timeout = 0.5\nmax_work_added = 1000\n"), &suite, &err))
      << err;
}

TEST_F(SuiteTest, AFileThatIsNoSuiteSaysWhy) {
  Suite suite;
  std::string err;
  EXPECT_FALSE(LoadSuite(dir_.path(), &suite, &err));
  EXPECT_EQ(err, "the suite " + dir_.path() + " is a directory, not a file");
  EXPECT_FALSE(LoadSuite(dir_.path() + "/none.toml", &suite, &err));
  EXPECT_EQ(err, "the suite " + dir_.path() + "/none.toml does not exist");
  EXPECT_FALSE(LoadSuite("/dev/null", &suite, &err));
  EXPECT_EQ(err, "the suite /dev/null is a device, not a regular file");
  std::string big(kMaxSuiteBytes + 1, '#');
  EXPECT_FALSE(LoadSuite(Write(big), &suite, &err));
  EXPECT_NE(err.find("is too large"), std::string::npos) << err;
}

TEST_F(SuiteTest, ParsesFromText) {
  Suite suite;
  std::string err;
  ASSERT_TRUE(ParseSuite(kGood, "mem.toml", &suite, &err)) << err;
  EXPECT_EQ(suite.workloads.size(), 2u);
  EXPECT_EQ(suite.workloads[0].origin, "mem.toml:2");
  EXPECT_FALSE(ParseSuite("[[workload]]\nname = 1\n", "mem.toml", &suite, &err));
  EXPECT_EQ(err, "mem.toml:2: workload: key 'name' must be a string");
}

TEST_F(SuiteTest, SyntaxErrorsAndDuplicatesAreReported) {
  std::string err = LoadError("[[workload]]\nname = \"a\nclock = 1\n");
  EXPECT_NE(err.find("suite.toml:2:"), std::string::npos) << err;
  err = LoadError(std::string(kGood) + "[[workload]]\nname = \"fib\"\ncommand = [\"{exe}\"]\n"
                                       "clock = \"none\"\n");
  EXPECT_NE(err.find("'fib' is used twice"), std::string::npos) << err;
  err = LoadError("title = 3\n");
  EXPECT_NE(err.find("key 'title' is not known"), std::string::npos) << err;
}

TEST_F(SuiteTest, AllowLeftoverIsABooleanAndOffByDefault) {
  Suite suite;
  std::string err;
  ASSERT_TRUE(LoadSuite(Write("[[workload]]\nname = \"d\"\ncommand = [\"{exe}\"]\n"
                              "clock = \"none\"\nallow_leftover = true\n"
                              "[[workload]]\nname = \"e\"\ncommand = [\"{exe}\"]\n"
                              "clock = \"none\"\n"),
                        &suite, &err))
      << err;
  ASSERT_EQ(suite.workloads.size(), 2u);
  EXPECT_TRUE(suite.workloads[0].allow_leftover);
  EXPECT_FALSE(suite.workloads[1].allow_leftover);
  // It is part of the definition a stored baseline was counted under; a
  // workload without it keeps the digest it had.
  EXPECT_NE(suite.workloads[0].Canonical().find("allow_leftover=true"), std::string::npos);
  EXPECT_EQ(suite.workloads[1].Canonical().find("allow_leftover"), std::string::npos);
  const std::string bad = LoadError(
      "[[workload]]\nname = \"d\"\ncommand = [\"{exe}\"]\nclock = \"none\"\n"
      "allow_leftover = \"yes\"\n");
  EXPECT_NE(bad.find("suite.toml:5: workload 'd': key 'allow_leftover' must be true or false"),
            std::string::npos)
      << bad;
}

}  // namespace
}  // namespace workgate
