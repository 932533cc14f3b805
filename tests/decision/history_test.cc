// The history analysis on records written by hand: steps, cumulative change,
// breaks, the window, drift and the noise floor, each figure derived here.

#include "decision/history.h"

#include <gtest/gtest.h>

#include <cmath>

namespace workgate {
namespace {

// A record of `workload` on vgcount, recorded on day `day` of December 2026.
HistoryRecord Record(const std::string& ref, int day, std::vector<uint64_t> counts,
                     const std::string& workload = "interp/fib") {
  HistoryRecord r;
  r.ref = ref;
  r.recorded_at =
      "2026-12-" + std::string(day < 10 ? "0" : "") + std::to_string(day) + "T10:00:00Z";
  r.workload = workload;
  r.backend = "vgcount";
  r.event = "Ir";
  r.counts = std::move(counts);
  r.conditions = "c1";
  r.condition_parts = {{"valgrind", "valgrind-3.19.0"}, {"workgate", "0.1.0"}};
  return r;
}

// One record per count, refs "c0", "c1", ..., a day apart.
std::vector<HistoryRecord> Series(const std::vector<uint64_t>& values) {
  std::vector<HistoryRecord> out;
  for (size_t i = 0; i < values.size(); ++i) {
    out.push_back(Record("c" + std::to_string(i), static_cast<int>(i) + 1, {values[i]}));
  }
  return out;
}

WorkloadHistory Only(const std::vector<HistoryRecord>& records, size_t window) {
  std::vector<WorkloadHistory> all = AnalyzeHistory(records, window);
  EXPECT_EQ(all.size(), 1u);
  return all.empty() ? WorkloadHistory{} : all[0];
}

TEST(HistoryTest, TenStepsOfEightTenthsUnderAOnePercentMarginAreDrift) {
  std::vector<uint64_t> values;
  for (int i = 0; i <= 10; ++i) values.push_back(std::llround(1e9 * std::pow(1.008, i)));
  const WorkloadHistory h = Only(Series(values), 11);
  ASSERT_EQ(h.points.size(), 11u);
  EXPECT_FALSE(h.points[0].step);
  EXPECT_FALSE(h.points[0].cumulative);
  for (size_t i = 1; i < 11; ++i) {
    ASSERT_TRUE(h.points[i].step) << i;
    EXPECT_NEAR(*h.points[i].step, 0.008, 1e-9) << i;
    EXPECT_NEAR(*h.points[i].cumulative, std::pow(1.008, i) - 1, 1e-9) << i;
  }
  ASSERT_TRUE(h.cumulative);
  EXPECT_NEAR(*h.cumulative, 0.0829423, 1e-6);  // 1.008^10 - 1
  EXPECT_EQ(h.margin, 0.01);
  EXPECT_FALSE(h.step_crossed);
  EXPECT_TRUE(h.drift);
  EXPECT_FALSE(h.noise_floor);  // vgcount's counts are exact
  EXPECT_EQ(h.noise_differences, 0u);
}

TEST(HistoryTest, OneStepOverTheMarginIsCrossedNotDrift) {
  const WorkloadHistory h = Only(Series({1'000'000, 1'000'000, 1'012'000, 1'012'000}), 10);
  ASSERT_TRUE(h.points[2].step);
  EXPECT_DOUBLE_EQ(*h.points[2].step, 0.012);
  EXPECT_TRUE(h.step_crossed);
  EXPECT_FALSE(h.drift);
  EXPECT_DOUBLE_EQ(*h.cumulative, 0.012);
}

TEST(HistoryTest, StepsOverTheMarginAreListedOldestFirst) {
  // c2: +1.2% (over), c3: +0.5% (under), c4: -2% (over), c5: +0.5%.
  const WorkloadHistory h =
      Only(Series({1'000'000, 1'000'000, 1'012'000, 1'017'060, 996'718, 1'001'702}), 10);
  EXPECT_EQ(h.steps, (std::vector<size_t>{2, 4}));
  EXPECT_TRUE(h.step_crossed);
  EXPECT_FALSE(h.rise);
  EXPECT_FALSE(h.fall);
  EXPECT_FALSE(h.drift);
}

TEST(HistoryTest, CreepBeforeALaterImprovementIsARiseAndDrift) {
  // Five commits of +0.6% (+3.04% in all), then one of -4%: the window's
  // net change is -1.07%, but the creep before the improvement is work added
  // no gate saw.
  std::vector<uint64_t> values;
  for (int i = 0; i <= 5; ++i) values.push_back(std::llround(1e9 * std::pow(1.006, i)));
  values.push_back(std::llround(values.back() * 0.96));
  const WorkloadHistory h = Only(Series(values), 10);
  ASSERT_TRUE(h.cumulative);
  EXPECT_NEAR(*h.cumulative, std::pow(1.006, 5) * 0.96 - 1, 1e-9);
  EXPECT_LT(*h.cumulative, -0.01);
  EXPECT_EQ(h.steps, (std::vector<size_t>{6}));
  ASSERT_TRUE(h.rise);
  EXPECT_EQ(h.rise->from, 0u);
  EXPECT_EQ(h.rise->to, 5u);
  EXPECT_NEAR(h.rise->change, std::pow(1.006, 5) - 1, 1e-9);
  EXPECT_TRUE(h.rise->beyond_noise);
  EXPECT_FALSE(h.fall);  // the -4% is a step, not a fall within a run
  EXPECT_TRUE(h.drift);
}

TEST(HistoryTest, ARunIsBoundedByTheStepsOverTheMargin) {
  // +0.6%, +0.6%, then a +5% step, then +0.55%, +0.55%: the runs rise
  // 1.2036% and 1.1031%, but the rise across the step is the step's.
  const std::vector<uint64_t> values = {1'000'000, 1'006'000, 1'012'036,
                                        1'062'638, 1'068'483, 1'074'360};
  const WorkloadHistory h = Only(Series(values), 10);
  EXPECT_EQ(h.steps, (std::vector<size_t>{3}));
  ASSERT_TRUE(h.rise);
  EXPECT_EQ(h.rise->from, 0u);
  EXPECT_EQ(h.rise->to, 2u);
  EXPECT_NEAR(h.rise->change, 0.012036, 1e-9);
  // Under a 1.25% margin neither run reaches it, and the +7.54% over the
  // window is one step's doing.
  std::vector<HistoryRecord> records = Series(values);
  for (HistoryRecord& r : records) r.max_work_added = 0.0125;
  const WorkloadHistory wide = Only(records, 10);
  EXPECT_FALSE(wide.rise);
  EXPECT_FALSE(wide.drift);
}

TEST(HistoryTest, TheLargestRiseStartsAtTheLowestPointBeforeIt) {
  // Down 0.5%, then up 0.6% three times: the rise is from c1 (the lowest)
  // to c4, 1.81%, while the net change from c0 is 1.30%.
  const WorkloadHistory h = Only(Series({1'000'000, 995'000, 1'000'970, 1'006'976, 1'013'018}), 10);
  ASSERT_TRUE(h.rise);
  EXPECT_EQ(h.rise->from, 1u);
  EXPECT_EQ(h.rise->to, 4u);
  EXPECT_NEAR(h.rise->change, 1'013'018.0 / 995'000 - 1, 1e-12);
  EXPECT_FALSE(h.fall);
  EXPECT_TRUE(h.drift);
}

TEST(HistoryTest, AFallUnderTheMarginStepByStepIsDriftDownwards) {
  const WorkloadHistory h = Only(Series({1'000'000, 994'000, 988'036, 982'108}), 10);
  EXPECT_FALSE(h.rise);
  ASSERT_TRUE(h.fall);
  EXPECT_EQ(h.fall->from, 0u);
  EXPECT_EQ(h.fall->to, 3u);
  EXPECT_NEAR(h.fall->change, -0.017892, 1e-9);
  EXPECT_TRUE(h.drift);
}

TEST(HistoryTest, AStepExactlyAtTheMarginCrossesIt) {
  // 10,000 / 1,000,000 is the double nearest 0.01, the margin itself.
  const WorkloadHistory h = Only(Series({1'000'000, 1'010'000}), 10);
  EXPECT_EQ(*h.points[1].step, 0.01);
  EXPECT_TRUE(h.step_crossed);
  EXPECT_FALSE(h.drift);
}

TEST(HistoryTest, ABreakStartsASegmentAndNamesWhatChanged) {
  std::vector<HistoryRecord> records =
      Series({1'000'000, 1'005'000, 1'009'000, 1'200'000, 1'206'000, 1'209'000});
  for (size_t i = 3; i < records.size(); ++i) {
    records[i].conditions = "c2";
    records[i].condition_parts["valgrind"] = "valgrind-3.20.0";
  }
  const WorkloadHistory h = Only(records, 10);
  ASSERT_EQ(h.points.size(), 6u);
  EXPECT_FALSE(h.points[2].break_before);
  EXPECT_TRUE(h.points[2].changed.empty());
  EXPECT_TRUE(h.points[3].break_before);
  EXPECT_EQ(h.points[3].changed, std::vector<std::string>{"valgrind"});
  // Across the break (+18.9%) there is no step and the segment starts over.
  EXPECT_FALSE(h.points[3].step);
  EXPECT_FALSE(h.points[3].cumulative);
  EXPECT_DOUBLE_EQ(*h.points[2].cumulative, 0.009);  // 9,000 / 1,000,000
  EXPECT_DOUBLE_EQ(*h.points[4].cumulative, 0.005);  // 6,000 / 1,200,000
  EXPECT_DOUBLE_EQ(*h.cumulative, 0.0075);           // 9,000 / 1,200,000
  EXPECT_FALSE(h.step_crossed);
  EXPECT_FALSE(h.drift);
}

TEST(HistoryTest, APartOnOneSideOnlyIsAChange) {
  std::vector<HistoryRecord> records = Series({1'000'000, 1'000'000});
  records[1].conditions = "c2";
  records[1].condition_parts.erase("workgate");
  records[1].condition_parts["cpu"] = "x86-64";
  const WorkloadHistory h = Only(records, 10);
  EXPECT_EQ(h.points[1].changed, (std::vector<std::string>{"cpu", "workgate"}));
}

TEST(HistoryTest, TheWindowKeepsTheLastPointsAndMeasuresFromItsFirst) {
  std::vector<uint64_t> values(10, 1'000'000);
  for (uint64_t v : {1'050'000, 1'053'000, 1'056'000, 1'059'000, 1'062'000}) values.push_back(v);
  const WorkloadHistory h = Only(Series(values), 5);
  EXPECT_EQ(h.recorded, 15u);
  ASSERT_EQ(h.points.size(), 5u);
  EXPECT_EQ(h.points.front().record.ref, "c10");
  // The +5% step into the window's first point is shown, but it is not a
  // step within the window, whose changes are measured from that point.
  ASSERT_TRUE(h.points.front().step);
  EXPECT_DOUBLE_EQ(*h.points.front().step, 0.05);
  EXPECT_FALSE(h.points.front().cumulative);
  EXPECT_NEAR(*h.cumulative, 12'000.0 / 1'050'000, 1e-15);  // +1.14%
  EXPECT_FALSE(h.step_crossed);
  EXPECT_TRUE(h.drift);
  // Over the whole series the +5% step is inside, and crossed; the +1.14%
  // after it is still drift, in the run that follows the step.
  const WorkloadHistory all = Only(Series(values), 15);
  EXPECT_DOUBLE_EQ(*all.cumulative, 0.062);
  EXPECT_TRUE(all.step_crossed);
  EXPECT_EQ(all.steps, (std::vector<size_t>{10}));
  ASSERT_TRUE(all.rise);
  EXPECT_EQ(all.rise->from, 10u);
  EXPECT_EQ(all.rise->to, 14u);
  EXPECT_TRUE(all.drift);
}

// On perf, 8 records whose medians move by +0.2%, -0.3%, +0.4%, then about
// -0.2%, +0.3%, -0.1%, +0.3% (counts rounded to integers), margin 0.5%.
std::vector<HistoryRecord> NoisyPerf() {
  const uint64_t medians[] = {1'000'000'000, 1'002'000'000, 998'994'000,   1'002'989'976,
                              1'000'983'996, 1'003'986'948, 1'002'982'961, 1'005'991'910};
  std::vector<HistoryRecord> out;
  for (int i = 0; i < 8; ++i) {
    const uint64_t m = medians[i];
    HistoryRecord r = Record("p" + std::to_string(i), i + 1, {m + 700, m - 400, m}, "loop");
    r.backend = "perf";
    r.event = "instructions:u";
    r.max_work_added = 0.005;
    out.push_back(r);
  }
  return out;
}

TEST(HistoryTest, APerfSeriesEstimatesItsNoiseFloor) {
  const WorkloadHistory h = Only(NoisyPerf(), 10);
  EXPECT_EQ(h.points[1].value, 1'002'000'000);  // the median of three counts
  // The 7 differences, sorted: -0.3%, -0.2%, -0.1%, +0.2%, +0.3%, +0.3%,
  // +0.4%; their median is +0.2% (exactly: 2,000,000 / 1,000,000,000). Their
  // distances from it: 0.5%, 0.4%, 0.3%, 0, 0.1%, 0.1%, 0.2%; sorted, the
  // middle one is 0.2%, from +0.4% (exactly 3,995,976 / 998,994,000).
  // floor = 1.4826 * 0.002 / sqrt(2) = 0.0020967...
  ASSERT_TRUE(h.noise_floor);
  EXPECT_EQ(h.noise_differences, 7u);
  EXPECT_DOUBLE_EQ(*h.noise_floor, 1.4826 * (0.004 - 0.002) / std::sqrt(2.0));
  EXPECT_NEAR(*h.noise_floor, 0.00209671, 1e-8);
  // +0.599191% (5,991,910 / 1e9) is over the 0.5% margin and no step is,
  // but 3 * sqrt(2) floors = 3 * 1.4826 * 0.002 = 0.89% of noise explain it.
  EXPECT_DOUBLE_EQ(*h.cumulative, 0.00599191);
  EXPECT_FALSE(h.step_crossed);
  EXPECT_FALSE(h.drift);
}

TEST(HistoryTest, APerfDriftBeyondItsNoiseIsDrift) {
  // +0.3% a commit for 7 commits, with a few thousand instructions of noise.
  const int64_t noise[] = {0, 2'000, -1'000, 3'000, 0, -2'000, 1'000, 0};
  std::vector<HistoryRecord> records;
  for (int i = 0; i < 8; ++i) {
    HistoryRecord r = Record("p" + std::to_string(i), i + 1,
                             {static_cast<uint64_t>(1'000'000'000 + 3'000'000 * i + noise[i])});
    r.backend = "perf";
    records.push_back(r);
  }
  const WorkloadHistory h = Only(records, 10);
  // The differences fall from 0.300% to 0.295% as the count grows, and the
  // noise moves them by a few thousandths of a percent: a floor far below
  // the 2.1% / (3 * sqrt(2)) = 0.495% that would explain the drift.
  ASSERT_TRUE(h.noise_floor);
  EXPECT_LT(*h.noise_floor, 1e-4);
  EXPECT_DOUBLE_EQ(*h.cumulative, 0.021);
  EXPECT_TRUE(h.drift);
  // With only two differences there is no floor, and no drift is claimed.
  records.resize(3);
  records[2].counts = {1'012'000'000};
  const WorkloadHistory short_series = Only(records, 10);
  EXPECT_FALSE(short_series.noise_floor);
  EXPECT_EQ(short_series.noise_differences, 2u);
  EXPECT_GE(*short_series.cumulative, 0.01);
  EXPECT_FALSE(short_series.step_crossed);
  EXPECT_FALSE(short_series.drift);
}

TEST(HistoryTest, ExactBackendsHaveNoNoiseFloor) {
  std::vector<HistoryRecord> records = NoisyPerf();
  for (HistoryRecord& r : records) r.backend = "callgrind";
  const WorkloadHistory h = Only(records, 10);
  EXPECT_FALSE(h.noise_floor);
  EXPECT_EQ(h.noise_differences, 0u);
  EXPECT_TRUE(h.drift);  // +0.599% over the 0.5% margin: no noise to explain it
}

TEST(HistoryTest, TheMarginIsTheNewestRecords) {
  std::vector<HistoryRecord> records = Series({1'000'000, 1'015'000, 1'016'000});
  records[2].max_work_added = 0.02;
  std::swap(records[0], records[2]);  // the newest first in the input
  const WorkloadHistory h = Only(records, 10);
  EXPECT_EQ(h.margin, 0.02);
  EXPECT_FALSE(h.step_crossed);  // +1.5% under 2%
  EXPECT_FALSE(h.drift);
}

TEST(HistoryTest, RecordsAreOrderedByTimeTiesInInputOrder) {
  std::vector<HistoryRecord> records = {
      Record("b", 3, {3}), Record("a", 1, {1}),    Record("z", 2, {2}),
      Record("y", 2, {2}), Record("empty", 2, {}),
  };
  const WorkloadHistory h = Only(records, 10);
  std::vector<std::string> refs;
  for (const HistoryPoint& p : h.points) refs.push_back(p.record.ref);
  EXPECT_EQ(refs, (std::vector<std::string>{"a", "z", "y", "b"}));  // "empty" is skipped
  EXPECT_EQ(h.recorded, 4u);
}

TEST(HistoryTest, TheMedianOfAnEvenNumberOfCountsIsTheMeanOfTheMiddleTwo) {
  const WorkloadHistory h = Only({Record("a", 1, {1003, 1000, 1002, 1001})}, 10);
  EXPECT_EQ(h.points[0].value, 1001.5);
  EXPECT_FALSE(h.cumulative);  // one point: no change at all
  EXPECT_FALSE(h.drift);
}

TEST(HistoryTest, SeriesAreSortedByWorkloadBackendAndEvent) {
  std::vector<HistoryRecord> records;
  auto add = [&records](const std::string& w, const std::string& backend,
                        const std::string& event) {
    HistoryRecord r = Record("r", 1, {1000}, w);
    r.backend = backend;
    r.event = event;
    records.push_back(r);
  };
  add("wb", "vgcount", "Ir");
  add("wa", "perf", "instructions:u");
  add("wa", "callgrind", "Ir");
  add("wa", "callgrind", "Dr");
  add("wb", "vgcount", "Ir");
  std::vector<std::string> keys;
  for (const WorkloadHistory& h : AnalyzeHistory(records, 10)) {
    keys.push_back(h.workload + " " + h.backend + " " + h.event + " " +
                   std::to_string(h.points.size()));
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"wa callgrind Dr 1", "wa callgrind Ir 1",
                                            "wa perf instructions:u 1", "wb vgcount Ir 2"}));
}

}  // namespace
}  // namespace workgate
