#include "measure/timed_selftest.h"

#include <fmt/format.h>

#include <cmath>

#include "measure/measure.h"
#include "measure/timed_runs.h"
#include "stats/timed_context.h"
#include "stats/timed_stats.h"

namespace workgate {

namespace {

Workload KnownLoop(uint64_t spin_ns, uint64_t iterations) {
  Workload w;
  w.name = "selftest/known_loop";
  w.command = {"{exe}", "--spin-ns", std::to_string(spin_ns), std::to_string(iterations)};
  w.clock = ClockMode::kNone;  // timed runs read the real clock anyway
  w.timeout_seconds = 600;
  return w;
}

// One phase: `base` against `cand` in the schedule compare uses for one
// workload. False with `*err` when a run fails.
bool RunPhase(const TimedSelftestPlan& plan, const Workload& base, const Workload& cand,
              const std::string& phase, const ProgressFn& progress, WorkloadResult* result,
              std::string* err) {
  std::vector<WorkloadResult> results(1);
  results[0].name = base.name;
  WorkDir dir(base, "");
  auto run = [&](const TimedSlot& slot, std::string* run_err) {
    progress(fmt::format("timed self-test  {}  {}{}", phase,
                         slot.baseline ? "baseline" : "candidate",
                         slot.warm_up ? " (warm-up)" : ""));
    return TimeWorkload({slot.baseline ? base : cand, "", dir, plan.known_loop, LaunchOptions{}},
                        run_err);
  };
  std::vector<std::string> errors(1);
  RunTimedSchedule(TimedSchedule({0}, plan.pairs, true), run, &results, &errors);
  if (!errors[0].empty()) {
    *err = phase + " phase: " + errors[0];
    return false;
  }
  DecideTimedContext(&results, plan.seed);
  *result = std::move(results[0]);
  return true;
}

double MedianWall(const SideResult& side) {
  std::vector<double> walls;
  for (const TimedSample& t : side.timed) walls.push_back(t.wall_seconds);
  return Median(walls);
}

}  // namespace

void JudgeSelftest(TimedSelftest* t) {
  const double percent = 100 * t->delay_fraction;
  t->covers_expected = false;
  if (!t->aa || !t->delayed || !t->aa->comparison || !t->delayed->comparison) {
    t->outcome = SelftestOutcome::kMisses;
    t->reason = "too few pairs were left for statistics in a phase (stalls were dropped)";
    return;
  }
  const TimedTest& d = *t->delayed->comparison;
  t->covers_expected = d.ci_low <= t->expected_ratio && t->expected_ratio <= d.ci_high;
  const TimedLabel aa = t->aa->label;
  if (aa == TimedLabel::kFaster || aa == TimedLabel::kSlower) {
    t->outcome = SelftestOutcome::kFalseEffect;
    t->reason = fmt::format(
        "the A/A phase calls identical runs {}: on this machine the timed context reports "
        "effects that are not there",
        TimedLabelName(aa));
  } else if (t->delayed->label == TimedLabel::kSlower) {
    t->outcome = SelftestOutcome::kResolves;
    t->reason = fmt::format(
        "a delay of {:g}% of the run reads slower and identical runs do not: this machine's "
        "timed context resolves an effect of that size",
        percent);
  } else {
    t->outcome = SelftestOutcome::kMisses;
    t->reason = fmt::format(
        "a delay of {:g}% of the run reads {} ({}): this machine's timed context does not "
        "resolve an effect of that size",
        percent, TimedLabelName(t->delayed->label), t->delayed->reason);
  }
}

TimedSelftest RunTimedSelftest(const TimedSelftestPlan& plan, const ProgressFn& progress) {
  TimedSelftest t;
  t.iterations = plan.iterations;
  t.pairs = plan.pairs;
  t.delay_fraction = plan.delay_fraction;
  const Workload plain = KnownLoop(0, plan.iterations);
  t.workload = fmt::format("known_loop --spin-ns D {}", plan.iterations);
  std::string err;
  WorkloadResult aa, delayed;
  if (!RunPhase(plan, plain, plain, "A/A", progress, &aa, &err)) {
    t.reason = err;
    return t;
  }
  t.aa = aa.timed_stats;
  t.run_seconds = MedianWall(aa.baseline);
  const uint64_t spin_ns = static_cast<uint64_t>(std::llround(plan.delay_fraction * t.run_seconds * 1e9));
  t.delay_seconds = static_cast<double>(spin_ns) / 1e9;
  t.expected_ratio = (t.run_seconds + t.delay_seconds) / t.run_seconds;
  if (!RunPhase(plan, plain, KnownLoop(spin_ns, plan.iterations), "delayed", progress, &delayed,
                &err)) {
    t.reason = err;
    return t;
  }
  t.delayed = delayed.timed_stats;
  JudgeSelftest(&t);
  return t;
}

}  // namespace workgate
