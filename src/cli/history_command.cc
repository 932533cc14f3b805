// `workgate history`: each workload's counts along the commits recorded in
// the result store (--record REF), with the step-to-step and cumulative
// change and drift (decision/history.h), on the terminal, as JSON and as one
// HTML page.

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "cli/commands.h"
#include "cli/options.h"
#include "decision/history.h"
#include "launch/interrupt.h"
#include "report/history_html.h"
#include "report/history_json.h"
#include "report/history_text.h"
#include "report/report_output.h"
#include "store/result_store.h"
#include "util/error.h"
#include "util/text.h"

namespace workgate {

namespace {

inline constexpr NumberRange kWindowRange{2, 1000, false, /*integer=*/true};

struct HistoryArgs {
  std::vector<std::string> workloads;
  int last = static_cast<int>(kDefaultHistoryWindow);
  std::optional<double> max_work_added;  // percent
  std::string json_path, html_path, store;
  ColorArg color;
};

// The recorded history of `args.workloads` (all when none is named): empty
// when the store does not exist yet. Throws EnvironmentError when it cannot
// be read, and UsageError for a named workload nothing was recorded of.
std::vector<HistoryRecord> ReadRecords(const HistoryArgs& args, std::string* store_path) {
  std::string why;
  *store_path = args.store.empty() ? DefaultStorePath(&why) : args.store;
  if (store_path->empty()) throw EnvironmentError("no result store to read: " + why);
  RefuseNotAStore(args.store);
  struct stat st;
  if (stat(store_path->c_str(), &st) != 0) return {};
  std::vector<std::string> notes;
  std::string err;
  std::unique_ptr<ResultStore> store = ResultStore::Open(*store_path, &notes, &err);
  for (const std::string& note : notes) {
    fmt::print(stderr, "workgate history: {}\n", TerminalSafe(note, LineBreaks::kToSpace));
  }
  if (!store) throw EnvironmentError(err);
  std::vector<HistoryRecord> records;
  notes.clear();
  if (!store->ReadHistory(args.workloads, &records, &notes, &err)) throw EnvironmentError(err);
  for (const std::string& note : notes) {
    fmt::print(stderr, "workgate history: {}\n", TerminalSafe(note, LineBreaks::kToSpace));
  }
  std::set<std::string> seen;
  for (const HistoryRecord& r : records) seen.insert(r.workload);
  for (const std::string& name : args.workloads) {
    if (seen.count(name) == 0) {
      throw UsageError(fmt::format("nothing is recorded of workload '{}' in {}",
                                   TerminalSafe(name, LineBreaks::kToSpace), *store_path));
    }
  }
  return records;
}

int RunHistory(const HistoryArgs& args) {
  FILE* out = TextStream({{"--json", &args.json_path}, {"--html", &args.html_path}});
  CheckReportPaths({{"--json", args.json_path}, {"--html", args.html_path}},
                   {{"--store", args.store}});
  RemoveStaleReports({{"--json", args.json_path}, {"--html", args.html_path}});
  std::string store_path;
  std::vector<HistoryRecord> records = ReadRecords(args, &store_path);
  if (args.max_work_added) {
    for (HistoryRecord& r : records) r.max_work_added = *args.max_work_added / 100;
  }
  const std::vector<WorkloadHistory> series =
      AnalyzeHistory(records, static_cast<size_t>(args.last));

  auto publishing = BeginPublishing();
  if (!publishing) return kExitEnvironment;
  const std::string text =
      series.empty() ? fmt::format(
                           "nothing is recorded in {} yet: compare --record REF or count --record "
                           "REF records a commit's results\n",
                           TerminalSafe(store_path, LineBreaks::kToSpace))
                     : RenderHistoryText(series, args.color.Colour(out));
  std::string err;
  if (!PrintText(text, out, "the history", &err)) throw EnvironmentError(err);
  if (!args.json_path.empty() && !WriteHistoryJson(args.json_path, series, &err)) {
    throw EnvironmentError(err);
  }
  if (!args.html_path.empty() && !WriteHistoryHtml(args.html_path, series, &err)) {
    throw EnvironmentError(err);
  }
  // A rise that drifted is work added, only found over several commits,
  // even where a later step took more away.
  const bool added = std::any_of(series.begin(), series.end(), [](const WorkloadHistory& h) {
    return h.rise && h.rise->beyond_noise;
  });
  return added ? kExitWorkAdded : kExitPass;
}

}  // namespace

void AddHistoryCommand(CLI::App& app, CommandRunner* run) {
  auto args = std::make_shared<HistoryArgs>();
  CLI::App* cmd = app.add_subcommand(
      "history",
      "Show each workload's counts along the recorded commits, and drift: a cumulative change "
      "beyond the margin that no single step made");
  AddRepeatable(cmd, "--workload", &args->workloads, "NAME", "Only this workload");
  cmd->add_option("--last", args->last, "The window: the last N recorded commits")
      ->type_name("N")
      ->transform(InRange(kWindowRange))
      ->capture_default_str();
  cmd->add_option_function<double>(
         "--max-work-added", [args](double v) { args->max_work_added = v; },
         "The margin, in percent [default: each workload's newest recorded margin]")
      ->type_name("PERCENT")
      ->transform(InRange(kMaxWorkAddedPercent));
  cmd->add_option("--json", args->json_path, "Write the history as JSON to FILE (-: stdout)")
      ->type_name("FILE");
  cmd->add_option("--html", args->html_path,
                  "Write one self-contained HTML page with a chart per workload to FILE")
      ->type_name("FILE");
  RegisterStorePath(cmd, &args->store);
  args->color.Register(cmd);
  cmd->footer(HelpFooter(
      {kExitPass, kExitWorkAdded, kExitUsage, kExitEnvironment},
      {"workgate history --last 10", "workgate history --workload interp/fib --html history.html",
       "workgate history --json - | jq '.series[] | select(.drift)'"}));
  cmd->callback([args, run] { *run = [args] { return RunHistory(*args); }; });
}

}  // namespace workgate
