#include "measure/simulated_runs.h"

#include <fmt/format.h>

#include <algorithm>

#include "measure/measure.h"

namespace workgate {

bool WantsSimulatedRuns(EventsMode mode, const WorkloadResult& r, bool both_builds) {
  if (!both_builds || r.verdict == Verdict::kInvalid) return false;
  if (r.baseline.simulated && r.candidate.simulated) return false;
  return mode == EventsMode::kAlways || (mode == EventsMode::kWork && IsWorkVerdict(r.verdict));
}

std::optional<SimulatedEvents> SimulatedOf(const CountedRun& run) {
  if (!run.valid()) return std::nullopt;
  const auto ir = std::find_if(run.events.begin(), run.events.end(),
                               [](const EventCount& e) { return e.event == "Ir"; });
  const std::optional<SimulatedCosts> costs = SimulatedCostsOf(run.simulated);
  if (ir == run.events.end() || !costs) return std::nullopt;
  return SimulatedEvents{ir->value, *costs};
}

uint64_t GatedFigure(Metric metric, const SimulatedEvents& events) {
  return metric == Metric::kEstimatedCycles ? EstimatedCycles(events.instructions, events.costs)
                                            : events.instructions;
}

void CheckSimulatedEvents(const std::string& counted_by, WorkloadResult* r) {
  if (!r->events) r->events.emplace();
  WorkloadEvents& events = *r->events;
  events.shown = false;
  if (!events.note.empty()) return;
  const std::pair<const char*, const SideResult*> sides[] = {{"baseline", &r->baseline},
                                                             {"candidate", &r->candidate}};
  for (const auto& [name, side] : sides) {
    if (!side->simulated) {
      events.note = fmt::format("the {} has no simulated events", name);
      return;
    }
    // A different tool's run (perf's count jitters; the other Valgrind
    // tool's differs by design) is not held against the count.
    if (events.profiler != counted_by || side->counts.empty()) continue;
    const uint64_t figure = GatedFigure(r->metric, *side->simulated);
    if (std::find(side->counts.begin(), side->counts.end(), figure) != side->counts.end()) continue;
    events.note = fmt::format(
        "the {}'s simulated run gave {} {}, its count {}: it did other work than was counted, "
        "so its events are not shown",
        name, figure, MetricWords(r->metric), side->counts.front());
    return;
  }
  events.shown = true;
}

void SimulateSides(Counter& profiler, const std::string& counted_by, const Workload& w,
                   const std::string& suite_dir, const WorkDir& dir, const std::string* exes[2],
                   const LaunchOptions& launch, const std::string& keep_root, WorkloadResult* r,
                   SimulatedProfiles* profiles,
                   const std::function<void(const std::string&)>& progress) {
  r->events.emplace();
  r->events->profiler = profiler.name();
  profiles->tool = profiler.name();
  SideResult* sides[2] = {&r->baseline, &r->candidate};
  std::string* kept[2] = {&profiles->baseline, &profiles->candidate};
  for (int side = 0; side < 2; ++side) {
    const char* name = side == 0 ? "baseline" : "candidate";
    if (sides[side]->simulated) continue;  // its counted runs simulated (the metric)
    progress(fmt::format("{}  {}  simulating ({})", w.name, name, profiler.name()));
    const std::string keep = keep_root + "/simulated-" + name;
    const ScoreSide score_side = side == 0 ? ScoreSide::kBaseline : ScoreSide::kCandidate;
    CountedWorkload c =
        CountWorkload(profiler, {w, suite_dir, dir, *exes[side], launch},
                      {.score_side = score_side, .keep_profiles_dir = keep, .simulate = true});
    std::optional<SimulatedEvents> events =
        c.valid() && !c.runs.empty() ? SimulatedOf(c.runs.front()) : std::nullopt;
    if (!events) {
      // Context only: the verdict stands, and the note says why there is none.
      r->events->note =
          fmt::format("the {}'s simulated run under {} {}", name, profiler.name(),
                      c.valid() ? std::string("gave no simulated events") : "failed: " + c.error);
      continue;
    }
    sides[side]->simulated = events;
    *kept[side] = keep;
  }
  CheckSimulatedEvents(counted_by, r);
}

}  // namespace workgate
