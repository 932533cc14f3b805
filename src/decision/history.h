#pragma once
// History: each workload's counts along the commits a project recorded
// (`--record REF`), with the step-to-step and cumulative change, and drift:
// a run of steps that each stay under the margin but together cross it.
// Pure functions of the records, so that the terminal, JSON and HTML views
// (report/history_*.h) and their tests need no store and no clock.

#include <cstddef>
#include <string>
#include <vector>

#include "model/history.h"

namespace workgate {

/// The default of `history --last N`.
inline constexpr size_t kDefaultHistoryWindow = 10;

/// The series of `records` (any order; sorted here by recorded_at, then
/// their order in the vector), one per workload, backend and event, sorted
/// by workload, then backend, then event; each with its last `window`
/// points (window >= 2) and its drift decided. Records whose counts are
/// empty are skipped.
std::vector<WorkloadHistory> AnalyzeHistory(const std::vector<HistoryRecord>& records,
                                            size_t window);

}  // namespace workgate
