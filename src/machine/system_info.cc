#include "machine/system_info.h"

#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "launch/launch.h"
#include "machine/cpu_identity.h"
#include "machine/proc_file.h"
#include "machine/valgrind_version.h"
#include "util/paths.h"
#include "util/text.h"

extern char** environ;

namespace workgate {
namespace {

namespace fs = std::filesystem;
using probe_internal::ReadProcFile;
using probe_internal::Trim;

template <typename T>
Probed<T> Missing(std::string why) {
  return Probed<T>{std::nullopt, std::move(why)};
}

template <typename T>
Probed<T> Have(T value) {
  return Probed<T>{std::move(value), ""};
}

const char* PfmTypeName(pfm_pmu_type_t type) {
  switch (type) {
    case PFM_PMU_TYPE_CORE:
      return "core";
    case PFM_PMU_TYPE_UNCORE:
      return "uncore";
    case PFM_PMU_TYPE_OS_GENERIC:
      return "os";
    default:
      return "unknown";
  }
}

Probed<std::vector<LibpfmPmu>> ReadLibpfmPmus() {
  // pfm_initialize is idempotent: later calls return the first call's result,
  // so the counting backend may call it again.
  int ret = pfm_initialize();
  if (ret != PFM_SUCCESS) {
    return Missing<std::vector<LibpfmPmu>>(std::string("libpfm4 failed to initialise: ") +
                                           pfm_strerror(ret));
  }
  std::vector<LibpfmPmu> pmus;
  for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; ++pmu) {
    pfm_pmu_info_t pinfo;
    std::memset(&pinfo, 0, sizeof pinfo);
    pinfo.size = sizeof pinfo;
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(pmu), &pinfo) != PFM_SUCCESS) continue;
    if (!pinfo.is_present) continue;
    pmus.push_back(LibpfmPmu{pinfo.name ? pinfo.name : "", pinfo.desc ? pinfo.desc : "",
                             PfmTypeName(pinfo.type), pinfo.nevents, pinfo.is_dfl != 0});
  }
  return Have(std::move(pmus));
}

// A decimal integer, alone on its line, as /proc and /sys files hold them.
std::optional<int> ParseInt(const std::string& text) {
  std::string t = Trim(text);
  if (t.empty()) return std::nullopt;
  size_t used = 0;
  try {
    int v = std::stoi(t, &used, 10);
    if (used != t.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// "/usr/local/bin, /usr/bin" from "/usr/local/bin:/usr/bin"; an empty entry
// is the current directory, as execvp takes it.
std::string ListedDirectories(const std::string& path_list) {
  std::string out;
  size_t from = 0;
  for (;;) {
    size_t colon = path_list.find(':', from);
    std::string dir = path_list.substr(from, colon == std::string::npos ? colon : colon - from);
    out += (out.empty() ? "" : ", ") + (dir.empty() ? std::string(".") : dir);
    if (colon == std::string::npos) return out;
    from = colon + 1;
  }
}

// Debian's /usr/bin/valgrind is a shell script that exports
// LD_LIBRARY_PATH=/usr/lib/debug and GLIBCXX_FORCE_NEW=1 and then execs
// /usr/bin/valgrind.bin: the measured program would run with a loader path
// and an allocator setting that workgate neither chose nor fingerprints,
// and every run would pay for a shell. Where `path` is such a script (it
// starts with "#!") and `path`.bin is an ELF executable, that launcher is
// the Valgrind to run; otherwise `path` itself.
std::string BehindWrapper(const std::string& path) {
  auto starts_with = [](const std::string& file, std::string_view magic) {
    FILE* f = fopen(file.c_str(), "rbe");
    if (f == nullptr) return false;
    char head[8] = {};
    const size_t n = fread(head, 1, std::min(magic.size(), sizeof head), f);
    fclose(f);
    return std::string_view(head, n) == magic;
  };
  const std::string launcher = path + ".bin";
  struct stat st;
  if (stat(launcher.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      access(launcher.c_str(), X_OK) != 0) {
    return path;
  }
  return starts_with(path, "#!") && starts_with(launcher,
                                                "\x7f"
                                                "ELF")
             ? launcher
             : path;
}

}  // namespace

Probed<std::string> ResolveValgrind(const std::string& override_path,
                                    const std::string& path_list) {
  auto executable = [](const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
  };
  if (!override_path.empty()) {
    if (!executable(override_path)) {
      return Missing<std::string>("WORKGATE_VALGRIND=" + override_path +
                                  " is not an executable file");
    }
    return Have(BehindWrapper(RealPath(override_path)));
  }
  std::string found = path_list.empty() ? "" : SearchPath("valgrind", path_list);
  if (!found.empty()) return Have(BehindWrapper(RealPath(found)));
  std::string why = path_list.empty()
                        ? "valgrind is not on PATH (PATH is empty)"
                        : "valgrind is not on PATH (searched " + ListedDirectories(path_list) + ")";
  for (const char* dir : {"/usr/bin", "/usr/local/bin"}) {
    const std::string elsewhere = std::string(dir) + "/valgrind";
    if (executable(elsewhere)) {
      return Missing<std::string>(why + ", but " + elsewhere + " exists: add " + dir +
                                  " to PATH, or set WORKGATE_VALGRIND=" + elsewhere);
    }
  }
  return Missing<std::string>(why +
                              ": install it (Debian package valgrind; ci/setup does), "
                              "or set WORKGATE_VALGRIND to its path");
}

Probed<std::string> ReadValgrindVersion(const std::string& exe, double timeout_seconds) {
  // Through workgate's own launcher, not a child of its own: contained (what
  // it starts goes with it), ended at the deadline, its output bounded, and
  // known to the escapee scan. Its own PID namespace and pinned ASLR would
  // only cost time: nothing here is counted.
  LaunchSpec spec;
  spec.argv = {exe, "--version"};
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) spec.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  spec.no_aslr = false;
  spec.timeout_seconds = timeout_seconds;
  const LaunchResult r = Launch(spec);
  const std::string version = Trim(r.out.substr(0, r.out.find('\n')));
  if (!r.started) return Missing<std::string>("cannot run " + exe + " --version: " + r.start_error);
  if (r.timed_out) {
    return Missing<std::string>(exe + " --version did not finish: " + r.Describe(timeout_seconds));
  }
  if (!r.ok() || version.rfind("valgrind-", 0) != 0) {
    // Valgrind says why it cannot start on stderr, its last line the reason
    // ("valgrind: failed to start tool 'none' for platform 'amd64-linux'").
    std::string said = Trim(r.err);
    said = ShortenBytes(said.substr(said.find_last_of('\n') + 1), 200);
    return Missing<std::string>(exe + " --version " + r.Describe() + " and printed \"" + version +
                                "\"" + (said.empty() ? "" : "; on stderr: \"" + said + "\""));
  }
  return Have(version);
}

const ValgrindLookup& LookUpValgrind() {
  static const ValgrindLookup lookup = [] {
    const char* override_path = getenv("WORKGATE_VALGRIND");
    const char* path_list = getenv("PATH");
    ValgrindLookup v;
    v.path = ResolveValgrind(override_path ? override_path : "", path_list ? path_list : "");
    // The version of the very file that will count, not of whatever a later
    // PATH search would find; recalled where the same files printed it
    // before (a count of a short program spends a sixtieth of its time
    // asking).
    std::string why;
    const std::string cache = CacheDirectory(&why);
    v.version = v.path.value ? RememberedValgrindVersion(*v.path.value,
                                                         cache.empty() ? "" : cache + "-probed", 5)
                             : Missing<std::string>(v.path.note);
    return v;
  }();
  return lookup;
}

std::string ValgrindPlatform() {
  utsname host;
  if (uname(&host) != 0) return "";
  const std::string machine = host.machine;
  return machine == "x86_64" ? "amd64" : machine == "aarch64" ? "arm64" : machine;
}

bool SystemInfo::HasCorePmu() const {
  if (!kernel_pmus.value) return false;
  return std::any_of(kernel_pmus.value->begin(), kernel_pmus.value->end(),
                     [](const KernelPmu& p) { return p.is_core; });
}

std::string SystemInfo::HypervisorName() const {
  return hypervisor_vendor.value ? HypervisorDisplayName(*hypervisor_vendor.value) : "";
}

bool IsCorePmu(const std::string& name, bool dir_has_cpus_file) {
  if (name == "cpu" || name == "cpu_core" || name == "cpu_atom") return true;
  if (name.rfind("armv8_", 0) == 0 || name.rfind("armv7_", 0) == 0) return true;
  return dir_has_cpus_file;
}

Probed<std::vector<KernelPmu>> ReadKernelPmus(const std::string& devices_dir) {
  std::error_code ec;
  fs::directory_iterator it(devices_dir, ec);
  if (ec) {
    // No such directory: a kernel built without CONFIG_PERF_EVENTS, or no sysfs.
    return Missing<std::vector<KernelPmu>>("cannot list " + devices_dir + ": " + ec.message());
  }
  std::vector<KernelPmu> pmus;
  for (const fs::directory_entry& entry : it) {
    KernelPmu pmu;
    pmu.name = entry.path().filename().string();
    std::string why;
    if (std::optional<std::string> type = ReadProcFile(entry.path() / "type", &why)) {
      pmu.type = ParseInt(*type).value_or(-1);
    }
    pmu.is_core = IsCorePmu(pmu.name, fs::exists(entry.path() / "cpus", ec));
    pmus.push_back(std::move(pmu));
  }
  std::sort(pmus.begin(), pmus.end(),
            [](const KernelPmu& a, const KernelPmu& b) { return a.name < b.name; });
  return Have(std::move(pmus));
}

std::optional<int> ParseParanoid(const std::string& text) { return ParseInt(text); }

SystemInfo GatherSystemInfo(LibpfmPmus libpfm) {
  SystemInfo info;
  utsname u;
  if (::uname(&u) == 0) {
    info.architecture = Have<std::string>(u.machine);
    info.kernel_release = Have<std::string>(u.release);
  } else {
    std::string why = std::string("uname failed: ") + std::strerror(errno);
    info.architecture = Missing<std::string>(why);
    info.kernel_release = Missing<std::string>(why);
  }

  CpuIdentity cpu = ReadCpuIdentity();
  info.cpu_vendor = Probed<std::string>{cpu.vendor, cpu.vendor ? "" : cpu.vendor_note};
  info.cpu_model = Probed<std::string>{cpu.model, cpu.model ? "" : cpu.model_note};
  HypervisorIdentity hv = ReadHypervisorIdentity();
  info.hypervisor_present = Probed<bool>{hv.present, hv.present ? "" : hv.present_note};
  info.hypervisor_vendor = Probed<std::string>{hv.vendor, hv.vendor ? "" : hv.vendor_note};

  const std::string paranoid_path = "/proc/sys/kernel/perf_event_paranoid";
  std::string why;
  if (std::optional<std::string> text = ReadProcFile(paranoid_path, &why)) {
    std::optional<int> level = ParseParanoid(*text);
    info.perf_event_paranoid =
        level ? Have(*level)
              : Missing<int>(paranoid_path + " holds \"" + Trim(*text) + "\", not a number");
  } else {
    // The file exists whenever the kernel has perf events; its absence says a lot.
    info.perf_event_paranoid =
        Missing<int>(why + " (a kernel without perf events, or /proc not mounted)");
  }

  info.kernel_pmus = ReadKernelPmus();
  info.libpfm_pmus =
      libpfm == LibpfmPmus::kListed
          ? ReadLibpfmPmus()
          : Missing<std::vector<LibpfmPmu>>("not listed: only `workgate probe` lists them");
  info.valgrind_path = LookUpValgrind().path;
  info.valgrind_version = LookUpValgrind().version;
  return info;
}

}  // namespace workgate
