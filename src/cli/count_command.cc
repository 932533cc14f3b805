// `workgate count`: the instructions one command, or every workload of a
// suite for one build, retires in user space.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdio.h>

#include <algorithm>
#include <functional>
#include <cstdlib>
#include <random>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "counter/factory.h"
#include "identity/count_key.h"
#include "launch/interrupt.h"
#include "machine/system_info.h"
#include "measure/build_copies.h"
#include "measure/commit_date.h"
#include "measure/count_cache.h"
#include "measure/count_json.h"
#include "measure/measure.h"
#include "measure/stability_runs.h"
#include "measure/suite_count.h"
#include "measure/thread_runtime.h"
#include "report/format.h"
#include "report/report_output.h"
#include "report/report_paths.h"
#include "report/summary.h"
#include "store/result_store.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"
#include "version.h"
#include "workload/build_check.h"

namespace workgate {

namespace {

struct CountArgs {
  CounterArgs counter;
  LaunchArgs launch;
  int repeat = 1;
  int jobs = 0;  // 0: the number of cores
  double timeout = 600;
  std::string json_path;
  bool quiet = false;
  ClockArg clock;
  bool region = false;
  bool allow_leftover = false;  // --allow-leftover
  std::string suite;
  std::string exe;
  std::vector<std::string> workloads;
  std::vector<std::string> command;
  StoreArgs store;
  std::string record;  // --record REF
  std::optional<std::string> record_subject;
};

// The count's text, printed as it comes (a suite's workloads one by one). A
// failure does not stop the count: main ends the command with exit 5 and
// the reason (report/report_output.h WriteText).
template <typename... T>
void PrintCount(FILE* out, fmt::format_string<T...> format, T&&... args) {
  WriteText(fmt::format(format, std::forward<T>(args)...), out, "the count");
}

void PrintRun(FILE* out, const CountedRun& run, int index, int repeat) {
  std::string line = fmt::format("run {}/{}: ", index + 1, repeat);
  if (!run.valid()) {
    PrintCount(out, "{}invalid: {}\n", line, TerminalSafe(run.error, LineBreaks::kKeep));
    return;
  }
  for (size_t i = 0; i < run.events.size(); ++i) {
    const auto& e = run.events[i];
    line += fmt::format("{}{} {}", i ? ", " : "", FormatCount(e.value), e.event);
    if (e.multiplexed()) {
      line += fmt::format(" (multiplexed: counted {:.1f}% of the time, not scaled)",
                          e.time_enabled ? 100.0 * e.time_running / e.time_enabled : 0.0);
    }
  }
  PrintCount(out, "{}  ({:.3f} s)\n", line, run.launch.wall_seconds);
}

void PrintSummary(FILE* out, const std::vector<uint64_t>& counts, const std::string& event) {
  if (counts.empty()) return;
  auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  PrintCount(out, "{}: min {}  max {}  spread {} ({:.1f} ppm)\n", event, FormatCount(*lo),
             FormatCount(*hi), FormatCount(*hi - *lo), SpreadPpm(*lo, *hi));
}

// What repeats that differ mean on an exact backend, and what to try: the
// inputs the run met unpinned where vgcount saw them, else pinning the clock
// and entropy.
std::string UnstableAdvice(const std::vector<uint64_t>& counts, const std::string& backend,
                           Metric metric, ClockMode clock, const CountedWorkload& result,
                           const std::optional<ThreadHint>& threads) {
  if (counts.size() < 2 || !IsExactBackend(backend)) return "";
  auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  if (*lo == *hi) return "";
  std::string out = fmt::format(
      "unstable: {} counts of the same command differ by up to {} {} ({:.1f} ppm); "
      "the program does not do the same work every run, so compare decides it on an interval "
      "over several counts a side, not on one count\n",
      counts.size(), FormatCount(*hi - *lo), MetricWords(metric), SpreadPpm(*lo, *hi));
  const bool vgcount_pinned = !result.runs.empty() && result.runs[0].inputs_seen;
  if (vgcount_pinned && !result.unpinned.empty()) {
    out += fmt::format(
        "hint: vgcount pinned the clock, the TSC and entropy; the runs met what nothing pins: "
        "{}\n",
        fmt::join(result.unpinned, "; "));
  } else if (vgcount_pinned) {
    out +=
        "hint: vgcount pinned the clock, the TSC and entropy, and the runs met no thread, "
        "signal or unpinned system call; what still differs is input that changes between "
        "runs (a file, the network, /proc); count with --backend callgrind and compare the "
        "runs' profiles to see where\n";
  } else if (clock != ClockMode::kShim) {
    out += fmt::format(
        "hint: the clock and entropy were not pinned (--clock {}); a program that reads the "
        "time, seeds a hash from getrandom or sizes its work from the clock repeats exactly "
        "with --clock shim, or with --backend vgcount, which pins them inside the counter\n",
        ClockModeName(clock));
  } else {
    out +=
        "hint: the clock and entropy were pinned by the shim; what still differs is usually "
        "threads (Valgrind runs them one at a time, in an order that depends on timing), input "
        "that changes between runs, or a clock read the shim does not see (a raw syscall, the "
        "TSC, a static program), which --backend vgcount pins\n";
  }
  if (threads) out += "hint: " + ThreadHintSentence(*threads) + "\n";
  return out;
}

// What a workload's counts are of, as its runs name it: the counter's
// event, or the estimated cycles a workload gated on them counts first
// (CountWorkload).
std::string CountedEvent(Metric metric, const std::string& event) {
  return metric == Metric::kEstimatedCycles ? MetricName(metric) : event;
}

// One workload's line (and its notes) of a suite count.
void PrintSuiteWorkload(FILE* out, const SuiteWorkloadCount& w, const std::string& event) {
  const std::string stored =
      w.from_store ? " (" + TerminalSafe(FromStoreText(*w.from_store), LineBreaks::kToSpace) + ")"
                   : "";
  const std::string name = TerminalSafe(w.name, LineBreaks::kToSpace);
  const CountedWorkload& result = w.result;
  if (result.valid()) {
    auto counts = result.counts();
    auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
    PrintCount(
        out, "{}: {} {}{}{}{}\n", name, FormatCount(*lo), CountedEvent(w.metric, event),
        *hi != *lo
            ? fmt::format(
                  " (max {}{})", FormatCount(*hi),
                  w.unstable ? fmt::format(", unstable: {:.1f} ppm", SpreadPpm(*lo, *hi)) : "")
            : "",
        result.score
            ? fmt::format(", score {} asserted", TerminalSafe(*result.score, LineBreaks::kToSpace))
            : "",
        stored);
  } else {
    PrintCount(out, "{}: invalid: {}\n", name, TerminalSafe(result.error, LineBreaks::kKeep));
  }
  for (const std::string& note : result.notes) PrintCount(out, "{}: note: {}\n", name, note);
  for (const std::string& what : result.unpinned)
    PrintCount(out, "{}: not pinned: {}\n", name, what);
  if (w.thread_hint) PrintCount(out, "{}: hint: {}\n", name, ThreadHintSentence(*w.thread_hint));
}

void WriteCountJson(const std::string& path, const nlohmann::json& doc) {
  std::string err;
  if (!path.empty() && !WriteJsonFile(path, doc, "the count's JSON", &err)) {
    throw EnvironmentError(err);
  }
}

int CountSuite(const CountArgs& args, Counter& counter, const BackendChoice& choice,
               const SystemInfo& info, FILE* out) {
  const Suite suite = LoadSuiteSelecting(args.suite, args.workloads);
  if (std::string err; !CheckBuild(args.exe, suite.workloads, &err)) {
    throw Error(kExitInvalid, err);
  }
  LaunchOptions options = args.launch.ToOptions();
  options.resolve_build = PinBuilds({args.exe});
  SuiteCount report;
  report.backend = counter.name();
  report.backend_reason = choice.reason;
  report.event = counter.event();
  report.exe = args.exe;
  report.suite = args.suite;
  // Read before any workload runs: the build can write the checkout's refs.
  const std::optional<std::string> committed_at =
      args.record.empty() ? std::nullopt : CommitDate("", args.record);
  std::optional<CountCache> cache;
  std::unique_ptr<ResultStore> store =
      args.store.OpenForCounting(counter, args.record, &cache, &report.store_notes);
  Fingerprint machine;
  machine.cpu_model = info.cpu_model.value.value_or("");
  machine.kernel = info.kernel_release.value.value_or("");
  const Fingerprint common = CommonFingerprint(machine, counter, WORKGATE_VERSION);
  const int repeat = SuiteCountRepeats(counter.backend(), args.repeat, !args.record.empty());
  SideCounter sides(counter, common, suite.dir, options, cache ? &*cache : nullptr);
  sides.Prefetch(suite.workloads, {args.exe});
  // Kept with the counts, each count's profile explains a later comparison
  // against it with no run.
  std::optional<TempDir> profiles;
  if (cache) profiles.emplace("workgate-profiles");
  Progress progress;
  progress.Expect(suite.workloads.size(), "workloads");
  std::vector<HistoryRecord> records = CountSuiteWorkloads(
      sides, suite, args.exe, repeat, JobsOrCores(args.jobs), args.record,
      profiles ? profiles->path() : "", [&](const std::string& text) { progress.Show(text); },
      [&](const SuiteWorkloadCount& count) {
        progress.Finished([&] { PrintSuiteWorkload(out, count, counter.event()); });
      },
      &report);
  progress.Done();
  auto publishing = BeginPublishing();
  if (!publishing) return kExitEnvironment;
  if (store) report.store = store->path();
  if (cache) {
    for (const std::string& note : cache->notes()) report.store_notes.push_back(note);
  }
  for (HistoryRecord& r : records) {
    r.subject = args.record_subject;
    r.committed_at = committed_at;
  }
  if (!args.record.empty()) RecordSuite(*store, args.record, records, &report);
  PrintCount(out, "counted with {}: {}\n", counter.name(), choice.reason);
  for (const std::string& note : report.store_notes) {
    PrintCount(out, "store: {}\n", TerminalSafe(note, LineBreaks::kToSpace));
  }
  if (!report.recorded_as.empty()) {
    PrintCount(out, "recorded in the store's history as {}\n",
               TerminalSafe(report.recorded_as, LineBreaks::kToSpace));
  }
  WriteCountJson(args.json_path, SuiteCountToJson(report));
  return report.exit_code;
}

// The ad hoc command as a workload, and the program it runs: found on the
// user's own PATH, then run through the private directory's `exe` link (or
// as given, with --as-is).
Workload CommandWorkload(const CountArgs& args, std::string* exe) {
  Workload w;
  w.name = "command";
  w.command = {args.launch.as_is ? args.command[0] : "{exe}"};
  w.command.insert(w.command.end(), args.command.begin() + 1, args.command.end());
  w.timeout_seconds = args.timeout;
  w.region = args.region;
  w.allow_leftover = args.allow_leftover;
  w.clock = args.clock.For(args.launch.as_is);
  const char* path = getenv("PATH");
  *exe = SearchPath(args.command[0], path ? path : "");
  if (exe->empty() || RealPath(*exe).empty()) {
    throw Error(kExitInvalid, fmt::format("{}: command not found", args.command[0]));
  }
  return w;
}

// The command's own output, passed through as it arrives (however much the
// program prints, workgate holds at most a line of it), without the escape
// sequences and control characters that could rewrite the terminal or a CI
// log, each line behind QuotedLineFilter's prefix so that the program
// starts no line of the log. Its standard output goes where workgate's text
// goes (stderr with --json -).
//
// Under GitHub Actions (GITHUB_ACTIONS=true) the runner also obeys commands
// it finds inside a line (the old `##[command]` form), so the output is
// wrapped in `::stop-commands::TOKEN` ... `::TOKEN::` with a token the
// program cannot guess, as GitHub's workflow-command documentation
// describes. The runner reads a step's stdout and stderr apart, in no
// fixed order between the two, so there both streams are passed through on
// workgate's one text stream, inside one such block.
class PassThrough {
 public:
  explicit PassThrough(FILE* out) : out_(out) {
    const char* actions = getenv("GITHUB_ACTIONS");
    if (actions != nullptr && std::string_view(actions) == "true") token_ = RandomToken();
  }
  void Feed(int fd, std::string_view chunk) { Write(fd, filters_[fd == 1 ? 0 : 1].Feed(chunk)); }
  void Finish() {
    Write(1, filters_[0].Finish());
    Write(2, filters_[1].Finish());
    if (started_) Write(1, fmt::format("::{}::\n", token_), /*ours=*/true);
  }

 private:
  // 128 bits from the kernel's random source (std::random_device is
  // getrandom(2) or /dev/urandom with libstdc++ on Linux), in hex.
  static std::string RandomToken() {
    std::random_device random;
    std::string token;
    for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", random());
    return token;
  }
  // A stdout that fails here does not stop the count (the JSON and the
  // store still get it), but the command then exits 5, naming this output.
  void Write(int fd, const std::string& text, bool ours = false) {
    if (text.empty()) return;
    if (!token_.empty() && !started_ && !ours) {
      started_ = true;
      Write(1, fmt::format("::stop-commands::{}\n", token_), /*ours=*/true);
    }
    FILE* to = fd == 1 || !token_.empty() ? out_ : stderr;
    WriteText(text, to, "the counted command's output");
  }
  FILE* out_;
  std::string token_;  // "" outside GitHub Actions
  bool started_ = false;
  QuotedLineFilter filters_[2];
};

// Every run's line, the notes, the summary and what repeats that differ
// mean; fills in the report's verdict.
void PrintCommandCount(FILE* out, const Counter& counter, const BackendChoice& choice,
                       const Workload& w, int repeat, const std::optional<ThreadHint>& threads,
                       CommandCount* report) {
  const CountedWorkload& result = report->result;
  std::vector<uint64_t> counts;
  for (size_t i = 0; i < result.runs.size(); ++i) {
    PrintRun(out, result.runs[i], static_cast<int>(i), repeat);
    if (auto n = result.runs[i].instructions()) counts.push_back(*n);
  }
  for (const std::string& note : result.notes) PrintCount(out, "note: {}\n", note);
  if (!result.runs.empty() && !result.runs[0].pinned.empty()) {
    std::vector<std::string> pinned;
    for (const auto& [kind, n] : result.runs[0].pinned)
      pinned.push_back(fmt::format("{} {}", kind, n));
    PrintCount(out, "pinned by {}: {}\n", counter.name(), fmt::join(pinned, ", "));
  }
  for (const std::string& what : result.unpinned) PrintCount(out, "not pinned: {}\n", what);
  PrintCount(out, "counted with {}: {}\n", counter.name(), choice.reason);
  report->valid = result.valid() && static_cast<int>(counts.size()) == repeat;
  const std::string advice =
      report->valid ? UnstableAdvice(counts, counter.name(), w.metric, w.clock, result, threads)
                    : "";
  if (report->valid) PrintSummary(out, counts, CountedEvent(w.metric, counter.event()));
  PrintCount(out, "{}", advice);
  report->unstable = !advice.empty();
  report->exit_code = report->valid ? kExitPass : kExitInvalid;
}

int CountCommand(const CountArgs& args, Counter& counter, const BackendChoice& choice, FILE* out) {
  std::string exe;
  const Workload w = CommandWorkload(args, &exe);
  LaunchOptions options = args.launch.ToOptions();
  // Any program on PATH: checked before every repeat, but run where it is.
  options.resolve_build = PinBuilds({exe}, false);
  WorkDir dir(w, "");
  PassThrough pass(out);
  if (!args.quiet) {
    options.passthrough = [&pass](int fd, std::string_view chunk) { pass.Feed(fd, chunk); };
  }
  CommandCount report;
  report.backend = counter.name();
  report.backend_reason = choice.reason;
  report.event = counter.event();
  report.clock = ClockModeName(w.clock);
  report.result = CountWorkload(counter, {w, "", dir, exe, options},
                                {.score_side = ScoreSide::kCandidate, .repeat = args.repeat});
  if (!args.quiet) pass.Finish();
  auto publishing = BeginPublishing();
  if (!publishing) return kExitEnvironment;
  // Threads a run met, where the repeats differed: the program's way of
  // running on one, which only an unstable count needs.
  std::optional<ThreadHint> threads;
  const std::vector<uint64_t> counts = report.result.counts();
  if (const uint64_t n = MostThreads(report.result.runs);
      n > 1 && std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) !=
                   counts.end()) {
    threads = ThreadHint{n, RuntimeOfWorkload(w, report.result, options, exe)};
  }
  PrintCommandCount(out, counter, choice, w, args.repeat, threads, &report);
  WriteCountJson(args.json_path, CommandCountToJson(report));
  if (!report.valid) {
    fmt::print(stderr, "Error: no valid count: {}\n",
               TerminalSafe(report.result.error, LineBreaks::kKeep));
  }
  return report.exit_code;
}

}  // namespace

void AddCountCommand(CLI::App& app, CommandRunner* run) {
  auto args = std::make_shared<CountArgs>();
  CLI::App* cmd = app.add_subcommand(
      "count", "Count the instructions a command (or each workload of a suite) retires");
  args->counter.Register(cmd);
  args->launch.Register(cmd);
  cmd->add_option("--repeat", args->repeat, "Count N times; report min, max and spread")
      ->type_name("N")
      ->transform(InRange(kRepeatRange))
      ->capture_default_str();
  cmd->add_option("--timeout", args->timeout, "Kill an ad hoc command's process tree after SECONDS")
      ->type_name("SECONDS")
      ->transform(InRange(kTimeoutSeconds))
      ->capture_default_str();
  cmd->add_option("--json", args->json_path, "Write every figure as JSON to FILE (-: stdout)")
      ->type_name("FILE");
  cmd->add_flag("--quiet", args->quiet, "Do not pass the command's output through");
  args->clock.Register(cmd);
  cmd->add_flag("--region", args->region,
                "The command marks its own region (include/workgate/region.h)");
  cmd->add_flag("--allow-leftover", args->allow_leftover,
                "The command may leave processes running (killed, with a note)");
  cmd->add_option("--suite", args->suite, "Count every workload of this suite")->type_name("FILE");
  AddJobs(cmd, &args->jobs);
  cmd->add_option("--exe", args->exe, "The build under test, for {exe} in the suite")
      ->type_name("EXE");
  AddRepeatable(cmd, "--workload", &args->workloads, "NAME", "Only this workload of the suite");
  args->store.Register(cmd);
  RegisterRecordSubject(cmd, &args->record_subject,
                        RegisterRecord(cmd, &args->record, "the suite's results (with --suite)"));
  cmd->add_option("command", args->command, "The command to count, after --")
      ->type_name("CMD [ARGS...]");
  cmd->footer(HelpFooter(
      {kExitPass, kExitUsage, kExitInvalid, kExitEnvironment},
      {"workgate count -- ./prog --size 1000",
       "workgate count --backend vgcount --repeat 3 --json - -- python3 bench.py | jq .min",
       "workgate count --suite workloads/interp.toml --exe build/workloads/wgi-baseline"}));
  cmd->callback([args, run] {
    *run = [args]() -> int {
      if (args->suite.empty() == args->command.empty()) {
        throw UsageError("give either --suite FILE --exe PATH, or -- CMD [ARGS...]");
      }
      if (!args->suite.empty() && args->exe.empty()) throw UsageError("--suite needs --exe PATH");
      FILE* out = TextStream({{"--json", &args->json_path}});
      // Before any counting: an unwritable --json stops the run now, and no
      // report of an earlier run survives this one.
      const char* path = getenv("PATH");
      CheckReportPaths(
          {{"--json", args->json_path}},
          {{"--suite", args->suite},
           {"--exe", args->exe},
           {"--store", args->store.path},
           {"the command",
            args->command.empty() ? "" : SearchPath(args->command[0], path ? path : "")}});
      RemoveStaleReports({{"--json", args->json_path}});
      if (!args->record.empty() && args->suite.empty()) {
        throw UsageError("--record keeps a suite's results in history: it needs --suite FILE");
      }
      args->store.CheckRecord(args->record);
      SystemInfo info = GatherSystemInfo(LibpfmPmus::kNotListed);
      BackendChoice choice = args->counter.Choose(info);
      auto counter = MakeCounter(choice, args->counter.events);
      return args->suite.empty() ? CountCommand(*args, *counter, choice, out)
                                 : CountSuite(*args, *counter, choice, info, out);
    };
  });
}

}  // namespace workgate
