// `workgate explain`: where a work delta went, per function, for named
// workloads of a suite, without gating (compare does this by itself for
// every workload that adds work).

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "counter/valgrind_counter.h"
#include "measure/build_copies.h"
#include "measure/comparison.h"
#include "report/explain_json.h"
#include "report/report_output.h"
#include "report/report_paths.h"
#include "report/terminal_report.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"
#include "workload/build_check.h"

namespace workgate {

namespace {

struct ExplainArgs {
  LaunchArgs launch;
  std::string baseline, candidate, suite, json_path;
  std::vector<std::string> workloads;
  int top = 10;
  std::string source_root, source_link, source_base;
  std::string flamegraph_path;
};

int RunExplain(const ExplainArgs& args) {
  FILE* out = TextStream({{"--json", &args.json_path}, {"--flamegraph", &args.flamegraph_path}});
  const std::vector<ReportPath> reports = {{"--json", args.json_path},
                                           {"--flamegraph", args.flamegraph_path}};
  CheckReportPaths(
      reports,
      {{"--baseline", args.baseline}, {"--candidate", args.candidate}, {"--suite", args.suite}});
  RemoveStaleReports(reports);
  const Suite suite = LoadSuiteSelecting(args.suite, args.workloads);
  std::string err;
  for (const auto& exe : {args.baseline, args.candidate}) {
    if (!CheckBuild(exe, suite.workloads, &err)) throw Error(kExitInvalid, err);
  }
  if (FindValgrind().path.empty()) {
    throw EnvironmentError("explanations need Valgrind (vgcount or callgrind): " +
                           FindValgrind().missing);
  }
  ComparisonPlan plan;
  plan.suite_dir = suite.dir;
  plan.baseline_exe = args.baseline;
  plan.candidate_exe = args.candidate;
  plan.explain_top = args.top;
  plan.flame_graph = !args.flamegraph_path.empty();
  plan.sources = SourceViewOf(args.source_root, args.source_link, args.source_base);
  plan.launch = args.launch.ToOptions();
  plan.launch.resolve_build = PinBuilds({args.baseline, args.candidate});
  Progress progress;
  std::vector<WorkloadResult> explained;
  int code = kExitPass;
  for (const auto& w : suite.workloads) {
    WorkloadResult r;
    r.name = w.name;
    r.command = w.command;
    WorkDir dir(w, suite.dir);
    r.explanation = ExplainWorkload(plan, "", w, dir, FirstProfiles{},
                                    [&](const std::string& t) { progress.Show(t); });
    progress.Done();
    std::string text;
    if (!r.explanation->error.empty()) {
      text = fmt::format("{}: no explanation: {}\n", TerminalSafe(w.name, LineBreaks::kToSpace),
                         TerminalSafe(r.explanation->error, LineBreaks::kKeep));
      code = kExitInvalid;
    } else {
      text = RenderExplanation(r) + "\n";
    }
    // A lost table stops the command: the next workloads' would be lost too.
    if (!PrintText(text, out, "the explanations", &err)) throw EnvironmentError(err);
    explained.push_back(std::move(r));
  }
  if (!args.json_path.empty() && !WriteJsonFile(args.json_path, ExplanationsToJson(explained, code),
                                                "the explanations' JSON", &err)) {
    throw EnvironmentError(err);
  }
  if (!args.flamegraph_path.empty()) PublishFlameGraph(args.flamegraph_path, explained, false);
  return code;
}

}  // namespace

void AddExplainCommand(CLI::App& app, CommandRunner* run) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explain", "Show where a work delta went, per function (self cost, profiled by vgcount or callgrind)");
  args->launch.Register(cmd);
  cmd->add_option("--baseline", args->baseline, "The baseline build")->type_name("EXE")->required();
  cmd->add_option("--candidate", args->candidate, "The candidate build")
      ->type_name("EXE")
      ->required();
  cmd->add_option("--suite", args->suite, "The suite of workloads")->type_name("FILE")->required();
  AddRepeatable(cmd, "--workload", &args->workloads, "NAME",
                "Explain this workload [default: all]");
  cmd->add_option("--explain-top", args->top, "Rows per workload")
      ->type_name("N")
      ->transform(InRange(kTopRange))
      ->capture_default_str();
  cmd->add_option("--json", args->json_path, "Write the tables as JSON to FILE (-: stdout)")
      ->type_name("FILE");
  AddSourceOptions(cmd, &args->source_root, &args->source_link, &args->source_base);
  AddFlameGraphOptions(cmd, &args->flamegraph_path, nullptr);
  cmd->footer(HelpFooter(
      {kExitPass, kExitUsage, kExitInvalid, kExitEnvironment},
      {"workgate explain --baseline base/wgi --candidate head/wgi --suite workloads/interp.toml "
       "--workload interp/fib --explain-top 5"}));
  cmd->callback([args, run] { *run = [args] { return RunExplain(*args); }; });
}

}  // namespace workgate
