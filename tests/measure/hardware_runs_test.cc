#include "measure/hardware_runs.h"

#include <gtest/gtest.h>

#include "report/format.h"
#include "report/simulated_text.h"

namespace workgate {
namespace {

EventCount Reading(const std::string& event, uint64_t value, uint64_t running = 100) {
  EventCount c;
  c.event = event;
  c.value = value;
  c.time_enabled = 100;
  c.time_running = running;
  return c;
}

TEST(HardwareEventsTest, EachEventAfterThePrimaryAsRead) {
  const HardwareEvents h = HardwareEventsOf(
      {Reading("instructions:u", 1000), Reading("branch-misses:u", 50),
       Reading("cache-misses:u", 7, 60)},
      {Reading("instructions:u", 1100), Reading("branch-misses:u", 20),
       Reading("cache-misses:u", 9)});
  EXPECT_EQ(h.note, "");
  ASSERT_EQ(h.events.size(), 2u);
  EXPECT_EQ(h.events[0].event, "branch-misses:u");
  EXPECT_EQ(h.events[0].baseline, 50u);
  EXPECT_EQ(h.events[0].candidate, 20u);
  EXPECT_FALSE(h.events[0].multiplexed());
  // Ran 60% of the time on the baseline: kept as read, never scaled.
  EXPECT_EQ(h.events[1].baseline, 7u);
  EXPECT_TRUE(h.events[1].baseline_multiplexed);
  EXPECT_FALSE(h.events[1].candidate_multiplexed);
  EXPECT_TRUE(h.events[1].multiplexed());
}

TEST(HardwareEventsTest, RunsThatReadOtherEventsGiveANote) {
  for (const auto& [baseline, candidate] :
       {std::pair{std::vector{Reading("i", 1), Reading("a", 2)},
                  std::vector{Reading("i", 1), Reading("b", 2)}},
        std::pair{std::vector{Reading("i", 1), Reading("a", 2)}, std::vector{Reading("i", 1)}},
        std::pair{std::vector{Reading("i", 1)}, std::vector{Reading("i", 1)}}}) {
    const HardwareEvents h = HardwareEventsOf(baseline, candidate);
    EXPECT_TRUE(h.events.empty());
    EXPECT_EQ(h.note, "the two runs did not read the same events");
  }
}

TEST(HardwareEventsTest, TheSentenceComparesOnlyWhatRanAllTheTime) {
  WorkloadResult w;
  EXPECT_EQ(HardwareEventsSentence(w, Minus::kAscii), "");
  w.hardware = HardwareEvents{{{"branch-misses:u", 50'000, 30'000, false, false},
                               {"cache-misses:u", 10, 10, false, false},
                               {"cycles:u", 0, 12, false, false},
                               {"LLC-misses:u", 5, 9, false, true}},
                              ""};
  EXPECT_EQ(HardwareEventsSentence(w, Minus::kAscii),
            "hardware events (perf, one more run of each side on this machine; context, not the "
            "verdict): branch-misses:u -40.00%, cache-misses:u unchanged, cycles:u +12, "
            "LLC-misses:u not compared (multiplexed; never scaled)");
  w.hardware = HardwareEvents{{}, "perf_event_open(branch-misses:u) failed: No such device"};
  EXPECT_EQ(HardwareEventsSentence(w, Minus::kAscii),
            "hardware events not shown: perf_event_open(branch-misses:u) failed: No such device");
}

}  // namespace
}  // namespace workgate
