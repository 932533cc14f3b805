#include "explain/inline_moves.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>

#include "explain/cost_math.h"
#include "explain/explain.h"

namespace workgate {

namespace {

uint64_t CallsOf(const CallGraph& g, const FunctionId& caller, const FunctionId& callee) {
  const auto found = g.edges.find({caller, callee});
  return found == g.edges.end() ? 0 : found->second.calls;
}

uint64_t SelfOf(const CallGraph& g, const FunctionId& f) {
  const auto found = g.self.find(f);
  return found == g.self.end() ? 0 : found->second;
}

}  // namespace

CallGraph ShownCallGraph(const Profile& profile) {
  CallGraph g;
  for (const auto& [id, cost] : profile.self) AddSaturating(&g.self[ShownFunction(id)], cost);
  for (const auto& [edge, cost] : profile.calls) {
    CallCost& into = g.edges[{ShownFunction(edge.first), ShownFunction(edge.second)}];
    AddSaturating(&into.calls, cost.calls);
    AddSaturating(&into.inclusive, cost.inclusive);
  }
  for (const FunctionId& f : profile.calls_cut.functions) g.cut.insert(ShownFunction(f));
  g.dropped = profile.calls_cut.dropped;
  return g;
}

int64_t InclusiveCost(const CallGraph& graph, const FunctionId& f) {
  uint64_t total = SelfOf(graph, f);
  // The edges from f are the ones keyed (f, *): a range of the map.
  for (auto it = graph.edges.lower_bound({f, FunctionId{}});
       it != graph.edges.end() && it->first.first == f; ++it) {
    if (it->first.second != f) AddSaturating(&total, it->second.inclusive);
  }
  return ClampToInt64(total);
}

std::vector<CallerMove> FindInlineMoves(const CallGraph& baseline, const CallGraph& candidate,
                                        const FunctionDelta& row, size_t max) {
  std::vector<CallerMove> moves;
  const FunctionId f{row.function, row.object};
  if (row.delta() == 0 || max == 0 || !baseline.Complete(f) || !candidate.Complete(f)) {
    return moves;
  }
  // Out of line: the candidate calls f from callers that did not call it;
  // inlined: the other way round.
  const bool rose = row.delta() > 0;
  const CallGraph& calling = rose ? candidate : baseline;
  const CallGraph& not_calling = rose ? baseline : candidate;
  std::set<FunctionId> callers;
  for (const auto& [edge, cost] : calling.edges) {
    // A caller's inclusive cost is its calls' too: all of them must be there.
    if (edge.second == f && edge.first != f && cost.calls > 0 &&
        CallsOf(not_calling, edge.first, f) == 0 && baseline.Complete(edge.first) &&
        candidate.Complete(edge.first)) {
      callers.insert(edge.first);
    }
  }
  for (const FunctionId& c : callers) {
    CallerMove m;
    m.caller = c.name;
    m.object = c.object;
    m.baseline_calls = CallsOf(baseline, c, f);
    m.candidate_calls = CallsOf(candidate, c, f);
    m.baseline_inclusive = InclusiveCost(baseline, c);
    m.candidate_inclusive = InclusiveCost(candidate, c);
    moves.push_back(std::move(m));
  }
  // The caller whose own cost changed most is where the code came from (or
  // went to); ties by name, so the order is the same on every run.
  auto self_change = [&](const CallerMove& m) {
    const FunctionId c{m.caller, m.object};
    return Distance(SelfOf(baseline, c), SelfOf(candidate, c));
  };
  std::sort(moves.begin(), moves.end(), [&](const CallerMove& x, const CallerMove& y) {
    const uint64_t cx = self_change(x), cy = self_change(y);
    if (cx != cy) return cx > cy;
    return std::tie(x.caller, x.object) < std::tie(y.caller, y.object);
  });
  if (moves.size() > max) moves.resize(max);
  return moves;
}

}  // namespace workgate
