// The order of a comparison's timed runs, and the runner that keeps their
// samples, driven by a runner that reads no clock.

#include "measure/timed_runs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace workgate {
namespace {

// "a b | B A ..." : warm-ups in upper case, a workload's window after '|'.
std::string Text(const std::vector<TimedSlot>& schedule) {
  std::string out;
  size_t last = SIZE_MAX;
  for (const TimedSlot& s : schedule) {
    if (s.workload != last && last != SIZE_MAX) out += "|";
    last = s.workload;
    char c = s.baseline ? 'a' : 'b';
    out += s.warm_up ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

TEST(TimedRunsTest, PairsAlternateAcrossTheWholeRun) {
  EXPECT_EQ(Text(TimedSchedule({0}, 4, true)), "ABabbaabba");
  // Odd pairs: the alternation carries on into the next workload, so the
  // pair left over starts with the baseline in one and the candidate in the
  // next.
  EXPECT_EQ(Text(TimedSchedule({0, 1}, 3, true)), "ABabbaab|ABbaabba");
  EXPECT_EQ(Text(TimedSchedule({2}, 1, true)), "ABab");
  EXPECT_EQ(Text(TimedSchedule({0}, 2, false)), "Bbb");  // a stored baseline
  EXPECT_TRUE(TimedSchedule({0}, 0, true).empty());
  EXPECT_TRUE(TimedSchedule({}, 5, true).empty());
}

TEST(TimedRunsTest, ALinearDriftOverTheRunAddsTheSameToBothSides) {
  // Each side's runs sit symmetrically: the sums of their positions agree,
  // per workload with an even number of pairs, and over the run with an odd one.
  auto positions = [](const std::vector<TimedSlot>& schedule, size_t workload) {
    long a = 0, b = 0;
    for (size_t i = 0; i < schedule.size(); ++i) {
      const TimedSlot& s = schedule[i];
      if (s.warm_up || (workload != SIZE_MAX && s.workload != workload)) continue;
      // Within a pair, the drift between its two runs is what the ratio sees.
      (s.baseline ? a : b) += static_cast<long>(i);
    }
    return b - a;
  };
  const std::vector<TimedSlot> even = TimedSchedule({0, 1, 2}, 6, true);
  for (size_t w = 0; w < 3; ++w) EXPECT_EQ(positions(even, w), 0) << w;
  const std::vector<TimedSlot> odd = TimedSchedule({0, 1}, 5, true);
  EXPECT_EQ(positions(odd, 0), 1);   // its left-over pair is AB
  EXPECT_EQ(positions(odd, 1), -1);  // and the next workload's is BA
  EXPECT_EQ(positions(odd, SIZE_MAX), 0);
}

TEST(TimedRunsTest, SamplesKeepTheirSlotsAndWarmUpsAreDiscarded) {
  const std::vector<TimedSlot> schedule = TimedSchedule({0, 1}, 2, true);
  std::vector<WorkloadResult> results(2);
  std::vector<std::string> errors(2);
  int runs = 0;
  RunTimedSchedule(
      schedule,
      [&runs](const TimedSlot& slot, std::string*) {
        ++runs;
        return TimedSample{std::nullopt, slot.baseline ? 1.0 : 2.0, -1};
      },
      &results, &errors);
  EXPECT_EQ(runs, 12);
  auto slots = [](const SideResult& side) {
    std::vector<int> out;
    for (const TimedSample& t : side.timed) out.push_back(t.slot);
    return out;
  };
  EXPECT_EQ(slots(results[0].baseline), (std::vector<int>{2, 5}));
  EXPECT_EQ(slots(results[0].candidate), (std::vector<int>{3, 4}));
  EXPECT_EQ(slots(results[1].baseline), (std::vector<int>{8, 11}));
  EXPECT_EQ(results[1].candidate.timed[0].wall_seconds, 2.0);
  EXPECT_EQ(errors, (std::vector<std::string>{"", ""}));
}

TEST(TimedRunsTest, AFailedRunEndsItsWorkloadAndLeavesTheOthers) {
  const std::vector<TimedSlot> schedule = TimedSchedule({0, 1}, 3, true);
  std::vector<WorkloadResult> results(2);
  std::vector<std::string> errors(2);
  int runs_of_0 = 0;
  RunTimedSchedule(
      schedule,
      [&runs_of_0](const TimedSlot& slot, std::string* err) {
        if (slot.workload == 0 && ++runs_of_0 == 5) *err = "exited with status 1";
        return TimedSample{};
      },
      &results, &errors);
  EXPECT_EQ(runs_of_0, 5);  // nothing of it ran after the failure
  EXPECT_TRUE(results[0].baseline.timed.empty());
  EXPECT_TRUE(results[0].candidate.timed.empty());
  EXPECT_EQ(errors[0], "timed candidate run: exited with status 1");  // slot 4: BA's B
  EXPECT_EQ(results[1].baseline.timed.size(), 3u);
  EXPECT_EQ(errors[1], "");
}

}  // namespace
}  // namespace workgate
