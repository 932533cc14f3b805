#pragma once
// Why a function's self cost jumped: the compiler stopped (or started)
// inlining it into a caller. Self cost alone then shows a row holding 168%
// of a delta and another giving most of it back, with nothing beside them
// to say why (Lua's insertkey, given a second caller, was no longer
// inlined into luaH_newkey). The call edges say it: a call from the
// caller to the function that one build makes and the other does not, and
// the caller's inclusive cost (its own and its callees') is what the move
// really cost.

#include <cstddef>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "explain/callgrind_profile.h"
#include "explain/renames.h"
#include "model/model.h"

namespace workgate {

/// A profile's self costs and call edges with every function shown as its
/// explanation row (ShownFunction: clones folded, code without a symbol
/// summed per object).
struct CallGraph {
  std::map<FunctionId, uint64_t> self;
  std::map<std::pair<FunctionId, FunctionId>, CallCost> edges;  // (caller, callee)
  /// The functions that lost a call edge to the profile's bounds
  /// (Profile::calls_cut), as shown; `dropped`: every function did.
  std::set<FunctionId> cut;
  bool dropped = false;
  /// Whether `edges` holds every call from and to `f` the profile named.
  bool Complete(const FunctionId& f) const { return !dropped && cut.count(f) == 0; }
};

/// With `renames`, each function renamed is shown as the candidate names
/// it (a baseline's graph).
CallGraph ShownCallGraph(const Profile& profile, const Renames& renames = {});

/// The inclusive cost of `f` in `graph`: its self cost and the inclusive
/// cost of its calls to other functions (a call to itself is inside those
/// already), saturated at INT64_MAX.
int64_t InclusiveCost(const CallGraph& graph, const FunctionId& f);

/// At most `max` callers that `row` moved out of line from (when its self
/// cost rose: calls from the caller in the candidate, none in the baseline)
/// or into (when it fell: the other way round), the caller whose self cost
/// changed most first. Empty where the profiles have no call edges, or
/// where either graph lost an edge of the row's function; a caller that
/// lost one is left out: a call the bounds left out is not a call that is
/// not there.
///
/// A new call edge alone is no move: a new function, a renamed one, a
/// caller that does other work, a program that takes another path all make
/// one. A caller is a move only where the code went with the calls:
///  - the caller has code on both sides (a self cost in each profile);
///  - on the side without the calls, the caller makes no calls instead to
///    a function it does not call on the other side, half as many or more
///    (the calls went to another function, not into the caller);
///  - the caller's own cost on the side without the calls exceeds its cost
///    on the other side by between a quarter and four times the function's
///    self cost from those calls (its self cost times the calls' share of
///    all calls to it): the function's code is in the caller there.
/// The function itself may have no code of its own on the inlined side:
/// wholly inlined, GCC emits none.
std::vector<CallerMove> FindInlineMoves(const CallGraph& baseline, const CallGraph& candidate,
                                        const FunctionDelta& row, size_t max);

}  // namespace workgate
