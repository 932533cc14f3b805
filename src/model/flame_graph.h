#pragma once
// A differential flame graph of the two profiles an explanation compares:
// inclusive cost by call stack, each frame with both sides' cost.
// explain/flame_graph.h builds it from the profiles' call edges;
// report/flame_graph_html.h draws it.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace workgate {

/// One call stack's frame.
struct FlameFrame {
  /// As an explanation's rows show it (explain.h ShownFunction): untrusted
  /// text from the builds. Empty for the root, which stands for the whole
  /// program.
  std::string function;
  std::string object;
  uint32_t parent = 0;  // its caller's frame; the root's is itself (0)
  uint32_t depth = 0;   // 0 for the root
  /// The frame's inclusive cost on each side: 0 where that side has no
  /// such stack.
  uint64_t baseline = 0;
  uint64_t candidate = 0;
  /// What the page draws it as wide as: vanished and new frames both show.
  uint64_t width() const { return std::max(baseline, candidate); }
};

struct FlameGraph {
  /// Depth first from the root (frames[0]: both profiles' totals), each
  /// frame's callees after it, the widest first.
  std::vector<FlameFrame> frames;
  /// Whether both profiles had call edges; without them each function is one
  /// frame under the root, with its self cost.
  bool call_edges = false;
  /// Whether a bound on frames, depth or work stopped the reconstruction
  /// (explain/flame_graph.h); what it left out stays in the callers' frames.
  bool cut = false;
};

}  // namespace workgate
