#pragma once
// The timed runs held against the count: whether the candidate ran,
// natively, much slower or much faster than its instruction count allows.
// Context, never the verdict: the result goes into the reports' summaries
// and nothing of it reaches Decide or an exit code.
//
// Why: a count and a timing measure different things, but not unrelated
// ones. The count's relative change c, with its interval [c_low, c_high],
// allows a time ratio (candidate to baseline) of 1 + c; a change can trade
// instructions for fewer cache misses or branch mispredictions, or code
// layout can move the time of the same instructions, so the timing may lie
// some way off it, but a whole workload that runs more than twice as long as
// its count allows, or less than half as long, is doing something the count
// did not see. Either the program behaves differently when it is counted (it
// can tell it runs under Valgrind, from RUNNING_ON_VALGRIND or its own
// /proc/self/maps, and does less work there than natively), or the time is
// dominated by what instruction counts do not see (memory stalls, waits).
//
// Wall times, whatever the timed context's basis: a score is what the
// program prints, which a candidate chooses (and a fixed one, such as a
// suite's correctness check, says nothing of time); the wall time is
// workgate's own measurement.
//
// The rule, for a workload whose count has figures (CountAllowsTimingCheck)
// and with 10 or more wall-time pairs kept: the workloads so tested are one
// family of m. Their wall times are compared as the timed context compares
// (PairedTest at 1 - kTimedAlpha / m), and the baseline's own wall times in
// mirrored pairs (the A/A control, Holm over the family): where it shows an
// effect, the runner's timings cannot be trusted and nothing is claimed. The
// bound is on the side of the count's ratio where the median ratio lies,
// count_high * F above it and count_low / F below it, F = kTimingCountFactor.
// The timing disagrees with the count when, as for a timed label, two tests
// agree (DisagreementOf): the bootstrap interval lies wholly beyond the bound,
// and the sign-flip test of the pairs' log ratios less log(bound),
// Holm-adjusted over the family, rejects at kTimedAlpha.

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace workgate {

/// F: how far beyond the time ratio its count allows a workload's wall-time
/// ratio must lie before the report says the two disagree. docs/timed.md
/// says why 2.
inline constexpr double kTimingCountFactor = 2;

/// Whether `w`'s count can be held against its timing: it is not invalid and
/// its relative delta exists (HasDelta, filled by Decide), finite, with
/// 1 + relative_low above 0.
bool CountAllowsTimingCheck(const WorkloadResult& w);

/// One workload to test: its wall times in the pairs the timed context keeps
/// (stalls dropped by the wall-time rule), and the baseline's in mirrored A/A
/// pairs (stats/timed_context.h), kMinPairsForInterval or more of those.
struct WallTimes {
  WorkloadResult* workload = nullptr;
  std::vector<double> baseline, candidate;
  std::vector<double> aa_first, aa_second;
};

/// Sets the timing_vs_count of each workload of `tested` (one family) by the
/// rule above, seeded by `seed`, and leaves none where the A/A control shows
/// an effect.
void HoldTimingsAgainstCounts(const std::vector<WallTimes>& tested, uint64_t seed);

}  // namespace workgate
