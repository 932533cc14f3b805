#pragma once
// `workgate history` on the terminal: per series a header line (workload,
// backend, event, margin, the headline), the noise floor on perf, and the
// table of the window's recorded commits with their step and cumulative
// change and the marks for breaks and steps over the margin.

#include <string>
#include <vector>

#include "model/history.h"

namespace workgate {

/// The history as plain text ending in a newline; only when `colour`, ANSI
/// colour by direction (HistoryDirection) on each headline and step over the
/// margin: work added red, work removed green. Text from the records (refs,
/// dates, names) is made terminal-safe.
std::string RenderHistoryText(const std::vector<WorkloadHistory>& series, bool colour);

}  // namespace workgate
