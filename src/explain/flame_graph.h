#pragma once
// The call stacks of a differential flame graph (model/flame_graph.h),
// reconstructed from two profiles. A callgrind-format file keeps call edges
// (caller, callee, inclusive cost), not whole stacks, so a stack is built by
// walking the edges down from the functions nobody calls: a callee's frame
// gets the edge's inclusive cost scaled by its caller frame's share of the
// caller's whole inclusive cost. Where a function is called from several
// places that share is an approximation: its callees are split among its
// stacks in proportion to each stack's cost of it, whatever each really
// called.
//
// The names and costs come from the candidate build's profile: untrusted.
// Every dimension of the result is bounded (FlameBounds), and so is the
// work of building it, whatever the profile claims.

#include <cstddef>
#include <cstdint>

#include "explain/callgrind_profile.h"
#include "model/flame_graph.h"

namespace workgate {

struct FlameBounds {
  /// A frame narrower than this share of the whole program (on both sides)
  /// is left out; its cost stays in its caller's frame.
  double min_share = 1.0 / 2000;
  /// The deepest frame kept, the root being at depth 0.
  uint32_t max_depth = 96;
  /// The most frames, the root included: the widest are kept.
  size_t max_frames = 10000;
  /// The most call edges looked at in all, so that a profile with millions
  /// of edges out of one function costs no more than this.
  size_t max_edge_visits = 1 << 20;
};

/// The flame graph of `baseline` and `candidate`, functions as an
/// explanation's rows show them (ShownCallGraph). Roots are the functions
/// no other function calls, on each side; a function already on a stack
/// adds no frame there (recursion is cut: its cost stays in the frame that
/// holds it). Where either profile has no call edges, every function is one
/// frame under the root with its self cost, on both sides alike.
FlameGraph BuildFlameGraph(const Profile& baseline, const Profile& candidate,
                           const FlameBounds& bounds = {});

}  // namespace workgate
