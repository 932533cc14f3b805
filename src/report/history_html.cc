#include "report/history_html.h"

#include <fmt/format.h>

#include "report/history_chart.h"
#include "report/history_view.h"
#include "report/html_page.h"
#include "report/markdown_text.h"
#include "report/report_output.h"

namespace workgate {
namespace {

constexpr Minus kHtmlMinus = Minus::kUnicode;

// The history's own style, after the pages' base style (report/html_page.h).
constexpr const char* kStyle = R"css(
body { max-width: 860px; }
section.series { border-top: 1px solid #d5dbe1; padding: 16px 0 20px; }
p.subtitle, p.window, p.noise, p.lead { color: #57606a; }
p.verdict { font-weight: 600; }
p.verdict.added { color: #cf222e; }
p.verdict.removed { color: #1a7f37; }
svg.chart { display: block; margin: 10px 0; background: #fbfcfd; border: 1px solid #e3e8ed; }
svg.chart.drift { border-color: #e8a25c; }
svg .grid { stroke: #e6eaee; stroke-width: 1; }
svg .frame { stroke: #8c959f; stroke-width: 1; }
svg .tick, svg .ref { font: 10.5px ui-monospace, "DejaVu Sans Mono", monospace; fill: #424a53; }
svg .axis-title { font: 11px system-ui, sans-serif; fill: #57606a; }
svg .band { fill: #2da44e; fill-opacity: 0.12; stroke: #2da44e; stroke-opacity: 0.35; }
svg .break { stroke: #6e7781; stroke-width: 1.5; stroke-dasharray: 5 4; }
svg .break-label { font: 10.5px system-ui, sans-serif; fill: #57606a; }
svg .line { fill: none; stroke: #0969da; stroke-width: 2; }
svg .point { fill: #0969da; stroke: #fff; stroke-width: 1.5; }
svg .point[data-direction="added"] { fill: #cf222e; }
svg .point[data-direction="removed"] { fill: #1a7f37; }
svg .drift-label { font: 600 13px system-ui, sans-serif; fill: #cf222e; }
svg .drift-label.removed { fill: #1a7f37; }
table.points { border-collapse: collapse; font: 12.5px ui-monospace, "DejaVu Sans Mono", monospace; }
table.points th, table.points td { padding: 2px 10px 2px 0; text-align: right; white-space: nowrap; }
table.points th { color: #57606a; font-weight: 600; border-bottom: 1px solid #d5dbe1; }
table.points td.ref, table.points th.ref, table.points td.mark, table.points th.mark,
table.points td.date, table.points th.date, table.points td.subject,
table.points th.subject { text-align: left; }
table.points td.subject { white-space: normal; font-family: system-ui, sans-serif; }
table.points tr.added td.step, table.points tr.added td.mark { color: #cf222e; }
table.points tr.removed td.step, table.points tr.removed td.mark { color: #1a7f37; }
table.points tr.break td.mark { color: #6e7781; }
)css";

// The CSS class of each column of HistoryTableHeader().
constexpr const char* kColumns[] = {"ref",        "date", "count",  "step",
                                    "cumulative", "mark", "subject"};

std::string Table(const WorkloadHistory& h) {
  std::string out = "<table class=\"points\"><thead><tr>";
  const std::vector<std::string> header = HistoryTableHeader(h);
  for (size_t c = 0; c < header.size(); ++c) {
    out += fmt::format("<th class=\"{}\">{}</th>", kColumns[c], HtmlText(header[c]));
  }
  out += "</tr></thead><tbody>";
  const auto rows = HistoryTableRows(h, kHtmlMinus);
  for (size_t i = 0; i < rows.size(); ++i) {
    const HistoryDirection step = StepDirection(h, i);
    std::string classes =
        step == HistoryDirection::kUnchanged ? "" : std::string("crossed ") + DirectionName(step);
    if (h.points[i].break_before) classes += classes.empty() ? "break" : " break";
    out += classes.empty() ? "<tr>" : "<tr class=\"" + classes + "\">";
    for (size_t c = 0; c < rows[i].size(); ++c) {
      out += fmt::format("<td class=\"{}\">{}</td>", kColumns[c], HtmlText(rows[i][c]));
    }
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

std::string Section(const WorkloadHistory& h) {
  const char* direction = DirectionName(DirectionOf(h));
  std::string out = fmt::format("<section class=\"series {}{}\" data-workload=\"{}\">\n", direction,
                                h.drift ? " drift" : "", HtmlText(h.workload));
  out += fmt::format("<h2>{}</h2>\n<p class=\"subtitle\">{}</p>\n", HtmlText(h.workload),
                     HtmlText(HistorySubtitle(h)));
  out += fmt::format("<p class=\"verdict {}\">{}</p>\n", direction,
                     HtmlText(HistoryHeadline(h, kHtmlMinus)));
  const std::string noise = HistoryNoise(h);
  if (!noise.empty()) out += fmt::format("<p class=\"noise\">{}</p>\n", HtmlText(noise));
  if (h.recorded > h.points.size()) {
    out += fmt::format("<p class=\"window\">the last {} of {} recorded commits</p>\n",
                       h.points.size(), h.recorded);
  }
  return out + HistoryChartSvg(h) + "\n" + Table(h) + "</section>\n";
}

}  // namespace

std::string RenderHistoryHtml(const std::vector<WorkloadHistory>& series) {
  size_t drifting = 0;
  for (const WorkloadHistory& h : series) drifting += h.drift ? 1 : 0;
  std::string out =
      HtmlPageStart("workgate history", kStyle) +
      fmt::format(
          "<h1>workgate history</h1>\n<p class=\"lead\">{} series, {} drifting. Drift is a "
          "change beyond the margin, between two commits, with no step between them beyond it. "
          "Work added is red, work removed green.</p>\n",
          series.size(), drifting);
  for (const WorkloadHistory& h : series) out += Section(h);
  if (series.empty()) out += "<p>no recorded history</p>\n";
  return out + HtmlPageEnd("workgate history");
}

bool WriteHistoryHtml(const std::string& path, const std::vector<WorkloadHistory>& series,
                      std::string* err) {
  return WriteTextFile(path, RenderHistoryHtml(series), "the history page", err);
}

}  // namespace workgate
