#include "probe/machine_probe.h"

#include <future>

#include "launch/launch.h"
#include "util/paths.h"

namespace workgate {

std::vector<Resolution> MeasureResolutions(const ProbeReport& report,
                                           const std::string& known_loop) {
  if (known_loop.empty()) {
    Resolution missing;
    missing.backend = report.auto_choice.backend;
    missing.error = "probes/known_loop not found beside workgate (looked for " +
                    CompanionPlaces("probes/known_loop") + ")";
    return {missing};
  }
  // The Valgrind tools start at the same time (a start costs most of a
  // second), so the probe takes about one Valgrind start whatever is built.
  std::future<Resolution> callgrind, vgcount;
  if (!report.valgrind.path.empty()) {
    callgrind = std::async(std::launch::async, MeasureValgrindResolution, known_loop,
                           ValgrindCounter::Tool::kCallgrind);
  }
  if (report.vgcount.unusable.empty()) {
    vgcount = std::async(std::launch::async, MeasureValgrindResolution, known_loop,
                         ValgrindCounter::Tool::kVgcount);
  }
  std::vector<Resolution> out;
  if (report.perf.ok) out.push_back(MeasurePerfResolution(known_loop, report.events));
  if (callgrind.valid()) out.push_back(callgrind.get());
  if (vgcount.valid()) out.push_back(vgcount.get());
  return out;
}

std::string VgcountFallback(const VgcountStatus& vgcount, const ValgrindInstall& valgrind) {
  if (vgcount.unusable.empty()) return "";
  if (valgrind.path.empty())
    return "without Valgrind, callgrind cannot count either: only perf can";
  // The figures of tools/vgcount/README.md ("Cost") and docs/security.md.
  return "counting with Valgrind falls back to callgrind, which counts the same instructions "
         "4.3x to 4.6x slower (programs of a billion instructions, tools/vgcount/README.md) "
         "and whose count is in the candidate's reach: callgrind answers the candidate's own "
         "client requests, cannot see a native call and loses the work before an exec "
         "(docs/security.md)";
}

ProbeReport ProbeMachine(const std::string& events, const std::string& known_loop) {
  ProbeReport report;
  report.system = GatherSystemInfo(LibpfmPmus::kListed);
  report.events = events;
  report.perf = CheckPerf(events, report.system);
  report.auto_choice = ChooseBackend(BackendRequest::kAuto, events, report.system);
  report.valgrind = FindValgrind();
  report.vgcount = CheckVgcount();
  report.vgcount_fallback = VgcountFallback(report.vgcount, report.valgrind);
  report.pid_namespace = PidNamespaceAvailable();
  report.resolutions = MeasureResolutions(report, known_loop);
  report.exit_code = report.auto_choice.backend.empty() ? kExitEnvironment : kExitPass;
  return report;
}

}  // namespace workgate
