// An ad hoc workload (`compare -- ARGS`) as a user meets it: named with
// --name, its command line in every report (no suite file records it), once,
// and the messages that say what to give instead; and a suite's workloads,
// each with its command as the suite gives it.

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_fixture.h"
#include "report/summary.h"

namespace workgate {
namespace {

TEST_F(CountingCliTest, AnAdHocWorkloadIsNamedAndItsCommandIsInEveryReport) {
  LaunchResult r = Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA,
                        "--candidate", kKnownWorkB, "--timed", "0", "--no-store", "--name",
                        "loop 10^5", "--json", "r.json", "--markdown", "r.md", "--", "100000"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // The terminal: the name in the table, and what it ran.
  EXPECT_NE(r.out.find("loop 10^5 runs: {exe} 100000  ({exe} is each side's build)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nloop 10^5 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("command"), std::string::npos) << "the default name is still shown\n"
                                                      << r.out;
  // The JSON: the name, and the argv as it ran.
  const nlohmann::json j = ReadJson("r.json");
  EXPECT_EQ(j["workloads"][0]["name"], "loop 10^5");
  EXPECT_EQ(j["settings"]["command"], nlohmann::json::array({"{exe}", "100000"}));
  EXPECT_EQ(j["workloads"][0]["command"], j["settings"]["command"]);
  EXPECT_TRUE(j["settings"]["suite"].is_null());
  // The comment: both as code spans.
  const std::optional<std::string> md = ReadFile(Path("r.md"));
  ASSERT_TRUE(md);
  EXPECT_NE(md->find("`loop 10^5` runs `{exe} 100000` (`{exe}` is each side's build)."),
            std::string::npos)
      << *md;
  // Shown once in each: no list of the workloads' commands repeats it.
  for (const std::string* text : std::vector<const std::string*>{&r.out, &*md}) {
    const size_t first = text->find("{exe} 100000");
    EXPECT_EQ(text->find("{exe} 100000", first + 1), std::string::npos) << *text;
    EXPECT_EQ(text->find("How each workload runs"), std::string::npos) << *text;
  }
}

TEST_F(CountingCliTest, WithoutANameTheWorkloadIsCommandAndASuiteShowsEachWorkloadsCommand) {
  LaunchResult r =
      Run({"compare", "--backend", kExactBackend, "--baseline", kKnownWorkA, "--candidate",
           kKnownWorkA, "--timed", "0", "--no-store", "--json", "r.json", "--", "1000"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(ReadJson("r.json")["workloads"][0]["name"], "command");
  EXPECT_NE(r.out.find("command runs: {exe} 1000"), std::string::npos) << r.out;

  const std::string file = testing::SourcePath("tests/cli/testdata/known_work_suite.toml");
  LaunchResult suite = Run({"compare",     "--backend", kExactBackend, "--baseline", kKnownWorkA,
                            "--candidate", kKnownWorkA, "--timed",     "0",          "--no-store",
                            "--suite",     file,        "--workload",  "size-1000",  "--workload",
                            "size-2000",   "--json",    "s.json",      "--markdown", "s.md"});
  EXPECT_EQ(suite.exit_code, 0) << suite.out << suite.err;
  // No ad hoc command line: each workload's command, as the suite gives it.
  const nlohmann::json j = ReadJson("s.json");
  EXPECT_EQ(j["settings"]["command"], nlohmann::json::array());
  EXPECT_EQ(j["workloads"][0]["command"], nlohmann::json::array({"{exe}", "1000"}));
  EXPECT_EQ(j["workloads"][1]["command"], nlohmann::json::array({"{exe}", "2000"}));
  EXPECT_EQ(suite.out.find(" runs: "), std::string::npos) << suite.out;
  EXPECT_NE(suite.out.find("How each workload runs ({exe} is each side's build):\n"
                           "  size-1000  {exe} 1000\n"
                           "  size-2000  {exe} 2000\n"),
            std::string::npos)
      << suite.out;
  const std::optional<std::string> md = ReadFile(Path("s.md"));
  ASSERT_TRUE(md);
  EXPECT_NE(md->find("<details><summary>How each workload runs</summary>\n\n"
                     "- `size-1000`: `{exe} 1000`\n"
                     "- `size-2000`: `{exe} 2000`\n\n"
                     "`{exe}` is each side's build.\n</details>\n"),
            std::string::npos)
      << *md;
}

TEST_F(CliTest, ANameIsForAnAdHocWorkloadAndMustBeOneShortLine) {
  LaunchResult with_suite =
      Run({"compare", "--baseline", "/bin/true", "--candidate", "/bin/true", "--suite",
           testing::SourcePath("tests/cli/testdata/known_work_suite.toml"), "--name", "x"});
  EXPECT_EQ(with_suite.exit_code, 2);
  EXPECT_NE(with_suite.err.find("--name names the ad hoc workload of -- ARGS; a suite names its "
                                "own"),
            std::string::npos)
      << with_suite.err;
  for (const std::string& bad : {std::string(""), std::string("a\nb"), std::string(201, 'n')}) {
    LaunchResult r = Run({"compare", "--baseline", "/bin/true", "--candidate", "/bin/true",
                          "--name", bad, "--", "x"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("a workload's name"), std::string::npos) << r.err;
  }
}

TEST_F(CliTest, AnUnknownWorkloadNamesTheOnesThereAre) {
  LaunchResult r =
      Run({"compare", "--baseline", "/bin/true", "--candidate", "/bin/true", "--suite",
           testing::SourcePath("tests/cli/testdata/known_work_suite.toml"), "--workload", "sort"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no workload named 'sort'; its workloads are 'size-1000', 'size-2000', "
                       "'wide-margin', 'size-4000', 'wrong-score', 'size-6000'"),
            std::string::npos)
      << r.err;
}

TEST_F(CountingCliTest, ARelativeFileTheProgramCannotFindIsExplained) {
  LaunchResult r =
      Run({"compare", "--backend", kExactBackend, "--baseline", "/bin/cat", "--candidate",
           "/bin/cat", "--timed", "0", "--no-store", "--json", "r.json", "--", "data.txt"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const std::string reason = ReadJson("r.json")["workloads"][0]["reason"];
  EXPECT_NE(reason.find("the program's output mentions data.txt, a relative path, and a "
                        "workload runs in an empty private "
                        "directory, not where workgate started: give it as an absolute path "
                        "(\"$PWD/data.txt\")"),
            std::string::npos)
      << reason;
}

TEST_F(CliTest, ABuildThatCannotRunIsRefusedBeforeAnythingRuns) {
  // A folder, and a file without execute permission, given as the build:
  // refused up front with the path given, never Valgrind's error about
  // workgate's private `exe` link.
  LaunchResult folder = Run({"compare", "--baseline", "/bin/true", "--candidate", dir_.path(),
                             "--timed", "0", "--", "x"});
  EXPECT_EQ(folder.exit_code, 3);
  EXPECT_NE(folder.err.find("Error: the build " + dir_.path() +
                            " is a directory, and workload 'command' runs {exe} as its program"),
            std::string::npos)
      << folder.err;
  EXPECT_EQ(folder.err.find("/exe"), std::string::npos) << folder.err;
  std::ofstream(Path("prog")) << "\x7f"
                                 "ELF";
  LaunchResult plain = Run({"compare", "--baseline", Path("prog"), "--candidate", "/bin/true",
                            "--timed", "0", "--", "x"});
  EXPECT_EQ(plain.exit_code, 3);
  EXPECT_NE(plain.err.find("is not executable (mode 06"), std::string::npos) << plain.err;
}

TEST(CommandLineTextTest, QuotesWhatAShellWouldSplitOrExpand) {
  EXPECT_EQ(CommandLineText({"{exe}", "--size=1000", "a/b.lua"}), "{exe} --size=1000 a/b.lua");
  EXPECT_EQ(CommandLineText({"{exe}", "two words", "", "$HOME", "it's"}),
            "{exe} 'two words' '' '$HOME' 'it'\\''s'");
}

}  // namespace
}  // namespace workgate
