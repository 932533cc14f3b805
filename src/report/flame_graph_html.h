#pragma once
// `--flamegraph FILE` of compare and explain: the differential flame graph of
// each explained workload's two profiles (model/flame_graph.h), as one
// self-contained HTML page. Like the history page (report/history_html.h) it
// needs nothing from elsewhere: inline SVG and CSS, no script, and a
// Content-Security-Policy that allows nothing else.
//
// <body> holds an <h1>, a <p class="lead"> (what width and colour mean, and
// that stacks are reconstructed from call edges) and per workload with a
// flame graph, in the order given, one <section class="workload"> with
// data-workload, an <h2> with the workload, <p class="totals">, a
// <p class="note"> for each of: profiles without call edges, a graph cut
// by its bounds; and <svg class="flamegraph"> with one
// <g class="frame CHANGE"> per frame (CHANGE: "root", "more", "less" or
// "same"), carrying data-function, data-object, data-baseline and
// data-candidate, a <title> (the tooltip: the function, both sides' cost,
// the delta and its percentage), a <rect> and, where it fits, a <text> with
// the name cut to the frame's width. A frame's width is the larger of its
// two costs; where a frame's callees together are wider than it (calls one
// side lacks), they are narrowed to fit under it.

#include <string>
#include <vector>

#include "model/model.h"

namespace workgate {

/// The page width the frames are laid out in, in CSS pixels, and the height
/// of one frame.
inline constexpr double kFlameGraphWidth = 1200;
inline constexpr double kFlameFrameHeight = 18;

/// The page (see above). Names are escaped for HTML and bounded.
std::string RenderFlameGraphHtml(const std::vector<WorkloadResult>& workloads);

/// Why `workloads` give no page: "" when one of them has a flame graph, else
/// "no workload was explained" or "no explanation could be made (the report
/// says why)".
std::string NoFlameGraphReason(const std::vector<WorkloadResult>& workloads);

/// Writes RenderFlameGraphHtml(workloads) to `path` atomically, or to stdout
/// for "-" (report/report_output.h).
bool WriteFlameGraphHtml(const std::string& path, const std::vector<WorkloadResult>& workloads,
                         std::string* err);

}  // namespace workgate
