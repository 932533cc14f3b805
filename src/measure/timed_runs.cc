#include "measure/timed_runs.h"

#include <fmt/format.h>

namespace workgate {

std::vector<TimedSlot> TimedSchedule(const std::vector<size_t>& workloads, int pairs,
                                     bool with_baseline) {
  std::vector<TimedSlot> schedule;
  if (pairs <= 0) return schedule;
  size_t pair = 0;  // over the whole run: the alternation does not restart
  auto add = [&](size_t w, bool baseline, bool warm_up) {
    if (baseline && !with_baseline) return;
    schedule.push_back({w, baseline, warm_up});
  };
  for (size_t w : workloads) {
    add(w, true, true);
    add(w, false, true);
    for (int i = 0; i < pairs; ++i, ++pair) {
      const bool baseline_first = pair % 2 == 0;
      add(w, baseline_first, false);
      add(w, !baseline_first, false);
    }
  }
  return schedule;
}

void RunTimedSchedule(const std::vector<TimedSlot>& schedule, const TimedRunner& run,
                      std::vector<WorkloadResult>* results, std::vector<std::string>* errors) {
  for (size_t position = 0; position < schedule.size(); ++position) {
    const TimedSlot& slot = schedule[position];
    std::string& error = (*errors)[slot.workload];
    if (!error.empty()) continue;
    std::string err;
    TimedSample sample = run(slot, &err);
    WorkloadResult& r = (*results)[slot.workload];
    if (!err.empty()) {
      error = fmt::format("timed {} run: {}", slot.baseline ? "baseline" : "candidate", err);
      r.baseline.timed.clear();
      r.candidate.timed.clear();
      continue;
    }
    if (slot.warm_up) continue;
    sample.slot = static_cast<int>(position);
    (slot.baseline ? r.baseline : r.candidate).timed.push_back(sample);
  }
}

}  // namespace workgate
