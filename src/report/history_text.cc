#include "report/history_text.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/history_view.h"
#include "report/text_table.h"
#include "util/text.h"

namespace workgate {
namespace {

constexpr Minus kTextMinus = Minus::kAscii;
constexpr size_t kSubjectColumn = 6;  // HistoryTableHeader's last, when there
using Align = TextTable::Align;

// Refs, dates, workload names and condition names come from a store any
// process of the user could have written: no escape sequence may pass.
std::string HistoryLine(const std::string& text) {
  return TerminalSafe(text, LineBreaks::kToSpace);
}

// Work added red, work removed green, unchanged in the terminal's own colour.
const char* DirectionColour(HistoryDirection d) {
  switch (d) {
    case HistoryDirection::kAdded:
      return "1;31";
    case HistoryDirection::kRemoved:
      return "1;32";
    case HistoryDirection::kUnchanged:
      break;
  }
  return "";
}

std::string Series(const WorkloadHistory& h, bool colour) {
  std::string out =
      fmt::format("{} ({}): {}\n", HistoryLine(h.workload), HistoryLine(HistorySubtitle(h)),
                  Paint(HistoryHeadline(h, kTextMinus), DirectionColour(DirectionOf(h)), colour));
  const std::string noise = HistoryNoise(h);
  if (!noise.empty()) out += "  " + noise + "\n";
  if (h.recorded > h.points.size()) {
    out += fmt::format("  the last {} of {} recorded commits\n", h.points.size(), h.recorded);
  }
  std::vector<Align> align = {Align::kLeft,  Align::kLeft,  Align::kRight,
                              Align::kRight, Align::kRight, Align::kLeft};
  const std::vector<std::string> header = HistoryTableHeader(h);
  if (header.size() > align.size()) align.push_back(Align::kLeft);  // the subject
  TextTable table(align);
  table.AddRow(header);
  const auto rows = HistoryTableRows(h, kTextMinus);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::string> cells;
    for (const std::string& cell : rows[i]) cells.push_back(HistoryLine(cell));
    // A subject is the widest cell by far: a line stays readable.
    if (cells.size() > kSubjectColumn) cells[kSubjectColumn] = CutText(cells[kSubjectColumn], 48);
    const char* step_colour = DirectionColour(StepDirection(h, i));
    const char* mark_colour = h.points[i].break_before ? "1;33" : step_colour;
    table.AddRow(std::move(cells), {"", "", "", step_colour, "", mark_colour});
  }
  return out + table.Render(2, colour);
}

}  // namespace

std::string RenderHistoryText(const std::vector<WorkloadHistory>& series, bool colour) {
  if (series.empty()) return "no recorded history\n";
  std::string out;
  for (const WorkloadHistory& h : series) {
    if (!out.empty()) out += "\n";
    out += Series(h, colour);
  }
  return out;
}

}  // namespace workgate
