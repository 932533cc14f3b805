#include "counter/perf_counter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "counter/factory.h"
#include "probe/system_info.h"
#include "test_paths.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::KnownLoop;

// The perf backend's plumbing is tested through a software event, which
// needs no PMU and takes exactly the same code path as instructions:u.
constexpr const char* kSoftwareEvent = "perf::page-faults";

class PerfSoftwareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PerfCheck check = CheckPerf(kSoftwareEvent, GatherSystemInfo());
    if (!check.ok) GTEST_SKIP() << "perf_event_open refuses even software events: " << check.reason;
  }
  CountedRun Count(const std::string& events, std::vector<std::string> argv, bool region = false) {
    PerfCounter counter(events);
    LaunchSpec spec;
    spec.argv = std::move(argv);
    spec.env = MinimalEnvironment("/tmp");
    spec.timeout_seconds = 60;
    CountOptions options;
    options.region = region;
    return counter.Run(spec, options);
  }
};

TEST(PerfEncodingTest, EncodesUserSpaceInstructionsWithLibpfm4) {
  std::vector<PerfEventSpec> specs;
  std::string err;
  ASSERT_TRUE(EncodePerfEvents("instructions:u,perf::task-clock", &specs, &err)) << err;
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].attr.type, PERF_TYPE_HARDWARE);
  EXPECT_EQ(specs[0].attr.config, PERF_COUNT_HW_INSTRUCTIONS);
  EXPECT_EQ(specs[0].attr.exclude_kernel, 1u);
  EXPECT_EQ(specs[0].attr.exclude_user, 0u);
  EXPECT_EQ(specs[0].attr.inherit, 1u);
  EXPECT_EQ(specs[1].attr.type, PERF_TYPE_SOFTWARE);
}

TEST(PerfEncodingTest, RejectsAnUnknownEventByName) {
  std::vector<PerfEventSpec> specs;
  std::string err;
  EXPECT_FALSE(EncodePerfEvents("instructions:u,no-such-event", &specs, &err));
  EXPECT_NE(err.find("no-such-event"), std::string::npos) << err;
}

TEST(PerfReadTest, ParsesValueAndTimes) {
  uint64_t raw[3] = {1234, 1000, 800};
  PerfReadValues v;
  ASSERT_TRUE(ParsePerfRead(raw, sizeof raw, &v));
  EXPECT_EQ(v.value, 1234u);
  EXPECT_EQ(v.time_enabled, 1000u);
  EXPECT_EQ(v.time_running, 800u);
  EventCount c{"x", v.value, v.time_enabled, v.time_running};
  EXPECT_TRUE(c.multiplexed());
  EXPECT_FALSE(ParsePerfRead(raw, 16, &v));
}

TEST_F(PerfSoftwareTest, CountsAChildAndReportsEnabledAndRunningTimes) {
  CountedRun run = Count(kSoftwareEvent, {KnownLoop(), "1000"});
  ASSERT_TRUE(run.valid()) << run.error;
  EXPECT_GT(*run.instructions(), 10u);  // an exec'd dynamic program faults in its pages
  EXPECT_GT(run.events[0].time_enabled, 0u);
  EXPECT_EQ(run.events[0].time_running, run.events[0].time_enabled);  // software: never multiplexed
}

TEST_F(PerfSoftwareTest, InheritCountsTheWholeProcessTree) {
  // region_probe's units each fault one fresh page: 2000 in a child that
  // the shell forks must show up in the shell's count.
  const std::string probe = BuildPath("workloads/region_probe");
  if (access(probe.c_str(), X_OK) != 0) GTEST_SKIP() << "region_probe not built";
  CountedRun alone = Count(kSoftwareEvent, {"/bin/sh", "-c", "true"});
  CountedRun tree = Count(kSoftwareEvent, {"/bin/sh", "-c", probe + " 2000 0; true"});
  ASSERT_TRUE(alone.valid() && tree.valid()) << alone.error << tree.error;
  EXPECT_GT(*tree.instructions(), *alone.instructions() + 1900);
}

TEST_F(PerfSoftwareTest, EnableOnExecLeavesTheLauncherOut) {
  // In region mode the counter is not enabled at exec: a program that never
  // marks a region counts exactly nothing, which shows the kernel, not
  // workgate's own set-up, decides when counting starts.
  CountedRun region = Count(kSoftwareEvent, {KnownLoop(), "1000"}, /*region=*/true);
  ASSERT_TRUE(region.valid()) << region.error;
  EXPECT_EQ(*region.instructions(), 0u);
}

TEST_F(PerfSoftwareTest, RegionMarkersEnableAndDisableTheCounter) {
  const std::string probe = BuildPath("workloads/region_probe");
  if (access(probe.c_str(), X_OK) != 0) GTEST_SKIP() << "region_probe not built";
  CountedRun outside = Count(kSoftwareEvent, {probe, "3000", "10"}, true);
  CountedRun inside = Count(kSoftwareEvent, {probe, "10", "3000"}, true);
  ASSERT_TRUE(outside.valid() && inside.valid()) << outside.error << inside.error;
  // 3000 page faults of set-up outside the region are not counted...
  EXPECT_LT(*outside.instructions(), 500u);
  // ...and 3000 inside it are.
  EXPECT_GE(*inside.instructions(), 3000u);
}

TEST_F(PerfSoftwareTest, SeveralEventsInOneRun) {
  CountedRun run = Count("perf::page-faults,perf::task-clock,perf::context-switches",
                         {KnownLoop(), "1000000"});
  ASSERT_TRUE(run.valid()) << run.error;
  ASSERT_EQ(run.events.size(), 3u);
  EXPECT_EQ(run.events[1].event, "perf::task-clock");
  EXPECT_GT(run.events[1].value, 0u);
}

TEST_F(PerfSoftwareTest, AFailedRunHasNoCount) {
  CountedRun run = Count(kSoftwareEvent, {KnownLoop(), "--exit", "3"});
  EXPECT_FALSE(run.valid());
  EXPECT_NE(run.error.find("status 3"), std::string::npos);
}

TEST(PerfHardwareTest, CountsTheKnownLoopExactlyWhereAPmuExists) {
  SystemInfo info = GatherSystemInfo();
  PerfCheck check = CheckPerf(kDefaultPerfEvent, info);
  if (!check.ok) GTEST_SKIP() << "perf cannot count instructions:u here: " << check.reason;
  PerfCounter counter(kDefaultPerfEvent);
  auto count = [&](const std::string& n) {
    LaunchSpec spec;
    spec.argv = {KnownLoop(), n};
    spec.env = MinimalEnvironment("/tmp");
    return *counter.Run(spec, {}).instructions();
  };
  const int64_t delta = static_cast<int64_t>(count("3000000")) - static_cast<int64_t>(count("1000000"));
  EXPECT_NEAR(delta, 4000000, 2000);
}

}  // namespace
}  // namespace workgate
