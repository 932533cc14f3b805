#pragma once
// Running a comparison: both builds through every workload, counted
// concurrently (--jobs; a count does not depend on load), each workload's
// stability settled after its first counts (measure/stability_runs.h; where
// that needs runs, as a task of its own that any free job takes) and its
// delta explained where asked, then the timed context alone, one run at a
// time in one mirrored sequence over the whole run (measure/timed_runs.h).
// Produces the CompareReport the gate decides and the renderers show.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "counter/counter.h"
#include "decision/baseline_file.h"
#include "decision/stability.h"
#include "measure/count_cache.h"
#include "measure/hardware_runs.h"
#include "measure/simulated_runs.h"
#include "measure/source_lines.h"
#include "measure/stability_runs.h"
#include "model/backend.h"
#include "model/model.h"
#include "workload/run_plan.h"
#include "workload/workload.h"

namespace workgate {

struct ComparisonPlan {
  std::vector<Workload> workloads;
  std::string suite_dir;
  std::string baseline_exe;   // empty with stored baseline results
  std::string candidate_exe;  // empty: measure the baseline only (to save it)
  std::optional<BaselineFile> stored_baseline;
  std::string stored_baseline_path;
  int repeat = 1;
  /// The stability check (decision/stability.h) and the most counts a side of an
  /// unstable workload gets.
  StabilityMode stability = StabilityMode::kAuto;
  int max_repeat = 10;
  int jobs = 1;
  int timed = 1;
  double max_work_added_percent = 1.0;
  ExplainMode explain = ExplainMode::kWorkAdded;  // --explain
  /// --events: which workloads get simulated runs (measure/simulated_runs.h).
  EventsMode events = EventsMode::kWork;
  /// On perf, the events counted beside the instructions in one more run
  /// of each side of a workload that gets simulated events (--events):
  /// libpfm4 names, comma-separated; empty for none.
  std::string hardware_events = std::string(kDefaultHardwareEvents);
  int explain_top = 10;
  /// --flamegraph: each explanation carries its profiles' flame graph.
  bool flame_graph = false;
  uint64_t seed = 1;  // of the timed context's bootstrap and sampled sign flips
  LaunchOptions launch;
  /// The machine's part of every fingerprint (CPU model, kernel); the
  /// counter's part and each side's are added here.
  Fingerprint machine;
  /// The result store's count cache (measure/count_cache.h); null: none.
  CountCache* cache = nullptr;
  /// --record REF: the candidate's results are recorded under REF; its
  /// stability is then learned once, when it is recorded (it is counted
  /// twice on an exact backend), and its store entry says REF.
  std::string record_ref;
  /// --save-baseline: the baseline side of each workload keeps its profile
  /// (SideResult::profile), so that the stored baseline explains.
  bool saving_baseline = false;
  /// Where an explanation's listed lines get their text and links
  /// (--source-root, --source-link); an empty root: neither.
  SourceView sources;
};

/// Called with progress text ("interp/fib  baseline  counting  3.2 s"):
/// what the calling thread does now.
using ProgressFn = std::function<void(const std::string&)>;

/// What RunComparison says while it runs: `step` with what the calling job
/// does now, and "" when the job has finished its task; `finished` with each
/// workload once its counts are decided, in the order they finish (jobs run
/// side by side).
struct ComparisonProgress {
  ProgressFn step = [](const std::string&) {};
  std::function<void(const WorkloadResult&)> finished = [](const WorkloadResult&) {};
};

/// The tool that profiles for explanations where the backend `counted_by`
/// counted: the same Valgrind tool ("vgcount", "callgrind"), or otherwise
/// (perf, which keeps no profile; "" for none) vgcount where it is built and
/// callgrind where not. Throws EnvironmentError when none can run.
std::unique_ptr<Counter> ProfilerFor(const std::string& counted_by);

/// Where `w`'s work delta went: the per-function self-cost diff of the two
/// sides' profiles. A side whose counting run kept a profile of
/// ProfilerFor(counted_by)'s tool in `kept` serves as it is; any other is
/// run once more, under that tool, in `dir` (the workload's directory).
/// The Explanation names the tool and the sides run again; its `error` says
/// why it failed (a stored baseline has no profile and cannot be run).
/// `simulated`: the profiles of the workload's simulated runs
/// (measure/simulated_runs.h), which serve before `kept` where the tool is
/// the same, and give the rows their simulated events.
Explanation ExplainWorkload(const ComparisonPlan& plan, const std::string& counted_by,
                            const Workload& w, const WorkDir& dir, const FirstProfiles& kept,
                            const ProgressFn& progress,
                            const SimulatedProfiles* simulated = nullptr);

/// The counts per side of a comparison on `backend`: `requested` where it
/// is given (> 0), else one on an exact backend and three on perf, whose
/// counts vary from run to run.
int ComparisonRepeats(Backend backend, int requested);

/// The stability mode a comparison runs with: `requested`, except that a
/// baseline being saved (`saving_baseline`) is reused by every later
/// comparison, so it learns once, when it is made, whether its workloads
/// repeat: auto becomes always.
StabilityMode ComparisonStability(StabilityMode requested, bool saving_baseline);

/// Where the baseline and the candidate are one build (the same digest on
/// both sides of every workload: an A/A check) and the candidate's counts
/// all came from the result store (the baseline's, or an earlier run's),
/// the note that says the run does not show whether the workloads repeat,
/// and how to check it (compare --aa); "" otherwise.
std::string SameBuildFromStoreNote(const std::vector<WorkloadResult>& workloads);

/// What an A/A check (compare --aa: one build on both sides, every count
/// from scratch, with the stability check) found: whether each valid
/// workload's counts, both sides' together, are one number. The note says
/// how many counts agreed, or names each workload whose counts differ with
/// its spread; `*all_repeat` is false where one differs. Invalid workloads
/// are left to their own reasons.
std::string SameBuildCheckNote(const std::vector<WorkloadResult>& workloads, bool* all_repeat);

/// Fills the report's workloads (decided, explained where plan.explain
/// says) and suite verdict. `counter` counts.
void RunComparison(const ComparisonPlan& plan, Counter& counter, CompareReport* report,
                   const ComparisonProgress& progress);

}  // namespace workgate
