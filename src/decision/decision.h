#pragma once
// The gate's decision: from the counts of both sides of a workload to a
// verdict, and from the workloads of a suite to an exit code.
//
// Point estimate: `delta = candidate.min - baseline.min`. Minimums, not
// medians: whatever perturbs an instruction count (interrupt handling that
// lands in user space, page-fault retries, a timer signal) only ever adds
// instructions, so the smallest repeat is the least contaminated one. On
// Valgrind every repeat is identical and the choice does not matter.
//
// Interval: from the spreads of both sides, the widest the relative delta can
// be given the repeats:
//   relative_low  = (candidate.min - baseline.max) / baseline.max
//   relative_high = (candidate.max - baseline.min) / baseline.min
// With margin M >= 0 (`max_work_added`, a fraction; the CLI rejects negative
// margins), first match wins:
//   invalid       the evidence cannot support a comparison (see Decide)
//   work-added    relative_low  >= M and > 0  (exactly at M is added: "at or above")
//   work-removed  relative_high <= -M and < 0
//   ok            relative_high <  M, or <= 0
//   inconclusive  otherwise: the interval straddles M
// The "> 0", "< 0" and "<= 0" only change anything for M = 0, where an
// unchanged count must be ok rather than work added or removed.
//
// A workload found unstable (two counts of one build differ; see
// decision/stability.h) is decided differently: delta is the Hodges-Lehmann
// shift and the interval is the rank interval of the shift, both relative to
// the baseline's median; the same verdict rule then applies, except that an
// interval covering less than kUnstableConfidence is inconclusive.
//
// Accepted work (WorkloadResult::accepted, the suite's `[workload.accepted]`):
// an entry applies only to the baseline it was accepted against
// (AcceptedProblem); one that matches none is stale and changes nothing.
// Where it applies to a work-added or inconclusive workload, the rule above
// is applied again to the work added beyond it: with A = entry.delta /
// entry.baseline_count, the interval [relative_low - A, relative_high - A]
// against the same margin M gives
//   work-added    (relative_low - A) >= M and > 0     status exceeded
//   accepted      (relative_high - A) < M, or <= 0    status applied (exit 0)
//   inconclusive  otherwise                            status inconclusive
// So the gate passes while the delta stays at most the accepted delta plus
// the margin, and blocks again once the work added beyond it reaches the
// margin. An entry of an ok or work-removed workload is unneeded; of an
// invalid one, or of an unstable one too noisy for a verdict, unchecked.

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace workgate {

/// Fills delta, relative, relative_low/high, verdict and reason of `w` from its
/// two sides and `w->max_work_added`. Invalid when: either side has an error,
/// either side has no count or one above kMaxCount, the margin is not a finite
/// non-negative fraction, the fingerprints are incompatible
/// (CompatibilityProblem in identity/fingerprint.h), a baseline count is 0 (no relative delta
/// exists), `expected_score` is set and a side printed no score or one it may not (the candidate
/// must print `expected_score`; the baseline it or `previous_score`: ScoreAdmitted), or, without
/// an expected score, both sides printed scores that disagree (ScoresEqual in workload/score.h is
/// the one rule for both). Sets `score_changed` when the baseline printed `previous_score` and the
/// candidate `expected_score`: the verdict then comes from the counts as always. The
/// reason names the side and the cause; other verdicts get a short reason such as "+3.10% >= 1.00%
/// margin". The figures are filled whenever both sides have non-zero counts, even when the verdict
/// is invalid for another cause, so the reports can still show them.
void Decide(WorkloadResult* w);

/// Why `entry` does not apply to the comparison `w`, or "": it applies only
/// where the baseline's fingerprint names its backend, event and workload
/// digest, and the baseline's counts reach its baseline_count (exactly on
/// Valgrind, whose counts repeat; within kAcceptedPerfTolerance of it on
/// perf, whose counts jitter by a few hundred instructions).
std::string AcceptedProblem(const WorkloadResult& w, const AcceptedWork& entry);

/// How far, as a fraction of the count, a perf baseline's count may lie from
/// an accepted entry's: 100 ppm, far above perf's jitter and far below any
/// margin a suite sets.
inline constexpr double kAcceptedPerfTolerance = 1e-4;

/// Ranks verdicts for a suite: invalid > work-added > inconclusive >
/// accepted > ok > work-removed. The suite's verdict is its highest-ranked workload's.
int VerdictSeverity(Verdict v);

/// The worst verdict of `workloads`. An empty list is invalid: no evidence is
/// never a pass. (The CLI should reject an empty suite as a usage error before
/// counting anything; SuiteExitCode does so for callers that get this far.)
Verdict SuiteVerdict(const std::vector<WorkloadResult>& workloads);

/// invalid 3, work-added 1, inconclusive 4, ok, accepted and work-removed 0.
int ExitCodeFor(Verdict v);

/// kExitUsage (2) for an empty list (a suite without workloads is a manifest
/// error), otherwise ExitCodeFor(SuiteVerdict(workloads)).
int SuiteExitCode(const std::vector<WorkloadResult>& workloads);

/// Fills verdict and exit_code of `report` from its workloads (which must
/// already be decided), with the same rules as SuiteVerdict and SuiteExitCode;
/// except that a shard given no workload of its suite is ok (exit 0).
void DecideSuite(CompareReport* report);

}  // namespace workgate
