#pragma once
// What every view of the history (terminal, HTML) says the same way: the
// verdict sentence of a series, its noise floor, and the cells of its table.
// The cells are raw text: refs, dates and condition names come from records
// anyone could have written, so each renderer escapes them for its medium.

#include <string>
#include <vector>

#include "model/history.h"
#include "report/format.h"

namespace workgate {

/// The verdict on a series, one sentence without a final period:
/// "drift: +8.30% over the last 11 commits, no step crossed the 1.00% margin",
/// "no drift (a step crossed the 1.00% margin)",
/// "no drift: +1.10% over the last 8 commits is within the noise (±1.23%)",
/// "no drift decided: +1.20% over the last 3 commits, too few differences to
/// estimate the noise", "no drift: +0.40% over the last 10 commits",
/// "no drift". A last segment that starts at a break adds "since the break".
std::string HistoryVerdict(const WorkloadHistory& h, Minus minus);

/// The noise floor of a series on a backend whose counts vary: "noise floor
/// 0.0123% of a count, from 9 differences; drift must exceed ±0.0522%" or
/// "noise floor: 2 differences, at least 3 are needed"; "" on an exact
/// backend.
std::string HistoryNoise(const WorkloadHistory& h);

/// The largest cumulative change the noise explains on perf,
/// 3 * sqrt(2) * noise_floor (HistoryRecord's drift rule).
double NoiseLimit(double noise_floor);

/// "1,204,331,907", or "1,204,331,907.5" for the median of an even number of
/// counts.
std::string FormatMedianCount(double value);

/// The table's header: ref, recorded, count, step, cumulative, marks.
std::vector<std::string> HistoryTableHeader();

/// One row per point of the window, oldest first, in the header's columns:
/// "-" for a step or cumulative change that does not exist; the marks are
/// "break: valgrind, workgate changed" (or "break: conditions changed") and
/// "step over the margin" for a step within the window that crossed it.
std::vector<std::vector<std::string>> HistoryTableRows(const WorkloadHistory& h, Minus minus);

/// Whether the step of point `i` of `h` crosses the margin and is one of the
/// window's own steps (not the step into its first point).
bool StepCrossesMargin(const WorkloadHistory& h, size_t i);

/// "vgcount, Ir, margin 1.00%": what a series was counted with.
std::string HistorySubtitle(const WorkloadHistory& h);

}  // namespace workgate
