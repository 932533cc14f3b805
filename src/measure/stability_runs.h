#pragma once
// The counting side of the stability check (decision/stability.h): the extra
// counts that tell whether a workload repeats, the adaptive repeats of an
// unstable one, and, where callgrind kept profiles, the functions whose cost
// moved between two runs of the same build.

#include <functional>
#include <string>
#include <vector>

#include "counter/counter.h"
#include "decision/stability.h"
#include "measure/simulated_runs.h"
#include "model/backend.h"
#include "model/model.h"
#include "workload/run_plan.h"
#include "workload/workload.h"

namespace workgate {

struct StabilityPlan {
  StabilityMode mode = StabilityMode::kAuto;
  int max_repeat = 10;  // per side, for an unstable workload
  std::string suite_dir;
  std::string baseline_exe;   // empty: the baseline is stored, it cannot be counted again
  std::string candidate_exe;  // empty: the baseline alone is measured
  LaunchOptions launch;
  int explain_top = 10;  // rows of the unstable-function list
  /// The candidate is being recorded (--record): on an exact backend it is
  /// counted at least twice, so that its stored results say whether it
  /// repeats and later comparisons against it need no check of their own.
  bool candidate_twice = false;
  /// Which workloads get simulated runs (measure/simulated_runs.h): the
  /// first count again of a side of such a workload simulates, and serves
  /// as that side's simulated run, so the check and the events take one run.
  EventsMode events = EventsMode::kNever;
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

/// Where the profiles of a side's first count were kept (callgrind only;
/// empty otherwise), so that a second count can be diffed against it.
/// The files one profiled run left in `dir` (one per process, thread or
/// dump), sorted; none when `dir` is empty or missing.
std::vector<std::string> ProfileFiles(const std::string& dir);

struct FirstProfiles {
  std::string baseline;
  std::string candidate;
};

/// Settles `r`'s stability after its first counts (and any stored baseline)
/// are in: fills `r->stability`, counts more where the check or an unstable
/// workload needs it, and leaves `r` decided (Decide). A work verdict
/// (work-added, work-removed) on a side that is not deterministic by
/// construction (SideResult::deterministic) and was counted once is
/// confirmed: that side is counted again before the verdict is given. Does nothing on a
/// backend that is not exact (perf), or when either side is invalid.
/// `profiles_dir` is a directory the caller removes, for callgrind's files.
/// A count again that simulated (StabilityPlan::events) sets its side's
/// SideResult::simulated and, in `simulated`, where its profile is.
void SettleStability(const StabilityPlan& plan, Counter& counter, const Workload& w,
                     const WorkDir& dir, const FirstProfiles& first,
                     const std::string& profiles_dir, WorkloadResult* r,
                     SimulatedProfiles* simulated = nullptr);

/// Whether SettleStability would count `r` again as it stands (its first
/// counts in, decided): the check or an unstable workload's repeats need
/// runs. A comparison settles such a workload as a task of its own, so
/// that the runs spread over the jobs; for any other SettleStability only
/// decides.
bool SettleNeedsRuns(const StabilityPlan& plan, const std::string& backend,
                     const WorkloadResult& r);

}  // namespace workgate
