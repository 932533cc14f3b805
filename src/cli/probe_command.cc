// `workgate probe`: what this machine can count, and why not where it
// cannot; which backend `auto` picks; each backend's resolution here. The
// probe itself is probe/machine_probe.h; this prints it, or its JSON.

#include <fmt/format.h>
#include <unistd.h>

#include <iterator>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "counter/factory.h"
#include "machine/cpu_identity.h"
#include "machine/known_loop.h"
#include "measure/timed_selftest.h"
#include "probe/machine_probe.h"
#include "probe/probe_json.h"
#include "report/format.h"
#include "report/probe_row.h"
#include "report/probe_table.h"
#include "report/report_output.h"
#include "report/report_paths.h"
#include "report/selftest_report.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

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
  const VgcountStatus& vgcount = report.vgcount;
  fmt::format_to(to, "vgcount     {}\n",
                 vgcount.unusable.empty() ? "built (workgate's own Valgrind counting tool)"
                 : vgcount.built ? fmt::format("built, but cannot run: {}; {}", vgcount.unusable,
                                               report.vgcount_fallback)
                                 : "not built; " + report.vgcount_fallback);
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

struct ProbeArgs {
  std::string json_path, markdown_path;
  std::string events = kDefaultPerfEvent;
  std::string label;
  std::vector<std::string> merge;
  bool selftest_timed = false;
  CLI::Option* event_option = nullptr;
  CLI::Option* label_option = nullptr;
};

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "unknown";
  return name;
}

void WriteMarkdown(const std::string& path, const std::vector<ProbeRow>& rows) {
  std::string err;
  if (!path.empty() &&
      !WriteTextFile(path, ProbeTableMarkdown(rows), "the probe's Markdown", &err)) {
    throw EnvironmentError(err);
  }
}

// --merge: the runners' probes as one table; nothing of this machine is probed.
int RunProbeMerge(const ProbeArgs& args, FILE* text_out) {
  if (args.event_option->count() > 0 || args.label_option->count() > 0 || args.selftest_timed) {
    throw UsageError(
        "--merge joins probes taken elsewhere: --event, --label and --selftest-timed do not go "
        "with it");
  }
  std::vector<ProbeRow> rows;
  for (const std::string& path : args.merge) {
    std::string err;
    std::optional<ProbeRow> row = LoadProbeRow(path, &err);
    if (!row) throw UsageError(err);
    rows.push_back(std::move(*row));
  }
  std::string err;
  if (!PrintText(ProbeTableText(rows), text_out, "the probe table", &err)) {
    throw EnvironmentError(err);
  }
  if (!args.json_path.empty() &&
      !WriteJsonFile(args.json_path, ProbeTableToJson(rows), "the probe table's JSON", &err)) {
    throw EnvironmentError(err);
  }
  WriteMarkdown(args.markdown_path, rows);
  return kExitPass;
}

int RunProbe(const ProbeArgs& args) {
  FILE* text_out = TextStream({{"--json", &args.json_path}, {"--markdown", &args.markdown_path}});
  const std::vector<ReportPath> reports = {{"--json", args.json_path},
                                           {"--markdown", args.markdown_path}};
  std::vector<InputPath> inputs;
  for (const std::string& path : args.merge) inputs.push_back({"--merge", path});
  CheckReportPaths(reports, inputs);
  RemoveStaleReports(reports);
  if (!args.merge.empty()) return RunProbeMerge(args, text_out);
  ProbeReport report = ProbeMachine(args.events, FindCompanion("probes/known_loop"));
  report.label = args.label.empty() ? HostName() : args.label;
  std::string text = "runner      " + TerminalSafe(report.label, LineBreaks::kToSpace) + "\n";
  DescribeMachine(report.system, &text);
  DescribeBackends(report, &text);
  std::optional<TimedSelftest> selftest;
  if (args.selftest_timed) {
    // After the resolutions, alone: a timed run must not share the machine.
    TimedSelftestPlan plan;
    plan.known_loop = FindCompanion("probes/known_loop");
    Progress progress;
    if (plan.known_loop.empty()) {
      selftest.emplace();
      selftest->reason = "probes/known_loop not found beside workgate (looked for " +
                         CompanionPlaces("probes/known_loop") + ")";
    } else {
      selftest = RunTimedSelftest(plan, [&progress](const std::string& t) { progress.Show(t); });
    }
    progress.Done();
    text += SelftestText(*selftest);
  }
  std::string err;
  if (!PrintText(text, text_out, "the probe", &err)) throw EnvironmentError(err);
  const nlohmann::json json =
      ProbeToJson(report, selftest ? SelftestToJson(*selftest) : nlohmann::json());
  if (!args.json_path.empty() && !WriteJsonFile(args.json_path, json, "the probe's JSON", &err)) {
    throw EnvironmentError(err);
  }
  if (!args.markdown_path.empty()) {
    // The row is read back from the JSON, as --merge reads another runner's.
    ProbeRow row;
    if (!ProbeRowFromJson(json, "", &row, &err)) throw std::logic_error("probe JSON: " + err);
    WriteMarkdown(args.markdown_path, {row});
  }
  return report.exit_code;
}

}  // namespace

void AddProbeCommand(CLI::App& app, CommandRunner* run) {
  auto args = std::make_shared<ProbeArgs>();
  CLI::App* cmd = app.add_subcommand("probe", "Tell what this machine can count, and why not");
  cmd->add_option("--json", args->json_path,
                  "Write the probe (with --merge: the merged table) as JSON to FILE (-: stdout)")
      ->type_name("FILE");
  cmd->add_option("--markdown", args->markdown_path,
                  "Write this machine's row (with --merge: every runner's) as a Markdown table "
                  "to FILE (-: stdout)")
      ->type_name("FILE");
  args->event_option =
      cmd->add_option("--event", args->events, "The perf events to check, libpfm4 names")
          ->type_name("EVENTS")
          ->capture_default_str();
  args->label_option =
      cmd->add_option("--label", args->label, "This runner's name in the probe [default: hostname]")
          ->type_name("NAME");
  cmd->add_flag("--selftest-timed", args->selftest_timed,
                "Also run the timed self-test (selftest --timed, default settings) and put its "
                "result in the probe and its JSON");
  cmd->add_option("--merge", args->merge,
                  "Print one table of the probe --json FILEs of several runners instead of "
                  "probing this one")
      ->type_name("FILE")
      ->expected(1, -1);
  cmd->footer(HelpFooter({kExitPass, kExitUsage, kExitEnvironment},
                         {"workgate probe", "workgate probe --json - | jq .auto.backend",
                          "workgate probe --event cycles:u,branches:u --json probe.json",
                          "workgate probe --label ubuntu-24.04 --json p1.json --markdown row.md",
                          "workgate probe --selftest-timed --json probe.json",
                          "workgate probe --merge p1.json p2.json --markdown runners.md"}));
  cmd->callback([args, run] { *run = [args] { return RunProbe(*args); }; });
}

}  // namespace workgate
