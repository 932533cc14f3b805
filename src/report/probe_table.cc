#include "report/probe_table.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/markdown_text.h"
#include "report/text_table.h"
#include "util/text.h"

namespace workgate {
namespace {

using nlohmann::json;

// A runner's label is shown whole up to this many characters.
constexpr size_t kMostLabel = 64;
constexpr size_t kMostReason = 80;

// `text` (made valid UTF-8 first) cut to at most `most` code points.
std::string Cut(std::string_view text, size_t most) {
  const std::string valid = TerminalSafe(text, LineBreaks::kToSpace);
  size_t chars = 0;
  for (size_t i = 0; i < valid.size(); ++i) {
    if ((static_cast<unsigned char>(valid[i]) & 0xC0) == 0x80) continue;  // a continuation byte
    if (++chars > most) return valid.substr(0, i) + "...";
  }
  return valid;
}

std::string ResolutionCell(const ProbeRow& row) {
  std::string cell;
  for (const ProbeResolution& r : row.resolutions) {
    std::string what = !r.ok     ? "failed"
                       : r.exact ? "exact"
                                 : fmt::format("spread {}", FormatCount(r.spread));
    cell += (cell.empty() ? "" : ", ") + r.backend + " " + what;
  }
  return cell.empty() ? "none measured" : cell;
}

std::string Paranoid(const ProbeRow& row) {
  return row.paranoid ? std::to_string(*row.paranoid) : "unknown";
}

std::string Hypervisor(const ProbeRow& row) {
  if (!row.hypervisor_present) return "unknown";
  if (!*row.hypervisor_present) return "none";
  return row.hypervisor.empty() ? "yes" : row.hypervisor;
}

std::string BackendCell(const ProbeRow& row) { return row.backend.empty() ? "none" : row.backend; }

}  // namespace

std::string ShortReason(std::string_view reason) {
  size_t end = reason.size();
  // The perf reasons say what is wrong first, then why and what to do.
  for (std::string_view stop : {"; ", ". ", ", so ", ": "}) end = std::min(end, reason.find(stop));
  std::string_view clause = reason.substr(0, end);
  while (!clause.empty() && (clause.back() == '.' || clause.back() == ' ')) {
    clause.remove_suffix(1);
  }
  return Cut(clause, kMostReason);
}

std::string ProbeTableText(const std::vector<ProbeRow>& rows) {
  using Align = TextTable::Align;
  TextTable table(
      {Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft, Align::kLeft});
  table.AddRow({"runner", "PMU", "paranoid", "backend", "resolution", "hypervisor"});
  for (const ProbeRow& row : rows) {
    table.AddRow({Cut(row.label, kMostLabel),
                  row.pmu_counts ? "yes" : "no: " + ShortReason(row.pmu_reason), Paranoid(row),
                  BackendCell(row), ResolutionCell(row), Cut(Hypervisor(row), kMostLabel)});
  }
  return table.Render(0, false);
}

std::string ProbeTableMarkdown(const std::vector<ProbeRow>& rows) {
  auto code = [](const std::string& text) { return MarkdownCode(text, SpanIn::kTableCell); };
  std::string out =
      "| runner | PMU | perf_event_paranoid | backend | resolution | hypervisor |\n"
      "|---|---|---:|---|---|---|\n";
  for (const ProbeRow& row : rows) {
    // Backends and figures are checked names and numbers; the label, the
    // reason and the hypervisor are the runner's own words.
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", code(Cut(row.label, kMostLabel)),
                       row.pmu_counts ? "yes" : "no: " + code(ShortReason(row.pmu_reason)),
                       Paranoid(row), BackendCell(row), ResolutionCell(row),
                       code(Cut(Hypervisor(row), kMostLabel)));
  }
  return out;
}

json ProbeTableToJson(const std::vector<ProbeRow>& rows) {
  auto or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  json runners = json::array();
  for (const ProbeRow& row : rows) {
    json resolutions = json::array();
    for (const ProbeResolution& r : row.resolutions) {
      resolutions.push_back({{"backend", r.backend},
                             {"ok", r.ok},
                             {"exact", r.ok ? json(r.exact) : json(nullptr)},
                             {"spread", r.ok ? json(r.spread) : json(nullptr)},
                             {"instructions_per_iteration", r.ok ? json(r.per_iteration) : json()},
                             {"error", r.ok ? json(nullptr) : json(r.error)}});
    }
    runners.push_back(
        {{"label", row.label},
         {"file", or_null(row.source)},
         {"pmu",
          {{"event", row.event}, {"counts", row.pmu_counts}, {"reason", or_null(row.pmu_reason)}}},
         {"perf_event_paranoid", row.paranoid ? json(*row.paranoid) : json(nullptr)},
         {"backend", or_null(row.backend)},
         {"resolution", resolutions},
         {"hypervisor",
          {{"present", row.hypervisor_present ? json(*row.hypervisor_present) : json(nullptr)},
           {"name", or_null(row.hypervisor)}}}});
  }
  return {{"schema_version", kProbeTableSchemaVersion}, {"runners", runners}};
}

}  // namespace workgate
