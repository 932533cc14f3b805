#pragma once
// Measuring one workload for one build: the pinned, counted runs with their
// score check, and the timed runs on the real clock that give context.

#include <optional>
#include <string>
#include <vector>

#include "counter/counter.h"
#include "measure/side_fingerprint.h"
#include "model/model.h"
#include "workload/run_plan.h"
#include "workload/score.h"
#include "workload/workload.h"

namespace workgate {

struct CountedWorkload {
  /// Counts the result store held for exactly this launch (measure/count_cache.h),
  /// taken before `runs`.
  std::vector<uint64_t> from_store;
  std::vector<CountedRun> runs;
  std::optional<std::string> score;  // as the pinned runs printed it
  std::vector<std::string> argv;     // as run
  std::map<std::string, std::string> env;
  std::string error;  // non-empty: the counts must not be used, and why
  /// What the runs did that the reports should say without making them
  /// invalid: "the workload left 1 process running; it was killed".
  std::vector<std::string> notes;
  /// What the runs met that nothing pinned, in words, each once
  /// (DescribeUnpinned; "the clock shim cannot reach a static program").
  std::vector<std::string> unpinned;
  /// The counts are deterministic by construction: the counter saw every
  /// run's inputs (vgcount, pinning on) and none was unpinned. False on
  /// callgrind and perf, which cannot see raw clock or entropy reads, and
  /// for counts that came from the result store.
  bool deterministic = false;

  bool valid() const { return error.empty(); }
  /// from_store, then the runs' counts.
  std::vector<uint64_t> counts() const;
};

/// How CountWorkload counts a side.
struct CountSpec {
  ScoreSide score_side;                // which score its runs must print (ScoreAdmitted)
  int repeat = 1;                      // how many runs
  std::string keep_profiles_dir = {};  // where the first run's profile goes; "" none
  bool simulate = false;               // the counter simulates (CountOptions::simulate)
};

/// Counts `side` `count.repeat` times. Every run is a pinned run: it must
/// exit 0 and print the score expected of `count.score_side`
/// (ScoreAdmitted), or the whole side is invalid. The pinned run and the
/// counted run are the same run, so the check costs nothing. `side.dir` must
/// be held by the caller for the duration. With `count.simulate`, and for
/// every run of a workload whose metric is estimated-cycles, the counter
/// simulates (CountOptions::simulate); the latter's runs count their
/// estimated cycles first (an "estimated-cycles" event before "Ir"), so that
/// `counts()` are of the metric, and a run without simulated events makes
/// the side invalid.
CountedWorkload CountWorkload(Counter& counter, const SideRun& side, const CountSpec& count);

/// Why `counter` cannot count `w`, whose metric it cannot give (estimated
/// cycles on perf); "" when it can.
std::string MetricUnsupported(const Counter& counter, const Workload& w);

/// Checks a pinned run's score, `found` (what the score pattern matched in
/// its output; nullopt: nothing), against what `w` asserts of `side`
/// (ScoreAdmitted): "" when it is right or `w` asserts none, else why not.
/// `*got` is set to `found`.
std::string CheckScore(const Workload& w, ScoreSide side, const std::optional<std::string>& found,
                       std::optional<std::string>* got);

/// Why a counted run whose tree outlived it is invalid (CountWorkload,
/// unless the workload has allow_leftover): how many processes it left, that
/// their work went uncounted, and how a suite allows it.
std::string LeftoverError(const LaunchResult& launch);

/// Points `side`'s exe link at what a run of its build executes
/// (LaunchOptions::resolve_build: its checked copy), before every run, `env`
/// being the run's environment. False with `*err` when the build or a file
/// it loads changed, or the link cannot be made.
bool PointAtBuild(const SideRun& side, const std::map<std::string, std::string>& env,
                  std::string* err);

/// The file the runs of the build `exe` execute (its copy, PointAtBuild),
/// whose name the objects of their profiles carry; `exe` where there is no
/// copy, or it no longer checks out.
std::string ExecutedFile(const LaunchOptions& options, const std::string& exe);

/// The launch CountWorkload makes of `side`, without running it: the
/// workload's exe link pointed at the build, and the run's argv, environment
/// and directory. False with `*err` as CountWorkload's side would be invalid.
bool PlanCountedRun(const SideRun& side, RunIdentity* run, std::string* err);

/// The directory of `side`'s runs in `*run`: its private directory as the
/// runs see it and, where they have it bound, as this machine has it; none
/// with --as-is.
void SetRunDirectory(const SideRun& side, RunIdentity* run);

/// Makes `c` invalid when the primary event of one of its runs was
/// multiplexed: the kernel counted it for only part of the run, and a delta
/// built on a partial figure would be wrong by an unknown amount (workgate
/// never scales). Suites and comparisons call it; an ad hoc count only
/// reports the multiplexing beside the figure.
void RejectMultiplexed(CountedWorkload* c);

/// One run of `side` on the real clock: its wall time and the score it printed.
TimedSample TimeWorkload(const SideRun& side, std::string* err);

/// The last lines of a program's output, for error messages.
std::string OutputTail(const std::string& text, size_t lines = 5);

}  // namespace workgate
