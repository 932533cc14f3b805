#include "measure/measure.h"

#include <fmt/format.h>

#include <algorithm>

#include "identity/elf_file.h"
#include "measure/run_files.h"
#include "model/backend.h"
#include "util/text.h"
#include "workload/path_hint.h"
#include "workload/score.h"

namespace workgate {

std::vector<uint64_t> CountedWorkload::counts() const {
  std::vector<uint64_t> out = from_store;
  for (const auto& r : runs) {
    if (auto n = r.instructions()) out.push_back(*n);
  }
  return out;
}

std::string OutputTail(const std::string& text, size_t lines) {
  size_t end = text.size();
  while (end > 0 && text[end - 1] == '\n') --end;
  size_t start = end;
  for (size_t n = 0; start > 0 && n < lines; ++n) {
    start = text.rfind('\n', start - 1);
    if (start == std::string::npos) {
      start = 0;
      break;
    }
  }
  std::string tail = text.substr(start, end - start);
  if (!tail.empty() && tail[0] == '\n') tail.erase(0, 1);
  return tail;
}

std::string CheckScore(const Workload& w, ScoreSide side, const std::optional<std::string>& found,
                       std::optional<std::string>* got) {
  if (!w.score_pattern) return "";
  *got = found;
  if (!*got) {
    return fmt::format("the pinned run printed no score (pattern '{}' did not match its output)",
                       *w.score_pattern);
  }
  if (!ScoreAdmitted(**got, side, *w.score_expect, w.score_previous)) {
    return fmt::format(
        "score mismatch: expected {}, got {}{} (the pinned run did different work, so its count "
        "does not compare)",
        ExpectedScoreText(side, *w.score_expect, w.score_previous), ShortScore(**got),
        PreviousScoreHint(**got, side, w.score_previous));
  }
  return "";
}

std::string LeftoverError(const LaunchResult& launch) {
  const std::string left =
      launch.leftover_processes < 0
          ? std::string("the workload's supervisor was killed with its tree")
      : launch.leftover_processes == 1
          ? std::string("the workload left 1 process running")
          : fmt::format("the workload left {} processes running", launch.leftover_processes);
  return left +
         " when it ended; what it did after that was not counted, so the count is not the "
         "workload's work (the processes were killed). A workload that leaves a daemon on "
         "purpose says so: allow_leftover = true in its suite entry, or --allow-leftover";
}

bool PointAtBuild(const SideRun& side, const std::map<std::string, std::string>& env,
                  std::string* err) {
  std::string target = side.exe;
  if (side.options.resolve_build && !side.options.resolve_build(side.exe, &env, &target, err)) {
    return false;
  }
  // --as-is runs the command as given, so the check is all there is.
  return side.options.as_is || side.dir.PointExeAt(target, err);
}

std::string ExecutedFile(const LaunchOptions& options, const std::string& exe) {
  std::string target = exe, ignored;
  if (!options.resolve_build || !options.resolve_build(exe, nullptr, &target, &ignored)) return exe;
  return target;
}

bool PlanCountedRun(const SideRun& side, RunIdentity* run, std::string* err) {
  LaunchSpec spec;
  if (!PlanRun(side, RunKind::kPinned, &spec, err) || !PointAtBuild(side, spec.env, err)) {
    return false;
  }
  run->argv = spec.argv;
  run->env = spec.env;
  SetRunDirectory(side, run);
  return true;
}

void SetRunDirectory(const SideRun& side, RunIdentity* run) {
  const bool own = !side.options.as_is;
  run->cwd = own ? side.dir.path() : "";
  run->host_cwd = own && side.dir.bound() ? side.dir.host_path() : "";
}

namespace {

// Whether `path` is an ELF program the kernel starts without a loader (no
// PT_INTERP): statically linked, so an LD_PRELOAD library never loads in it.
bool IsStaticProgram(const std::string& path) {
  FileSource file;
  ElfFile elf;
  std::string ignored;
  return file.Open(path, &ignored) && ReadElfFile(file, &elf, &ignored) && elf.elf_class != 0 &&
         elf.interpreter.empty();
}

// Adds `words` to `list`, each once.
void AddOnce(const std::vector<std::string>& words, std::vector<std::string>* list) {
  for (const std::string& w : words) {
    if (std::find(list->begin(), list->end(), w) == list->end()) list->push_back(w);
  }
}

// What `result`'s runs met unpinned, and whether its counts are
// deterministic by construction (CountedWorkload).
void NoteDeterminism(const Counter& counter, const Workload& w, const LaunchSpec& spec,
                     CountedWorkload* result) {
  bool seen = !result->runs.empty() && result->from_store.empty();
  for (const CountedRun& run : result->runs) {
    seen = seen && run.inputs_seen;
    AddOnce(DescribeUnpinned(run.unpinned), &result->unpinned);
  }
  // vgcount pins a static program's clock itself; under the other counters
  // the shim is all there is, and it cannot load into one.
  if (w.clock == ClockMode::kShim && !TraitsOf(counter.backend()).sees_inputs &&
      IsStaticProgram(spec.exec_path)) {
    AddOnce({"the clock shim cannot reach a static program; its clock is not pinned"},
            &result->unpinned);
  }
  result->deterministic = seen && result->unpinned.empty();
}

// A run of a workload gated on estimated cycles: they become its primary
// event, from its instructions and simulated events, or the run is invalid.
void CountEstimatedCycles(CountedRun* run) {
  const std::optional<SimulatedCosts> costs = SimulatedCostsOf(run->simulated);
  if (!costs) {
    run->error = "the counter gave no simulated events, so the run has no estimated cycles";
    return;
  }
  const uint64_t cycles = EstimatedCycles(run->events.front().value, *costs);
  run->events.insert(run->events.begin(), EventCount{"estimated-cycles", cycles, 0, 0});
}

// A failed run's missing file, where its output or its command names a
// relative path its private directory does not hold (workload/path_hint.h).
// Under --as-is the run's directory is the caller's own.
void AddPathHint(const SideRun& side, const LaunchResult& launch, std::string* error) {
  if (side.options.as_is) return;
  const std::string hint =
      RelativePathHint(side.w, side.suite_dir, side.dir.path(), launch.err + "\n" + launch.out);
  if (!hint.empty()) *error += "\n" + hint;
}

}  // namespace

std::string MetricUnsupported(const Counter& counter, const Workload& w) {
  if (w.metric != Metric::kEstimatedCycles || TraitsOf(counter.backend()).under_valgrind) return "";
  return fmt::format(
      "its metric is estimated-cycles, which only a Valgrind backend (vgcount, callgrind) "
      "simulates; {} counts no simulated events (choose --backend vgcount or callgrind, or "
      "metric = \"instructions\")",
      counter.name());
}

CountedWorkload CountWorkload(Counter& counter, const SideRun& side, const CountSpec& count) {
  CountedWorkload result;
  std::string err;
  if (std::string unsupported = MetricUnsupported(counter, side.w); !unsupported.empty()) {
    result.error = unsupported;
    return result;
  }
  LaunchSpec spec;
  if (!PlanRun(side, RunKind::kPinned, &spec, &err) || !PointAtBuild(side, spec.env, &err)) {
    result.error = err;
    return result;
  }
  BindWhatTheRunLoads(side.options, side.exe, side.suite_dir, &spec);
  result.argv = spec.argv;
  result.env = spec.env;
  CountOptions count_options;
  count_options.region = side.w.region;
  count_options.pin = !side.options.as_is && side.options.pin_inputs;
  const bool cycles = side.w.metric == Metric::kEstimatedCycles;
  count_options.simulate = count.simulate || cycles;
  for (int i = 0; i < count.repeat; ++i) {
    // Each repeat starts in a fresh directory too (WorkDir::PointExeAt).
    if (i > 0 && !PointAtBuild(side, spec.env, &err)) {
      result.error = err;
      return result;
    }
    count_options.keep_profiles_dir = i == 0 ? count.keep_profiles_dir : "";
    spec.passthrough = i == 0 ? side.options.passthrough : nullptr;
    // The score is looked for line by line as the output streams by: the
    // output itself is never held whole.
    std::optional<ScoreMatcher> matcher;
    if (side.w.score_pattern) matcher.emplace(*side.w.score_pattern);
    spec.stdout_line = [&matcher](std::string_view line) {
      if (matcher) matcher->Feed(line);
    };
    CountedRun run = counter.Run(spec, count_options);
    // And after: a workload running beside this one (--jobs) could have
    // rewritten the build between the check and the exec.
    std::string unchanged;
    if (run.valid() && side.options.resolve_build &&
        !side.options.resolve_build(side.exe, &spec.env, &unchanged, &run.error)) {
      run.events.clear();
    }
    if (cycles && run.valid()) CountEstimatedCycles(&run);
    const std::string note = run.launch.LeftoverNote();
    if (!note.empty() && !side.w.allow_leftover && run.valid()) {
      // What a process did after the workload ended, it did uncounted: a
      // daemon could hold all the work (docs/security.md, "What the candidate
      // can and cannot do").
      run.error = LeftoverError(run.launch);
    }
    if (!note.empty() && side.w.allow_leftover &&
        std::find(result.notes.begin(), result.notes.end(), note) == result.notes.end()) {
      result.notes.push_back(note);
    }
    for (const std::string& counted : run.notes) {
      if (std::find(result.notes.begin(), result.notes.end(), counted) == result.notes.end()) {
        result.notes.push_back(counted);
      }
    }
    if (!run.valid()) {
      std::string tail = OutputTail(run.launch.err);
      result.error = run.error.empty() ? "no count" : run.error;
      // Quoted line by line behind a prefix: no line the program wrote may
      // start a line of workgate's output or of a CI log.
      if (!tail.empty()) result.error += "; its stderr ends:\n" + QuotedLines(tail);
      AddPathHint(side, run.launch, &result.error);
      result.runs.push_back(std::move(run));
      return result;
    }
    std::optional<std::string> score;
    std::string score_error = CheckScore(
        side.w, count.score_side, matcher ? matcher->last() : std::optional<std::string>(), &score);
    if (!score_error.empty()) {
      result.score = score;
      result.error = score_error;
      AddPathHint(side, run.launch, &result.error);
      result.runs.push_back(std::move(run));
      return result;
    }
    if (score) result.score = score;
    result.runs.push_back(std::move(run));
  }
  NoteDeterminism(counter, side.w, spec, &result);
  return result;
}

void RejectMultiplexed(CountedWorkload* c) {
  if (!c->valid()) return;
  for (const CountedRun& run : c->runs) {
    if (run.events.empty() || !run.events[0].multiplexed()) continue;
    const EventCount& primary = run.events[0];
    c->error = fmt::format(
        "{} was multiplexed: the kernel counted it {:.1f}% of the run, so its figure is "
        "partial (workgate never scales it); count fewer events with --event, or stop what "
        "else holds the PMU's counters",
        primary.event,
        100.0 * static_cast<double>(primary.time_running) /
            static_cast<double>(primary.time_enabled));
    return;
  }
}

TimedSample TimeWorkload(const SideRun& side, std::string* err) {
  TimedSample sample;
  LaunchSpec spec;
  if (!PlanRun(side, RunKind::kTimed, &spec, err) || !PointAtBuild(side, spec.env, err)) {
    return sample;
  }
  BindWhatTheRunLoads(side.options, side.exe, side.suite_dir, &spec);
  std::optional<ScoreMatcher> matcher;
  if (side.w.score_pattern) matcher.emplace(*side.w.score_pattern);
  spec.stdout_line = [&matcher](std::string_view line) {
    if (matcher) matcher->Feed(line);
  };
  LaunchResult r = Launch(spec);
  sample.wall_seconds = r.wall_seconds;
  if (!r.ok()) {
    *err = r.Describe(spec.timeout_seconds);
    return sample;
  }
  if (matcher && matcher->last()) sample.score = ScoreValue(*matcher->last());
  return sample;
}

}  // namespace workgate
