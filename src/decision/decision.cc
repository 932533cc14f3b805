#include "decision/decision.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "decision/stability.h"
#include "identity/fingerprint.h"
#include "model/backend.h"
#include "workload/score.h"

namespace workgate {

namespace {

std::string Percent(double fraction) { return fmt::format("{:+.2f}%", 100 * fraction); }

// Why one side cannot take part in a comparison, or "" when it can.
std::string SideProblem(const char* side, ScoreSide score_side, const SideResult& r,
                        const WorkloadResult& w) {
  if (!r.error.empty()) return fmt::format("{}: {}", side, r.error);
  if (r.counts.empty()) return fmt::format("{}: no instruction count", side);
  if (r.max() > kMaxCount) {
    return fmt::format(
        "{}: a count of {} is above the largest workgate takes ({}), so it is not "
        "a real count",
        side, r.max(), kMaxCount);
  }
  if (w.expected_score) {
    const std::string expected = ExpectedScoreText(score_side, *w.expected_score, w.previous_score);
    if (!r.score) return fmt::format("{}: no score printed (expected {})", side, expected);
    if (!ScoreAdmitted(*r.score, score_side, *w.expected_score, w.previous_score)) {
      return fmt::format("{}: score {} differs from the expected {}{}, so it did other work", side,
                         ShortScore(*r.score), expected,
                         PreviousScoreHint(*r.score, score_side, w.previous_score));
    }
  }
  return "";
}

// The baseline printed the suite's previous score and the candidate the
// expected one: a change of the score on purpose (docs/gate.md).
bool ScoreChangedOnPurpose(const WorkloadResult& w) {
  return w.expected_score && w.previous_score && w.baseline.score && w.candidate.score &&
         ScoresEqual(*w.baseline.score, *w.previous_score) &&
         ScoresEqual(*w.candidate.score, *w.expected_score);
}

}  // namespace

namespace {

// Why the two sides cannot be compared at all; empty when they can.
std::vector<std::string> ComparisonProblems(const WorkloadResult& w) {
  const SideResult& base = w.baseline;
  const SideResult& cand = w.candidate;
  std::vector<std::string> problems;
  for (auto [name, side, score_side] : {std::tuple{"baseline", &base, ScoreSide::kBaseline},
                                        std::tuple{"candidate", &cand, ScoreSide::kCandidate}}) {
    std::string p = SideProblem(name, score_side, *side, w);
    if (!p.empty()) problems.push_back(p);
  }
  if (problems.empty()) {
    if (auto problem = CompatibilityProblem(base.fingerprint, cand.fingerprint)) {
      problems.push_back("the sides were measured differently: " + *problem);
    }
  }
  if (!std::isfinite(w.max_work_added) || w.max_work_added < 0) {
    // The suite reader and the CLI admit only finite margins in range; a
    // margin that is NaN would fail every comparison below and read as
    // inconclusive rather than as the broken input it is.
    problems.push_back(
        fmt::format("the margin {} is not a finite non-negative fraction", w.max_work_added));
  }
  if (problems.empty() && base.min() == 0) {
    problems.push_back("baseline: counted 0 instructions, so no relative delta exists");
  }
  if (problems.empty() && !w.expected_score && base.score && cand.score &&
      !ScoresEqual(*base.score, *cand.score)) {
    problems.push_back(
        fmt::format("scores differ (baseline {}, candidate {}), so the sides did "
                    "different work",
                    ShortScore(*base.score), ShortScore(*cand.score)));
  }
  return problems;
}

// The delta, the relative delta and its interval, where the counts give one.
void MeasureDelta(WorkloadResult* w) {
  const SideResult& base = w->baseline;
  const SideResult& cand = w->candidate;
  w->delta = 0;
  w->relative = w->relative_low = w->relative_high = 0;
  if (!HasDelta(*w)) return;
  // Signed differences in integers first: counts reach 1e12, where a double
  // still holds every integer exactly. HasDelta admits only counts in
  // [0, INT64_MAX], whose differences all fit an int64_t: no overflow.
  auto diff = [](uint64_t a, uint64_t b) {
    return static_cast<int64_t>(a) - static_cast<int64_t>(b);
  };
  if (w->stability.unstable) {
    // Counts that do not repeat: the shift between the two samples, from
    // the rank interval, relative to the baseline's median.
    const ShiftInterval shift = RankShiftInterval(base.counts, cand.counts);
    const double median = MedianCount(base.counts);
    w->delta = std::llround(shift.estimate);
    w->relative = shift.estimate / median;
    w->relative_low = shift.low / median;
    w->relative_high = shift.high / median;
    w->stability.confidence = shift.confidence;
  } else {
    w->delta = diff(cand.min(), base.min());
    w->relative = static_cast<double>(w->delta) / static_cast<double>(base.min());
    w->relative_low =
        static_cast<double>(diff(cand.min(), base.max())) / static_cast<double>(base.max());
    w->relative_high =
        static_cast<double>(diff(cand.max(), base.min())) / static_cast<double>(base.min());
  }
}

// The verdict of comparable sides: where the interval lies against the margin.
void Judge(WorkloadResult* w) {
  const SideResult& base = w->baseline;
  const SideResult& cand = w->candidate;
  const double m = w->max_work_added;
  const double lo = w->relative_low, hi = w->relative_high;
  const bool spread = lo != hi;
  const std::string margin = fmt::format("{:.2f}% margin", 100 * m);
  const Stability& st = w->stability;
  if (st.unstable && st.confidence < kUnstableConfidence) {
    // Too few counts for the interval to mean anything: never a verdict.
    w->verdict = Verdict::kInconclusive;
    w->reason = fmt::format(
        "unstable: counts of one build differ by up to {} ({:.1f} ppm), and {} baseline and {} "
        "candidate counts give only a {:.1f}% interval of the shift ({} to {}); a verdict "
        "needs {:.0f}%",
        st.spread, st.spread_ppm, base.counts.size(), cand.counts.size(), 100 * st.confidence,
        Percent(lo), Percent(hi), 100 * kUnstableConfidence);
    return;
  }
  std::string range =
      spread ? fmt::format("{} to {}, all", Percent(lo), Percent(hi)) : Percent(w->relative);
  if (st.unstable) {
    range = fmt::format("unstable, shift {} ({:.1f}% interval {} to {}, all)", Percent(w->relative),
                        100 * st.confidence, Percent(lo), Percent(hi));
  }
  // The "> 0" and "< 0" only matter for a margin of 0 ("no work may be
  // added"): there an unchanged count is ok, not work added or removed.
  if (lo >= m && lo > 0) {
    w->verdict = Verdict::kWorkAdded;
    w->reason = fmt::format("{} >= {}", range, margin);
  } else if (hi <= -m && hi < 0) {
    w->verdict = Verdict::kWorkRemoved;
    w->reason = fmt::format("{} <= -{}", range, margin);
  } else if (hi < m || hi <= 0) {
    w->verdict = Verdict::kOk;
    w->reason = fmt::format("{} < {}", range, margin);
  } else {
    w->verdict = Verdict::kInconclusive;
    w->reason = fmt::format(
        "the repeats put the delta between {} and {}, which straddles the {}; baseline counts "
        "span {}..{}, candidate {}..{}",
        Percent(lo), Percent(hi), margin, base.min(), base.max(), cand.min(), cand.max());
    if (st.unstable) {
      w->reason = fmt::format(
          "unstable: counts of one build differ by up to {} ({:.1f} ppm); after {} baseline and "
          "{} candidate counts the shift's {:.1f}% interval, {} to {}, still straddles the {}",
          st.spread, st.spread_ppm, base.counts.size(), cand.counts.size(), 100 * st.confidence,
          Percent(lo), Percent(hi), margin);
    }
  }
}

// The verdict again, for the work added beyond the accepted delta
// (decision.h): where the suite accepted this baseline's delta, a work-added
// or inconclusive workload is judged on what it adds beyond that.
void ApplyAccepted(WorkloadResult* w) {
  if (!w->accepted) return;
  Acceptance& a = *w->accepted;
  a.status = AcceptedStatus::kUnchecked;
  a.problem.clear();
  if (w->verdict == Verdict::kInvalid) return;
  a.problem = AcceptedProblem(*w, a.entry);
  if (!a.problem.empty()) {
    a.status = AcceptedStatus::kStale;
    return;
  }
  const Stability& st = w->stability;
  if (st.unstable && st.confidence < kUnstableConfidence) return;
  if (w->verdict != Verdict::kWorkAdded && w->verdict != Verdict::kInconclusive) {
    a.status = AcceptedStatus::kUnneeded;
    return;
  }
  const double m = w->max_work_added;
  const double accepted = a.entry.relative();
  double lo = w->relative_low - accepted, hi = w->relative_high - accepted;
  if (!st.unstable) {
    // In integers first, as MeasureDelta does: the excess at exactly the
    // margin is at the margin, not a rounding error below it. The counts are
    // at most kMaxCount and the entry's delta was one of their differences.
    const auto base_min = static_cast<int64_t>(w->baseline.min());
    const auto base_max = static_cast<int64_t>(w->baseline.max());
    const auto cand_min = static_cast<int64_t>(w->candidate.min());
    const auto cand_max = static_cast<int64_t>(w->candidate.max());
    lo = static_cast<double>(cand_min - base_max - a.entry.delta) / static_cast<double>(base_max);
    hi = static_cast<double>(cand_max - base_min - a.entry.delta) / static_cast<double>(base_min);
  }
  const std::string was = fmt::format("accepted {} ({} instructions), now {}", Percent(accepted),
                                      fmt::format("{:+}", a.entry.delta), Percent(w->relative));
  const std::string beyond = lo == hi ? Percent(lo) : Percent(lo) + " to " + Percent(hi);
  if (lo >= m && lo > 0) {
    a.status = AcceptedStatus::kExceeded;
    w->verdict = Verdict::kWorkAdded;
    w->reason = fmt::format("{}: {} beyond the accepted delta >= {:.2f}% margin", was, beyond,
                            100 * m);
  } else if (hi < m || hi <= 0) {
    a.status = AcceptedStatus::kApplied;
    w->verdict = Verdict::kAccepted;
    w->reason = fmt::format("work added, accepted: {} ({})", a.entry.reason, was);
  } else {
    a.status = AcceptedStatus::kInconclusive;
    w->verdict = Verdict::kInconclusive;
    w->reason = fmt::format("{}: {} beyond the accepted delta straddles the {:.2f}% margin", was,
                            beyond, 100 * m);
  }
}

}  // namespace

std::string AcceptedProblem(const WorkloadResult& w, const AcceptedWork& entry) {
  const Fingerprint& fp = w.baseline.fingerprint;
  if (entry.backend != fp.backend || entry.event != fp.event) {
    return fmt::format("it was accepted as counted by {} ({}), and this baseline by {} ({})",
                       entry.backend, entry.event, fp.backend, fp.event);
  }
  if (entry.workload_digest != fp.suite_sha256) {
    return fmt::format(
        "it was accepted for another definition of the workload (digest {}, now {})",
        entry.workload_digest.substr(0, 12), fp.suite_sha256.substr(0, 12));
  }
  if (w.baseline.counts.empty()) return "the baseline has no count";
  // On perf the baseline's counts jitter; on Valgrind they repeat (or
  // spread, for an unstable workload: then its counts must span the entry's).
  const double tolerance =
      IsExactBackend(fp.backend) ? 0 : kAcceptedPerfTolerance * static_cast<double>(w.baseline.min());
  const double count = static_cast<double>(entry.baseline_count);
  if (count < static_cast<double>(w.baseline.min()) - tolerance ||
      count > static_cast<double>(w.baseline.max()) + tolerance) {
    return fmt::format(
        "it was accepted against a baseline of {} instructions, and this baseline counts {}",
        entry.baseline_count, w.baseline.min());
  }
  return "";
}

void Decide(WorkloadResult* w) {
  w->score_changed = ScoreChangedOnPurpose(*w);
  const std::vector<std::string> problems = ComparisonProblems(*w);
  MeasureDelta(w);
  if (!problems.empty()) {
    w->verdict = Verdict::kInvalid;
    w->reason = fmt::format("{}", fmt::join(problems, "; "));
    ApplyAccepted(w);
    return;
  }
  Judge(w);
  ApplyAccepted(w);
}

int VerdictSeverity(Verdict v) {
  switch (v) {
    case Verdict::kInvalid:
      return 5;
    case Verdict::kWorkAdded:
      return 4;
    case Verdict::kInconclusive:
      return 3;
    case Verdict::kAccepted:
      return 2;
    case Verdict::kOk:
      return 1;
    case Verdict::kWorkRemoved:
      return 0;
  }
  return 5;
}

Verdict SuiteVerdict(const std::vector<WorkloadResult>& workloads) {
  if (workloads.empty()) return Verdict::kInvalid;
  Verdict worst = workloads.front().verdict;
  for (const WorkloadResult& w : workloads) {
    if (VerdictSeverity(w.verdict) > VerdictSeverity(worst)) worst = w.verdict;
  }
  return worst;
}

int ExitCodeFor(Verdict v) {
  switch (v) {
    case Verdict::kInvalid:
      return kExitInvalid;
    case Verdict::kWorkAdded:
      return kExitWorkAdded;
    case Verdict::kInconclusive:
      return kExitInconclusive;
    case Verdict::kOk:
    case Verdict::kAccepted:
    case Verdict::kWorkRemoved:
      return kExitPass;
  }
  return kExitInvalid;
}

int SuiteExitCode(const std::vector<WorkloadResult>& workloads) {
  if (workloads.empty()) return kExitUsage;
  return ExitCodeFor(SuiteVerdict(workloads));
}

void DecideSuite(CompareReport* report) {
  // A shard whose share of a non-empty suite is empty (more shards than
  // workloads) has nothing to decide: the merged report decides.
  if (report->workloads.empty() && report->shard && !report->shard->workloads.empty()) {
    report->verdict = Verdict::kOk;
    report->exit_code = kExitPass;
    return;
  }
  report->verdict = SuiteVerdict(report->workloads);
  report->exit_code = SuiteExitCode(report->workloads);
}

}  // namespace workgate
