#include "probe/probe_json.h"

#include "machine/known_loop.h"

namespace workgate {
namespace {

using nlohmann::json;

json ResolutionToJson(const Resolution& r) {
  if (!r.ok) return {{"backend", r.backend}, {"ok", false}, {"error", r.error}};
  return {{"backend", r.backend},
          {"ok", true},
          {"sizes", {kResolutionSmall, kResolutionLarge}},
          {"repeats", kResolutionRepeats},
          {"counts_small", r.small},
          {"counts_large", r.large},
          {"instructions_per_iteration", r.per_iteration},
          {"expected_per_iteration", kKnownLoopInstructionsPerIteration},
          {"exact", r.exact()},
          {"spread", r.spread}};
}

}  // namespace

json ProbeToJson(const ProbeReport& report, const json& timed_selftest) {
  json resolutions = json::array();
  for (const Resolution& r : report.resolutions) resolutions.push_back(ResolutionToJson(r));
  const std::string& backend = report.auto_choice.backend;
  const std::string& unusable = report.vgcount.unusable;
  const std::string& fallback = report.vgcount_fallback;
  const json vgcount = {{"built", report.vgcount.built},
                        {"usable", unusable.empty()},
                        {"reason", unusable.empty() ? json() : json(unusable)},
                        {"fallback", fallback.empty() ? json() : json(fallback)}};
  return {{"schema_version", kProbeSchemaVersion},
          {"label", report.label},
          {"system", ToJson(report.system)},
          {"perf",
           {{"event", report.events},
            {"ok", report.perf.ok},
            {"reason", report.perf.ok ? json() : json(report.perf.reason)},
            {"errno", report.perf.open_errno}}},
          {"valgrind",
           {{"found", !report.valgrind.path.empty()},
            {"path", report.valgrind.path},
            {"version", report.valgrind.version}}},
          {"vgcount", vgcount},
          {"pid_namespace", report.pid_namespace},
          {"resolution", resolutions},
          {"auto",
           {{"backend", backend.empty() ? json() : json(backend)},
            {"reason", report.auto_choice.reason}}},
          {"timed_selftest", timed_selftest},
          {"exit_code", report.exit_code}};
}

}  // namespace workgate
