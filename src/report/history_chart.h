#pragma once
// One series of the history as an inline SVG chart for the HTML page
// (report/history_html.h): the window's counts per recorded commit, drawn as
// a polyline per segment, with
//   - one <circle class="point" data-ref="REF"> per point, its <title> the
//     tooltip (ref, date, count, step, score, subject); a step over the margin adds
//     data-crossed="true" and data-direction="added" or "removed";
//   - the margin band of each segment, <rect class="band">, ±margin around
//     the segment's first value;
//   - each break as a dashed <line class="break"> between the two points,
//     its <title> naming what changed from what to what, and a
//     <text class="break-label"> with the table's mark;
//   - drift as class "drift" on the <svg> and a <text class="drift-label
//     added"> (or "removed") naming the rise (else the fall) and its refs.
// Count ticks label the y axis, short refs the x axis. Everything taken from
// the records is escaped for HTML text and attributes.

#include <string>
#include <vector>

#include "model/history.h"

namespace workgate {

/// The chart's size in CSS pixels.
inline constexpr int kHistoryChartWidth = 700;
inline constexpr int kHistoryChartHeight = 260;

/// `h` as one <svg> element (no XML declaration), for an HTML document.
std::string HistoryChartSvg(const WorkloadHistory& h);

/// Ticks for an axis from `lo` to `hi` (lo < hi): about `want` values at a
/// step of 1, 2 or 5 times a power of ten, all within [lo, hi].
std::vector<double> NiceTicks(double lo, double hi, int want);

}  // namespace workgate
