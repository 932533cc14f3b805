// `workgate probe`: what this machine can count, and why not where it
// cannot; which backend `auto` picks; each backend's resolution here.

#include <algorithm>
#include <future>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "counter/factory.h"
#include "counter/perf_counter.h"
#include "counter/valgrind_counter.h"
#include "launch/launch.h"
#include "probe/cpu_identity.h"
#include "probe/system_info.h"
#include "report/format.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/text.h"

namespace workgate {

namespace {

constexpr unsigned long kSmall = 100000, kLarge = 200000;
constexpr int kRepeats = 3;

// A backend's resolution: the known loop counted at two sizes, several times.
struct Resolution {
  std::string backend;
  bool ok = false;
  std::string error;
  std::vector<uint64_t> small, large;  // counts per repeat
  double per_iteration = 0;            // measured instructions per loop iteration
  uint64_t spread = 0;                 // max - min over repeats, worst size
};

uint64_t Spread(const std::vector<uint64_t>& v) {
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *hi - *lo;
}

void Finish(Resolution* r) {
  std::sort(r->small.begin(), r->small.end());
  std::sort(r->large.begin(), r->large.end());
  const double median_small = static_cast<double>(r->small[r->small.size() / 2]);
  const double median_large = static_cast<double>(r->large[r->large.size() / 2]);
  r->per_iteration = (median_large - median_small) / static_cast<double>(kLarge - kSmall);
  r->spread = std::max(Spread(r->small), Spread(r->large));
  r->ok = true;
}

// perf: a launch per size and repeat, each a few milliseconds.
Resolution MeasurePerf(const std::string& known_loop, const std::string& events) {
  Resolution r;
  r.backend = "perf";
  PerfCounter counter(events);
  for (int i = 0; i < kRepeats; ++i) {
    for (unsigned long n : {kSmall, kLarge}) {
      LaunchSpec spec;
      spec.argv = {known_loop, std::to_string(n)};
      spec.env = MinimalEnvironment("/");
      spec.timeout_seconds = 30;
      CountedRun run = counter.Run(spec, {});
      if (!run.valid()) {
        r.error = run.error;
        return r;
      }
      (n == kSmall ? r.small : r.large).push_back(*run.instructions());
    }
  }
  Finish(&r);
  return r;
}

// Valgrind: one start; known_loop forks one child per size and repeat, each
// counting only its own loop (region markers: a forked child would otherwise
// carry its parent's cost so far), and each child's count comes from its own
// output file.
Resolution MeasureValgrind(const std::string& known_loop, ValgrindCounter::Tool tool) {
  ValgrindCounter counter(tool);
  Resolution r;
  r.backend = counter.name();
  LaunchSpec spec;
  spec.argv = {known_loop, "--region-fork"};
  for (int i = 0; i < kRepeats; ++i) {
    spec.argv.push_back(std::to_string(kSmall));
    spec.argv.push_back(std::to_string(kLarge));
  }
  spec.env = MinimalEnvironment("/");
  spec.timeout_seconds = 60;
  CountOptions options;
  options.region = true;
  CountedRun run = counter.Run(spec, options);
  if (!run.valid()) {
    r.error = run.error;
    return r;
  }
  if (run.per_process.size() != 1 + 2 * kRepeats) {
    r.error = fmt::format("expected {} processes, {} counted", 1 + 2 * kRepeats,
                          run.per_process.size());
    return r;
  }
  for (int i = 0; i < 2 * kRepeats; ++i) {
    (i % 2 == 0 ? r.small : r.large).push_back(run.per_process[1 + i]);
  }
  Finish(&r);
  return r;
}

nlohmann::json ToJson(const Resolution& r) {
  if (!r.ok) return {{"backend", r.backend}, {"ok", false}, {"error", r.error}};
  return {{"backend", r.backend},
          {"ok", true},
          {"sizes", {kSmall, kLarge}},
          {"repeats", kRepeats},
          {"counts_small", r.small},
          {"counts_large", r.large},
          {"instructions_per_iteration", r.per_iteration},
          {"expected_per_iteration", 2},
          {"exact", r.per_iteration == 2.0 && r.spread == 0},
          {"spread", r.spread}};
}

std::string Describe(const Resolution& r) {
  if (!r.ok) return "failed: " + r.error;
  return fmt::format("{:.6f} instructions per iteration (expected 2; sizes {} and {}, {} "
                     "repeats), spread across repeats {}{}",
                     r.per_iteration, kSmall, kLarge, kRepeats, FormatCount(r.spread),
                     r.per_iteration == 2.0 && r.spread == 0 ? ": exact" : "");
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
  if constexpr (std::is_same_v<T, std::string>) return *p.value;
  else return fmt::format("{}", *p.value);
}

int RunProbe(const std::string& json_path, bool json_stdout, const std::string& events) {
  SystemInfo info = GatherSystemInfo();
  const std::string known_loop = FindCompanion("probes/known_loop");
  PerfCheck perf = CheckPerf(events, info);
  BackendChoice choice = ChooseBackend(BackendRequest::kAuto, events, info);
  const ValgrindInstall& valgrind = FindValgrind();
  const bool vgcount_built = !valgrind.path.empty() && !FindVgcountLib().empty();

  std::vector<Resolution> resolutions;
  if (known_loop.empty()) {
    Resolution missing;
    missing.backend = choice.backend;
    missing.error = "probes/known_loop not found beside workgate";
    resolutions.push_back(missing);
  } else {
    // The Valgrind tools start at the same time (a start costs most of a
    // second), so the probe takes about one Valgrind start whatever is built.
    std::future<Resolution> callgrind, vgcount;
    if (!valgrind.path.empty()) {
      callgrind = std::async(std::launch::async, MeasureValgrind, known_loop,
                             ValgrindCounter::Tool::kCallgrind);
    }
    if (vgcount_built) {
      vgcount = std::async(std::launch::async, MeasureValgrind, known_loop,
                           ValgrindCounter::Tool::kVgcount);
    }
    if (perf.ok) resolutions.push_back(MeasurePerf(known_loop, events));
    if (callgrind.valid()) resolutions.push_back(callgrind.get());
    if (vgcount.valid()) resolutions.push_back(vgcount.get());
  }
  const int code = choice.backend.empty() ? kExitEnvironment : kExitPass;

  nlohmann::json j;
  j["system"] = ToJson(info);
  j["perf"] = {{"event", events},
               {"ok", perf.ok},
               {"reason", perf.ok ? nlohmann::json() : nlohmann::json(perf.reason)},
               {"errno", perf.open_errno}};
  j["valgrind"] = {{"found", !valgrind.path.empty()},
                   {"path", valgrind.path},
                   {"version", valgrind.version}};
  j["vgcount"] = {{"built", vgcount_built}};
  j["pid_namespace"] = PidNamespaceAvailable();
  nlohmann::json res = nlohmann::json::array();
  for (const auto& r : resolutions) res.push_back(ToJson(r));
  j["resolution"] = res;
  j["auto"] = {{"backend", choice.backend.empty() ? nlohmann::json() : nlohmann::json(choice.backend)},
               {"reason", choice.reason}};
  j["exit_code"] = code;
  std::string err;
  if (!json_path.empty() && !WriteFileAtomically(json_path, JsonText(j), &err)) {
    throw EnvironmentError(err);
  }
  if (json_stdout) {
    fmt::print("{}", JsonText(j));
    return code;
  }
  fmt::print("machine     {}, {}, kernel {}\n",
             CpuDisplayName(Or(info.cpu_vendor), Or(info.cpu_model)), Or(info.architecture),
             Or(info.kernel_release));
  std::string hv = info.hypervisor_present.value.value_or(false)
                       ? fmt::format("{} (cpuid vendor \"{}\")", info.HypervisorName(),
                                     Or(info.hypervisor_vendor, ""))
                       : info.hypervisor_present.value ? "none" : Or(info.hypervisor_present);
  fmt::print("hypervisor  {}\n", hv);
  fmt::print("paranoid    perf_event_paranoid = {}\n", Or(info.perf_event_paranoid));
  fmt::print("kernel PMUs {}\n", PmuList(info));
  fmt::print("libpfm4     {}\n", LibpfmList(info));
  fmt::print("perf        {}\n", perf.ok ? fmt::format("counts {}", events)
                                         : fmt::format("cannot count {}: {}", events, perf.reason));
  fmt::print("valgrind    {}\n", valgrind.path.empty()
                                     ? valgrind.missing
                                     : fmt::format("{} at {}", valgrind.version, valgrind.path));
  fmt::print("vgcount     {}\n", vgcount_built ? "built (workgate's own Valgrind counting tool)"
                                               : "not built");
  fmt::print("pid ns      {}\n", PidNamespaceAvailable()
                                     ? "workloads run as pid 2 of a fresh PID namespace"
                                     : "not available (needs root or user namespaces)");
  for (const auto& r : resolutions) {
    fmt::print("resolution  {}: {}\n", r.backend, Describe(r));
  }
  if (code == kExitPass) {
    fmt::print("backend     auto chooses {}: {}\n", choice.backend, choice.reason);
  } else {
    fmt::print("backend     none can count: {}\n", choice.reason);
  }
  return code;
}

}  // namespace

void AddProbeCommand(CLI::App& app, CommandRunner* run) {
  struct Args {
    std::string json_path;
    bool json_stdout = false;
    std::string events = kDefaultPerfEvent;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("probe", "Tell what this machine can count, and why not");
  cmd->add_flag("--json", args->json_stdout, "Print the probe as JSON instead of text");
  cmd->add_option("--json-file", args->json_path, "Also write the JSON to FILE");
  cmd->add_option("--event", args->events, "The perf event to check (default instructions:u)");
  cmd->callback([args, run] {
    *run = [args] { return RunProbe(args->json_path, args->json_stdout, args->events); };
  });
}

}  // namespace workgate
