#include "explain/simulated_rows.h"

#include "explain/explain.h"
#include "explain/line_diff.h"

namespace workgate {
namespace {

void AddCosts(SimulatedCosts* into, const SimulatedCosts& more) {
  for (size_t i = 0; i < kSimulatedEventCount; ++i) {
    if (__builtin_add_overflow((*into)[i], more[i], &(*into)[i])) (*into)[i] = UINT64_MAX;
  }
}

// The events of every function of `profile` shown under `row`.
SimulatedCosts RowEvents(const Profile& profile, const FunctionId& row) {
  SimulatedCosts sum = {};
  for (const auto& [id, costs] : profile.self_simulated) {
    if (ShownFunction(id) == row) AddCosts(&sum, costs);
  }
  return sum;
}

// The events of `profile`'s lines of `row` at `file` (by SourceFileKey) and
// `number`, where their instructions add up to `cost`; nullopt otherwise.
std::optional<SimulatedCosts> LineEvents(const Profile& profile, const FunctionId& row,
                                         const std::string& file, uint64_t number,
                                         int64_t cost) {
  SimulatedCosts sum = {};
  uint64_t instructions = 0;
  for (const auto& [id, lines] : profile.lines) {
    if (ShownFunction(id) != row) continue;
    std::vector<std::string> files;
    for (const auto& [where, ignored] : lines) files.push_back(where.file);
    const std::string key = SourceFileKey(file, files);
    const auto events = profile.lines_simulated.find(id);
    for (const auto& [where, ir] : lines) {
      if (where.line != number || SourceFileKey(where.file, files) != key) continue;
      instructions += ir;
      if (events == profile.lines_simulated.end()) return std::nullopt;
      const auto found = events->second.find(where);
      if (found == events->second.end()) return std::nullopt;
      AddCosts(&sum, found->second);
    }
  }
  if (cost < 0 || instructions != static_cast<uint64_t>(cost)) return std::nullopt;
  return sum;
}

}  // namespace

void AttachSimulatedEvents(const Profile& baseline, const Profile& candidate, Explanation* out) {
  out->simulated = baseline.simulated && candidate.simulated;
  if (!out->simulated) return;
  for (FunctionDelta& row : out->rows) {
    const FunctionId id{row.function, row.object};
    row.baseline_events = RowEvents(baseline, id);
    row.candidate_events = RowEvents(candidate, id);
    for (LineDelta& line : row.lines) {
      // A line the candidate changed is in the baseline's numbering, and
      // costs the candidate nothing.
      line.candidate_events =
          line.baseline_only ? std::optional<SimulatedCosts>(SimulatedCosts{})
                             : LineEvents(candidate, id, line.file, line.line, line.candidate);
      line.baseline_events = LineEvents(baseline, id, line.file, line.line, line.baseline);
      if (!line.baseline_events || !line.candidate_events) {
        line.baseline_events.reset();
        line.candidate_events.reset();
      }
    }
  }
}

}  // namespace workgate
