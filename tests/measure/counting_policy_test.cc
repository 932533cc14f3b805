// The counting policies that live below the command line: how many counts a
// comparison and a recorded suite count take on each backend, and when a
// comparison checks stability (measure/comparison.h, measure/suite_count.h).

#include <gtest/gtest.h>

#include "measure/comparison.h"
#include "measure/suite_count.h"
#include "model/backend.h"

namespace workgate {
namespace {

TEST(CountingPolicyTest, AComparisonCountsOnceOnAnExactBackendAndThriceOnPerf) {
  EXPECT_EQ(ComparisonRepeats(Backend::kVgcount, 0), 1);
  EXPECT_EQ(ComparisonRepeats(Backend::kCallgrind, 0), 1);
  EXPECT_EQ(ComparisonRepeats(Backend::kPerf, 0), 3);
  // --repeat wins on every backend.
  EXPECT_EQ(ComparisonRepeats(Backend::kPerf, 1), 1);
  EXPECT_EQ(ComparisonRepeats(Backend::kVgcount, 5), 5);
}

TEST(CountingPolicyTest, ASavedBaselineLearnsWhetherItRepeats) {
  EXPECT_EQ(ComparisonStability(StabilityMode::kAuto, true), StabilityMode::kAlways);
  EXPECT_EQ(ComparisonStability(StabilityMode::kAuto, false), StabilityMode::kAuto);
  // An explicit choice stands.
  EXPECT_EQ(ComparisonStability(StabilityMode::kNever, true), StabilityMode::kNever);
}

TEST(CountingPolicyTest, ARecordedBuildIsCountedTwiceWhereCountsAreExact) {
  EXPECT_EQ(SuiteCountRepeats(Backend::kVgcount, 1, true), 2);
  EXPECT_EQ(SuiteCountRepeats(Backend::kCallgrind, 3, true), 3);
  EXPECT_EQ(SuiteCountRepeats(Backend::kVgcount, 1, false), 1);
  // perf's counts vary: a second one says nothing of whether they repeat.
  EXPECT_EQ(SuiteCountRepeats(Backend::kPerf, 1, true), 1);
}

TEST(CountingPolicyTest, EveryBackendHasOneNameAndItsTraits) {
  for (const BackendTraits& traits : kBackends) {
    EXPECT_EQ(ParseBackend(traits.name), traits.backend);
    EXPECT_EQ(BackendName(traits.backend), traits.name);
    EXPECT_EQ(IsExactBackend(traits.name), traits.exact);
  }
  EXPECT_FALSE(ParseBackend(""));
  EXPECT_FALSE(ParseBackend("Perf"));
  EXPECT_FALSE(IsExactBackend("unknown"));
  EXPECT_TRUE(TraitsOf(Backend::kVgcount).sees_inputs);
  EXPECT_FALSE(TraitsOf(Backend::kCallgrind).sees_inputs);
  EXPECT_FALSE(TraitsOf(Backend::kPerf).keeps_profiles);
}

}  // namespace
}  // namespace workgate
