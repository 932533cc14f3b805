#pragma once
// A comparison of two builds on a suite, counted as `workgate compare`
// counts it, for a command that needs its figures rather than its reports
// (`workgate accept --baseline EXE --candidate EXE`).

#include <string>
#include <vector>

#include "cli/options.h"
#include "model/model.h"
#include "workload/number_range.h"

namespace workgate {

/// What such a comparison takes: compare's options that decide a count and
/// a verdict; it explains nothing, simulates nothing beyond what a
/// workload's metric needs, and makes no timed runs.
struct PairArgs {
  CounterArgs counter;
  LaunchArgs launch;
  StoreArgs store;
  std::string suite;
  std::vector<std::string> workloads;  // all of the suite's when empty
  std::string baseline, candidate;
  double max_work_added = kDefaultMaxWorkAddedPercent;
  int repeat = 0;  // 0: the backend's default
  int jobs = 0;    // 0: the number of cores
};

/// Counts and decides the pair as compare does (measure/comparison.h),
/// through the same code; throws as compare does (a usage error, a build
/// that cannot run, no backend).
CompareReport ComparePair(const PairArgs& pair);

}  // namespace workgate
