// wgmark: pinned runs do fixed work and print a fixed score, unpinned runs
// calibrate from the clock, and a corrupted result fails the run.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "run_program.h"
#include "test_requirements.h"

namespace workgate::testing {
namespace {

const std::string kWgmark = WorkloadBinary("wgmark");

// The value of a "key: value" line of wgmark's output, or "" when absent.
std::string Field(const std::string& out, const std::string& key) {
  std::smatch m;
  std::regex re("(^|\n)" + key + ": ([^\n]*)");
  return std::regex_search(out, m, re) ? m[2].str() : "";
}

class WgmarkTest : public ::testing::Test {
 protected:
  void SetUp() override { WORKGATE_ASSERT_BUILT(kWgmark); }
};

TEST_F(WgmarkTest, PinnedRunPrintsTheSameFixedScoreEveryTime) {
  ProgramResult first = RunProgram({kWgmark}, {"WORKGATE_FIXED_CLOCK=1"});
  ProgramResult second = RunProgram({kWgmark}, {"WORKGATE_FIXED_CLOCK=1"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(first.out, second.out);
  EXPECT_EQ(Field(first.out, "score"), "10.000");
  EXPECT_EQ(Field(first.out, "iterations"), "100");
  EXPECT_EQ(Field(first.out, "total iterations"), "110");
  EXPECT_EQ(Field(first.out, "clock reads"), "4");
  // The suite's pattern finds exactly this score.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(first.out, m, std::regex("score: ([0-9.]+)")));
  EXPECT_EQ(m[1].str(), "10.000");
}

TEST_F(WgmarkTest, WorkMultiplierScalesPinnedIterationsAndKeepsTheScore) {
  ProgramResult by_env = RunProgram({kWgmark}, {"WORKGATE_FIXED_CLOCK=1", "WGMARK_WORK=3"});
  ProgramResult by_arg = RunProgram({kWgmark, "--work", "3"}, {"WORKGATE_FIXED_CLOCK=1"});
  ASSERT_EQ(by_env.exit_code, 0) << by_env.err;
  EXPECT_EQ(by_env.out, by_arg.out);
  EXPECT_EQ(Field(by_env.out, "iterations"), "300");
  EXPECT_EQ(Field(by_env.out, "total iterations"), "330");
  EXPECT_EQ(Field(by_env.out, "score"), "10.000");
}

TEST_F(WgmarkTest, UnpinnedRunCalibratesFromTheClockItReads) {
  // Unpinned, wgmark reads clock_gettime(CLOCK_MONOTONIC); the clock shim
  // answers from a table, so the calibration is known without a real clock.
  // Each round reads the clock before and after its iterations:
  //   round 1: 10 iterations, 1000.00 s to 1000.05 s: 0.05 s, under 0.1 s,
  //            so ten times as many;
  //   round 2: 100 iterations, 1000.05 s to 1000.55 s: 0.5 s, so
  //            100 * 1.25 s / 0.5 s + 1 = 251;
  //   round 3: 251 iterations, 1000.55 s to 1002.05 s: 1.5 s, at least a
  //            second, so it is the measured one: 251 / 1.5 s.
  const std::string shim = std::string(WORKGATE_BUILD_DIR) + "/libworkgate-clock.so";
  WORKGATE_ASSERT_BUILT(shim);
  ProgramResult r = RunProgram(
      {kWgmark}, {"LD_PRELOAD=" + shim, "WORKGATE_CLOCK_TABLE=0,0.05,0.05,0.55,0.55,2.05"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Field(r.out, "fixed clock"), "no");
  EXPECT_EQ(Field(r.out, "iterations"), "251");
  EXPECT_EQ(Field(r.out, "total iterations"), std::to_string(10 + 100 + 251));
  EXPECT_EQ(Field(r.out, "clock reads"), "6");
  EXPECT_EQ(Field(r.out, "seconds"), "1.500");
  EXPECT_EQ(Field(r.out, "score"), "167.333");
}

TEST_F(WgmarkTest, CorruptedResultFailsValidation) {
  ProgramResult r = RunProgram({kWgmark}, {"WORKGATE_FIXED_CLOCK=1", "WGMARK_FLIP_BIT=1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("validation failed"), std::string::npos) << r.err;
  EXPECT_EQ(Field(r.out, "score"), "");
}

TEST_F(WgmarkTest, RejectsABadWorkMultiplier) {
  EXPECT_EQ(RunProgram({kWgmark, "--work", "0"}, {}).exit_code, 2);
  EXPECT_EQ(RunProgram({kWgmark}, {"WGMARK_WORK=lots"}).exit_code, 2);
  EXPECT_EQ(RunProgram({kWgmark, "--bogus"}, {}).exit_code, 2);
}

}  // namespace
}  // namespace workgate::testing
