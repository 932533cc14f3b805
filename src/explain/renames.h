#pragma once
// Functions the candidate renamed. A rename leaves one name gone and one
// new with the same code: matched by name, it reads as two rows that cancel
// out, and as the one inlined into its callers and the other moved out of
// line from them (Lua's l_alloc, renamed luaL_alloc: "l_alloc moved inline
// into luaM_malloc_ (100,322 → 0 calls)"). The evidence that two names are
// one function is where their code is and what it costs, not the names.

#include <map>

#include "explain/callgrind_profile.h"
#include "explain/line_diff.h"
#include "model/model.h"

namespace workgate {

/// The baseline's function (as ShownFunction shows it) -> the candidate's
/// function it was renamed to.
using Renames = std::map<FunctionId, FunctionId>;

/// The renames between two profiles: a function of the baseline that the
/// candidate has no function of that name and object for, paired with one
/// of the candidate that the baseline has none for, when
///  - both are in one object,
///  - their self costs are within a tenth of the larger of them, and
///  - where both profiles have their lines: most of the cost of each is in
///    one file of the same name, and the lines each ran there overlap (a
///    baseline line matched to the candidate's numbering through `map`
///    where given); where neither has lines: the same callers call each,
///    each as many times, as far as the call edges (all kept) say.
/// Each function is paired at most once, to the nearest cost (ties by
/// name). Code without a symbol is never paired.
Renames FindRenames(const Profile& baseline, const Profile& candidate,
                    const BaselineLineMap* map = nullptr);

/// `id` (as ShownFunction shows it) as the candidate names it.
FunctionId Renamed(const Renames& renames, const FunctionId& id);

}  // namespace workgate
