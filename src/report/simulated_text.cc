#include "report/simulated_text.h"

#include <fmt/format.h>

#include "report/explanation_text.h"

namespace workgate {

std::string FigureChange(const SimulatedFigure& f, Minus minus) {
  if (f.delta() == 0) return "unchanged";
  if (f.baseline == 0) return FormatSignedCount(f.delta(), minus);
  return FormatPercent(static_cast<double>(f.delta()) / static_cast<double>(f.baseline), minus);
}

std::string SimulatedEventsSentence(const WorkloadResult& w, Minus minus) {
  if (!w.events) return "";
  const WorkloadEvents& e = *w.events;
  if (!e.shown) {
    return "simulated events not shown: " + (e.note.empty() ? std::string("none") : e.note);
  }
  std::string out;
  for (const SimulatedFigure& f : SimulatedFigures(*w.baseline.simulated, *w.candidate.simulated)) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", f.words, FigureChange(f, minus));
  }
  return out + fmt::format(" (simulated by {}; {})", e.profiler,
                           w.metric == Metric::kEstimatedCycles
                               ? "the verdict is on estimated cycles"
                               : "context, not the verdict");
}

std::string HardwareEventsSentence(const WorkloadResult& w, Minus minus) {
  if (!w.hardware) return "";
  const HardwareEvents& h = *w.hardware;
  if (h.events.empty()) {
    return "hardware events not shown: " + (h.note.empty() ? std::string("none") : h.note);
  }
  std::string out =
      "hardware events (perf, one more run of each side on this machine; context, not the "
      "verdict): ";
  for (size_t i = 0; i < h.events.size(); ++i) {
    const HardwareEvent& e = h.events[i];
    out += i == 0 ? "" : ", ";
    if (e.multiplexed()) {
      out += e.event + " not compared (multiplexed; never scaled)";
      continue;
    }
    const SimulatedFigure f{e.event.c_str(), e.event.c_str(), e.baseline, e.candidate};
    out += e.event + " " + FigureChange(f, minus);
  }
  return out;
}

std::string MetricSentence(const WorkloadResult& w) {
  if (w.metric != Metric::kEstimatedCycles) return "";
  return "gated on estimated cycles (simulated on a fixed cache and branch model): its counts, "
         "\u0394 and margin are estimated cycles, not instructions";
}

std::vector<std::string> SimulatedColumnNames() {
  std::vector<std::string> names;
  for (const SimulatedFigure& f : SimulatedFigures({}, {})) {
    if (std::string(f.key) != "instructions") names.push_back(std::string("\u0394 ") + f.words);
  }
  return names;
}

namespace {

// The deltas of the figures after instructions, from both sides' events and
// the instructions each side ran there.
std::vector<int64_t> FigureDeltas(int64_t baseline_ir, const SimulatedCosts& baseline,
                                  int64_t candidate_ir, const SimulatedCosts& candidate) {
  std::vector<int64_t> deltas;
  const SimulatedEvents b{static_cast<uint64_t>(baseline_ir < 0 ? 0 : baseline_ir), baseline};
  const SimulatedEvents c{static_cast<uint64_t>(candidate_ir < 0 ? 0 : candidate_ir), candidate};
  for (const SimulatedFigure& f : SimulatedFigures(b, c)) {
    if (std::string(f.key) != "instructions") deltas.push_back(f.delta());
  }
  return deltas;
}

}  // namespace

std::vector<SimulatedRowText> SimulatedRows(const Explanation& e) {
  std::vector<SimulatedRowText> rows;
  if (!e.simulated) return rows;
  for (const FunctionDelta& row : e.rows) {
    if (!row.baseline_events || !row.candidate_events) continue;
    rows.push_back({row.object.empty() ? row.function : row.function + " in " + row.object, false,
                    FigureDeltas(row.baseline, *row.baseline_events, row.candidate,
                                 *row.candidate_events)});
    for (const LineDelta& l : row.lines) {
      if (!l.baseline_events || !l.candidate_events) continue;
      rows.push_back({LinePlace(l), true,
                      FigureDeltas(l.baseline, *l.baseline_events, l.candidate,
                                   *l.candidate_events)});
    }
  }
  return rows;
}

}  // namespace workgate
