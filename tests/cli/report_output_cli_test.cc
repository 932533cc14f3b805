// End-to-end tests of where the real workgate binary puts its reports: every
// JSON document carries a schema_version, and an output that cannot be
// written (a full disk under stdout or the step summary) is exit 5 with the
// reason, never a silently truncated report, whichever command wrote it.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_fixture.h"
#include "test_paths.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::KnownLoop;
using testing::SourcePath;
using testing::WorkgateBin;

class ReportOutputCliTest : public CountingCliTest {
 protected:
  // workgate with `args`, its stdout sent to /dev/full by the shell.
  LaunchResult RunIntoFullDisk(const std::string& args,
                               std::map<std::string, std::string> env = {}) {
    LaunchSpec spec;
    spec.argv = {"/bin/sh", "-c", "exec \"$0\" " + args + " >/dev/full", WorkgateBin()};
    spec.env = MinimalEnvironment(dir_.path());
    for (const auto& [k, v] : env) spec.env[k] = v;
    spec.cwd = dir_.path();
    spec.timeout_seconds = 240;
    return Launch(spec);
  }
};

TEST_F(ReportOutputCliTest, EveryJsonDocumentHasASchemaVersion) {
  LaunchResult probe = Run({"probe", "--json", "probe.json"});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  EXPECT_EQ(ReadJson("probe.json")["schema_version"], 1);

  LaunchResult count =
      Run({"count", "--backend", "callgrind", "--json", "count.json", "--", KnownLoop(), "1000"});
  ASSERT_EQ(count.exit_code, 0) << count.err;
  EXPECT_EQ(ReadJson("count.json")["schema_version"], 4);  // 4: a suite workload's metric

  const std::string suite = SourcePath("tests/cli/testdata/known_work.toml");
  LaunchResult suite_count = Run({"count", "--backend", "callgrind", "--suite", suite, "--exe",
                                  kKnownWorkA, "--workload", "work", "--json", "suite.json"});
  ASSERT_EQ(suite_count.exit_code, 0) << suite_count.out << suite_count.err;
  nlohmann::json s = ReadJson("suite.json");
  EXPECT_EQ(s["schema_version"], 4);
  EXPECT_EQ(s["workloads"][0]["unstable"], false);

  LaunchResult explain = Run({"explain", "--baseline", kKnownWorkA, "--candidate", kKnownWorkB,
                              "--suite", suite, "--workload", "work", "--json", "explain.json"});
  ASSERT_EQ(explain.exit_code, 0) << explain.out << explain.err;
  nlohmann::json e = ReadJson("explain.json");
  EXPECT_EQ(e["schema_version"], 4);  // 4: simulated events, renames, line marks
  EXPECT_EQ(e["workloads"][0]["explanation"]["total_delta"], 1000000);

  LaunchResult compare = Run({"compare", "--backend", "callgrind", "--baseline", kKnownWorkA,
                              "--candidate", kKnownWorkA, "--timed", "0", "--json", "compare.json",
                              "--save-baseline", "base.json", "--", "1000"});
  ASSERT_EQ(compare.exit_code, 0) << compare.out << compare.err;
  EXPECT_EQ(ReadJson("compare.json")["schema_version"], 10);  // 10: each workload's command
  EXPECT_EQ(ReadJson("base.json")["schema_version"], 2);      // 2: profiles
}

TEST_F(ReportOutputCliTest, AFullDiskUnderStdoutIsExitFiveNotATruncatedTable) {
  LaunchResult r =
      RunIntoFullDisk("compare --backend callgrind --baseline " + kKnownWorkA + " --candidate " +
                      kKnownWorkA + " --timed 0 --json c.json -- 1000");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("cannot write the report to standard output: No space left on device"),
            std::string::npos)
      << r.err;

  LaunchResult text = RunIntoFullDisk("probe");
  EXPECT_EQ(text.exit_code, 5) << text.err;
  EXPECT_NE(text.err.find("cannot write the probe to standard output"), std::string::npos)
      << text.err;

  LaunchResult probe = RunIntoFullDisk("probe --json -");
  EXPECT_EQ(probe.exit_code, 5) << probe.err;
  EXPECT_NE(probe.err.find("cannot write the probe's JSON to standard output"), std::string::npos)
      << probe.err;
}

// How many errors `err` says.
size_t ErrorsSaid(const std::string& err) {
  size_t n = 0;
  for (size_t at = err.find("Error:"); at != std::string::npos; at = err.find("Error:", at + 1)) {
    ++n;
  }
  return n;
}

// That `r` exited 5 saying that `what` could not be written to standard
// output on a full disk, and that it said so once (`errors`: all it said).
void ExpectLostOnFullDisk(const LaunchResult& r, const std::string& what, size_t errors = 1) {
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(
      r.err.find("Error: cannot write " + what + " to standard output: No space left on device\n"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(ErrorsSaid(r.err), errors) << r.err;
}

// count prints as it goes, the counted command's own output first: whatever
// is lost, the command ends with exit 5 and says once what was lost and why,
// whatever code it would have returned.
TEST_F(ReportOutputCliTest, ACountThatCannotReachStdoutIsExitFive) {
  const std::string count = "count --backend " + kExactBackend + " ";
  ExpectLostOnFullDisk(RunIntoFullDisk(count + "-- /bin/true"), "the count");
  ExpectLostOnFullDisk(RunIntoFullDisk(count + "-- /bin/echo hello"),
                       "the counted command's output");
  // An invalid count (exit 3, with its reason) whose output is lost: 5.
  LaunchResult failing = RunIntoFullDisk(count + "-- /bin/false");
  ExpectLostOnFullDisk(failing, "the count", 2);
  EXPECT_NE(failing.err.find("Error: no valid count"), std::string::npos) << failing.err;
  // The JSON on standard output, the text on standard error: the JSON's
  // write reports the loss itself, and main does not say it again.
  LaunchResult json = RunIntoFullDisk(count + "--json - -- /bin/echo hello");
  ExpectLostOnFullDisk(json, "the count's JSON");
  EXPECT_NE(json.err.find("  | hello"), std::string::npos) << json.err;
}

TEST_F(ReportOutputCliTest, EveryOtherCommandThatCannotReachStdoutIsExitFive) {
  const std::string suite = SourcePath("tests/cli/testdata/known_work.toml");
  const struct {
    std::string args, what;
  } cases[] = {
      {"history --store " + Path("none.sqlite3"), "the history"},
      {"explain --baseline " + kKnownWorkA + " --candidate " + kKnownWorkB + " --suite " + suite +
           " --workload work",
       "the explanations"},
      {"merge " + SourcePath("tests/report/testdata/part_1_of_3.json"), "the report"},
      {"probe --merge " + SourcePath("tests/report/testdata/probe_runner.json"), "the probe table"},
      {"selftest --timed --pairs 6 --iterations 1000", "the self-test"},
      {"--help", "the help"},
      {"count --help", "the help"},
      {"--version", "the version"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    ExpectLostOnFullDisk(RunIntoFullDisk(c.args), c.what);
  }
}

TEST_F(ReportOutputCliTest, AReaderThatWentAwayIsExitFiveNotADeathBySigpipe) {
  // The reader closes its end at once; the probe measures for a second or
  // more before it writes, so its write meets a pipe with no reader.
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "{ \"$0\" probe --json -; echo \"exit $?\" >&2; } | exec 0<&-",
               WorkgateBin()};
  spec.env = MinimalEnvironment(dir_.path());
  spec.cwd = dir_.path();
  spec.timeout_seconds = 240;
  LaunchResult r = Launch(spec);
  EXPECT_NE(r.err.find("cannot write the probe's JSON to standard output: Broken pipe"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("exit 5"), std::string::npos) << r.err;
}

TEST_F(ReportOutputCliTest, AFullStepSummaryIsExitFive) {
  LaunchResult r = Run({"compare", "--backend", "callgrind", "--baseline", kKnownWorkA,
                        "--candidate", kKnownWorkA, "--timed", "0", "--github", "--", "1000"},
                       [&] {
                         auto env = MinimalEnvironment(dir_.path());
                         env["GITHUB_STEP_SUMMARY"] = "/dev/full";
                         return env;
                       }());
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_NE(r.err.find("cannot append to /dev/full: No space left on device"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace workgate
