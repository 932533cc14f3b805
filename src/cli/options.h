#pragma once
// Options shared by the subcommands, so that an option means one thing, is
// spelled one way and shows one type and default in every --help.

#include <stdio.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "counter/factory.h"
#include "measure/count_cache.h"
#include "measure/source_lines.h"
#include "model/model.h"
#include "report/report_paths.h"
#include "stats/timed_stats.h"
#include "workload/number_range.h"
#include "workload/run_plan.h"

namespace workgate {

/// The ranges of the numeric options only the command line has (--timeout
/// and --max-work-added share the suite's: workload/number_range.h).
inline constexpr NumberRange kRepeatRange{1, 1000, false, /*integer=*/true};
inline constexpr NumberRange kJobsRange{1, 1024, false, /*integer=*/true};
inline constexpr NumberRange kTimedRange{0, 1000, false, /*integer=*/true};
inline constexpr NumberRange kTopRange{1, 1000, false, /*integer=*/true};
inline constexpr NumberRange kSeedRange{0, 4294967295.0, false, /*integer=*/true};
/// selftest --timed: pairs per phase (fewer cannot reject, stats/timed_stats.h),
/// the known loop's size, the delay in percent of the run.
inline constexpr NumberRange kSelftestPairsRange{kMinPairsForLabel, 1000, false, /*integer=*/true};
inline constexpr NumberRange kIterationsRange{1000, 1e12, false, /*integer=*/true};
inline constexpr NumberRange kDelayPercentRange{0, 100, /*min_exclusive=*/true};

/// The one check of a numeric option, for CLI11's transform(): the value must
/// be a decimal number (an integer for an integer range) within `range`, else
/// CLI11 exits 2 with "--timeout: must be a number in (0, 604800], not nan".
/// An accepted integer is handed on in plain decimal, because CLI11 itself
/// would read "010" as octal and "-1" as 2^64-1.
CLI::Validator InRange(const NumberRange& range);

/// An option that may be given several times, one value each time
/// (`--env A=1 --env B=2`). It never takes more than one value per
/// occurrence, so it cannot swallow the command after it, and `--` after it
/// starts the command instead of ending its list.
CLI::Option* AddRepeatable(CLI::App* cmd, const std::string& name, std::vector<std::string>* into,
                           const std::string& type, const std::string& help);

/// --source-root DIR, --source-link URL and --source-base REV: where an
/// explanation's listed lines get their text and links, and the commit the
/// baseline was built from (measure/source_lines.h).
void AddSourceOptions(CLI::App* cmd, std::string* root, std::string* link, std::string* base);

/// The SourceView of those options, with a warning on stderr when a
/// --source-base was given that is no commit of the checkout.
SourceView SourceViewOf(const std::string& root, const std::string& link, const std::string& base);

/// --flamegraph FILE: the explained workloads' differential flame graph
/// (report/flame_graph_html.h); with a `link` (compare's), --flamegraph-link
/// URL too: where the page will be kept, which the Markdown comment links
/// (a plain http(s) URL, IsPlainHttpUrl; a usage error otherwise).
void AddFlameGraphOptions(CLI::App* cmd, std::string* path, std::string* link);

/// Writes the flame graph page of `workloads` to `path` and returns true; or,
/// where none of them has a flame graph, writes nothing, says why in one line
/// on stderr and returns false (`explain_never`: --explain never explained
/// none). Throws EnvironmentError when the page cannot be written.
bool PublishFlameGraph(const std::string& path, const std::vector<WorkloadResult>& workloads,
                       bool explain_never);

/// --jobs N: how many workloads are counted at once (kJobsRange); 0, its
/// default, is JobsOrCores's "every core".
void AddJobs(CLI::App* cmd, int* jobs);
/// --jobs's value: `jobs`, or the number of cores where it is 0.
int JobsOrCores(int jobs);

/// --name NAME: a workload's name, checked by CheckWorkloadName (a usage
/// error otherwise); `*given` (may be null) says it was given.
CLI::Option* AddWorkloadName(CLI::App* cmd, std::string* name, bool* given,
                             const std::string& help);

/// An option whose value is one of `names`, handed to `parse` (which must
/// accept every name; tests/cli checks that it does). --help lists the names
/// and `default_name`, where there is one.
CLI::Option* AddChoice(CLI::App* cmd, const std::string& name,
                       const std::vector<std::string>& names, const std::string& default_name,
                       const std::string& help, std::function<bool(const std::string&)> parse);

struct SystemInfo;

/// --backend and --event.
struct CounterArgs {
  BackendRequest backend = BackendRequest::kAuto;
  std::string events = kDefaultPerfEvent;
  bool event_given = false;

  void Register(CLI::App* cmd);
  /// Validates the pair and decides the backend. Throws Error(kExitUsage) for
  /// a perf-only --event with a Valgrind backend, Error(kExitEnvironment) when
  /// nothing can count.
  BackendChoice Choose(const SystemInfo& info) const;
};

/// --as-is, --env KEY=VALUE, --pass-env KEY.
struct LaunchArgs {
  bool as_is = false;
  std::vector<std::string> env;
  std::vector<std::string> pass_env;

  void Register(CLI::App* cmd);
  LaunchOptions ToOptions() const;
};

/// --clock of an ad hoc command.
struct ClockArg {
  std::optional<ClockMode> given;

  void Register(CLI::App* cmd);
  /// The clock of an ad hoc command: as given, or by default the shim, which
  /// pins the clock and entropy so that programs that read them count the
  /// same every run (docs/counting.md, "What a launch pins"); with --as-is, nothing,
  /// because --as-is runs the command as it is.
  ClockMode For(bool as_is) const;
};

/// --color auto|always|never: colour on the verdicts where the text goes
/// to a terminal and NO_COLOR is unset (auto), or always, or never.
struct ColorArg {
  std::string when = "auto";

  void Register(CLI::App* cmd);
  bool Colour(FILE* stream) const;
};

class ResultStore;

/// --store FILE and --no-store: the result store (store/result_store.h).
struct StoreArgs {
  std::string path;  // --store; "" for DefaultStorePath
  bool none = false;  // --no-store

  void Register(CLI::App* cmd);
  /// The store, open; nullptr with --no-store, or when none can be used,
  /// and then `*notes` says why: the run counts without it. What Open
  /// reports (a damaged file moved aside) goes to `*notes` too.
  std::unique_ptr<ResultStore> Open(std::vector<std::string>* notes) const;
  /// Open, for a run that counts with `counter`: on an exact backend the
  /// store's count cache goes to `*cache` (perf counts vary: they are kept
  /// for history only), and `*notes` says when the cache cannot be used.
  /// With --record `record`, a store that cannot be used stops the run
  /// before any counting (EnvironmentError, exit 5).
  std::unique_ptr<ResultStore> OpenForCounting(const Counter& counter, const std::string& record,
                                               std::optional<CountCache>* cache,
                                               std::vector<std::string>* notes) const;
  /// Throws UsageError when --record `record` is given with --no-store.
  void CheckRecord(const std::string& record) const;
};

/// --store FILE alone (history reads a store; it has nothing to count
/// without one).
CLI::Option* RegisterStorePath(CLI::App* cmd, std::string* path);

/// Throws UsageError when `path` (--store FILE) names a file that is not a
/// workgate store (store/store_files.h, NotAStoreFile), saying what it is:
/// the user's mistake, refused before anything runs, and the file is left
/// as it is. Nothing for "" (the default path) or a path where none exists.
void RefuseNotAStore(const std::string& path);

/// --record REF of compare and count: the results go into the store's
/// history under REF (a commit or a label).
CLI::Option* RegisterRecord(CLI::App* cmd, std::string* ref, const std::string& what);

/// The most code points of a commit's subject that --record-subject keeps.
inline constexpr size_t kMaxRecordSubject = 200;

/// `text` as --record-subject keeps it: well-formed UTF-8 (ValidUtf8), each
/// control character (C0, DEL, C1) a space, and at most kMaxRecordSubject
/// code points, with "…" when cut. A pull request's author wrote it: the
/// views escape it again for their medium.
std::string RecordSubject(std::string_view text);

/// --record-subject SUBJECT of compare and count, which needs `record`
/// (--record): `*subject` is RecordSubject(SUBJECT).
void RegisterRecordSubject(CLI::App* cmd, std::optional<std::string>* subject, CLI::Option* record);

struct CompareReport;

/// Where a comparison's reports go (compare, merge): --json FILE, --markdown
/// FILE, --github, --report-link URL, --color WHEN.
struct ReportArgs {
  std::string json_path, markdown_path;
  /// --flamegraph and --flamegraph-link, where the command registers them
  /// (RegisterFlameGraph: compare, not merge, which has no profiles).
  std::string flamegraph_path, flamegraph_link;
  /// --report-link URL: where a CI keeps the --json report.
  std::string report_link;
  bool github = false;
  ColorArg color;

  void Register(CLI::App* cmd);
  void RegisterFlameGraph(CLI::App* cmd);
  /// The terminal report's stream (TextStream of --json, --markdown and
  /// --flamegraph).
  FILE* Text() const;
  /// Before any work: no report path, nor `more` (--save-baseline), may name
  /// one of `inputs` (the builds, the suite, a stored baseline) or another
  /// report's file; each must be writable (report/report_paths.h); and
  /// reports an earlier run left at --json, --markdown and --flamegraph are
  /// removed.
  void Prepare(const std::vector<ReportPath>& more, const std::vector<InputPath>& inputs) const;
  /// Writes the flame graph page (PublishFlameGraph), and gives the report
  /// its link where it was written and --flamegraph-link says where it is
  /// kept; then prints the terminal report and writes the JSON, the Markdown
  /// and the step summary. Throws Error(kExitEnvironment) when one cannot be
  /// written.
  void Publish(CompareReport report) const;
};

/// Where the text goes, given the report paths of a command (FILE, or "-"
/// for standard output: report/report_output.h): stdout, or stderr when one
/// report goes to standard output, so that standard output holds the report
/// alone and can be piped to jq. Throws Error(kExitUsage) when several do.
FILE* TextStream(std::initializer_list<std::pair<const char*, const std::string*>> reports);

/// The "Exit codes:" paragraph of a command's --help: the codes it can return
/// (util/exit_codes.h), each with its meaning, and the examples.
std::string HelpFooter(std::initializer_list<int> codes,
                       std::initializer_list<const char*> examples);

}  // namespace workgate
