#pragma once
// The simulated events beside a workload's count (docs/gate.md, "Simulated
// events"): which workloads get them (--events), one simulated run per side
// after the verdict, and whether those runs did the work that was counted.

#include <functional>
#include <optional>
#include <string>

#include "counter/counter.h"
#include "model/model.h"
#include "workload/run_plan.h"
#include "workload/workload.h"

namespace workgate {

/// Whether `r` gets simulated runs: `mode` says always (every valid
/// workload) or work (a work-added or work-removed verdict), and both
/// builds can run (`both_builds`: a stored baseline cannot). A workload
/// whose sides have their events already (metric = "estimated-cycles":
/// every counted run simulates) needs none.
bool WantsSimulatedRuns(EventsMode mode, const WorkloadResult& r, bool both_builds);

/// The simulated events of a counted run: its Ir (an event named "Ir",
/// whatever its place) and CountedRun::simulated; nullopt where the run
/// has no Ir or not every simulated event.
std::optional<SimulatedEvents> SimulatedOf(const CountedRun& run);

/// The figure a side's counts are of, for its simulated events: the
/// instructions, or their estimated cycles.
uint64_t GatedFigure(Metric metric, const SimulatedEvents& events);

/// Holds `r`'s sides' simulated events against their counts and sets
/// `r->events`' `shown` and `note`: where `profiler` is `counted_by` (the
/// same Valgrind tool), each side's simulated run must give one of its
/// counts (GatedFigure), or it did other work than was counted and its
/// events are not evidence; a side without events says why in the note.
/// Keeps a note already there (a failed run's).
void CheckSimulatedEvents(const std::string& counted_by, WorkloadResult* r);

/// Where SimulateSides keeps each side's profile, and which tool made
/// them: they carry Ir too, so an explanation diffs them with no run more.
struct SimulatedProfiles {
  std::string tool;
  std::string baseline;
  std::string candidate;
};

/// One simulated run of each build (`exes`: baseline, candidate) of `w`
/// under `profiler`, in `dir`, each keeping its profile in
/// `keep_root`/simulated-{baseline,candidate}; fills each side's
/// `simulated` and `r->events` (CheckSimulatedEvents), and `*profiles`
/// with the sides whose run kept one.
void SimulateSides(Counter& profiler, const std::string& counted_by, const Workload& w,
                   const std::string& suite_dir, const WorkDir& dir, const std::string* exes[2],
                   const LaunchOptions& launch, const std::string& keep_root, WorkloadResult* r,
                   SimulatedProfiles* profiles,
                   const std::function<void(const std::string&)>& progress);

}  // namespace workgate
