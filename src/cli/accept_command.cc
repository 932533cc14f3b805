// `workgate accept`: a work-added workload's delta accepted as intended, in
// the suite file the pull request commits (docs/gate.md, "Accepting intended
// work"). The pair of builds comes from a saved compare report (what a CI
// keeps) or is counted now as compare counts it; the suite is edited in
// place, every byte but the entry as its author wrote it.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cli/commands.h"
#include "cli/compare_pair.h"
#include "cli/options.h"
#include "decision/accept.h"
#include "launch/interrupt.h"
#include "report/report_reader.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/text.h"
#include "workload/suite_edit.h"
#include "workload/workload.h"

namespace workgate {

namespace {

struct AcceptArgs {
  std::string suite;
  std::vector<std::string> workloads;
  bool all = false;
  std::string reason;
  std::string report;
  PairArgs pair;
  /// The options that only counting the builds takes, to refuse with --report.
  std::vector<const CLI::Option*> counting;
};

void CheckAcceptArgs(const AcceptArgs& args) {
  if (args.all == !args.workloads.empty()) {
    throw UsageError("give the workloads to accept: --workload NAME (once or more), or --all");
  }
  if (const std::string problem = AcceptReasonProblem(args.reason); !problem.empty()) {
    throw UsageError(problem);
  }
  const bool builds = !args.pair.baseline.empty() || !args.pair.candidate.empty();
  if (args.report.empty() == !builds) {
    throw UsageError(
        "give the pair of builds either as a saved compare report (--report FILE) or as the "
        "builds (--baseline EXE --candidate EXE)");
  }
  if (builds && (args.pair.baseline.empty() || args.pair.candidate.empty())) {
    throw UsageError("--baseline EXE and --candidate EXE go together");
  }
  if (!args.report.empty()) {
    for (const CLI::Option* option : args.counting) {
      if (option->count() > 0) {
        throw UsageError(option->get_name() +
                         " says how to count the builds: it goes with --baseline and "
                         "--candidate, not with --report, whose counts are made");
      }
    }
  }
}

// The suite as read, for its workloads and for the edit.
struct SuiteFile {
  std::string text;
  Suite suite;
};

SuiteFile ReadSuite(const std::string& path) {
  SuiteFile s;
  std::string err;
  if (!ReadInputFile(path, "the suite", kMaxSuiteBytes, &s.text, &err) ||
      !ParseSuite(s.text, path, &s.suite, &err)) {
    throw UsageError(err);
  }
  std::error_code ec;
  s.suite.dir = std::filesystem::canonical(path, ec).parent_path().string();
  return s;
}

// The comparison the entries come from.
CompareReport PairReport(const AcceptArgs& args) {
  if (args.report.empty()) {
    PairArgs pair = args.pair;
    pair.suite = args.suite;
    pair.workloads = args.workloads;
    return ComparePair(pair);
  }
  std::string err;
  std::optional<CompareReport> report = LoadCompareReport(args.report, &err);
  // Missing evidence, as for merge's parts.
  if (!report) throw Error(kExitInvalid, err);
  if (report->settings.suite.empty()) {
    throw UsageError(args.report + " is the report of an ad hoc command; accept takes the "
                     "work of a suite's workload");
  }
  return std::move(*report);
}

int RunAccept(const AcceptArgs& args) {
  CheckAcceptArgs(args);
  SuiteFile file = ReadSuite(args.suite);
  std::vector<std::string> names = args.workloads;
  if (!names.empty()) {
    Suite selected = file.suite;
    std::string err;
    if (!SelectWorkloads(&selected, names, &err)) throw UsageError(err);
  }
  const CompareReport report = PairReport(args);
  if (args.all) {
    names = WorkAddedWorkloads(report);
    if (names.empty()) {
      throw UsageError(fmt::format("no workload of {} is work added: nothing to accept",
                                   args.report.empty() ? "the comparison" : args.report));
    }
  }
  std::string text = file.text;
  std::vector<std::pair<std::string, AcceptedWork>> accepted;
  for (const std::string& name : names) {
    auto in_report = std::find_if(report.workloads.begin(), report.workloads.end(),
                                  [&name](const WorkloadResult& w) { return w.name == name; });
    if (in_report == report.workloads.end()) {
      throw UsageError(fmt::format("{} has no workload '{}'", args.report, name));
    }
    auto defined = std::find_if(file.suite.workloads.begin(), file.suite.workloads.end(),
                                [&name](const Workload& w) { return w.name == name; });
    if (defined == file.suite.workloads.end()) {
      throw UsageError(fmt::format("{}: no workload named '{}'", args.suite, name));
    }
    std::string digest, err;
    if (!WorkloadDigest(*defined, file.suite.dir, &digest, &err)) throw UsageError(err);
    AcceptedWork entry;
    if (!AcceptEntryFor(*in_report, digest, args.reason, &entry, &err)) throw UsageError(err);
    if (!SetAcceptedEntry(text, args.suite, name, entry, &text, &err)) throw UsageError(err);
    accepted.emplace_back(name, std::move(entry));
  }
  // An interrupted run leaves the suite as it was.
  auto publishing = BeginPublishing();
  if (!publishing) return kExitEnvironment;
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::canonical(args.suite, ec);
  std::string err;
  if (ec || !WriteFileAtomically(target.string(), text, &err)) {
    throw EnvironmentError(fmt::format("cannot write the suite {}: {}", args.suite,
                                       ec ? ec.message() : err));
  }
  for (const auto& [name, e] : accepted) {
    fmt::print("accepted {}: {:+} instructions ({:+.2f}%) against a baseline of {} ({}, {})\n",
               TerminalSafe(name, LineBreaks::kToSpace), e.delta, 100 * e.relative(),
               e.baseline_count, TerminalSafe(e.backend, LineBreaks::kToSpace),
               TerminalSafe(e.event, LineBreaks::kToSpace));
  }
  fmt::print(
      "{} now holds the accepted entries: commit it to the pull request. The gate passes each "
      "workload while the work it adds stays within its accepted delta plus the margin, against "
      "that baseline.\n",
      TerminalSafe(args.suite, LineBreaks::kToSpace));
  return kExitPass;
}

}  // namespace

void AddAcceptCommand(CLI::App& app, CommandRunner* run) {
  auto args = std::make_shared<AcceptArgs>();
  CLI::App* cmd = app.add_subcommand(
      "accept", "Accept a workload's work added as intended, in the suite the pull request commits");
  cmd->add_option("--suite", args->suite, "The suite file to write the accepted entry into")
      ->type_name("FILE")
      ->required();
  AddRepeatable(cmd, "--workload", &args->workloads, "NAME", "A workload to accept");
  cmd->add_flag("--all", args->all, "Accept every workload whose verdict is work added");
  cmd->add_option("--reason", args->reason,
                  "Why the work is intended: kept in the suite beside the delta, shown in "
                  "every report")
      ->type_name("REASON")
      ->required();
  cmd->add_option("--report", args->report,
                  "The pair as a saved compare report (compare --json FILE, a CI's artifact)")
      ->type_name("FILE");
  cmd->add_option("--baseline", args->pair.baseline, "The baseline build, counted now")
      ->type_name("EXE");
  cmd->add_option("--candidate", args->pair.candidate, "The candidate build, counted now")
      ->type_name("EXE");
  args->pair.counter.Register(cmd);
  args->pair.launch.Register(cmd);
  args->pair.store.Register(cmd);
  args->counting.push_back(
      cmd->add_option("--max-work-added", args->pair.max_work_added,
                      "With the builds: the margin, in percent; a suite's max_work_added "
                      "overrides it")
          ->type_name("PERCENT")
          ->transform(InRange(kMaxWorkAddedPercent))
          ->capture_default_str());
  args->counting.push_back(
      cmd->add_option("--repeat", args->pair.repeat,
                      "With the builds: counts per side [default: 1 on Valgrind, 3 on perf]")
          ->type_name("N")
          ->transform(InRange(kRepeatRange)));
  args->counting.push_back(
      cmd->add_option("--jobs", args->pair.jobs,
                      "With the builds: workloads counted at once [default: the cores]")
          ->type_name("N")
          ->transform(InRange(kJobsRange)));
  for (const char* name : {"--backend", "--event", "--as-is", "--env", "--pass-env", "--store",
                           "--no-store"}) {
    args->counting.push_back(cmd->get_option(name));
  }
  cmd->footer(HelpFooter(
      {kExitPass, kExitUsage, kExitInvalid, kExitEnvironment},
      {"workgate accept --suite bench.toml --workload parse --reason 'cmov for an unpredictable "
       "branch: faster, more instructions' --report report.json",
       "workgate accept --suite bench.toml --all --reason 'new validation pass' --baseline "
       "base/prog --candidate head/prog"}));
  cmd->callback([args, run] { *run = [args] { return RunAccept(*args); }; });
}

}  // namespace workgate
