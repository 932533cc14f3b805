#include "explain/flame_graph.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <set>
#include <utility>
#include <vector>

#include "explain/cost_math.h"
#include "explain/inline_moves.h"

namespace workgate {
namespace {

// Function 0 stands for the whole program: its callees are the roots.
constexpr uint32_t kWholeProgram = 0;

// A call from one function to another, with each side's inclusive cost.
struct Callee {
  uint32_t function = 0;
  uint64_t cost[2] = {0, 0};
  uint64_t larger() const { return std::max(cost[0], cost[1]); }
};

// Both sides' call graphs over one numbering of their functions.
struct JointGraph {
  std::vector<FunctionId> names;       // by number; names[0] is the whole program's
  std::vector<uint64_t> inclusive[2];  // each function's, per side
  std::vector<std::vector<Callee>> callees;  // by caller, the largest first
  uint64_t total[2] = {0, 0};                // the sum of the self costs, per side
};

JointGraph Join(const CallGraph (&sides)[2]) {
  JointGraph g;
  std::set<FunctionId> all;
  for (const CallGraph& side : sides) {
    for (const auto& [f, cost] : side.self) all.insert(f);
    for (const auto& [edge, cost] : side.edges) {
      all.insert(edge.first);
      all.insert(edge.second);
    }
  }
  g.names.push_back(FunctionId{});
  g.names.insert(g.names.end(), all.begin(), all.end());
  std::map<FunctionId, uint32_t> number;
  for (uint32_t i = 1; i < g.names.size(); ++i) number[g.names[i]] = i;
  const size_t n = g.names.size();
  std::map<std::pair<uint32_t, uint32_t>, Callee> calls;
  for (int s = 0; s < 2; ++s) {
    g.inclusive[s].assign(n, 0);
    std::vector<bool> called(n, false);
    for (const auto& [f, cost] : sides[s].self) AddSaturating(&g.total[s], cost);
    for (const auto& [edge, cost] : sides[s].edges) {
      if (edge.first == edge.second) continue;  // inside the caller's cost already
      const uint32_t from = number[edge.first], to = number[edge.second];
      Callee& c = calls[{from, to}];
      c.function = to;
      AddSaturating(&c.cost[s], cost.inclusive);
      called[to] = true;
    }
    uint64_t roots = 0;
    for (uint32_t i = 1; i < n; ++i) {
      g.inclusive[s][i] = static_cast<uint64_t>(InclusiveCost(sides[s], g.names[i]));
      if (called[i] || g.inclusive[s][i] == 0) continue;
      Callee& root = calls[{kWholeProgram, i}];
      root.function = i;
      root.cost[s] = g.inclusive[s][i];
      AddSaturating(&roots, root.cost[s]);
    }
    // Where the roots claim more than the program's total (recursion through
    // several functions counts a cost in more than one edge), they share it.
    g.inclusive[s][kWholeProgram] = std::max(g.total[s], roots);
  }
  g.callees.resize(n);
  for (const auto& [edge, callee] : calls) g.callees[edge.first].push_back(callee);
  for (std::vector<Callee>& list : g.callees) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Callee& a, const Callee& b) { return a.larger() > b.larger(); });
  }
  return g;
}

// `edge` of a caller whose inclusive cost is `whole`, for a frame of it that
// holds `frame` of that: edge * frame / whole, never more than the frame.
uint64_t Scaled(uint64_t edge, uint64_t frame, uint64_t whole) {
  if (whole == 0) return 0;
  const unsigned __int128 scaled =
      static_cast<unsigned __int128>(edge) * frame / static_cast<unsigned __int128>(whole);
  return scaled > frame ? frame : static_cast<uint64_t>(scaled);
}

struct Frame {
  uint32_t function = 0;
  uint32_t parent = 0;
  uint32_t depth = 0;
  uint64_t cost[2] = {0, 0};
  uint64_t width() const { return std::max(cost[0], cost[1]); }
};

bool OnStack(const std::vector<Frame>& frames, uint32_t top, uint32_t function) {
  for (uint32_t i = top;; i = frames[i].parent) {
    if (frames[i].function == function) return true;
    if (i == 0) return false;
  }
}

// The frames, widest first: a bound that stops the walk leaves out the
// narrowest. Sets `*cut` when one did.
std::vector<Frame> Expand(const JointGraph& g, const FlameBounds& bounds, bool* cut) {
  std::vector<Frame> frames = {{kWholeProgram, 0, 0, {g.total[0], g.total[1]}}};
  const long double least = std::ceil(static_cast<long double>(frames[0].width()) *
                                      static_cast<long double>(bounds.min_share));
  const uint64_t threshold = std::max<uint64_t>(1, static_cast<uint64_t>(least));
  auto narrower = [&frames](uint32_t a, uint32_t b) {
    if (frames[a].width() != frames[b].width()) return frames[a].width() < frames[b].width();
    return a > b;
  };
  std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(narrower)> open(narrower);
  open.push(0);
  size_t visits = 0;
  while (!open.empty()) {
    const uint32_t at = open.top();
    open.pop();
    const Frame caller = frames[at];
    for (const Callee& c : g.callees[caller.function]) {
      if (c.larger() < threshold) break;  // so is every later one, and scaled smaller still
      if (++visits > bounds.max_edge_visits) {
        *cut = true;
        return frames;
      }
      if (OnStack(frames, at, c.function)) continue;
      Frame f{c.function, at, caller.depth + 1, {0, 0}};
      for (int s = 0; s < 2; ++s) {
        f.cost[s] = Scaled(c.cost[s], caller.cost[s], g.inclusive[s][caller.function]);
      }
      if (f.width() < threshold) continue;
      if (f.depth > bounds.max_depth) {
        *cut = true;
        break;
      }
      if (frames.size() >= bounds.max_frames) {
        *cut = true;
        return frames;
      }
      frames.push_back(f);
      open.push(static_cast<uint32_t>(frames.size() - 1));
    }
  }
  return frames;
}

}  // namespace

FlameGraph BuildFlameGraph(const Profile& baseline, const Profile& candidate,
                           const FlameBounds& bounds) {
  FlameGraph out;
  CallGraph sides[2] = {ShownCallGraph(baseline), ShownCallGraph(candidate)};
  out.call_edges = !baseline.calls.empty() && !candidate.calls.empty();
  if (!out.call_edges) {
    for (CallGraph& side : sides) side.edges.clear();
  }
  const JointGraph g = Join(sides);
  const std::vector<Frame> frames = Expand(g, bounds, &out.cut);
  // Depth first, each frame's callees widest first (then by name), so the
  // page is the same on every run.
  std::vector<std::vector<uint32_t>> callees(frames.size());
  for (uint32_t i = 1; i < frames.size(); ++i) callees[frames[i].parent].push_back(i);
  for (std::vector<uint32_t>& list : callees) {
    std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
      if (frames[a].width() != frames[b].width()) return frames[a].width() > frames[b].width();
      return g.names[frames[a].function] < g.names[frames[b].function];
    });
  }
  std::vector<uint32_t> placed(frames.size(), 0);
  std::vector<uint32_t> todo = {0};
  while (!todo.empty()) {
    const uint32_t i = todo.back();
    todo.pop_back();
    placed[i] = static_cast<uint32_t>(out.frames.size());
    const Frame& f = frames[i];
    const FunctionId& name = g.names[f.function];
    out.frames.push_back(
        {name.name, name.object, placed[f.parent], f.depth, f.cost[0], f.cost[1]});
    for (auto it = callees[i].rbegin(); it != callees[i].rend(); ++it) todo.push_back(*it);
  }
  return out;
}

}  // namespace workgate
