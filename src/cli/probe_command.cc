// `workgate probe`: what this machine can count, and why not where it
// cannot; which backend `auto` picks; each backend's resolution here. The
// probe itself is probe/machine_probe.h; this prints it, or its JSON.

#include <fmt/format.h>

#include <iterator>

#include "cli/commands.h"
#include "cli/options.h"
#include "counter/factory.h"
#include "probe/cpu_identity.h"
#include "probe/known_loop.h"
#include "probe/machine_probe.h"
#include "report/format.h"
#include "report/probe_json.h"
#include "report/report_output.h"
#include "report/report_paths.h"
#include "util/error.h"
#include "util/paths.h"

namespace workgate {

namespace {

std::string Describe(const Resolution& r) {
  if (!r.ok) return "failed: " + r.error;
  return fmt::format(
      "{:.6f} instructions per iteration (expected {}; sizes {} and {}, {} "
      "repeats), spread across repeats {}{}",
      r.per_iteration, kKnownLoopInstructionsPerIteration, kResolutionSmall, kResolutionLarge,
      kResolutionRepeats, FormatCount(r.spread), r.exact() ? ": exact" : "");
}

std::string PmuList(const SystemInfo& info) {
  if (!info.kernel_pmus.value) return "unknown: " + info.kernel_pmus.note;
  std::string list;
  for (const auto& p : *info.kernel_pmus.value) {
    list += (list.empty() ? "" : ", ") + p.name + (p.is_core ? " (CPU)" : "");
  }
  return list + (info.HasCorePmu() ? "" : "  [no CPU PMU]");
}

std::string LibpfmList(const SystemInfo& info) {
  if (!info.libpfm_pmus.value) return "unknown: " + info.libpfm_pmus.note;
  std::string list;
  for (const auto& p : *info.libpfm_pmus.value) {
    list += (list.empty() ? "" : ", ") + p.name + " (" + p.type + ")";
  }
  return list;
}

template <typename T>
std::string Or(const Probed<T>& p, const std::string& fallback = "unknown") {
  if (!p.value) return fallback + (p.note.empty() ? "" : " (" + p.note + ")");
  if constexpr (std::is_same_v<T, std::string>)
    return *p.value;
  else
    return fmt::format("{}", *p.value);
}

// The machine's lines of the probe, then its backends'.
void DescribeMachine(const SystemInfo& info, std::string* out) {
  auto to = std::back_inserter(*out);
  fmt::format_to(to, "machine     {}, {}, kernel {}\n",
                 CpuDisplayName(Or(info.cpu_vendor), Or(info.cpu_model)), Or(info.architecture),
                 Or(info.kernel_release));
  std::string hv = info.hypervisor_present.value.value_or(false)
                       ? fmt::format("{} (cpuid vendor \"{}\")", info.HypervisorName(),
                                     Or(info.hypervisor_vendor, ""))
                   : info.hypervisor_present.value ? "none"
                                                   : Or(info.hypervisor_present);
  fmt::format_to(to, "hypervisor  {}\n", hv);
  fmt::format_to(to, "paranoid    perf_event_paranoid = {}\n", Or(info.perf_event_paranoid));
  fmt::format_to(to, "kernel PMUs {}\n", PmuList(info));
  fmt::format_to(to, "libpfm4     {}\n", LibpfmList(info));
}

void DescribeBackends(const ProbeReport& report, std::string* out) {
  auto to = std::back_inserter(*out);
  const std::string& events = report.events;
  fmt::format_to(to, "perf        {}\n",
                 report.perf.ok ? fmt::format("counts {}", events)
                                : fmt::format("cannot count {}: {}", events, report.perf.reason));
  const ValgrindInstall& valgrind = report.valgrind;
  fmt::format_to(to, "valgrind    {}\n",
                 valgrind.path.empty() ? valgrind.missing
                                       : fmt::format("{} at {}", valgrind.version, valgrind.path));
  fmt::format_to(
      to, "vgcount     {}\n",
      report.vgcount_built ? "built (workgate's own Valgrind counting tool)" : "not built");
  fmt::format_to(to, "pid ns      {}\n",
                 report.pid_namespace ? "workloads run as pid 2 of a fresh PID namespace"
                                      : "not available (needs root or user namespaces)");
  for (const auto& r : report.resolutions) {
    fmt::format_to(to, "resolution  {}: {}\n", r.backend, Describe(r));
  }
  if (report.exit_code == kExitPass) {
    fmt::format_to(to, "backend     auto chooses {}: {}\n", report.auto_choice.backend,
                   report.auto_choice.reason);
  } else {
    fmt::format_to(to, "backend     none can count: {}\n", report.auto_choice.reason);
  }
}

int RunProbe(const std::string& json_path, const std::string& events) {
  FILE* text_out = TextStream({{"--json", &json_path}});
  CheckReportPaths({{"--json", json_path}});
  RemoveStaleReports({{"--json", json_path}});
  const ProbeReport report = ProbeMachine(events, FindCompanion("probes/known_loop"));
  std::string text;
  DescribeMachine(report.system, &text);
  DescribeBackends(report, &text);
  std::string err;
  if (!PrintText(text, text_out, "the probe", &err)) throw EnvironmentError(err);
  if (!json_path.empty() &&
      !WriteJsonFile(json_path, ProbeToJson(report), "the probe's JSON", &err)) {
    throw EnvironmentError(err);
  }
  return report.exit_code;
}

}  // namespace

void AddProbeCommand(CLI::App& app, CommandRunner* run) {
  struct Args {
    std::string json_path;
    std::string events = kDefaultPerfEvent;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("probe", "Tell what this machine can count, and why not");
  cmd->add_option("--json", args->json_path, "Write the probe as JSON to FILE (-: stdout)")
      ->type_name("FILE");
  cmd->add_option("--event", args->events, "The perf events to check, libpfm4 names")
      ->type_name("EVENTS")
      ->capture_default_str();
  cmd->footer(HelpFooter({kExitPass, kExitUsage, kExitEnvironment},
                         {"workgate probe", "workgate probe --json - | jq .auto.backend",
                          "workgate probe --event cycles:u,branches:u --json probe.json"}));
  cmd->callback([args, run] { *run = [args] { return RunProbe(args->json_path, args->events); }; });
}

}  // namespace workgate
