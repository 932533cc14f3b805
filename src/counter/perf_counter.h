#pragma once
// The perf_event backend: perf_event_open(2) counters encoded by libpfm4,
// opened in the child between fork and exec so they follow the whole process
// tree (inherit) from the workload's exec (enable_on_exec), never the
// launcher's own work.

#include <linux/perf_event.h>

#include <memory>
#include <string>
#include <vector>

#include "counter/counter.h"

namespace workgate {

/// An event name as the user wrote it with its kernel encoding.
struct PerfEventSpec {
  std::string name;
  perf_event_attr attr;
};

/// Splits "instructions:u,cycles:u" and encodes each event with libpfm4
/// (pfm_get_os_event_encoding, PFM_OS_PERF_EVENT_EXT). Events without a
/// privilege-level modifier count user space only. Returns false with a
/// message naming the event libpfm4 rejected.
bool EncodePerfEvents(const std::string& events, std::vector<PerfEventSpec>* out,
                      std::string* err);

/// The values read from one counter (read_format TOTAL_TIME_ENABLED |
/// TOTAL_TIME_RUNNING).
struct PerfReadValues {
  uint64_t value = 0;
  uint64_t time_enabled = 0;
  uint64_t time_running = 0;
};

/// Parses the 24 bytes a counter's read(2) returns. Lifted out so it is
/// testable without a PMU.
bool ParsePerfRead(const void* data, size_t size, PerfReadValues* out);

/// The first descriptor number the region protocol uses: counters handed to
/// a workload that marks its own region are at kRegionFdBase, +1, ... and
/// named in WORKGATE_PERF_FDS (see include/workgate/region.h).
constexpr int kRegionFdBase = 1000;

class PerfCounter : public Counter {
 public:
  /// `events` is a comma-separated list of libpfm4 event names; the first is
  /// the primary one. Throws Error(kExitUsage) when an event cannot be encoded.
  explicit PerfCounter(const std::string& events);
  Backend backend() const override { return Backend::kPerf; }
  std::string event() const override { return events_[0].name; }
  CountedRun Run(const LaunchSpec& spec, const CountOptions& options) override;

  /// Opens the events for this process alone, runs `work`, and reads them:
  /// how the probe checks that counting really works. Returns false with the
  /// errno of the first failing perf_event_open in *open_errno.
  bool CountSelf(void (*work)(void*), void* arg, std::vector<EventCount>* out, int* open_errno);
  /// After a CountSelf that failed to open: the name of the event that failed.
  const std::string& failed_event() const { return events_[failed_index_].name; }

 private:
  /// Which event this process cannot open (the child's errno names no event).
  size_t FirstFailingEvent() const;

  std::vector<PerfEventSpec> events_;
  size_t failed_index_ = 0;
};

}  // namespace workgate
