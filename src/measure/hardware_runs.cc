#include "measure/hardware_runs.h"

#include <fmt/format.h>

#include <unistd.h>

#include <exception>

#include "counter/perf_counter.h"
#include "machine/perf_reason.h"
#include "machine/system_info.h"
#include "measure/measure.h"

namespace workgate {

HardwareEvents HardwareEventsOf(const std::vector<EventCount>& baseline,
                                const std::vector<EventCount>& candidate) {
  HardwareEvents out;
  if (baseline.size() != candidate.size() || baseline.size() < 2) {
    out.note = "the two runs did not read the same events";
    return out;
  }
  for (size_t i = 1; i < baseline.size(); ++i) {
    if (baseline[i].event != candidate[i].event) {
      out.events.clear();
      out.note = "the two runs did not read the same events";
      return out;
    }
    out.events.push_back({baseline[i].event, baseline[i].value, candidate[i].value,
                          baseline[i].multiplexed(), candidate[i].multiplexed()});
  }
  return out;
}

void CountHardwareSides(const std::string& primary, const std::string& events, const Workload& w,
                        const std::string& suite_dir, const WorkDir& dir,
                        const std::string* exes[2], const LaunchOptions& launch,
                        WorkloadResult* r,
                        const std::function<void(const std::string&)>& progress) {
  r->hardware.emplace();
  std::unique_ptr<PerfCounter> counter;
  try {
    counter = std::make_unique<PerfCounter>(primary + "," + events);
    // Whether this machine opens the events at all, asked of this process:
    // where not, the note says why in the probe's words, and nothing runs.
    std::vector<EventCount> ignored;
    int open_errno = 0;
    if (!counter->CountSelf([](void*) {}, nullptr, &ignored, &open_errno) && open_errno != 0) {
      static const SystemInfo info = GatherSystemInfo(LibpfmPmus::kNotListed);
      r->hardware->note = fmt::format(
          "perf cannot count {} here: {}", counter->failed_event(),
          PerfOpenFailureReason(open_errno, counter->failed_event(), info, geteuid() == 0));
      return;
    }
  } catch (const std::exception& e) {
    r->hardware->note = e.what();
    return;
  }
  std::vector<EventCount> read[2];
  for (int side = 0; side < 2; ++side) {
    const char* name = side == 0 ? "baseline" : "candidate";
    progress(fmt::format("{}  {}  counting {} (perf)", w.name, name, events));
    const ScoreSide score_side = side == 0 ? ScoreSide::kBaseline : ScoreSide::kCandidate;
    CountedWorkload c = CountWorkload(*counter, {w, suite_dir, dir, *exes[side], launch},
                                      {.score_side = score_side});
    if (!c.valid() || c.runs.empty()) {
      r->hardware->note = fmt::format("the {}'s run with {} failed: {}", name, events,
                                      c.valid() ? std::string("no run") : c.error);
      return;
    }
    read[side] = c.runs.front().events;
  }
  *r->hardware = HardwareEventsOf(read[0], read[1]);
}

}  // namespace workgate
