// The reports of a comparison, shared by `compare` and `merge`: the same
// options, checked the same way before any work, written the same way.

#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>

#include "cli/options.h"
#include "model/model.h"
#include "report/flame_graph_html.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/report_output.h"
#include "report/report_paths.h"
#include "report/terminal_report.h"
#include "util/error.h"
#include "util/text.h"

namespace workgate {

void ReportArgs::Register(CLI::App* cmd) {
  cmd->add_option("--json", json_path, "Write the JSON report to FILE (-: stdout)")
      ->type_name("FILE");
  cmd->add_option("--markdown", markdown_path, "Write the Markdown PR comment to FILE (-: stdout)")
      ->type_name("FILE");
  cmd->add_flag("--github", github, "Also append the Markdown to $GITHUB_STEP_SUMMARY");
  cmd->add_option_function<std::string>(
         "--report-link",
         [this](const std::string& v) {
           if (!IsPlainHttpUrl(v)) {
             throw CLI::ValidationError(
                 "--report-link", "not a plain http(s) URL: " + TerminalSafe(v, LineBreaks::kToSpace));
           }
           report_link = v;
         },
         "Where a CI keeps the --json report (a run's artifacts): the comment's accept command "
         "names the file there")
      ->type_name("URL");
  color.Register(cmd);
}

void ReportArgs::RegisterFlameGraph(CLI::App* cmd) {
  AddFlameGraphOptions(cmd, &flamegraph_path, &flamegraph_link);
}

FILE* ReportArgs::Text() const {
  return TextStream(
      {{"--json", &json_path}, {"--markdown", &markdown_path}, {"--flamegraph", &flamegraph_path}});
}

void ReportArgs::Prepare(const std::vector<ReportPath>& more,
                         const std::vector<InputPath>& inputs) const {
  const std::vector<ReportPath> replaced = {
      {"--json", json_path}, {"--markdown", markdown_path}, {"--flamegraph", flamegraph_path}};
  std::vector<ReportPath> reports = replaced;
  reports.insert(reports.end(), more.begin(), more.end());
  const char* summary = getenv("GITHUB_STEP_SUMMARY");
  if (github && summary != nullptr) reports.push_back({"$GITHUB_STEP_SUMMARY", summary, true});
  CheckReportPaths(reports, inputs);
  RemoveStaleReports(replaced);
}

bool PublishFlameGraph(const std::string& path, const std::vector<WorkloadResult>& workloads,
                       bool explain_never) {
  const std::string none =
      explain_never ? "no workload was explained (--explain never)" : NoFlameGraphReason(workloads);
  if (!none.empty()) {
    fmt::print(stderr, "--flamegraph: no flame graph written: {}\n", none);
    return false;
  }
  std::string err;
  if (!WriteFlameGraphHtml(path, workloads, &err)) throw EnvironmentError(err);
  return true;
}

void ReportArgs::Publish(CompareReport report) const {
  if (!flamegraph_path.empty() &&
      PublishFlameGraph(flamegraph_path, report.workloads,
                        report.settings.explain == ExplainModeName(ExplainMode::kNever)) &&
      !flamegraph_link.empty() && !IsStandardOutput(flamegraph_path)) {
    report.flame_graph_file = std::filesystem::path(flamegraph_path).filename().string();
    report.flame_graph_link = flamegraph_link;
  }
  // The accept command of a work-added workload names the JSON report.
  if (!json_path.empty() && !IsStandardOutput(json_path)) {
    report.json_file = json_path;
    report.report_link = report_link;
  }
  // With --json - or --markdown -, that report has standard output and the
  // table goes to standard error.
  FILE* text = Text();
  std::string err;
  if (!PrintText(RenderTerminal(report, color.Colour(text)), text, "the report", &err)) {
    throw EnvironmentError(err);
  }
  if (!json_path.empty() && !WriteJsonReport(json_path, report, &err)) {
    throw EnvironmentError(err);
  }
  if (!markdown_path.empty() && !WriteMarkdownReport(markdown_path, report, &err)) {
    throw EnvironmentError(err);
  }
  if (github) {
    const char* summary = getenv("GITHUB_STEP_SUMMARY");
    if (summary == nullptr || *summary == '\0') {
      fmt::print(stderr, "warning: --github given but GITHUB_STEP_SUMMARY is not set\n");
    } else if (!AppendToFile(summary, RenderMarkdown(report), &err)) {
      throw EnvironmentError(err);
    }
  }
}

}  // namespace workgate
