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
  if (report.vgcount_built) {
    vgcount = std::async(std::launch::async, MeasureValgrindResolution, known_loop,
                         ValgrindCounter::Tool::kVgcount);
  }
  std::vector<Resolution> out;
  if (report.perf.ok) out.push_back(MeasurePerfResolution(known_loop, report.events));
  if (callgrind.valid()) out.push_back(callgrind.get());
  if (vgcount.valid()) out.push_back(vgcount.get());
  return out;
}

ProbeReport ProbeMachine(const std::string& events, const std::string& known_loop) {
  ProbeReport report;
  report.system = GatherSystemInfo();
  report.events = events;
  report.perf = CheckPerf(events, report.system);
  report.auto_choice = ChooseBackend(BackendRequest::kAuto, events, report.system);
  report.valgrind = FindValgrind();
  report.vgcount_built = !report.valgrind.path.empty() && !FindVgcountLib().empty();
  report.pid_namespace = PidNamespaceAvailable();
  report.resolutions = MeasureResolutions(report, known_loop);
  report.exit_code = report.auto_choice.backend.empty() ? kExitEnvironment : kExitPass;
  return report;
}

}  // namespace workgate
