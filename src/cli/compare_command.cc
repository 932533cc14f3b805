// `workgate compare`: the gate. Baseline and candidate builds through a
// suite (or one ad hoc command), exact instruction deltas, a verdict with its
// exit code, and the reports.

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>

#include "cli/commands.h"
#include "cli/compare_pair.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "counter/perf_counter.h"
#include "decision/baseline_file.h"
#include "decision/decision.h"
#include "decision/merge.h"
#include "decision/stability.h"
#include "identity/count_key.h"
#include "launch/interrupt.h"
#include "machine/system_info.h"
#include "measure/build_copies.h"
#include "measure/commit_date.h"
#include "measure/comparison.h"
#include "measure/containment.h"
#include "model/backend.h"
#include "report/format.h"
#include "store/result_store.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"
#include "version.h"
#include "workload/build_check.h"
#include "workload/shard.h"

namespace workgate {

namespace {

struct CompareArgs {
  CounterArgs counter;
  LaunchArgs launch;
  std::string baseline, candidate, suite;
  std::vector<std::string> workloads;
  std::vector<std::string> command;
  std::string name = "command";  // --name: the ad hoc workload's
  bool name_given = false;
  double max_work_added = kDefaultMaxWorkAddedPercent;
  int repeat = 0;  // 0: the backend's default
  StabilityMode stability = StabilityMode::kAuto;
  int max_repeat = 10;
  int jobs = 0;  // 0: the number of cores
  int timed = 1;
  double timeout = 600;
  bool allow_leftover = false;  // --allow-leftover
  ClockArg clock;
  ReportArgs reports;
  std::string save_baseline, baseline_results;
  ExplainMode explain = ExplainMode::kWorkAdded;
  int explain_top = 10;
  EventsMode events = EventsMode::kWork;
  std::string hardware_events = kDefaultHardwareEvents;  // --hardware-events; "none": none
  bool hardware_events_given = false;
  std::string source_root, source_link, source_base;
  uint64_t seed = 20261129;
  std::vector<std::string> notes;
  std::optional<ShardSpec> shard;
  StoreArgs store;
  std::string record;  // --record REF
  std::optional<std::string> record_subject;
  bool aa = false;  // --aa: the baseline build on both sides, from scratch
};

std::vector<Workload> AdHocWorkload(const CompareArgs& args) {
  Workload w;
  w.name = args.name;
  w.command = AdHocCommand(args.command);
  w.timeout_seconds = args.timeout;
  w.allow_leftover = args.allow_leftover;
  w.clock = args.clock.For(args.launch.as_is);
  return {w};
}

// --aa: refuses what an A/A check cannot take, and gives the comparison it
// runs: the baseline build on both sides, every count made now (no store,
// so nothing is taken from an earlier run) and counted again (stability
// always), so that each workload has at least two counts a side.
CompareArgs SameBuildArgs(const CompareArgs& given) {
  if (given.baseline.empty()) {
    throw UsageError("--aa counts one build on both sides: give it as --baseline EXE");
  }
  for (const auto& [option, value] :
       {std::pair{"--candidate", given.candidate}, {"--baseline-results", given.baseline_results},
        {"--save-baseline", given.save_baseline}, {"--record", given.record},
        {"--store", given.store.path}}) {
    if (!value.empty()) {
      throw UsageError(fmt::format(
          "--aa counts --baseline on both sides, from scratch and without the store: it takes no "
          "{}",
          option));
    }
  }
  if (given.stability == StabilityMode::kNever) {
    throw UsageError("--aa counts every workload again: it takes no --stability never");
  }
  CompareArgs args = given;
  args.candidate = args.baseline;
  args.store.none = true;
  args.stability = StabilityMode::kAlways;
  return args;
}

// Refuses combinations of options that cannot make a comparison.
void CheckCompareArgs(const CompareArgs& args) {
  if (args.suite.empty() == args.command.empty()) {
    throw UsageError("give either --suite FILE, or -- ARGS for one ad hoc workload");
  }
  if (args.candidate.empty() && args.save_baseline.empty()) {
    throw UsageError("--candidate EXE is required (or --save-baseline FILE to store a baseline)");
  }
  if (args.baseline.empty() == args.baseline_results.empty()) {
    throw UsageError("give exactly one of --baseline EXE and --baseline-results FILE");
  }
  if (!args.save_baseline.empty() && args.baseline.empty()) {
    throw UsageError("--save-baseline stores the baseline build's counts: it needs --baseline");
  }
  if (!args.suite.empty() && args.name_given) {
    throw UsageError("--name names the ad hoc workload of -- ARGS; a suite names its own");
  }
  if (args.shard && args.suite.empty()) {
    throw UsageError("--shard splits a suite's workloads: it needs --suite FILE");
  }
  if (!args.record.empty() && args.candidate.empty()) {
    throw UsageError("--record records the candidate's results: it needs --candidate EXE");
  }
  args.store.CheckRecord(args.record);
}

// --record: the candidate's results in the store's history, with the
// date of the commit REF names (`committed_at`). False with `*err` when they
// could not be stored.
bool RecordCandidate(const CompareArgs& args, const std::optional<std::string>& committed_at,
                     ResultStore& store, CompareReport* report, std::string* err) {
  std::vector<HistoryRecord> records =
      CandidateRecords(*report, args.record, UtcNow(), args.candidate);
  for (HistoryRecord& r : records) {
    r.subject = args.record_subject;
    r.committed_at = committed_at;
  }
  if (records.empty()) {
    *err = "no workload's candidate was counted, so nothing was recorded";
    return false;
  }
  if (!store.Record(records, err)) return false;
  report->recorded_as = args.record;
  return true;
}

// The suite's selected workloads (this shard's share of them), or the one ad
// hoc command; the builds must exist. The report records the suite, and the
// shard its place in the whole.
void PlanWorkloads(const CompareArgs& args, ComparisonPlan* plan, CompareReport* report) {
  if (args.suite.empty()) {
    plan->workloads = AdHocWorkload(args);
    report->settings.command = plan->workloads[0].command;
  } else {
    const Suite suite = LoadSuiteSelecting(args.suite, args.workloads);
    plan->suite_dir = suite.dir;
    report->settings.suite = args.suite;
    report->settings.suite_sha256 = suite.sha256;
    std::vector<std::string> names;
    for (size_t p = 0; p < suite.workloads.size(); ++p) {
      names.push_back(suite.workloads[p].name);
      if (!args.shard || InShard(p, *args.shard)) plan->workloads.push_back(suite.workloads[p]);
    }
    if (args.shard) {
      const std::string& baseline = args.baseline.empty() ? args.baseline_results : args.baseline;
      report->shard = MakeShardInfo(*args.shard, std::move(names), baseline, args.candidate);
    }
  }
  for (const auto& exe : {args.baseline, args.candidate}) {
    std::string err;
    if (!exe.empty() && !CheckBuild(exe, plan->workloads, &err)) throw Error(kExitInvalid, err);
  }
  plan->baseline_exe = args.baseline;
  plan->candidate_exe = args.candidate;
}

// How each workload is counted, timed and explained, on this machine with
// the chosen backend.
void PlanCounting(const CompareArgs& args, const Counter& counter, const SystemInfo& info,
                  ComparisonPlan* plan) {
  plan->repeat = ComparisonRepeats(counter.backend(), args.repeat);
  plan->stability = ComparisonStability(args.stability, !args.save_baseline.empty());
  plan->max_repeat = std::max(args.max_repeat, plan->repeat);
  plan->jobs = JobsOrCores(args.jobs);
  plan->timed = args.timed;
  plan->max_work_added_percent = args.max_work_added;
  plan->explain = args.explain;
  plan->events = args.events;
  plan->hardware_events = args.hardware_events == "none" ? "" : args.hardware_events;
  plan->saving_baseline = !args.save_baseline.empty();
  plan->explain_top = args.explain_top;
  plan->flame_graph = !args.reports.flamegraph_path.empty();
  if (args.explain != ExplainMode::kNever) {
    plan->sources = SourceViewOf(args.source_root, args.source_link, args.source_base);
  }
  plan->seed = args.seed;
  plan->launch = args.launch.ToOptions();
  plan->launch.resolve_build = PinBuilds({args.baseline, args.candidate});
  plan->machine.cpu_model = info.cpu_model.value.value_or("");
  plan->machine.kernel = info.kernel_release.value.value_or("");
  if (!args.baseline_results.empty()) {
    plan->stored_baseline = LoadBaselineForComparison(args.baseline_results);
    plan->stored_baseline_path = args.baseline_results;
  }
}

// The report's header: what counted, with which settings, on which builds.
void FillHeader(const CompareArgs& args, const Counter& counter, const BackendChoice& choice,
                const ComparisonPlan& plan, CompareReport* report) {
  report->workgate_version = WORKGATE_VERSION;
  report->backend = counter.name();
  report->backend_reason = choice.reason;
  report->event = counter.event();
  report->max_work_added = args.max_work_added / 100.0;
  report->repeat = plan.repeat;
  report->timed_samples = plan.timed;
  report->timed_seed = plan.seed;
  report->baseline_label = !args.baseline.empty() ? args.baseline : args.baseline_results;
  report->candidate_label = args.candidate;
  report->notes = args.notes;
  report->candidate_reach = CandidateReach(counter.name(), args.launch.as_is);
  RunSettings& s = report->settings;
  s.stability = StabilityModeName(plan.stability);
  s.max_repeat = plan.max_repeat;
  s.explain = ExplainModeName(plan.explain);
  s.explain_top = plan.explain_top;
  s.events = EventsModeName(plan.events);
  s.as_is = args.launch.as_is;
  s.env = args.launch.env;
  s.pass_env = args.launch.pass_env;
}

// Stores the baseline side's counts (--save-baseline).
void SaveBaseline(const CompareArgs& args, const CompareReport& report) {
  std::string err;
  auto file = BaselineFromResults(report.workloads, /*candidate_side=*/false, WORKGATE_VERSION,
                                  args.baseline, &err);
  if (!file) throw Error(kExitInvalid, "baseline not saved: " + err);
  if (!SaveBaselineFile(args.save_baseline, *file, &err)) throw EnvironmentError(err);
  fmt::print(stderr, "baseline counts saved to {}\n", args.save_baseline);
}

// --hardware-events: perf's, and each event one libpfm4 knows (whether the
// machine can count it is each workload's note).
void CheckHardwareEvents(const CompareArgs& args, const Counter& counter,
                         const ComparisonPlan& plan) {
  if (args.hardware_events_given && counter.backend() != Backend::kPerf) {
    throw UsageError(fmt::format("--hardware-events {} needs the perf backend, but {} counts here",
                                 args.hardware_events, counter.name()));
  }
  if (counter.backend() != Backend::kPerf || plan.hardware_events.empty()) return;
  std::vector<PerfEventSpec> specs;
  std::string err;
  if (!EncodePerfEvents(plan.hardware_events, &specs, &err)) {
    throw UsageError("--hardware-events: " + err);
  }
}

// A decided workload in one line for the progress display: its name, its
// verdict and, where the counts give one, the relative delta.
std::string FinishedWorkloadLine(const WorkloadResult& r) {
  std::string line = fmt::format("{}  {}", TerminalSafe(r.name, LineBreaks::kToSpace),
                                 VerdictName(r.verdict));
  if (r.verdict != Verdict::kInvalid) {
    line += "  " + FormatPercent(r.relative, Minus::kAscii);
  }
  return line;
}

// Counts what `plan` holds (PlanWorkloads) with the backend, store and
// settings of `args` into `*report`: the one path from builds to decided
// workloads that compare and accept share. Returns the store it used.
std::unique_ptr<ResultStore> Count(const CompareArgs& args, ComparisonPlan* plan,
                                   CompareReport* report) {
  SystemInfo info = GatherSystemInfo(LibpfmPmus::kNotListed);
  BackendChoice choice = args.counter.Choose(info);
  auto counter = MakeCounter(choice, args.counter.events);
  PlanCounting(args, *counter, info, plan);
  CheckHardwareEvents(args, *counter, *plan);

  FillHeader(args, *counter, choice, *plan, report);
  std::optional<CountCache> cache;
  std::unique_ptr<ResultStore> store =
      args.store.OpenForCounting(*counter, args.record, &cache, &report->store_notes);
  if (cache) plan->cache = &*cache;
  plan->record_ref = args.record;
  Progress progress;
  progress.Expect(plan->workloads.size(), "workloads");
  ComparisonProgress events;
  events.step = [&progress](const std::string& text) { progress.Show(text); };
  events.finished = [&progress](const WorkloadResult& r) {
    // On a terminal each decided workload stays on a line of its own above
    // the status; a log gets the whole report soon enough.
    progress.Finished(progress.terminal() ? std::function<void()>([&r] {
      fmt::print(stderr, "{}\n", FinishedWorkloadLine(r));
    })
                                          : std::function<void()>());
  };
  RunComparison(*plan, *counter, report, events);
  progress.Done();
  plan->cache = nullptr;
  if (store) report->store = store->path();
  if (cache) {
    for (const std::string& note : cache->notes()) report->store_notes.push_back(note);
  }
  if (std::string note = SameBuildFromStoreNote(report->workloads); !note.empty()) {
    report->store_notes.push_back(std::move(note));
  }
  if (plan->stored_baseline) {
    report->stored_baseline =
        StoredBaselineUseOf(*plan->stored_baseline, plan->stored_baseline_path, report->workloads);
  }
  return store;
}

int RunCompare(const CompareArgs& given) {
  const CompareArgs args = given.aa ? SameBuildArgs(given) : given;
  CheckCompareArgs(args);
  args.reports.Text();  // refuses two reports on standard output, before any work
  ComparisonPlan plan;
  CompareReport report;
  PlanWorkloads(args, &plan, &report);
  // Before any counting: a report that cannot be written stops the run now,
  // and no report of an earlier run survives this one.
  args.reports.Prepare({{"--save-baseline", args.save_baseline}},
                       {{"--baseline", args.baseline},
                        {"--candidate", args.candidate},
                        {"--suite", args.suite},
                        {"--baseline-results", args.baseline_results},
                        {"--store", args.store.path}});
  // Read before any workload runs: the candidate can write the checkout's refs.
  const std::optional<std::string> committed_at =
      args.record.empty() ? std::nullopt : CommitDate(args.source_root, args.record);
  std::unique_ptr<ResultStore> store = Count(args, &plan, &report);
  if (args.aa) {
    // The check's answer goes under the verdict; a pass whose counts do not
    // all agree is no pass of a determinism check.
    bool all_repeat = true;
    report.notes.push_back(SameBuildCheckNote(report.workloads, &all_repeat));
    if (!all_repeat && report.exit_code == kExitPass) {
      report.verdict = Verdict::kInconclusive;
      report.exit_code = kExitInconclusive;
    }
  }

  // Nothing is published once an interruption began: its counts are partial.
  auto publishing = BeginPublishing();
  if (!publishing) return kExitEnvironment;
  if (!args.save_baseline.empty()) {
    SaveBaseline(args, report);
    if (args.candidate.empty()) return kExitPass;
  }
  std::string not_recorded;
  if (!args.record.empty() &&
      !RecordCandidate(args, committed_at, *store, &report, &not_recorded)) {
    report.store_notes.push_back("--record " + args.record + ": " + not_recorded);
  }
  args.reports.Publish(report);
  // A run asked to record that did not is an environment failure, unless it
  // has a worse verdict to give.
  if (!not_recorded.empty()) {
    fmt::print(stderr, "Error: the results were not recorded: {}\n", not_recorded);
    if (report.exit_code == kExitPass) return kExitEnvironment;
  }
  return report.exit_code;
}

// What is compared: the builds, the workloads, or a stored baseline.
void RegisterSides(CLI::App* cmd, const std::shared_ptr<CompareArgs>& args) {
  args->launch.Register(cmd);
  cmd->add_option("--baseline", args->baseline, "The baseline build ({exe} for its side)")
      ->type_name("EXE");
  cmd->add_option("--candidate", args->candidate, "The candidate build")->type_name("EXE");
  cmd->add_option("--suite", args->suite, "The suite of workloads")->type_name("FILE");
  AddRepeatable(cmd, "--workload", &args->workloads, "NAME", "Only this workload of the suite");
  args->clock.Register(cmd);
  cmd->add_option("--baseline-results", args->baseline_results,
                  "Compare against counts stored with --save-baseline")
      ->type_name("FILE");
  cmd->add_option_function<std::string>(
         "--shard",
         [args](const std::string& v) {
           ShardSpec spec;
           std::string err;
           if (!ParseShard(v, &spec, &err)) throw CLI::ValidationError("--shard", err);
           args->shard = spec;
         },
         "Count only shard I of N of the suite's workloads (those at positions p with "
         "p % N == I-1); workgate merge joins the parts")
      ->type_name("I/N");
}

// How each side is counted and judged.
void RegisterCounting(CLI::App* cmd, const std::shared_ptr<CompareArgs>& args) {
  args->counter.Register(cmd);
  args->store.Register(cmd);
  RegisterRecordSubject(cmd, &args->record_subject,
                        RegisterRecord(cmd, &args->record, "the candidate's results"));
  cmd->add_option("--max-work-added", args->max_work_added,
                  "Allowed work added, in percent; a suite's max_work_added overrides it")
      ->type_name("PERCENT")
      ->transform(InRange(kMaxWorkAddedPercent))
      ->capture_default_str();
  cmd->add_option("--repeat", args->repeat, "Counts per side [default: 1 on Valgrind, 3 on perf]")
      ->type_name("N")
      ->transform(InRange(kRepeatRange));
  AddChoice(cmd, "--stability", {"auto", "always", "never"}, "auto",
            "Count a build again to learn if it repeats: auto (where the sides differ by less "
            "than 4 margins), always, never (Valgrind only)",
            [args](const std::string& v) { return ParseStabilityMode(v, &args->stability); });
  cmd->add_option("--max-repeat", args->max_repeat, "Most counts per side of an unstable workload")
      ->type_name("N")
      ->transform(InRange(kRepeatRange))
      ->capture_default_str();
  AddJobs(cmd, &args->jobs);
  cmd->add_option("--timed", args->timed, "Timed samples per side, context only (0: none)")
      ->type_name("N")
      ->transform(InRange(kTimedRange))
      ->capture_default_str();
  cmd->add_option("--timeout", args->timeout, "Kill an ad hoc workload after SECONDS")
      ->type_name("SECONDS")
      ->transform(InRange(kTimeoutSeconds))
      ->capture_default_str();
  cmd->add_flag("--allow-leftover", args->allow_leftover,
                "An ad hoc workload may leave processes running (killed, with a note)");
}

// Where the verdict goes, and what comes with it.
void RegisterReports(CLI::App* cmd, const std::shared_ptr<CompareArgs>& args) {
  args->reports.Register(cmd);
  AddRepeatable(cmd, "--note", &args->notes, "NOTE",
                "A line for the reports, under the verdict (a CI's word on its baseline)");
  cmd->add_option("--save-baseline", args->save_baseline,
                  "Store the baseline side's counts and fingerprint in FILE")
      ->type_name("FILE");
  AddChoice(cmd, "--explain", {"never", "work-added", "always"}, "work-added",
            "Which workloads' deltas are explained per function: none, those that add work, or "
            "every valid one",
            [args](const std::string& v) { return ParseExplainMode(v, &args->explain); });
  cmd->add_option("--explain-top", args->explain_top, "Rows per explanation")
      ->type_name("N")
      ->transform(InRange(kTopRange))
      ->capture_default_str();
  AddChoice(cmd, "--events", {"never", "work", "always"}, "work",
            "Which workloads get simulated branch and cache events beside the count (one "
            "simulated run per side under Valgrind): none, those whose work changed, or every "
            "valid one",
            [args](const std::string& v) { return ParseEventsMode(v, &args->events); });
  cmd->add_option_function<std::string>(
         "--hardware-events",
         [args](const std::string& v) {
           args->hardware_events = v;
           args->hardware_events_given = true;
         },
         "perf only: the events counted, in one more run per side, beside the count of a "
         "workload that gets simulated events (libpfm4 names, comma-separated; none for none)")
      ->type_name("EVENTS")
      ->default_str(kDefaultHardwareEvents);
  AddSourceOptions(cmd, &args->source_root, &args->source_link, &args->source_base);
  args->reports.RegisterFlameGraph(cmd);
  cmd->add_option("--seed", args->seed, "Seed of the timed bootstrap and sampled sign flips")
      ->type_name("N")
      ->transform(InRange(kSeedRange))
      ->capture_default_str();
}

}  // namespace

CompareReport ComparePair(const PairArgs& pair) {
  CompareArgs args;
  args.counter = pair.counter;
  args.launch = pair.launch;
  args.store = pair.store;
  args.suite = pair.suite;
  args.workloads = pair.workloads;
  args.baseline = pair.baseline;
  args.candidate = pair.candidate;
  args.max_work_added = pair.max_work_added;
  args.repeat = pair.repeat;
  args.jobs = pair.jobs;
  args.timed = 0;
  args.explain = ExplainMode::kNever;
  // Only the counts: no simulated or hardware events (a workload gated on
  // estimated cycles simulates in its counted runs all the same).
  args.events = EventsMode::kNever;
  CheckCompareArgs(args);
  ComparisonPlan plan;
  CompareReport report;
  PlanWorkloads(args, &plan, &report);
  Count(args, &plan, &report);
  return report;
}

void AddCompareCommand(CLI::App& app, CommandRunner* run) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Gate a candidate build against a baseline on the work it adds");
  RegisterCounting(cmd, args);
  RegisterSides(cmd, args);
  RegisterReports(cmd, args);
  cmd->add_option("command", args->command,
                  "One ad hoc workload's arguments, after --; {exe} is the build (default: "
                  "the build is argv[0])")
      ->type_name("ARGS");
  cmd->add_flag("--aa", args->aa,
                "A/A check, the first thing to run on a new suite: --baseline on both sides, "
                "every count made now and made again (no store; --stability always); says "
                "whether each workload does the same work every run (exit 4 where one does not)");
  AddWorkloadName(cmd, &args->name, &args->name_given,
                  "The ad hoc workload's name in the reports, the store and its history "
                  "[default: command]");
  cmd->footer(HelpFooter(
      {kExitPass, kExitWorkAdded, kExitUsage, kExitInvalid, kExitInconclusive, kExitEnvironment},
      {"workgate compare --baseline base/wgi --candidate head/wgi --suite workloads/interp.toml",
       "workgate compare --baseline base/prog --candidate head/prog --name sort --markdown "
       "comment.md -- --size 1000",
       "workgate compare --baseline base/prog --suite bench.toml --save-baseline base.json",
       "workgate compare --baseline-results base.json --candidate head/prog --suite bench.toml",
       "workgate compare --baseline base/prog --candidate head/prog --suite bench.toml "
       "--shard 2/3 --json part2.json"}));
  cmd->callback([args, run] { *run = [args] { return RunCompare(*args); }; });
}

}  // namespace workgate
