#pragma once
// `workgate history --html FILE`: one self-contained HTML page, which needs
// no network, no script, no font and no stylesheet from elsewhere (inline
// CSS; a Content-Security-Policy that allows nothing else, so even a mistake
// in escaping could not run a script or fetch a resource).
//
// <body> holds an <h1>, a <p class="lead"> and per series, in the order
// given, one <section class="series DIRECTION"> (DirectionName: "added",
// "removed" or "unchanged"; class "drift" added when it drifts) with
// data-workload, an <h2> with the workload, <p class="subtitle">,
// <p class="verdict DIRECTION"> with the headline, a <p class="noise"> on
// perf, a <p class="window"> when the window is shorter than the series, the
// chart (report/history_chart.h: one <svg class="chart"> with one
// <circle class="point" data-ref=...> per point) and <table class="points">
// with the terminal's columns (a subject column where a point has one), one
// <tr> per point in <tbody> (class "crossed added" or "crossed removed" for a
// step over the margin).

#include <string>
#include <vector>

#include "model/history.h"

namespace workgate {

/// The page (see above). Text from the records is escaped for HTML.
std::string RenderHistoryHtml(const std::vector<WorkloadHistory>& series);

/// Writes RenderHistoryHtml(series) to `path` atomically, or to stdout for
/// "-" (report/report_output.h).
bool WriteHistoryHtml(const std::string& path, const std::vector<WorkloadHistory>& series,
                      std::string* err);

}  // namespace workgate
