#pragma once
// The terminal report: an aligned table of the counts and verdicts, the
// reasons for invalid and inconclusive workloads, per-function explanations,
// the timed scores labelled as context, the backend, and the suite verdict.

#include <string>

#include "model/model.h"

namespace workgate {

/// The report as plain text ending in a newline; ANSI colour on the verdicts
/// only when `colour` (the caller decides: a terminal, and NO_COLOR unset).
/// Negative numbers use an ASCII '-' so they paste into a shell.
std::string RenderTerminal(const CompareReport& report, bool colour);

/// One workload's explanation table alone (`workgate explain`): its title,
/// the rows, and the line of the listed rows against the total delta.
std::string RenderExplanation(const WorkloadResult& w);

}  // namespace workgate
