#include "probe/system_info.h"

#include <perfmon/pfmlib.h>
#include <poll.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <boost/process/child.hpp>
#include <boost/process/io.hpp>
#include <boost/process/pipe.hpp>
#include <boost/process/search_path.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "probe/cpu_identity.h"
#include "probe/proc_file.h"

namespace workgate {
namespace {

namespace bp = boost::process;
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

// Reads the child's stdout until EOF, for at most `deadline`.
bool ReadAllWithin(int fd, std::chrono::milliseconds deadline, std::string* out) {
  auto end = std::chrono::steady_clock::now() + deadline;
  char buf[512];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{fd, POLLIN, 0};
    int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0;
    out->append(buf, static_cast<size_t>(n));
  }
}

// Fills the two Valgrind fields of `info`.
void ReadValgrind(SystemInfo* info) {
  boost::filesystem::path exe = bp::search_path("valgrind");
  if (exe.empty()) {
    info->valgrind_path = Missing<std::string>("valgrind is not on PATH");
    info->valgrind_version = Missing<std::string>("valgrind is not on PATH");
    return;
  }
  info->valgrind_path = Have(exe.string());
  bp::pipe out;
  std::error_code ec;
  bp::child child(exe, "--version", bp::std_out > out, bp::std_err > bp::null,
                  bp::std_in < bp::null, ec);
  if (ec) {
    info->valgrind_version =
        Missing<std::string>("cannot run " + exe.string() + " --version: " + ec.message());
    return;
  }
  std::string text;
  bool complete = ReadAllWithin(out.native_source(), std::chrono::seconds(5), &text);
  if (!complete) child.terminate(ec);
  child.wait(ec);
  std::string version = Trim(text.substr(0, text.find('\n')));
  if (!complete) {
    info->valgrind_version = Missing<std::string>(exe.string() + " --version did not finish");
  } else if (child.exit_code() != 0 || version.rfind("valgrind-", 0) != 0) {
    info->valgrind_version = Missing<std::string>(exe.string() + " --version exited " +
                                                  std::to_string(child.exit_code()) +
                                                  " and printed \"" + version + "\"");
  } else {
    info->valgrind_version = Have(version);
  }
}

}  // namespace

const ValgrindLookup& LookUpValgrind() {
  static const ValgrindLookup lookup = [] {
    SystemInfo info;
    ReadValgrind(&info);
    return ValgrindLookup{info.valgrind_path, info.valgrind_version};
  }();
  return lookup;
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

SystemInfo GatherSystemInfo() {
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
  info.libpfm_pmus = ReadLibpfmPmus();
  info.valgrind_path = LookUpValgrind().path;
  info.valgrind_version = LookUpValgrind().version;
  return info;
}

}  // namespace workgate
