#pragma once
// `workgate selftest --timed`: can this machine's timed context resolve an
// effect of known size? The probes' known loop (probes/known_loop) is timed
// against itself (the A/A phase: the true effect is exactly zero), then
// against itself with a delay injected in the candidate's runs (the delayed
// phase: the true effect is the delay), through the same schedule and the same
// statistics as compare's timed context (measure/timed_runs.h,
// stats/timed_context.h).
//
// The delay is `known_loop --spin-ns D N`: a busy wait on CLOCK_MONOTONIC
// until D nanoseconds have passed, before the same loop of N iterations as
// the baseline's `--spin-ns 0 N`. Both sides run one binary with one argv
// shape, so nothing but the wait differs; a deadline wait can overrun but
// never end early, so the delay is at least D whatever the load; and D is a
// fraction of the baseline's own median run time in the A/A phase, so "5%"
// means 5% of what this machine takes for the run.

#include <cstdint>
#include <string>

#include "measure/comparison.h"
#include "model/model.h"

namespace workgate {

inline constexpr uint64_t kSelftestIterations = 200000000;  // about 60 ms at 3 GHz
inline constexpr int kSelftestPairs = 20;
inline constexpr double kSelftestDelay = 0.05;

struct TimedSelftestPlan {
  std::string known_loop;  // the probes' known loop (FindCompanion)
  uint64_t iterations = kSelftestIterations;
  int pairs = kSelftestPairs;  // per phase
  double delay_fraction = kSelftestDelay;
  uint64_t seed = 20261129;
};

/// Runs both phases, one timed run at a time. A run that fails ends the test
/// with outcome kFailed and the run's error as the reason.
TimedSelftest RunTimedSelftest(const TimedSelftestPlan& plan, const ProgressFn& progress);

/// Sets `t`'s outcome, reason and covers_expected from its phases: a false
/// effect when the A/A phase labels the identical runs faster or slower;
/// resolves when it does not and the delayed phase is labelled slower; misses
/// otherwise (within noise, inconclusive, faster, or too few pairs).
void JudgeSelftest(TimedSelftest* t);

}  // namespace workgate
