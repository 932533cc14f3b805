#include "report/history_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/backend.h"

namespace workgate {
namespace {

// Index of the first point of the window's last segment.
size_t LastSegmentStart(const WorkloadHistory& h) {
  for (size_t i = h.points.size(); i-- > 1;) {
    if (h.points[i].break_before) return i;
  }
  return 0;
}

// A small unsigned percentage with three significant digits and no exponent:
// 0.000123 -> "0.0123%"; a noise floor is often far below 0.01%.
std::string SmallPercent(double fraction) {
  const double pct = std::fabs(100 * fraction);
  int decimals = 2;
  if (pct > 0) decimals = std::max(2, 2 - static_cast<int>(std::floor(std::log10(pct))));
  return fmt::format("{:.{}f}%", pct, std::min(decimals, 12));
}

// "+1.20% over the last 3 commits", with "since the break" where the last
// segment starts at one.
std::string Span(const WorkloadHistory& h, Minus minus) {
  const size_t start = LastSegmentStart(h);
  const size_t n = h.points.size() - start;
  return fmt::format("{} over the last {} commits{}", FormatPercent(*h.cumulative, minus), n,
                     h.points[start].break_before ? " since the break" : "");
}

}  // namespace

double NoiseLimit(double noise_floor) { return 3 * std::sqrt(2.0) * noise_floor; }

std::string HistoryVerdict(const WorkloadHistory& h, Minus minus) {
  const std::string margin = FormatMargin(h.margin);
  if (h.drift) {
    return fmt::format("drift: {}, no step crossed the {} margin", Span(h, minus), margin);
  }
  if (h.step_crossed) return fmt::format("no drift (a step crossed the {} margin)", margin);
  if (!h.cumulative) return "no drift";
  if (std::abs(*h.cumulative) >= h.margin) {
    // Beyond the margin without drift: only the noise rule can say so.
    if (h.noise_floor) {
      return fmt::format("no drift: {} is within the noise (±{})", Span(h, minus),
                         SmallPercent(NoiseLimit(*h.noise_floor)));
    }
    return fmt::format("no drift decided: {}, too few differences to estimate the noise",
                       Span(h, minus));
  }
  return "no drift: " + Span(h, minus);
}

std::string HistoryNoise(const WorkloadHistory& h) {
  if (IsExactBackend(h.backend)) return "";
  if (!h.noise_floor) {
    return fmt::format("noise floor: {} differences, at least 3 are needed", h.noise_differences);
  }
  return fmt::format("noise floor {} of a count, from {} differences; drift must exceed ±{}",
                     SmallPercent(*h.noise_floor), h.noise_differences,
                     SmallPercent(NoiseLimit(*h.noise_floor)));
}

std::string FormatMedianCount(double value) {
  const double whole = std::floor(value);
  const std::string digits = FormatCount(static_cast<uint64_t>(whole));
  return value > whole ? digits + ".5" : digits;
}

std::vector<std::string> HistoryTableHeader() {
  return {"ref", "recorded", "count", "step", "cumulative", ""};
}

bool StepCrossesMargin(const WorkloadHistory& h, size_t i) {
  const std::optional<double>& step = h.points[i].step;
  return i > 0 && step && std::abs(*step) >= h.margin;
}

std::vector<std::vector<std::string>> HistoryTableRows(const WorkloadHistory& h, Minus minus) {
  auto percent = [minus](const std::optional<double>& f) {
    return f ? FormatPercent(*f, minus) : std::string("-");
  };
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < h.points.size(); ++i) {
    const HistoryPoint& p = h.points[i];
    std::vector<std::string> marks;
    if (p.break_before) {
      std::string parts;
      for (const std::string& c : p.changed) parts += (parts.empty() ? "" : ", ") + c;
      marks.push_back("break: " + (parts.empty() ? std::string("conditions") : parts) + " changed");
    }
    if (StepCrossesMargin(h, i)) marks.push_back("step over the margin");
    std::string mark;
    for (const std::string& m : marks) mark += (mark.empty() ? "" : "; ") + m;
    rows.push_back({p.record.ref, p.record.recorded_at, FormatMedianCount(p.value), percent(p.step),
                    percent(p.cumulative), mark});
  }
  return rows;
}

std::string HistorySubtitle(const WorkloadHistory& h) {
  return fmt::format("{}, {}, margin {}", h.backend, h.event, FormatMargin(h.margin));
}

}  // namespace workgate
