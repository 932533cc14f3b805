#pragma once
// `workgate probe` as data: what this machine can count, why not where it
// cannot, which backend `auto` picks, and each backend's resolution here.
// The CLI only prints it (cli/probe_command.cc) or writes its JSON
// (probe/probe_json.h).

#include <string>
#include <vector>

#include "counter/factory.h"
#include "counter/valgrind_counter.h"
#include "counter/vgcount_install.h"
#include "machine/system_info.h"
#include "probe/resolution.h"
#include "util/exit_codes.h"

namespace workgate {

struct ProbeReport {
  std::string label;  // which runner this is (probe --label; by default the hostname)
  SystemInfo system;
  std::string events;  // the perf events checked
  PerfCheck perf;
  ValgrindInstall valgrind;  // path empty: not found, and `missing` says why
  VgcountStatus vgcount;     // `unusable` empty: vgcount counts here
  /// Where vgcount cannot count: what counting with Valgrind falls back to,
  /// and what that costs (VgcountFallback); empty where it counts.
  std::string vgcount_fallback;
  bool pid_namespace = false;
  /// One per backend that can run here (perf, callgrind, vgcount, in that
  /// order), or one failed entry when the known loop is missing.
  std::vector<Resolution> resolutions;
  BackendChoice auto_choice;  // backend empty: none can count
  int exit_code = kExitPass;  // kExitEnvironment when no backend can count
};

/// What counting with Valgrind falls back to where `vgcount` cannot count,
/// and what that costs: callgrind where `valgrind` was found, else nothing.
/// Empty where vgcount counts.
std::string VgcountFallback(const VgcountStatus& vgcount, const ValgrindInstall& valgrind);

/// Probes this machine for `events`, measuring each backend's resolution on
/// the known loop at `known_loop` (empty: not found, which is reported as a
/// failed resolution).
ProbeReport ProbeMachine(const std::string& events, const std::string& known_loop);

/// The resolution of every backend `report` says can run. The Valgrind tools
/// are measured concurrently with each other and with perf.
std::vector<Resolution> MeasureResolutions(const ProbeReport& report,
                                           const std::string& known_loop);

}  // namespace workgate
