#include "workload/suite_edit.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "workload/suite_writer.h"
#include "workload/workload.h"

namespace workgate {
namespace {

// The text's lines, each with its line ending; toml++ numbers them from 1.
std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t from = 0;
  while (from < text.size()) {
    const size_t end = text.find('\n', from);
    const size_t to = end == std::string_view::npos ? text.size() : end + 1;
    lines.emplace_back(text.substr(from, to - from));
    from = to;
  }
  return lines;
}

// The last line any key or value of `node` (a workload's table) is on.
size_t LastLine(const toml::node& node) {
  size_t last = node.source().end.line;
  if (const auto* table = node.as_table()) {
    for (const auto& [key, value] : *table) {
      last = std::max<size_t>({last, key.source().end.line, LastLine(value)});
    }
  } else if (const auto* array = node.as_array()) {
    for (const auto& value : *array) last = std::max(last, LastLine(value));
  }
  return last;
}

bool SameEntry(const AcceptedWork& a, const AcceptedWork& b) {
  auto tie = [](const AcceptedWork& w) {
    return std::tie(w.reason, w.delta, w.baseline_count, w.backend, w.event, w.workload_digest,
                    w.baseline_sha256, w.candidate_sha256);
  };
  return tie(a) == tie(b);
}

// The edited suite reads back as the one before with `name`'s entry set:
// the same workloads and definitions, the others' entries as they were.
bool CheckEdit(const Suite& before, std::string_view text, const std::string& path,
               const std::string& name, const AcceptedWork& entry, std::string* err) {
  Suite after;
  std::string why;
  bool same = ParseSuite(text, path, &after, &why) &&
              after.workloads.size() == before.workloads.size();
  for (size_t i = 0; same && i < after.workloads.size(); ++i) {
    const Workload& a = after.workloads[i];
    const Workload& b = before.workloads[i];
    same = a.name == b.name && a.Canonical() == b.Canonical() &&
           a.score_expect == b.score_expect && a.score_previous == b.score_previous;
    if (!same) break;
    if (a.name == name) {
      same = a.accepted && SameEntry(*a.accepted, entry);
    } else {
      same = a.accepted.has_value() == b.accepted.has_value() &&
             (!a.accepted || SameEntry(*a.accepted, *b.accepted));
    }
  }
  if (!same) {
    *err = fmt::format("{}: the accepted entry of workload '{}' cannot be written without "
                       "changing more of the file{}; write it by hand (docs/suites.md)",
                       path, name, why.empty() ? "" : " (" + why + ")");
  }
  return same;
}

}  // namespace

std::string AcceptedTable(const AcceptedWork& e, std::string_view eol) {
  std::string out;
  auto line = [&](const std::string& text) { out += text + std::string(eol); };
  line("[workload.accepted]");
  line("# Written by `workgate accept`: this workload passes while the work it adds stays");
  line("# within delta plus the margin, against a baseline that counts baseline_count.");
  line("reason = " + TomlString(e.reason));
  line(fmt::format("delta = {}", e.delta));
  line(fmt::format("delta_percent = {:.4f}", 100 * e.relative()));
  line(fmt::format("baseline_count = {}", e.baseline_count));
  line("backend = " + TomlString(e.backend));
  line("event = " + TomlString(e.event));
  line("workload_digest = " + TomlString(e.workload_digest));
  line("baseline_sha256 = " + TomlString(e.baseline_sha256));
  line("candidate_sha256 = " + TomlString(e.candidate_sha256));
  return out;
}

bool SetAcceptedEntry(std::string_view text, const std::string& path, const std::string& name,
                      const AcceptedWork& entry, std::string* out, std::string* err) {
  Suite before;
  if (!ParseSuite(text, path, &before, err)) return false;
  const toml::table root = toml::parse(text, path);  // ParseSuite parsed it already
  const toml::array& list = *root.get("workload")->as_array();
  const toml::table* workload = nullptr;
  for (const toml::node& node : list) {
    const toml::table& t = *node.as_table();
    if (t.get("name")->value<std::string>() == name) workload = &t;
  }
  if (workload == nullptr) {
    *err = fmt::format("{}: no workload named '{}'", path, name);
    return false;
  }
  std::vector<std::string> lines = SplitLines(text);
  const size_t first_newline = text.find('\n');
  const std::string eol =
      first_newline != std::string_view::npos && first_newline > 0 && text[first_newline - 1] == '\r'
          ? "\r\n"
          : "\n";
  // Lines from toml++ count from 1; `at` is the index the table goes before.
  size_t at = 0;
  std::string table = AcceptedTable(entry, eol);
  if (const toml::node* old = workload->get("accepted")) {
    const size_t header = old->source().begin.line;
    const std::string& head = lines.at(header - 1);
    const size_t start = head.find_first_not_of(" \t");
    if (start == std::string::npos || head.compare(start, 1, "[") != 0) {
      *err = fmt::format(
          "{}:{}: workload '{}' has an accepted entry that is not a [workload.accepted] table "
          "of its own; delete it, then run workgate accept again",
          path, header, name);
      return false;
    }
    const size_t last = LastLine(*old);
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(header - 1),
                lines.begin() + static_cast<std::ptrdiff_t>(last));
    at = header - 1;
  } else {
    at = LastLine(*workload);
    if (at > 0 && !lines[at - 1].empty() && lines[at - 1].back() != '\n') lines[at - 1] += eol;
    table = eol + table;
  }
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), table);
  std::string edited;
  for (const std::string& l : lines) edited += l;
  if (!CheckEdit(before, edited, path, name, entry, err)) return false;
  *out = std::move(edited);
  return true;
}

}  // namespace workgate
