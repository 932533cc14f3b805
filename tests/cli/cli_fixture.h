#pragma once
// The fixture of the end-to-end tests: the real workgate binary, run in a
// private directory with a fixed environment, as a user would run it.

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "counter/valgrind_counter.h"
#include "launch/launch.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {

/// The backend the tests name wherever they assert exact counts: under
/// `auto`, a host with a PMU counts with perf, whose counts jitter.
#ifdef WORKGATE_VGCOUNT_BUILT
inline const std::string kExactBackend = "vgcount";
#else
inline const std::string kExactBackend = "callgrind";
#endif

/// workgate as a user runs it. Needs nothing but the build: usage errors,
/// --help, suites that do not parse.
class CliTest : public ::testing::Test {
 protected:
  LaunchResult Run(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    LaunchSpec spec;
    spec.argv = {testing::WorkgateBin()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = env.empty() ? MinimalEnvironment(dir_.path()) : env;
    spec.cwd = dir_.path();
    spec.timeout_seconds = 240;
    return Launch(spec);
  }
  nlohmann::json ReadJson(const std::string& name) {
    auto text = ReadFile(dir_.path() + "/" + name);
    EXPECT_TRUE(text.has_value()) << name;
    return nlohmann::json::parse(text.value_or("null"));
  }
  std::string Path(const std::string& name) { return dir_.path() + "/" + name; }
  TempDir dir_;
};

/// The tests that count: they need Valgrind, which ci/setup installs.
class CountingCliTest : public CliTest {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
  }
};

/// probes/known_work's two builds: b retires exactly 1,000,000 instructions more.
inline const std::string kKnownWorkA = testing::BuildPath("probes/known_work_a");
inline const std::string kKnownWorkB = testing::BuildPath("probes/known_work_b");
/// A program whose count depends on the real clock (tests/measure/testdata/jitter.c).
inline const std::string kJitter = testing::BuildPath("tests/jitter_workload");

/// Comparisons of kKnownWorkA against kKnownWorkB on the six workloads of
/// tests/cli/testdata/known_work_suite.toml (work added, passing under a
/// wide margin, invalid).
class KnownWorkSuiteTest : public CountingCliTest {
 protected:
  /// compare with `extra`, exact counts, no timed runs, no result store
  /// (the tests compare whole runs' reports, which the store's hits would
  /// change: tests/cli/store_cli_test.cc tests the store).
  LaunchResult Compare(std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "compare",   "--backend", kExactBackend, "--baseline", kKnownWorkA, "--candidate",
        kKnownWorkB, "--suite",   kSuite,        "--timed",    "0",       "--no-store"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }
  const std::string kSuite = testing::SourcePath("tests/cli/testdata/known_work_suite.toml");
};

}  // namespace workgate
