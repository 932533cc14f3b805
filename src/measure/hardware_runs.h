#pragma once
// The hardware events beside a workload's count on perf (docs/counting.md,
// "Hardware events on perf"): where a workload gets simulated events
// (--events), perf counts, in one more run of each build, the events the
// instruction count cannot see on this machine (branch and cache misses by
// default), and the reports show their change beside Δ instructions, as
// read: context, never scaled and never the verdict.

#include <functional>
#include <string>
#include <vector>

#include "counter/counter.h"
#include "model/model.h"
#include "workload/run_plan.h"
#include "workload/workload.h"

namespace workgate {

/// The events --hardware-events names by default: libpfm4's names of the
/// kernel's generic events, in user space.
inline constexpr const char* kDefaultHardwareEvents = "branch-misses:u,cache-misses:u";

/// The hardware events of two runs whose events are `primary` then the
/// context events (CountedRun::events): each context event's readings, and
/// whether the kernel multiplexed either. Empty with a note where the runs
/// do not read the same events.
HardwareEvents HardwareEventsOf(const std::vector<EventCount>& baseline,
                                const std::vector<EventCount>& candidate);

/// One run of each build (`exes`: baseline, candidate) of `w` on perf,
/// counting `primary` (the gate's own event, so the run checks its score
/// like any count) and then `events` (libpfm4 names, comma-separated), in
/// `dir`; sets `r->hardware`, with a note where the events cannot be
/// encoded or opened, or a run fails. Never touches the counts or the
/// verdict.
void CountHardwareSides(const std::string& primary, const std::string& events, const Workload& w,
                        const std::string& suite_dir, const WorkDir& dir,
                        const std::string* exes[2], const LaunchOptions& launch,
                        WorkloadResult* r,
                        const std::function<void(const std::string&)>& progress);

}  // namespace workgate
