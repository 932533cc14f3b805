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

// The calls into `f` from other functions.
uint64_t CallsInto(const CallGraph& g, const FunctionId& f) {
  uint64_t calls = 0;
  for (const auto& [edge, cost] : g.edges) {
    if (edge.second == f && edge.first != f) AddSaturating(&calls, cost.calls);
  }
  return calls;
}

// Whether `caller`, on the side without its `calls` to `f`, calls instead
// a function it does not call on the other side, at least half as often:
// the calls went elsewhere (a renamed or a replaced function).
bool CallsElsewhere(const CallGraph& without, const CallGraph& with, const FunctionId& caller,
                    const FunctionId& f, uint64_t calls) {
  for (auto it = without.edges.lower_bound({caller, FunctionId{}});
       it != without.edges.end() && it->first.first == caller; ++it) {
    const FunctionId& other = it->first.second;
    if (other == f || other == caller || CallsOf(with, caller, other) > 0) continue;
    if (it->second.calls >= calls - calls / 2) return true;
  }
  return false;
}

// Whether the caller's own cost holds `f`'s code on the side without the
// calls: it exceeds the caller's cost on the side with them by a quarter to
// four times f's self cost from those calls there.
bool CodeWentWithTheCalls(const CallGraph& without, const CallGraph& with, const FunctionId& caller,
                          const FunctionId& f, uint64_t calls) {
  const uint64_t inlined = SelfOf(without, caller), called = SelfOf(with, caller);
  const uint64_t all_calls = CallsInto(with, f);
  if (inlined <= called || all_calls == 0) return false;
  // f's self cost from this caller's calls, by their share of its calls.
  const long double expected = static_cast<long double>(SelfOf(with, f)) *
                               static_cast<long double>(calls) /
                               static_cast<long double>(all_calls);
  const long double moved = static_cast<long double>(inlined - called);
  return moved >= expected / 4 && moved <= expected * 4;
}

}  // namespace

CallGraph ShownCallGraph(const Profile& profile, const Renames& renames) {
  CallGraph g;
  auto shown = [&renames](const FunctionId& f) { return Renamed(renames, ShownFunction(f)); };
  for (const auto& [id, cost] : profile.self) AddSaturating(&g.self[shown(id)], cost);
  for (const auto& [edge, cost] : profile.calls) {
    CallCost& into = g.edges[{shown(edge.first), shown(edge.second)}];
    AddSaturating(&into.calls, cost.calls);
    AddSaturating(&into.inclusive, cost.inclusive);
  }
  for (const FunctionId& f : profile.calls_cut.functions) g.cut.insert(shown(f));
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
        candidate.Complete(edge.first) && SelfOf(baseline, edge.first) > 0 &&
        SelfOf(candidate, edge.first) > 0 &&
        !CallsElsewhere(not_calling, calling, edge.first, f, cost.calls) &&
        CodeWentWithTheCalls(not_calling, calling, edge.first, f, cost.calls)) {
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
