#pragma once
// The timed runs of a comparison (context, never the verdict): one sequence
// over the whole run, one run at a time, whatever --jobs says, after all
// counting. A count does not depend on load; a wall time does, so two timed
// runs never share the machine, with each other or with a count.
//
// The order: workload by workload, one discarded warm-up per side (the first
// run of a program pays for cold caches alone), then the workload's pairs.
// Pairs alternate AB and BA, and the alternation carries on from one workload
// to the next instead of starting again, so the whole run is one mirrored
// sequence: ABBA ABBA ... A drift that is linear over the job (a runner that
// heats up, a neighbour that starts) adds one slot's drift to the candidate in
// an AB pair and takes it away in a BA pair, so it cancels within every two
// pairs; with an odd number of pairs per workload the pair left over starts
// with the baseline in one workload and with the candidate in the next.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "model/model.h"

namespace workgate {

/// One run of the sequence.
struct TimedSlot {
  size_t workload = 0;   // which of the workloads timed (an index the caller gives)
  bool baseline = true;  // whose build runs
  bool warm_up = false;  // run and discarded
};

/// The sequence for `workloads` (indices, in the order they are timed), with
/// `pairs` pairs each; `with_baseline` false (a stored baseline: no baseline
/// build to run) keeps the candidate's runs only. Empty for pairs <= 0.
std::vector<TimedSlot> TimedSchedule(const std::vector<size_t>& workloads, int pairs,
                                     bool with_baseline);

/// Runs one slot and returns its sample, or sets `*err` (its slot is set by
/// the caller).
using TimedRunner = std::function<TimedSample(const TimedSlot& slot, std::string* err)>;

/// Runs `schedule` in order through `run`. Each kept sample, with its
/// position in the schedule as its slot, is appended to its side of
/// `(*results)[slot.workload]`. A run that fails ends its workload's runs:
/// its later slots are skipped, its samples removed (an incomplete set gives
/// no statistics), and `(*errors)[workload]` says which run failed and why.
/// `results` and `errors` are indexed by workload and must be large enough.
void RunTimedSchedule(const std::vector<TimedSlot>& schedule, const TimedRunner& run,
                      std::vector<WorkloadResult>* results, std::vector<std::string>* errors);

}  // namespace workgate
