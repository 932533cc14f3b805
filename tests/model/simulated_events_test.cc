#include "model/simulated_events.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace workgate {
namespace {

// Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
SimulatedCosts Costs() { return {200, 100, 10, 20, 30, 1, 2, 3, 50, 7, 5, 2}; }

TEST(SimulatedEventsTest, TheDerivedFiguresAddTheirEvents) {
  EXPECT_EQ(MispredictedBranches(Costs()), 9u);
  EXPECT_EQ(L1Misses(Costs()), 60u);
  EXPECT_EQ(LastLevelMisses(Costs()), 6u);
}

TEST(SimulatedEventsTest, EstimatedCyclesWeighHitsMissesAndMispredictions) {
  // 1000 instructions + 300 data accesses: 1240 L1 hits, 54 LL hits, 6
  // memory accesses, 9 mispredictions.
  EXPECT_EQ(EstimatedCycles(1000, Costs()), 1240u * 1 + 54u * 5 + 6u * 35 + 9u * 15);
}

TEST(SimulatedEventsTest, ForgedEventsSaturateRatherThanWrap) {
  SimulatedCosts huge = {};
  huge.fill(UINT64_MAX);
  EXPECT_EQ(EstimatedCycles(UINT64_MAX, huge), UINT64_MAX);
  // More misses than accesses: no negative hits.
  SimulatedCosts misses = {};
  misses[2] = 100;  // I1mr
  EXPECT_EQ(EstimatedCycles(10, misses), 100u * 5);
}

TEST(SimulatedEventsTest, FiguresAndTheirDeltas) {
  const auto figures = SimulatedFigures({1000, Costs()}, {1100, {}});
  ASSERT_EQ(figures.size(), 5u);
  EXPECT_STREQ(figures[0].key, "instructions");
  EXPECT_EQ(figures[0].delta(), 100);
  EXPECT_EQ(figures[1].delta(), -9);
  EXPECT_EQ(SimulatedFigure({"x", "x", UINT64_MAX, 0}).delta(), -INT64_MAX);
}

TEST(SimulatedEventsTest, CostsByNameNeedEveryEventAndNoOther) {
  std::map<std::string, uint64_t> named = SimulatedCostsByName(Costs());
  EXPECT_EQ(SimulatedCostsOf(named), Costs());
  named.erase("Bim");
  EXPECT_FALSE(SimulatedCostsOf(named).has_value());
  named["Ir"] = 1;
  EXPECT_FALSE(SimulatedCostsOf(named).has_value());
}

TEST(SimulatedEventsTest, MetricNames) {
  Metric m = Metric::kInstructions;
  EXPECT_TRUE(ParseMetric("estimated-cycles", &m));
  EXPECT_EQ(m, Metric::kEstimatedCycles);
  EXPECT_FALSE(ParseMetric("cycles", &m));
  EXPECT_STREQ(MetricName(Metric::kInstructions), "instructions");
}

}  // namespace
}  // namespace workgate
