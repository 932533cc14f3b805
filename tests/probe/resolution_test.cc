// The probe's resolution measurement: the arithmetic on counts given here,
// and the real known loop under Valgrind (perf only where it counts).

#include "probe/resolution.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "counter/factory.h"
#include "probe/machine_probe.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

TEST(ResolutionTest, ExactCountsGiveTwoPerIterationAndNoSpread) {
  Resolution r =
      ResolutionFromCounts("callgrind", {200'107, 200'107, 200'107}, {400'107, 400'107, 400'107});
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.backend, "callgrind");
  EXPECT_EQ(r.per_iteration, 2.0);
  EXPECT_EQ(r.spread, 0u);
  EXPECT_TRUE(r.exact());
}

TEST(ResolutionTest, PerIterationComesFromTheMediansAndSpreadFromTheWorseSize) {
  // Unsorted, as the repeats came: medians 200,110 and 400,130.
  Resolution r =
      ResolutionFromCounts("perf", {200'150, 200'100, 200'110}, {400'130, 400'131, 400'129});
  ASSERT_TRUE(r.ok);
  EXPECT_DOUBLE_EQ(r.per_iteration, 200'020.0 / 100'000);
  EXPECT_EQ(r.spread, 50u);
  EXPECT_FALSE(r.exact());
  EXPECT_EQ(r.small, (std::vector<uint64_t>{200'100, 200'110, 200'150}));
}

TEST(ResolutionTest, NoCountsIsAFailureNotACrash) {
  Resolution r = ResolutionFromCounts("vgcount", {}, {400'000});
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.exact());
  EXPECT_FALSE(r.error.empty());
}

TEST(ResolutionTest, ForkedCountsAreSplitBySizeWhateverTheChildrensOrder) {
  // Pids that wrapped put the sizes out of turn; the parent is first by
  // identity, not because it counts least.
  for (uint64_t parent : {0ull, 900'000ull}) {
    std::vector<uint64_t> small, large;
    std::string err;
    ASSERT_TRUE(SplitForkedCounts({parent, 400'107, 200'107, 400'108, 200'107, 400'107, 200'109},
                                  &small, &large, &err))
        << err;
    EXPECT_EQ(small, (std::vector<uint64_t>{200'107, 200'107, 200'109})) << parent;
    EXPECT_EQ(large, (std::vector<uint64_t>{400'107, 400'107, 400'108})) << parent;
  }
}

TEST(ResolutionTest, AMissingProcessIsAnError) {
  std::vector<uint64_t> small, large;
  std::string err;
  EXPECT_FALSE(SplitForkedCounts({0, 200'107, 400'107}, &small, &large, &err));
  EXPECT_EQ(err, "expected 7 processes, 3 counted");
}

TEST(ResolutionTest, CallgrindCountsTheKnownLoopExactly) {
  WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
  Resolution r = MeasureValgrindResolution(testing::KnownLoop(), ValgrindCounter::Tool::kCallgrind);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.backend, "callgrind");
  EXPECT_EQ(r.small.size(), 3u);
  EXPECT_EQ(r.large.size(), 3u);
  EXPECT_EQ(r.per_iteration, 2.0);
  EXPECT_EQ(r.spread, 0u);
}

TEST(ResolutionTest, ValgrindThatCannotRunTheLoopSaysWhy) {
  WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
  Resolution r =
      MeasureValgrindResolution("/nonexistent/known_loop", ValgrindCounter::Tool::kCallgrind);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.backend, "callgrind");
  EXPECT_FALSE(r.error.empty());
}

TEST(ResolutionTest, PerfCountsTheKnownLoopWhereItCounts) {
  PerfCheck check = CheckPerf(kDefaultPerfEvent, GatherSystemInfo(LibpfmPmus::kNotListed));
  if (!check.ok) GTEST_SKIP() << "perf cannot count here: " << check.reason;
  Resolution r = MeasurePerfResolution(testing::KnownLoop(), kDefaultPerfEvent);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.backend, "perf");
  // A PMU may count a few interrupts' worth of instructions more in one run.
  EXPECT_NEAR(r.per_iteration, 2.0, 0.01);
}

TEST(MachineProbeTest, AMissingKnownLoopIsAFailedResolution) {
  ProbeReport p = ProbeMachine(kDefaultPerfEvent, "");
  ASSERT_EQ(p.resolutions.size(), 1u);
  EXPECT_FALSE(p.resolutions[0].ok);
  // Where it was looked for: the build tree's place and the installed one.
  EXPECT_EQ(p.resolutions[0].error,
            "probes/known_loop not found beside workgate (looked for " + SelfDirectory() +
                "/probes/known_loop or " +
                std::filesystem::path(SelfDirectory()).parent_path().string() +
                "/lib/workgate/known_loop)");
  EXPECT_EQ(p.resolutions[0].backend, p.auto_choice.backend);
}

TEST(MachineProbeTest, EveryBackendThatCanRunIsMeasured) {
  WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
  ProbeReport p = ProbeMachine(kDefaultPerfEvent, testing::KnownLoop());
  EXPECT_EQ(p.exit_code, kExitPass);
  EXPECT_FALSE(p.auto_choice.backend.empty());
  EXPECT_EQ(p.events, kDefaultPerfEvent);
  EXPECT_EQ(p.valgrind.path, FindValgrind().path);
  std::vector<std::string> expected;
  if (p.perf.ok) expected.push_back("perf");
  expected.push_back("callgrind");
  if (p.vgcount.unusable.empty()) expected.push_back("vgcount");
  std::vector<std::string> measured;
  for (const Resolution& r : p.resolutions) {
    measured.push_back(r.backend);
    ASSERT_TRUE(r.ok) << r.backend << ": " << r.error;
    if (r.backend != "perf") {
      EXPECT_TRUE(r.exact()) << r.backend;
    }
  }
  EXPECT_EQ(measured, expected);
}

}  // namespace
}  // namespace workgate
