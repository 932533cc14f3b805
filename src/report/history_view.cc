#include "report/history_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/backend.h"
#include "util/text.h"

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
std::string Net(const WorkloadHistory& h, Minus minus) {
  const size_t start = LastSegmentStart(h);
  const size_t n = h.points.size() - start;
  const char* since = h.points[start].break_before ? " since the break" : "";
  if (n == 1) return fmt::format("one commit{}", since);
  if (!h.cumulative) return fmt::format("{} commits{}, the first with a count of 0", n, since);
  return fmt::format("{} over the last {} commits{}", FormatPercent(*h.cumulative, minus), n,
                     since);
}

// "one step of +5.58% at 8ed0342 (work added by that commit, ...)" or
// "3 steps over the margin: +5.58% at 8ed0342, ..., and 2 more".
std::string Steps(const WorkloadHistory& h, Minus minus) {
  constexpr size_t kNamed = 3;
  auto step = [&](size_t i) {
    return fmt::format("{} at {}", FormatPercent(*h.points[i].step, minus),
                       ShortRef(h.points[i].record.ref));
  };
  if (h.steps.size() == 1) {
    const size_t i = h.steps[0];
    return fmt::format("one step of {} (work {} by that commit, for its own gate to judge)",
                       step(i), *h.points[i].step > 0 ? "added" : "removed");
  }
  std::string out = fmt::format("{} steps over the margin: ", h.steps.size());
  for (size_t k = 0; k < std::min(kNamed, h.steps.size()); ++k) {
    out += (k == 0 ? "" : ", ") + step(h.steps[k]);
  }
  if (h.steps.size() > kNamed) out += fmt::format(", and {} more", h.steps.size() - kNamed);
  return out;
}

// A rise or fall of the last segment, beyond the margin within one run.
std::string Drift(const WorkloadHistory& h, const HistorySpan& span, Minus minus) {
  const std::string margin = FormatMargin(h.margin);
  const bool whole = span.from == LastSegmentStart(h) && span.to + 1 == h.points.size();
  const std::string what =
      whole ? FormatPercent(span.change, minus)
            : fmt::format("{} from {} to {} ({} commits)", FormatPercent(span.change, minus),
                          ShortRef(h.points[span.from].record.ref),
                          ShortRef(h.points[span.to].record.ref), span.to - span.from + 1);
  if (span.beyond_noise) {
    if (whole) return fmt::format("drift: no step crossed the {} margin", margin);
    return fmt::format("drift: {}, no step of it over the {} margin", what, margin);
  }
  if (h.noise_floor) {
    return fmt::format("no drift: {} is within the noise (±{})", what,
                       SmallPercent(NoiseLimit(*h.noise_floor)));
  }
  return fmt::format("no drift decided: {}, too few differences to estimate the noise", what);
}

}  // namespace

double NoiseLimit(double noise_floor) { return 3 * std::sqrt(2.0) * noise_floor; }

HistoryDirection DirectionOf(const WorkloadHistory& h) {
  bool added = h.rise && h.rise->beyond_noise;
  bool removed = h.fall && h.fall->beyond_noise;
  for (size_t i : h.steps) (*h.points[i].step > 0 ? added : removed) = true;
  if (added) return HistoryDirection::kAdded;
  return removed ? HistoryDirection::kRemoved : HistoryDirection::kUnchanged;
}

HistoryDirection StepDirection(const WorkloadHistory& h, size_t i) {
  if (!StepCrossesMargin(h, i)) return HistoryDirection::kUnchanged;
  return *h.points[i].step > 0 ? HistoryDirection::kAdded : HistoryDirection::kRemoved;
}

const char* DirectionName(HistoryDirection d) {
  switch (d) {
    case HistoryDirection::kAdded:
      return "added";
    case HistoryDirection::kRemoved:
      return "removed";
    case HistoryDirection::kUnchanged:
      break;
  }
  return "unchanged";
}

std::string HistoryHeadline(const WorkloadHistory& h, Minus minus) {
  std::vector<std::string> parts = {Net(h, minus)};
  if (!h.steps.empty()) parts.push_back(Steps(h, minus));
  // The rise first: work added is what a gate is for.
  for (const std::optional<HistorySpan>& span : {h.rise, h.fall}) {
    if (span) parts.push_back(Drift(h, *span, minus));
  }
  if (parts.size() == 1) {
    parts.push_back(fmt::format("no step or drift beyond the {} margin", FormatMargin(h.margin)));
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

std::string ShortRef(const std::string& ref) {
  const bool hex = std::all_of(ref.begin(), ref.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
  if (hex && (ref.size() == 40 || ref.size() == 64)) return ref.substr(0, 7);
  return CutText(ref, 24);
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

bool HasSubjects(const WorkloadHistory& h) {
  return std::any_of(h.points.begin(), h.points.end(),
                     [](const HistoryPoint& p) { return p.record.subject.has_value(); });
}

std::string DateCell(const HistoryRecord& record) {
  if (record.committed_at) return ReadableUtc(*record.committed_at);
  return "recorded " + ReadableUtc(record.recorded_at);
}

std::vector<std::string> HistoryTableHeader(const WorkloadHistory& h) {
  std::vector<std::string> header = {"ref", "commit date", "count", "step", "cumulative", ""};
  if (HasSubjects(h)) header.push_back("subject");
  return header;
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
  const bool subjects = HasSubjects(h);
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
    rows.push_back({p.record.ref, DateCell(p.record), FormatMedianCount(p.value), percent(p.step),
                    percent(p.cumulative), mark});
    if (subjects) rows.back().push_back(CutText(p.record.subject.value_or(""), kShownSubject));
  }
  return rows;
}

std::string HistorySubtitle(const WorkloadHistory& h) {
  return fmt::format("{}, {}, margin {}", h.backend, h.event, FormatMargin(h.margin));
}

}  // namespace workgate
