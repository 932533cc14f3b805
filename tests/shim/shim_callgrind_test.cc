// Programs we do not own, counted under callgrind through the clock shim:
// three runs of each must retire exactly the same number of instructions.
// The runs of one test go in parallel (callgrind costs 20-50x).

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <future>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "explain/explain.h"
#include "report/terminal_report.h"
#include "shim/child_process.h"
#include "test_requirements.h"

namespace workgate::shim_test {
namespace {

constexpr int kRuns = 3;

/// The total from callgrind's "==PID== Collected : N" line on stderr.
std::optional<uint64_t> CollectedInstructions(const std::string& err) {
  static const std::regex collected(R"(==[0-9]+== Collected : ([0-9]+))");
  std::smatch m;
  if (!std::regex_search(err, m, collected)) return std::nullopt;
  return std::stoull(m[1].str());
}

class ShimCallgrindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(access("/usr/bin/valgrind", X_OK) == 0, "valgrind is not installed");
    char tmpl[] = "/tmp/workgate-shim-cg-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    out_dir_ = tmpl;
  }
  void TearDown() override {
    if (!out_dir_.empty()) std::filesystem::remove_all(out_dir_);
  }

  /// Runs `command` under callgrind kRuns times at once, each with the same
  /// environment, working directory and ASLR off; returns the results.
  std::vector<ChildResult> CountRuns(const std::vector<std::string>& command,
                                     const std::vector<std::string>& env) {
    std::vector<std::future<ChildResult>> runs;
    for (int i = 0; i < kRuns; ++i) {
      // The output file's name reaches Valgrind only, not the program.
      std::vector<std::string> argv = {
          "/usr/bin/valgrind", "--tool=callgrind",
          "--callgrind-out-file=" + out_dir_ + "/run" + std::to_string(i) + ".out"};
      argv.insert(argv.end(), command.begin(), command.end());
      runs.push_back(std::async(std::launch::async,
                                [argv, env] { return RunChild(argv, env, FixedWorkDir(), 240); }));
    }
    std::vector<ChildResult> results;
    for (auto& run : runs) results.push_back(run.get());
    return results;
  }

  /// Expects every run to succeed, print `expected_out` and retire the same
  /// number of instructions; returns that number. When two runs differ, their
  /// callgrind files are kept (under build/kept-profiles/) and the failure
  /// shows workgate's own per-function diff of them: where the runs parted.
  uint64_t ExpectIdenticalCounts(const std::vector<ChildResult>& results,
                                 const std::string& expected_out) {
    std::optional<uint64_t> first;
    for (size_t i = 0; i < results.size(); ++i) {
      const ChildResult& r = results[i];
      EXPECT_FALSE(r.timed_out);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, expected_out);
      std::optional<uint64_t> count = CollectedInstructions(r.err);
      EXPECT_TRUE(count.has_value()) << r.err;
      if (!count) continue;
      if (!first) first = count;
      EXPECT_EQ(*count, *first) << WhereRunsParted(0, i);
    }
    return first.value_or(0);
  }

  /// Keeps the callgrind files of runs `a` and `b` and diffs them per
  /// function, as `compare` explains a delta.
  std::string WhereRunsParted(size_t a, size_t b) {
    namespace fs = std::filesystem;
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    const fs::path kept = fs::path(WORKGATE_BUILD_DIR) / "kept-profiles" / name;
    std::error_code ec;
    fs::create_directories(kept, ec);
    std::vector<std::string> files[2];
    for (size_t i : {a, b}) {
      const std::string file = "run" + std::to_string(i) + ".out";
      fs::copy_file(fs::path(out_dir_) / file, kept / file, fs::copy_options::overwrite_existing,
                    ec);
      files[i == a ? 0 : 1].push_back(kept / file);
    }
    WorkloadResult w;
    w.name = name;
    w.explanation = ExplainCallgrindOutputs(files[0], files[1], 20);
    if (!w.explanation->error.empty())
      return "profiles kept in " + kept.string() + ": " + w.explanation->error;
    return "profiles kept in " + kept.string() + "; run " + std::to_string(b) + " against run " +
           std::to_string(a) + ":\n" + RenderExplanation(w);
  }

  std::string out_dir_;
};

// Python seeds its hash secret from getrandom and sizes timeit's loop from
// the clock; with both pinned the count repeats exactly. Measured here it
// does so without a new PID namespace as well (pid 1 under `unshare --pid
// --fork` gave the same count as ordinary pids), so the test needs no root.
TEST_F(ShimCallgrindTest, PythonTimeitCountsTheSameEveryRun) {
  WORKGATE_REQUIRE_TOOL(access("/usr/bin/python3", X_OK) == 0, "/usr/bin/python3 is not installed");
  std::vector<ChildResult> results =
      CountRuns({"/usr/bin/python3", "-m", "timeit", "sum(range(1000))"}, PinnedEnv());
  uint64_t count = ExpectIdenticalCounts(results, "1 loop, best of 5: 1 sec per loop\n");
  RecordProperty("instructions", std::to_string(count));
}

// Lua seeds its string hash from time() and addresses, and the script sizes
// its rounds from os.clock(); with the clock pinned and ASLR off the count
// repeats exactly.
TEST_F(ShimCallgrindTest, LuaScriptCountsTheSameEveryRun) {
  WORKGATE_REQUIRE_TOOL(access("/usr/bin/lua5.4", X_OK) == 0, "/usr/bin/lua5.4 is not installed");
  const std::string script = WORKGATE_SOURCE_DIR "/workloads/foreign/strings.lua";
  std::vector<ChildResult> results = CountRuns({"/usr/bin/lua5.4", script}, PinnedEnv());
  // A deliberate golden: the script's output as lua5.4 printed it under the
  // pinned clock when the test was written. The date and the single round
  // follow from the shim's clock (start 2020-01-01, one second a reading);
  // the checksum is Lua's own. A change means the script, the pinned clock
  // or Lua itself changed.
  uint64_t count = ExpectIdenticalCounts(
      results, "started: 2020-01-01 00:00:02\nrounds: 1\nchecksum: 2090518\n");
  RecordProperty("instructions", std::to_string(count));
}

}  // namespace
}  // namespace workgate::shim_test
