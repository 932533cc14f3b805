#pragma once
// The one place that knows which counting backends exist, and how `auto`
// picks one: perf where this machine's counters really count, else
// workgate's own Valgrind tool where it is built, else callgrind.

#include <memory>
#include <string>
#include <vector>

#include "counter/counter.h"

namespace workgate {

struct SystemInfo;

enum class BackendRequest { kAuto, kPerf, kCallgrind, kVgcount };

/// "auto", "perf", "callgrind", "vgcount". False for anything else.
bool ParseBackendRequest(const std::string& text, BackendRequest* out);

/// The default perf event.
inline constexpr const char* kDefaultPerfEvent = "instructions:u";

/// Whether perf_event_open really counts `events` here: encode them, open
/// them for workgate itself, run a known loop, read. `reason` says why not.
struct PerfCheck {
  bool ok = false;
  std::string reason;
  int open_errno = 0;
  std::vector<EventCount> counts;  // of the loop, when ok
};
PerfCheck CheckPerf(const std::string& events, const SystemInfo& info);

struct BackendChoice {
  std::string backend;  // "perf", "callgrind", "vgcount"; empty: none can count
  std::string reason;   // why this one (and why not the ones before it)
};

/// Decides which backend counts. `events` is the --event value (perf only).
BackendChoice ChooseBackend(BackendRequest request, const std::string& events,
                            const SystemInfo& info);

/// Makes the chosen counter. Throws Error(kExitEnvironment) when the choice is
/// empty (nothing can count), Error(kExitUsage) for an event perf can't encode.
std::unique_ptr<Counter> MakeCounter(const BackendChoice& choice, const std::string& events);

}  // namespace workgate
