#pragma once
// The simulated events of an explanation's rows and lines, where both
// profiles are of simulated runs (Profile::simulated): what each function
// and listed line cost in mispredicted branches and cache misses beside its
// instructions.

#include "explain/callgrind_profile.h"
#include "model/model.h"

namespace workgate {

/// Sets `out->simulated` and, where both profiles carry the simulated events,
/// each row's baseline_events and candidate_events (the sums over the
/// functions shown under it, ShownFunction) and each listed line's: a line's
/// events are those of the profile's lines of the row's functions at its
/// file and number, and only where their instructions add up to the line's
/// cost on that side: a baseline line matched through the sources
/// (BaselineLineMap) at another number, or one the bounds left out, shows
/// none rather than another line's.
void AttachSimulatedEvents(const Profile& baseline, const Profile& candidate, Explanation* out);

}  // namespace workgate
