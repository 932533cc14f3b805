#include "measure/comparison.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "counter/valgrind_counter.h"
#include "decision/decision.h"
#include "explain/explain.h"
#include "identity/fingerprint.h"
#include "measure/count_cache.h"
#include "measure/count_json.h"
#include "measure/measure.h"
#include "measure/profile_pack.h"
#include "measure/simulated_runs.h"
#include "measure/stability_runs.h"
#include "measure/thread_runtime.h"
#include "measure/timed_runs.h"
#include "model/backend.h"
#include "model/simulated_events.h"
#include "report/format.h"
#include "stats/timed_context.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/sha256.h"

namespace workgate {

namespace fs = std::filesystem;

namespace {

// A side's counts, score, notes and error from all its runs; a fingerprint
// that could not be taken (`fingerprint_error`) makes a side that had not
// failed already invalid.
void FillSide(const CountedWorkload& counted, const std::string& fingerprint_error,
              SideResult* side) {
  side->counts = counted.counts();
  side->score = counted.score;
  side->error = counted.error;
  side->notes = counted.notes;
  side->unpinned = counted.unpinned;
  side->deterministic = counted.deterministic;
  // A workload gated on estimated cycles simulated in its counted runs.
  if (!counted.runs.empty()) side->simulated = SimulatedOf(counted.runs.front());
  if (side->error.empty() && !fingerprint_error.empty()) {
    side->error = "cannot fingerprint what was measured: " + fingerprint_error;
  }
}

std::string Elapsed(std::chrono::steady_clock::time_point since) {
  return fmt::format(
      "{:.1f} s", std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count());
}

bool WantsExplanation(const ComparisonPlan& plan, const WorkloadResult& r) {
  if (r.verdict == Verdict::kInvalid || plan.candidate_exe.empty()) return false;
  return plan.explain == ExplainMode::kAlways ||
         (plan.explain == ExplainMode::kWorkAdded &&
          (r.verdict == Verdict::kWorkAdded || r.verdict == Verdict::kAccepted));
}

}  // namespace

std::unique_ptr<Counter> ProfilerFor(const std::string& counted_by) {
  using Tool = ValgrindCounter::Tool;
  if (IsBackend(counted_by, Backend::kVgcount))
    return std::make_unique<ValgrindCounter>(Tool::kVgcount);
  if (IsBackend(counted_by, Backend::kCallgrind)) {
    return std::make_unique<ValgrindCounter>(Tool::kCallgrind);
  }
  // perf keeps no profile: vgcount where it is built, at a fraction of
  // callgrind's cost, else callgrind.
  if (!FindVgcountLib().empty()) return std::make_unique<ValgrindCounter>(Tool::kVgcount);
  return std::make_unique<ValgrindCounter>(Tool::kCallgrind);
}

namespace {

// The profile the stored baseline keeps of `w`, where the baseline side
// comes from one; throws with what to do where it keeps none.
const PackedProfile* StoredProfileOf(const ComparisonPlan& plan, const Workload& w) {
  if (!plan.baseline_exe.empty() || !plan.stored_baseline) return nullptr;
  const StoredWorkload* stored = plan.stored_baseline->Find(w.name);
  if (stored != nullptr && stored->profile) return &*stored->profile;
  throw std::runtime_error(fmt::format(
      "the stored baseline {} keeps no profile of {}{}; save it again without --explain never, or "
      "compare against the baseline build (--baseline EXE)",
      plan.stored_baseline_path, w.name,
      stored != nullptr && !stored->no_profile.empty() ? " (" + stored->no_profile + ")" : ""));
}

}  // namespace

Explanation ExplainWorkload(const ComparisonPlan& plan, const std::string& counted_by,
                            const Workload& w, const WorkDir& dir, const FirstProfiles& kept,
                            const ProgressFn& progress, const SimulatedProfiles* simulated) {
  Explanation explanation;
  try {
    // A stored baseline's profile was made by the tool it names: the
    // candidate is profiled by the same one, so that the two compare.
    const PackedProfile* stored = StoredProfileOf(plan, w);
    if (stored != nullptr && IsBackend(stored->profiler, Backend::kVgcount) &&
        FindVgcountLib().empty()) {
      throw std::runtime_error(fmt::format(
          "the stored baseline {} has a profile of {} made by vgcount, which this workgate lacks",
          plan.stored_baseline_path, w.name));
    }
    std::unique_ptr<Counter> profiler =
        ProfilerFor(stored != nullptr ? stored->profiler : counted_by);
    explanation.profiler = profiler->name();
    std::optional<TempDir> reruns;
    std::vector<std::string> files[2];
    const std::string* exes[2] = {&plan.baseline_exe, &plan.candidate_exe};
    const std::string* kept_dirs[2] = {&kept.baseline, &kept.candidate};
    OwnProgram own[2];
    for (int side = 0; side < 2; ++side) {
      const char* name = side == 0 ? "baseline" : "candidate";
      if (side == 0 && stored != nullptr) {
        if (!reruns) reruns.emplace("workgate-explain");
        const std::string unpacked = reruns->path() + "/stored-baseline";
        std::string err;
        if (!UnpackProfile(*stored, unpacked, &err)) {
          throw std::runtime_error(
              fmt::format("the stored baseline {} has a profile of {} that "
                          "cannot be used: {}",
                          plan.stored_baseline_path, w.name, err));
        }
        files[side] = ProfileFiles(unpacked);
        own[side] = {stored->object, stored->ran, stored->build};
        continue;
      }
      own[side] = OwnProgramOf(*exes[side], ExecutedFile(plan.launch, *exes[side]));
      // A simulated run's profile serves first: the same tool, Ir and the
      // events. Else one the counting run kept: the same tool, the same run
      // that gave the count.
      const std::string& simulated_dir =
          simulated == nullptr ? "" : side == 0 ? simulated->baseline : simulated->candidate;
      if (!simulated_dir.empty() && simulated->tool == profiler->name()) {
        files[side] = ProfileFiles(simulated_dir);
        if (!files[side].empty()) {
          // Not the run that counted: the report says it ran again.
          explanation.rerun.push_back(name);
          continue;
        }
      }
      files[side] = profiler->name() == counted_by ? ProfileFiles(*kept_dirs[side])
                                                   : std::vector<std::string>();
      if (!files[side].empty()) continue;
      if (!reruns) reruns.emplace("workgate-explain");
      progress(fmt::format("{}  {}  explaining ({})", w.name, name, profiler->name()));
      const std::string keep = reruns->path() + "/" + name;
      const ScoreSide score_side = side == 0 ? ScoreSide::kBaseline : ScoreSide::kCandidate;
      CountedWorkload c =
          CountWorkload(*profiler, {w, plan.suite_dir, dir, *exes[side], plan.launch},
                        {.score_side = score_side, .keep_profiles_dir = keep});
      if (!c.valid()) {
        throw std::runtime_error(fmt::format("{} under {}: {}", name, profiler->name(), c.error));
      }
      files[side] = ProfileFiles(keep);
      explanation.rerun.push_back(name);
    }
    // The profiles name the files that ran: the builds' copies.
    // Baseline lines matched to where the candidate's source has them,
    // when the baseline's commit is known.
    const BaselineLineMap align = LineAlignment(plan.sources);
    // The lines' texts, to fold those of one text whose costs offset.
    const LineTextOf texts = LineTexts(plan.sources);
    Explanation diffed = ExplainCallgrindOutputs(files[0], files[1], plan.explain_top, own[0],
                                                 own[1], align ? &align : nullptr, plan.flame_graph,
                                                 texts ? &texts : nullptr);
    diffed.profiler = explanation.profiler;
    diffed.rerun = explanation.rerun;
    diffed.stored_baseline = stored != nullptr;
    if (diffed.error.empty()) AttachSourceLines(plan.sources, &diffed);
    explanation = std::move(diffed);
  } catch (const std::exception& e) {
    explanation.error = e.what();
  }
  return explanation;
}

namespace {

// What a workload's counting keeps between its tasks: where the first
// counts' profiles are, which explain the workload and let a second count be
// diffed against them, and each build's place in the result store.
struct WorkloadWork {
  std::optional<TempDir> profiles;
  FirstProfiles first;
  CachedSide sides[2];  // the baseline's, the candidate's
};

StabilityPlan SettlePlan(const ComparisonPlan& plan, const ProgressFn& progress) {
  StabilityPlan settle;
  settle.mode = plan.stability;
  settle.max_repeat = plan.max_repeat;
  settle.suite_dir = plan.suite_dir;
  settle.baseline_exe = plan.baseline_exe;
  settle.candidate_exe = plan.candidate_exe;
  settle.launch = plan.launch;
  settle.explain_top = plan.explain_top;
  settle.candidate_twice = !plan.record_ref.empty();
  settle.events = plan.events;
  settle.progress = progress;
  return settle;
}

// Adds a later round's counts of one build to the earlier ones': its runs,
// its notes, and its error, which ends that build's rounds.
void JoinRound(CountedWorkload more, CountedWorkload* into) {
  for (std::string& note : more.notes) {
    if (std::find(into->notes.begin(), into->notes.end(), note) == into->notes.end()) {
      into->notes.push_back(std::move(note));
    }
  }
  for (CountedRun& run : more.runs) into->runs.push_back(std::move(run));
  if (more.score) into->score = std::move(more.score);
  into->error = std::move(more.error);
}

// Counts both builds of `w` and fills their sides of `r`, through the
// result store where the plan has one (measure/count_cache.h). On an exact
// backend each build's repeats run in a row: a Valgrind count does not move
// with what runs beside it. On perf the repeats alternate, AB BA AB ..., so
// a load that drifts during the run weighs on both builds alike rather than
// on the one whose block happened to run later. Each side's fingerprint is
// taken while the exe link points at its build.
void CountBuilds(const ComparisonPlan& plan, SideCounter& sides_counter, const Workload& w,
                 const WorkDir& dir, const ProgressFn& progress, WorkloadWork* work,
                 WorkloadResult* r) {
  Counter& counter = sides_counter.counter();
  const auto start = std::chrono::steady_clock::now();
  const std::string* exes[2] = {&plan.baseline_exe, &plan.candidate_exe};
  const std::string* keep[2] = {&work->first.baseline, &work->first.candidate};
  const SideLabels labels[2] = {{plan.baseline_exe, ""}, {plan.candidate_exe, plan.record_ref}};
  SideResult* sides[2] = {&r->baseline, &r->candidate};
  const bool alternate = !IsExactBackend(counter.name()) && plan.repeat > 1;
  const int rounds = alternate ? plan.repeat : 1;
  for (int round = 0; round < rounds; ++round) {
    for (int k = 0; k < 2; ++k) {
      const int side = round % 2 == 0 ? k : 1 - k;
      CachedSide& counted = work->sides[side];
      if (exes[side]->empty() || (round > 0 && !counted.counted.valid())) continue;
      const char* name = side == 0 ? "baseline" : "candidate";
      const ScoreSide score_side = side == 0 ? ScoreSide::kBaseline : ScoreSide::kCandidate;
      progress(round == 0 && side == 0
                   ? fmt::format("{}  {}  counting", w.name, name)
                   : fmt::format("{}  {}  counting  ({})", w.name, name, Elapsed(start)));
      if (round == 0) {
        const CountSpec spec{.score_side = score_side,
                             .repeat = alternate ? 1 : plan.repeat,
                             .keep_profiles_dir = *keep[side]};
        counted = sides_counter.Count({w, dir, *exes[side], spec, labels[side]});
      } else {
        JoinRound(CountWorkload(counter, {w, plan.suite_dir, dir, *exes[side], plan.launch},
                                {.score_side = score_side}),
                  &counted.counted);
      }
    }
  }
  for (int side = 0; side < 2; ++side) {
    if (exes[side]->empty()) continue;
    CachedSide& counted = work->sides[side];
    RejectMultiplexed(&counted.counted);
    FillSide(counted.counted, counted.fingerprint_error, sides[side]);
    // Counts from the store come with the events of a run that gave one.
    if (!sides[side]->simulated && sides[side]->error.empty()) {
      sides[side]->simulated = counted.simulated;
    }
    sides[side]->fingerprint = counted.fingerprint;
    sides[side]->from_store = counted.from_store;
  }
}

// --save-baseline: the baseline's profile, packed for the file
// (`side->profile`), so that a comparison against the stored counts explains
// its delta as one against the build does; or why there is none
// (`side->no_profile`). On Valgrind it is the first count's own profile; on
// perf, which keeps none, it takes one run under ProfilerFor's tool.
void KeepBaselineProfile(const ComparisonPlan& plan, const std::string& counted_by,
                         const Workload& w, const WorkDir& dir, const FirstProfiles& kept,
                         SideResult* side, const ProgressFn& progress) {
  if (!side->error.empty() || plan.baseline_exe.empty()) return;
  if (plan.explain == ExplainMode::kNever) {
    side->no_profile = "it was saved with --explain never";
    return;
  }
  try {
    std::unique_ptr<Counter> profiler = ProfilerFor(counted_by);
    std::string profile_dir = profiler->name() == counted_by ? kept.baseline : "";
    std::optional<TempDir> rerun;
    if (profile_dir.empty() || ProfileFiles(profile_dir).empty()) {
      rerun.emplace("workgate-keep");
      profile_dir = rerun->path() + "/baseline";
      progress(fmt::format("{}  baseline  profiling to save ({})", w.name, profiler->name()));
      CountedWorkload c =
          CountWorkload(*profiler, {w, plan.suite_dir, dir, plan.baseline_exe, plan.launch},
                        {.score_side = ScoreSide::kBaseline, .keep_profiles_dir = profile_dir});
      if (!c.valid()) {
        side->no_profile = fmt::format("its run under {} failed: {}", profiler->name(), c.error);
        return;
      }
    }
    std::string why;
    side->profile = PackProfile(
        profile_dir,
        {profiler->name(), plan.baseline_exe, ExecutedFile(plan.launch, plan.baseline_exe)}, &why);
    if (!side->profile) side->no_profile = why;
  } catch (const std::exception& e) {
    side->no_profile = e.what();
  }
}

// An unstable workload whose counted runs met threads gets the thread hint,
// for the program the candidate ran (the baseline's with no candidate).
void NoteThreads(const ComparisonPlan& plan, const Workload& w, const WorkloadWork& work,
                 WorkloadResult* r) {
  const uint64_t threads =
      std::max(MostThreads(work.sides[0].counted.runs), MostThreads(work.sides[1].counted.runs));
  if (!r->stability.unstable || threads < 2) return;
  const bool candidate = !plan.candidate_exe.empty();
  r->thread_hint =
      ThreadHint{threads, RuntimeOfWorkload(w, work.sides[candidate ? 1 : 0].counted, plan.launch,
                                            candidate ? plan.candidate_exe : plan.baseline_exe)};
}

// Settles `w`'s stability (measure/stability_runs.h), which may count more
// in `dir`, and explains it where asked.
void SettleAndExplain(const ComparisonPlan& plan, SideCounter& sides, const Workload& w,
                      const WorkDir& dir, WorkloadWork& work, WorkloadResult* r,
                      const ProgressFn& progress) {
  Counter& counter = sides.counter();
  // A count again of the check may simulate, and is then that side's
  // simulated run (measure/stability_runs.h).
  SimulatedProfiles simulated;
  SettleStability(SettlePlan(plan, progress), counter, w, dir, work.first,
                  work.profiles ? work.profiles->path() : "", r, &simulated);
  // The check's and the repeats' counts join the store's, so that the next
  // run knows already whether the workload repeats.
  sides.KeepMore(r->baseline, &work.sides[0]);
  sides.KeepMore(r->candidate, &work.sides[1]);
  // The simulated events, after the verdict, where they are asked for; their
  // profiles serve the explanation too.
  std::optional<TempDir> simulated_dir;
  const bool both_builds = !plan.baseline_exe.empty() && !plan.candidate_exe.empty();
  const bool wants_events = WantsSimulatedRuns(plan.events, *r, both_builds);
  if (wants_events) {
    try {
      std::unique_ptr<Counter> profiler = ProfilerFor(counter.name());
      simulated_dir.emplace("workgate-simulated");
      const std::string* exes[2] = {&plan.baseline_exe, &plan.candidate_exe};
      SimulateSides(*profiler, counter.name(), w, plan.suite_dir, dir, exes, plan.launch,
                    simulated_dir->path(), r, &simulated, progress);
    } catch (const std::exception& e) {
      // No Valgrind tool to simulate with: context, never the verdict.
      r->events = WorkloadEvents{"", false, e.what()};
    }
  } else if (r->baseline.simulated && r->candidate.simulated) {
    r->events = WorkloadEvents{counter.name(), false, ""};
    CheckSimulatedEvents(counter.name(), r);
  }
  // What simulated is kept with the side's counts, so that the next gate
  // given them runs no simulated run.
  const std::string* simulated_profiles[2] = {&simulated.baseline, &simulated.candidate};
  SideResult* results[2] = {&r->baseline, &r->candidate};
  for (int side = 0; side < 2; ++side) {
    sides.KeepSimulated(*results[side],
                        simulated.tool == counter.name() ? *simulated_profiles[side] : "",
                        r->metric, &work.sides[side]);
  }
  // On perf, the machine's own branch and cache misses beside them.
  if (IsBackend(counter.name(), Backend::kPerf) && !plan.hardware_events.empty() &&
      wants_events) {
    const std::string* exes[2] = {&plan.baseline_exe, &plan.candidate_exe};
    CountHardwareSides(counter.event(), plan.hardware_events, w, plan.suite_dir, dir, exes,
                       plan.launch, r, progress);
  }
  NoteThreads(plan, w, work, r);
  if (WantsExplanation(plan, *r)) {
    r->explanation =
        ExplainWorkload(plan, counter.name(), w, dir, work.first, progress, &simulated);
  }
  if (plan.saving_baseline) {
    KeepBaselineProfile(plan, counter.name(), w, dir, work.first, &r->baseline, progress);
  }
}

// Counts one workload's builds in its private directory (its path text is
// part of what the program sees), and settles and explains it. True when
// settling needs runs of its own: the caller then queues SettleLater, so
// that those runs go to whichever job is free instead of lengthening this
// one. On the Valgrind backends the first count of each build keeps its
// per-function profile, which explains the delta with no run more, and
// lets a second count that differs be diffed against it.
bool CountFirst(const ComparisonPlan& plan, SideCounter& sides, const Workload& w,
                WorkloadWork* work, WorkloadResult* r, const ProgressFn& progress) {
  const Counter& counter = sides.counter();
  WorkDir dir(w, plan.suite_dir);
  if (IsExactBackend(counter.name()) &&
      (plan.stability != StabilityMode::kNever || plan.explain != ExplainMode::kNever)) {
    work->profiles.emplace("workgate-profiles");
  }
  auto keep = [&](const std::string& exe, const char* side) {
    return work->profiles && !exe.empty() ? work->profiles->path() + "/" + side + "-1"
                                          : std::string();
  };
  work->first.baseline = keep(plan.baseline_exe, "baseline");
  work->first.candidate = keep(plan.candidate_exe, "candidate");
  CountBuilds(plan, sides, w, dir, progress, work, r);
  if (plan.stored_baseline) ApplyStoredBaseline(*plan.stored_baseline, plan.stored_baseline_path, r);
  Decide(r);
  if (SettleNeedsRuns(SettlePlan(plan, progress), counter.name(), *r)) return true;
  SettleAndExplain(plan, sides, w, dir, *work, r, progress);
  return false;
}

// The second task of a workload whose settling counts: the same directory
// path again, fresh.
void SettleLater(const ComparisonPlan& plan, SideCounter& sides, const Workload& w,
                 WorkloadWork& work, WorkloadResult* r, const ProgressFn& progress) {
  WorkDir dir(w, plan.suite_dir);
  SettleAndExplain(plan, sides, w, dir, work, r, progress);
}

// The counting tasks of a comparison, taken by the jobs in turn: every
// workload's first counts in suite order, then, as they turn up, the
// settling of those that need more runs (appended, so a job that would sit
// idle at the end takes another workload's repeat instead).
class CountingTasks {
 public:
  struct Task {
    size_t workload = 0;
    bool settle = false;
  };

  explicit CountingTasks(size_t workloads) : outstanding_(workloads) {
    for (size_t i = 0; i < workloads; ++i) queue_.push_back({i, false});
  }

  /// The next task; false when there is none and none can come.
  bool Next(Task* task) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return !queue_.empty() || outstanding_ == 0; });
    if (queue_.empty()) return false;
    *task = queue_.front();
    queue_.pop_front();
    return true;
  }

  /// A task is done; `then` is the task it left to do, if any.
  void Done(std::optional<Task> then) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (then) {
      queue_.push_back(*then);
    } else {
      --outstanding_;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Task> queue_;
  size_t outstanding_;  // queued or running
};

// The timed context (measure/timed_runs.h): every workload with valid counts
// in one mirrored sequence, one run at a time, then its statistics as one
// family (stats/timed_context.h).
void TimeAll(const ComparisonPlan& plan, CompareReport* report, const ProgressFn& progress) {
  std::vector<size_t> timed;
  for (size_t i = 0; i < plan.workloads.size(); ++i) {
    if (report->workloads[i].verdict != Verdict::kInvalid) timed.push_back(i);
  }
  const std::vector<TimedSlot> schedule =
      TimedSchedule(timed, plan.timed, !plan.baseline_exe.empty());
  std::optional<WorkDir> dir;  // the workload's own, as its counted runs had
  size_t dir_of = SIZE_MAX;
  auto run = [&](const TimedSlot& slot, std::string* err) {
    const Workload& w = plan.workloads[slot.workload];
    if (dir_of != slot.workload) {
      dir.reset();
      dir.emplace(w, plan.suite_dir);
      dir_of = slot.workload;
    }
    progress(fmt::format("{}  {}  timed run{}", w.name, slot.baseline ? "baseline" : "candidate",
                         slot.warm_up ? " (warm-up)" : ""));
    const std::string& exe = slot.baseline ? plan.baseline_exe : plan.candidate_exe;
    return TimeWorkload({w, plan.suite_dir, *dir, exe, plan.launch}, err);
  };
  std::vector<std::string> errors(plan.workloads.size());
  RunTimedSchedule(schedule, run, &report->workloads, &errors);
  dir.reset();
  for (size_t i = 0; i < errors.size(); ++i) {
    // Context only: a failed timed run never changes the verdict, but it is said.
    WorkloadResult& r = report->workloads[i];
    if (!errors[i].empty()) r.reason += (r.reason.empty() ? "" : "; ") + errors[i];
  }
  DecideTimedContext(&report->workloads, plan.seed);
}

}  // namespace

int ComparisonRepeats(Backend backend, int requested) {
  if (requested > 0) return requested;
  return TraitsOf(backend).exact ? 1 : 3;
}

StabilityMode ComparisonStability(StabilityMode requested, bool saving_baseline) {
  return saving_baseline && requested == StabilityMode::kAuto ? StabilityMode::kAlways : requested;
}

std::string SameBuildFromStoreNote(const std::vector<WorkloadResult>& workloads) {
  if (workloads.empty()) return "";
  auto all_stored = [](const SideResult& side) {
    return side.from_store && !side.counts.empty() && side.from_store->counts == side.counts.size();
  };
  for (const WorkloadResult& w : workloads) {
    const std::string& sha = w.baseline.fingerprint.binary_sha256;
    if (sha.empty() || sha != w.candidate.fingerprint.binary_sha256 ||
        !all_stored(w.candidate)) {
      return "";
    }
  }
  return "the baseline and the candidate are one build, and the candidate's counts came from "
         "the store (the baseline's, or an earlier run's): this run does not show whether the "
         "workloads repeat; to check that, run compare --aa";
}

std::string SameBuildCheckNote(const std::vector<WorkloadResult>& workloads, bool* all_repeat) {
  *all_repeat = true;
  std::vector<std::string> differ;
  size_t valid = 0, fewest = SIZE_MAX, most = 0;
  for (const WorkloadResult& w : workloads) {
    if (w.verdict == Verdict::kInvalid) continue;
    std::vector<uint64_t> counts = w.baseline.counts;
    counts.insert(counts.end(), w.candidate.counts.begin(), w.candidate.counts.end());
    if (counts.empty()) continue;
    ++valid;
    fewest = std::min(fewest, counts.size());
    most = std::max(most, counts.size());
    const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
    if (*lo == *hi) continue;
    *all_repeat = false;
    differ.push_back(fmt::format("{} ({} counts differ by up to {} {}, {:.1f} ppm)", w.name,
                                 counts.size(), FormatCount(*hi - *lo), MetricWords(w.metric),
                                 SpreadPpm(*lo, *hi)));
  }
  if (valid == 0) return "A/A check: no workload was counted validly, so none was checked";
  if (*all_repeat) {
    return fmt::format(
        "A/A check: one build on both sides, every count from scratch: {} did the same work in "
        "every count ({}{} counts each): {} deterministic on this machine",
        valid == 1 ? std::string("the workload") : fmt::format("each of the {} workloads", valid),
        fewest == most ? "" : "at least ", fewest, valid == 1 ? "it is" : "they are");
  }
  return fmt::format(
      "A/A check: one build on both sides, every count from scratch: {} did not do the same work "
      "every run; a gate decides {} on an interval over several counts a side, and `workgate "
      "count --repeat 5` names what the runs met that nothing pinned",
      fmt::join(differ, "; "), differ.size() == 1 ? "it" : "them");
}

void RunComparison(const ComparisonPlan& plan, Counter& counter, CompareReport* report,
                   const ComparisonProgress& progress) {
  const Fingerprint common = CommonFingerprint(plan.machine, counter, report->workgate_version);

  report->workloads.assign(plan.workloads.size(), WorkloadResult{});
  for (size_t i = 0; i < plan.workloads.size(); ++i) {
    const Workload& w = plan.workloads[i];
    WorkloadResult& r = report->workloads[i];
    r.name = w.name;
    r.command = w.command;
    r.max_work_added = w.max_work_added_percent.value_or(plan.max_work_added_percent) / 100.0;
    r.expected_score = w.score_expect;
    r.previous_score = w.score_previous;
    r.metric = w.metric;
    if (w.accepted) r.accepted = Acceptance{*w.accepted};
  }

  // Every side is counted through the result store's count cache, where
  // the plan has one (measure/count_cache.h), which reads the store once now.
  SideCounter sides(counter, common, plan.suite_dir, plan.launch, plan.cache);
  sides.Prefetch(plan.workloads, {plan.baseline_exe, plan.candidate_exe});

  // Counting: workloads run concurrently, the two sides of one in turn.
  std::vector<WorkloadWork> work(plan.workloads.size());
  CountingTasks tasks(plan.workloads.size());
  std::mutex failure_mutex;
  std::exception_ptr failure;  // the first, rethrown as it was: its exit code stands
  auto worker = [&] {
    CountingTasks::Task task;
    while (tasks.Next(&task)) {
      const Workload& w = plan.workloads[task.workload];
      WorkloadResult* r = &report->workloads[task.workload];
      bool settle_later = false;
      try {
        if (task.settle) {
          SettleLater(plan, sides, w, work[task.workload], r, progress.step);
        } else {
          settle_later = CountFirst(plan, sides, w, &work[task.workload], r, progress.step);
        }
        progress.step("");
        if (!settle_later) {
          // A workload's verdict rests on its own counts only.
          Decide(r);
          progress.finished(*r);
        }
      } catch (...) {
        progress.step("");
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
      tasks.Done(settle_later ? std::optional<CountingTasks::Task>({task.workload, true})
                              : std::nullopt);
    }
  };
  std::vector<std::thread> threads;
  const int jobs = std::max(1, std::min<int>(plan.jobs, static_cast<int>(plan.workloads.size())));
  for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);

  // Timed context, alone, after all counting; only where the counts are valid.
  if (plan.timed > 0 && !plan.candidate_exe.empty()) TimeAll(plan, report, progress.step);

  DecideSuite(report);
}

}  // namespace workgate
