// End-to-end tests of where the real workgate binary puts its reports: every
// JSON document carries a schema_version, and an output that cannot be
// written (a full disk under stdout or the step summary) is exit 5 with the
// reason, never a silently truncated report.

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
  EXPECT_EQ(ReadJson("count.json")["schema_version"], 3);

  const std::string suite = SourcePath("tests/cli/testdata/known_work.toml");
  LaunchResult suite_count = Run({"count", "--backend", "callgrind", "--suite", suite, "--exe",
                                  kKnownWorkA, "--workload", "work", "--json", "suite.json"});
  ASSERT_EQ(suite_count.exit_code, 0) << suite_count.out << suite_count.err;
  nlohmann::json s = ReadJson("suite.json");
  EXPECT_EQ(s["schema_version"], 3);
  EXPECT_EQ(s["workloads"][0]["unstable"], false);

  LaunchResult explain = Run({"explain", "--baseline", kKnownWorkA, "--candidate", kKnownWorkB,
                              "--suite", suite, "--workload", "work", "--json", "explain.json"});
  ASSERT_EQ(explain.exit_code, 0) << explain.out << explain.err;
  nlohmann::json e = ReadJson("explain.json");
  EXPECT_EQ(e["schema_version"], 1);
  EXPECT_EQ(e["workloads"][0]["explanation"]["total_delta"], 1000000);

  LaunchResult compare = Run({"compare", "--backend", "callgrind", "--baseline", kKnownWorkA,
                              "--candidate", kKnownWorkA, "--timed", "0", "--json", "compare.json",
                              "--save-baseline", "base.json", "--", "1000"});
  ASSERT_EQ(compare.exit_code, 0) << compare.out << compare.err;
  EXPECT_EQ(ReadJson("compare.json")["schema_version"], 5);  // 5: what the candidate could reach
  EXPECT_EQ(ReadJson("base.json")["schema_version"], 1);
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
