#pragma once
// History's data: each workload's result recorded under a commit
// (`--record REF`), and the series history shows of them. The store keeps
// the records (store/), the analysis decides steps and drift
// (decision/history.h), and the terminal, JSON and HTML views render the
// series (report/history_*.h).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace workgate {

/// One workload's result recorded under a commit or label.
struct HistoryRecord {
  std::string ref;          // the commit or label given to --record
  std::string recorded_at;  // ISO 8601 in UTC: "2026-12-02T03:04:05Z"
  /// The committer date of the commit `ref` named in the checkout when it
  /// was recorded, in recorded_at's form; nullopt where `ref` was no commit
  /// there (a label), and in every record of a store from before it was kept.
  std::optional<std::string> committed_at;
  std::string workload;
  std::string backend;           // "vgcount", "callgrind", "perf"
  std::string event;             // "Ir", "instructions:u", ...
  std::vector<uint64_t> counts;  // every count of that side, at least one
  double max_work_added = 0.01;  // the workload's margin, a fraction
  std::optional<std::string> score;
  /// The commit's subject (--record-subject): text its author chose, so
  /// every view escapes it and cuts it short; nullopt when none was given,
  /// and in every record of a store from before subjects.
  std::optional<std::string> subject;
  /// The SHA-256 of what must not change for two records' counts to be
  /// comparable (HistoryConditions): everything of the side's fingerprint
  /// but the build's own digests, which are the commits' difference.
  std::string conditions;
  /// Those parts by name, readable ("valgrind": "valgrind-3.19.0 at
  /// /usr/bin/valgrind.bin", "workgate": "0.1.0-240-gabc"), so that a break
  /// can say what changed.
  std::map<std::string, std::string> condition_parts;
};

/// One recorded commit of a workload's series, as history shows it.
struct HistoryPoint {
  HistoryRecord record;
  double value = 0;  // the median of record.counts (of an even number: the middle two's mean)
  /// Relative change from the point before, (value - before) / before;
  /// nullopt for the series' first point, right after a break, and after a
  /// zero count. The window's first point keeps its step from the point
  /// before the window.
  std::optional<double> step;
  /// Relative change from the first point of the segment this point is in
  /// (the window's first, or the first after the last break in it);
  /// nullopt for that first point.
  std::optional<double> cumulative;
  /// The conditions differ from the point before: the counts on either side
  /// of this point do not compare, and `changed` names the parts that differ.
  bool break_before = false;
  std::vector<std::string> changed;
};

/// A change between two points of a window: indexes into its points.
struct HistorySpan {
  size_t from = 0;
  size_t to = 0;      // from < to
  double change = 0;  // (value of `to` - value of `from`) / value of `from`
  /// The change is not the noise: always on an exact backend; on perf when
  /// a noise floor exists and |change| > 3 * sqrt(2) * noise_floor.
  bool beyond_noise = false;
};

/// One workload's series on one backend and event, its last `window` points.
struct WorkloadHistory {
  std::string workload;
  std::string backend;
  std::string event;
  double margin = 0.01;              // the newest record's max_work_added
  size_t recorded = 0;               // points in the whole series, before the window
  std::vector<HistoryPoint> points;  // oldest first; at most `window`
  /// The last segment of the window (from its last break, or its start):
  /// its cumulative change, first point to last.
  std::optional<double> cumulative;
  /// Some step of that segment is at or beyond the margin (|step| >= margin).
  /// Only the steps within it count: the step into its first point (from
  /// before the window, or across the break) is not one of them.
  bool step_crossed = false;
  /// The points of that segment whose step is at or beyond the margin,
  /// oldest first: work added or removed by one commit, which that commit's
  /// own gate sees.
  std::vector<size_t> steps;
  /// The largest rise and the largest fall within one run of the segment,
  /// when at or beyond the margin. A run is a stretch of points joined by
  /// steps under the margin: the steps that crossed it split the segment
  /// into runs. So a rise is work added that no gate of one commit saw, and
  /// a later step down (an improvement) does not hide it.
  std::optional<HistorySpan> rise;
  std::optional<HistorySpan> fall;
  /// Drift: a rise or a fall that is beyond the noise. On perf without a
  /// noise floor (fewer than 3 differences) the noise cannot be ruled out,
  /// and drift stays false. A segment whose cumulative change reaches the
  /// margin with no step over it always has one: the whole segment is one
  /// run, and its largest rise (or fall) is at least that change.
  bool drift = false;
  /// perf only (counts that vary): the noise of one count, estimated from
  /// the whole series: 1.4826 * the median absolute deviation of the
  /// relative consecutive differences within segments, over sqrt(2) (a
  /// difference of two noisy counts has sqrt(2) times one count's spread).
  /// nullopt on exact backends, or with fewer than 3 differences.
  std::optional<double> noise_floor;
  size_t noise_differences = 0;  // how many differences the estimate used
};

}  // namespace workgate
