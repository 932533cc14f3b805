#pragma once
// The timed context's cells and sentences, shared by the terminal and the
// Markdown report so both say the same thing in the same words. Names are
// not in them: each renderer puts the workload's name, escaped for its
// medium, in front.

#include <string>
#include <vector>

#include "model/model.h"
#include "report/format.h"

namespace workgate {

/// Whether any workload has timed samples.
bool HasTimedSamples(const CompareReport& report);

/// Whether any workload has timed statistics.
bool HasTimedStats(const CompareReport& report);

/// One side's timed cell: "score 10 · 1.84 s" for one sample, medians with
/// "(median of 5)" for several, "—" for none.
std::string TimedCell(const SideResult& side);

/// "1.038 [1.012, 1.061] at 95%" (the median paired ratio, its interval and
/// the level the interval can really have), "— (3 of 5 pairs left)" when
/// stalls left too few, or "—" without stats.
std::string StatsCell(const WorkloadResult& w);

/// "faster", "slower", "within noise", "inconclusive", or "—" without stats.
std::string TimedLabelCell(const WorkloadResult& w);

/// "1.038 [1.012, 1.061] at 95%": a test's median ratio, its interval and the
/// level the interval can really have.
std::string TimedInterval(const TimedTest& t);

/// How a label came about, one line each: the label and why; the sign-flip
/// test (exact or sampled, and after Holm); the Hodges-Lehmann shift and the
/// noise floor; the A/A control; each stall dropped.
std::vector<std::string> TimedStatsLines(const TimedStats& s, Minus minus);

/// TimedStatsLines of the workload's stats, and where its timing was held
/// against its count, TimingVsCountLine; empty without stats.
std::vector<std::string> TimedDetails(const WorkloadResult& w, Minus minus);

/// "wall times held against the count: 1.020 [1.010, 1.030] at 97.5%, within
/// 2× of the 1.000 its count allows (sign-flip test against 2.000: p <
/// 0.001)", or "more than 2× ..." where the two disagree; "" where the
/// timing was not held against the count.
std::string TimingVsCountLine(const WorkloadResult& w);

/// For a workload whose timing disagrees with its count, the summary's
/// sentence: the timed interval, the ratio the count allows and the factor,
/// what it can mean (on Valgrind: a build that behaves differently when
/// counted; on any backend: time that instruction counts do not see), and
/// that the verdict is the count's. "" for any other workload.
std::string TimingVsCountSentence(const WorkloadResult& w, Minus minus);

/// How many workloads' timing disagrees with their count.
int TimingDisagreements(const CompareReport& report);

/// The paragraph under the timed table: why no percentage (one sample, or
/// too few pairs), or how the figures were taken and what a label needs.
std::string TimedNote(const CompareReport& report);

/// "" or, when a workload's A/A control shows an effect, that the timed
/// context of this runner cannot be trusted.
std::string TimedTrustSentence(const CompareReport& report);

}  // namespace workgate
