#include "report/history_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/format.h"
#include "report/history_view.h"
#include "report/markdown_text.h"
#include "util/text.h"

namespace workgate {
namespace {

constexpr Minus kChartMinus = Minus::kUnicode;

// The plot area inside the chart: room on the left for full count labels,
// at the top for the drift label, at the bottom for slanted refs.
constexpr double kLeft = 112, kRight = kHistoryChartWidth - 16;
constexpr double kTop = 28, kBottom = kHistoryChartHeight - 52;

// The y range: every value and every band edge, with some air.
struct Scale {
  double lo, hi;
  double Y(double v) const { return kBottom - (v - lo) / (hi - lo) * (kBottom - kTop); }
};

// Indexes of the first point of each segment of the window.
std::vector<size_t> SegmentStarts(const WorkloadHistory& h) {
  std::vector<size_t> starts = {0};
  for (size_t i = 1; i < h.points.size(); ++i) {
    if (h.points[i].break_before) starts.push_back(i);
  }
  return starts;
}

Scale ScaleOf(const WorkloadHistory& h) {
  double lo = h.points[0].value, hi = lo;
  for (const HistoryPoint& p : h.points) {
    lo = std::min(lo, p.value);
    hi = std::max(hi, p.value);
  }
  for (size_t s : SegmentStarts(h)) {
    lo = std::min(lo, h.points[s].value * (1 - h.margin));
    hi = std::max(hi, h.points[s].value * (1 + h.margin));
  }
  const double air = hi > lo ? (hi - lo) * 0.08 : std::max(1.0, std::abs(hi) * 0.01);
  return {lo - air, hi + air};
}

double X(const WorkloadHistory& h, size_t i) {
  const double pad = 24;
  if (h.points.size() < 2) return (kLeft + kRight) / 2;
  return kLeft + pad +
         (kRight - kLeft - 2 * pad) * static_cast<double>(i) /
             static_cast<double>(h.points.size() - 1);
}

std::string TickLabel(double v, double step) {
  return step >= 1 ? FormatCount(static_cast<uint64_t>(std::llround(v))) : fmt::format("{:.6g}", v);
}

std::string Axes(const Scale& s) {
  std::string out = "<g class=\"axis\">";
  const std::vector<double> ticks = NiceTicks(s.lo, s.hi, 6);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  for (double t : ticks) {
    const double y = s.Y(t);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
        kLeft, y, kRight, y, kLeft - 6, y + 4, TickLabel(t, step));
  }
  out += fmt::format(
      "<line class=\"frame\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>"
      "<line class=\"frame\" x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{3:.1f}\" y2=\"{2:.1f}\"/>"
      "<text class=\"axis-title\" x=\"12\" y=\"{4:.1f}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 12 {4:.1f})\">instructions (median)</text>",
      kLeft, kTop, kBottom, kRight, (kTop + kBottom) / 2);
  return out + "</g>";
}

// The table's cells (report/history_view.h), the text of tooltips and marks.
using Rows = std::vector<std::vector<std::string>>;
constexpr size_t kMarkCell = 5, kSubjectCell = 6;

// A break's tooltip: its mark, then each changed part from before to after,
// a line each (&#10;, which HtmlText would turn into a space).
std::string BreakTitle(const WorkloadHistory& h, size_t i, const Rows& rows) {
  std::string out = HtmlText(rows[i][kMarkCell]);
  const auto& before = h.points[i - 1].record.condition_parts;
  const auto& after = h.points[i].record.condition_parts;
  auto value = [](const std::map<std::string, std::string>& parts, const std::string& key) {
    auto it = parts.find(key);
    return it == parts.end() ? std::string("(none)") : it->second;
  };
  for (const std::string& key : h.points[i].changed) {
    out += "&#10;" + HtmlText(key + ": " + value(before, key) + " → " + value(after, key));
  }
  return out;
}

// The band, the line and the break of each segment.
std::string Segments(const WorkloadHistory& h, const Scale& s, const Rows& rows) {
  std::string out;
  const std::vector<size_t> starts = SegmentStarts(h);
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t first = starts[k];
    const size_t end = k + 1 < starts.size() ? starts[k + 1] : h.points.size();
    const double base = h.points[first].value;
    const double x0 = first == 0 ? kLeft : (X(h, first - 1) + X(h, first)) / 2;
    const double x1 = end == h.points.size() ? kRight : (X(h, end - 1) + X(h, end)) / 2;
    const double top = s.Y(base * (1 + h.margin)), bottom = s.Y(base * (1 - h.margin));
    out += fmt::format(
        "<rect class=\"band\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\">"
        "<title>the margin, ±{} around {}</title></rect>",
        x0, top, x1 - x0, bottom - top, FormatMargin(h.margin),
        HtmlText(h.points[first].record.ref));
    if (first > 0) {
      // The label on the side of the line with more room.
      const bool right_half = x0 > (kLeft + kRight) / 2;
      out += fmt::format(
          "<line class=\"break\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\">"
          "<title>{3}</title></line>"
          "<text class=\"break-label\" x=\"{4:.1f}\" y=\"{5:.1f}\" text-anchor=\"{6}\">{7}</text>",
          x0, kTop, kBottom, BreakTitle(h, first, rows), right_half ? x0 - 4 : x0 + 4, kTop + 11,
          right_half ? "end" : "start", HtmlText(CutText(rows[first][kMarkCell], 40)));
    }
    std::string line;
    for (size_t i = first; i < end; ++i) {
      line +=
          fmt::format("{}{:.1f},{:.1f}", line.empty() ? "" : " ", X(h, i), s.Y(h.points[i].value));
    }
    out += "<polyline class=\"line\" points=\"" + line + "\"/>";
  }
  return out;
}

// data-crossed and data-direction of a step over the margin.
std::string StepAttributes(const WorkloadHistory& h, size_t i) {
  const HistoryDirection d = StepDirection(h, i);
  if (d == HistoryDirection::kUnchanged) return "";
  return fmt::format(" data-crossed=\"true\" data-direction=\"{}\"", DirectionName(d));
}

// The drift label: the rise when there is one (work added), else the fall.
std::string DriftLabel(const WorkloadHistory& h) {
  const bool rise = h.rise && h.rise->beyond_noise;
  const HistorySpan& span = rise ? *h.rise : *h.fall;
  return fmt::format(
      "<text class=\"drift-label {}\" x=\"{:.1f}\" y=\"18\">drift {} from {} to {}, every "
      "step of it under the margin</text>",
      rise ? "added" : "removed", kLeft + 4, FormatPercent(span.change, kChartMinus),
      HtmlText(ShortRef(h.points[span.from].record.ref)),
      HtmlText(ShortRef(h.points[span.to].record.ref)));
}

std::string Points(const WorkloadHistory& h, const Scale& s, const Rows& rows) {
  std::string out;
  // Refs on the x axis, at most about 14 of them so that they do not overlap.
  const size_t every = (h.points.size() + 13) / 14;
  for (size_t i = 0; i < h.points.size(); ++i) {
    const HistoryPoint& p = h.points[i];
    const double x = X(h, i), y = s.Y(p.value);
    std::string tip = fmt::format("{} · {} · {} instructions · step {}", rows[i][0], rows[i][1],
                                  rows[i][2], rows[i][3]);
    if (p.record.score) tip += " · score " + *p.record.score;
    if (p.record.subject) tip += " · " + rows[i][kSubjectCell];
    out += fmt::format(
        "<circle class=\"point\" data-ref=\"{}\"{} cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\">"
        "<title>{}</title></circle>",
        HtmlText(p.record.ref), StepAttributes(h, i), x, y, HtmlText(tip));
    if (i % every == 0 || i + 1 == h.points.size()) {
      const double ly = kBottom + 14;
      out += fmt::format(
          "<text class=\"ref\" x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"end\" "
          "transform=\"rotate(-30 {0:.1f} {1:.1f})\">{2}</text>",
          x, ly, HtmlText(CutText(p.record.ref, 10)));
    }
  }
  return out;
}

}  // namespace

std::vector<double> NiceTicks(double lo, double hi, int want) {
  if (!(lo < hi) || !std::isfinite(hi - lo)) return {};
  const double rough = (hi - lo) / std::max(want, 1);
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= rough) break;
  }
  std::vector<double> ticks;
  const double first = std::ceil(lo / step);
  // Multiples of the step, not a running sum, whose error would grow.
  for (double k = first; k * step <= hi; ++k) ticks.push_back(k * step);
  return ticks;
}

std::string HistoryChartSvg(const WorkloadHistory& h) {
  std::string out = fmt::format(
      "<svg class=\"chart{0}\" width=\"{2}\" "
      "height=\"{3}\" viewBox=\"0 0 {2} {3}\" role=\"img\"><title>{1}</title>",
      h.drift ? " drift" : "", HtmlText(h.workload + ": " + HistoryHeadline(h, kChartMinus)),
      kHistoryChartWidth, kHistoryChartHeight);
  if (h.points.empty()) return out + "</svg>";
  const Scale scale = ScaleOf(h);
  const Rows rows = HistoryTableRows(h, kChartMinus);
  out += Axes(scale) + Segments(h, scale, rows) + Points(h, scale, rows);
  if (h.drift) out += DriftLabel(h);
  return out + "</svg>";
}

}  // namespace workgate
