// The progress status's text: what is done of the plan, what runs, and the
// time the rest will take at the pace so far.
#include "cli/progress.h"

#include <gtest/gtest.h>

namespace workgate {
namespace {

using std::chrono::seconds;

TEST(ProgressStatusTest, SaysWhatIsDoneWhatRunsAndWhatIsLeft) {
  EXPECT_EQ(ProgressStatus(0, 4, "workloads", {"fib  baseline  counting"}, seconds(20)),
            "0/4 workloads done; fib  baseline  counting");
  // One of four in 20 s: three more take about 60 s at that pace.
  EXPECT_EQ(ProgressStatus(1, 4, "workloads", {"a  counting", "b  counting"}, seconds(20)),
            "1/4 workloads done; a  counting, b  counting; about 1 min 00 s left");
  EXPECT_EQ(ProgressStatus(3, 4, "workloads", {}, seconds(90)),
            "3/4 workloads done; about 30 s left");
  // All done: nothing is left to estimate.
  EXPECT_EQ(ProgressStatus(4, 4, "workloads", {"timed run"}, seconds(90)),
            "4/4 workloads done; timed run");
  // A command with no plan shows what runs only.
  EXPECT_EQ(ProgressStatus(0, 0, "", {"timed self-test"}, seconds(5)), "timed self-test");
}

}  // namespace
}  // namespace workgate
