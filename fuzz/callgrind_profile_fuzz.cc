// libFuzzer entry point for the callgrind parser and the explain diff.
// Built by fuzz/CMakeLists.txt with clang only; run by ci/fuzz.
//
// Besides "no crash, no undefined behaviour, no leak" (the sanitizers), it
// checks what the parser promises: an error always says why and leaves the
// profile untouched, a parsed profile's total is the sum of its rows, each
// row's lines add up to it, and the bounds on call edges and lines keep the
// costliest and never change a total.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "explain/callgrind_parser.h"
#include "explain/callgrind_profile.h"
#include "explain/clone_names.h"
#include "explain/explain.h"

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

// The gate's total-only parse of the same text: it accepts only what the
// profile parse accepts, with the same total; and fed in pieces of any size,
// the parser gives what it gives on the whole text.
void CheckTotal(std::string_view text, const std::string& event, bool profile_ok,
                uint64_t profile_total) {
  std::istringstream in{std::string(text)};
  uint64_t total = 0;
  std::string err;
  if (workgate::ParseCallgrindTotal(in, "fuzz", &total, &err, event)) {
    Check(profile_ok && total == profile_total);
  }
  workgate::callgrind::Parser pieces(event);
  const size_t step = text.empty() ? 1 : 1 + static_cast<unsigned char>(text[0]) % 7;
  bool fed = true;
  for (size_t at = 0; fed && at < text.size(); at += step) fed = pieces.Feed(text.substr(at, step));
  workgate::Profile p;
  Check((fed && pieces.Finish() && pieces.AddTo(&p, &err) && p.total == profile_total) ==
        profile_ok);
}

// The same text parsed within tiny bounds on call edges and lines: the
// same verdict, total and self costs (no bound changes them), and the kept
// edges and lines are the costliest, with their whole costs.
void CheckBounded(std::string_view text, const std::string& event, bool profile_ok,
                  const workgate::Profile& whole) {
  workgate::ProfileBounds bounds;
  bounds.calls_kept = 2;
  bounds.calls_read = 8;
  bounds.lines_kept = 3;
  bounds.lines_read = 16;
  workgate::Profile p;
  std::string err;
  Check(workgate::ParseCallgrind(text, "fuzz", &p, &err, event, bounds) == profile_ok);
  if (!profile_ok) return;
  Check(p.total == whole.total && p.self == whole.self);
  Check(p.calls.size() <= bounds.calls_kept && p.calls_cut.kept == p.calls.size());
  Check(p.calls_cut.dropped ? p.calls.empty() : p.calls_cut.named == whole.calls.size());
  for (const auto& [edge, cost] : p.calls) {
    const workgate::CallCost& all = whole.calls.at(edge);
    Check(cost.calls == all.calls && cost.inclusive == all.inclusive);
  }
  if (!p.calls_cut.dropped && !p.calls.empty()) {
    uint64_t least = UINT64_MAX;
    for (const auto& [edge, cost] : p.calls) least = std::min(least, cost.inclusive);
    for (const auto& [edge, cost] : whole.calls) {
      Check(p.calls.count(edge) == 1 || cost.inclusive <= least);
    }
  }
  size_t lines = 0;
  for (const auto& [id, costs] : p.lines) {
    for (const auto& [where, cost] : costs) {
      Check(whole.lines.at(id).at(where) == cost);
      ++lines;
    }
  }
  Check(lines <= bounds.lines_kept && p.lines_cut.kept == lines);
}

void ParseAs(std::string_view text, const std::string& event) {
  workgate::Profile p;
  std::string err;
  bool ok = workgate::ParseCallgrind(text, "fuzz", &p, &err, event);
  CheckTotal(text, event, ok, p.total);
  CheckBounded(text, event, ok, p);
  if (!ok) {
    Check(err.rfind("fuzz:", 0) == 0);
    Check(p.self.empty() && p.lines.empty() && p.calls.empty() && p.total == 0 && p.parts == 0);
    return;
  }
  uint64_t sum = 0;
  for (const auto& [id, cost] : p.self) {
    Check(cost > 0);
    sum += cost;
    // A function's lines add up to its self cost.
    uint64_t lines = 0;
    for (const auto& [where, line_cost] : p.lines.at(id)) lines += line_cost;
    Check(lines == cost);
  }
  Check(sum == p.total && p.lines.size() == p.self.size());
  workgate::Explanation same = workgate::DiffProfiles(p, p, 10);
  Check(same.rows.empty() && same.total_delta == 0);
  // One row per row a function is shown under (code without a symbol shares
  // its object's row).
  std::set<workgate::FunctionId> shown;
  for (const auto& [id, cost] : p.self) shown.insert(workgate::ShownFunction(id));
  workgate::Explanation grown = workgate::DiffProfiles(workgate::Profile{}, p, 10);
  Check(!grown.error.empty() || grown.rows.size() == std::min<size_t>(shown.size(), 10));
  // A row's clones are names of the function the row stands for.
  for (const workgate::FunctionDelta& row : grown.rows) {
    for (const std::string& clone : row.clones) {
      Check(workgate::SplitCloneName(clone).base == row.function);
    }
  }
  // Paths are kept, within their bound, for objects with cost only.
  std::set<std::string> objects;
  for (const auto& [id, cost] : p.self) objects.insert(id.object);
  for (const auto& [object, paths] : p.object_paths) {
    Check(objects.count(object) == 1);
    Check(!paths.empty() && paths.size() <= workgate::kMaxPathsPerObject);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseAs(text, "Ir");
  ParseAs(text, "Dr");
  return 0;
}
