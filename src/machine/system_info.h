#pragma once
// What this machine is, as far as counting instructions is concerned: CPU,
// kernel, hypervisor, perf_event_paranoid, the PMUs the kernel and libpfm4
// see, and Valgrind. Pure description: nothing here opens a counter. Each
// field that could not be read is empty and carries why, so `workgate probe`
// can say it and the perf error mapping (perf_reason.h) can reason with it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace workgate {

/// A value read from the machine, or why it could not be read.
template <typename T>
struct Probed {
  std::optional<T> value;
  std::string note;  // why `value` is missing; empty when it is set
};

/// A PMU the kernel exposes in /sys/bus/event_source/devices.
struct KernelPmu {
  std::string name;      // the directory name: "cpu", "software", "armv8_pmuv3_0"
  int type = -1;         // perf_event_attr.type from its `type` file; -1 if unreadable
  bool is_core = false;  // counts the CPU's own events (see IsCorePmu)
};

/// A PMU libpfm4 knows and detects as present on this host.
struct LibpfmPmu {
  std::string name;  // "amd64_fam19h_zen4", "perf", "arm_n1"
  std::string desc;
  std::string type;  // "core", "uncore", "os" (perf's generic events) or "unknown"
  int num_events = 0;
  bool is_default = false;  // libpfm4's default PMU for unqualified event names
};

struct SystemInfo {
  Probed<std::string> architecture;       // uname machine: "x86_64", "aarch64"
  Probed<std::string> kernel_release;     // uname release
  Probed<std::string> cpu_vendor;         // "GenuineIntel", "AuthenticAMD", "ARM"
  Probed<std::string> cpu_model;          // brand string or readable core name
  Probed<bool> hypervisor_present;        // unknown on arm64 without /sys/hypervisor
  Probed<std::string> hypervisor_vendor;  // raw signature: "KVMKVMKVM", "Microsoft Hv"
  Probed<int> perf_event_paranoid;
  Probed<std::vector<KernelPmu>> kernel_pmus;  // sorted by name
  Probed<std::vector<LibpfmPmu>> libpfm_pmus;  // present ones only, libpfm4's order
  Probed<std::string> valgrind_path;           // absolute, symlinks resolved
  Probed<std::string> valgrind_version;        // as printed: "valgrind-3.19.0"

  /// True when some kernel PMU counts CPU events (instructions, cycles).
  bool HasCorePmu() const;
  /// The hypervisor's readable name ("KVM", "Hyper-V"), "" when none is known.
  std::string HypervisorName() const;
};

/// Valgrind as found (see ResolveValgrind), and the `--version` of that very
/// file: looked up once per process, so every count of a run, both sides of
/// a comparison included, uses the same Valgrind (the probe and the Valgrind
/// backends share it). WORKGATE_VALGRIND overrides the PATH search.
struct ValgrindLookup {
  Probed<std::string> path;
  Probed<std::string> version;
};
const ValgrindLookup& LookUpValgrind();

/// Where Valgrind is: `override_path` (the value of WORKGATE_VALGRIND) when it
/// is not empty, else the first executable `valgrind` in `path_list` (a PATH
/// value), as an absolute path with every symlink resolved. Without one, the
/// note names what was searched and how to fix it (a valgrind that exists in
/// /usr/bin or /usr/local/bin but not on this PATH is named). A wrapper
/// script with its launcher beside it as `<path>.bin` (Debian's, which
/// exports LD_LIBRARY_PATH=/usr/lib/debug into the measured program) gives
/// way to that launcher. Runs nothing.
Probed<std::string> ResolveValgrind(const std::string& override_path, const std::string& path_list);

/// The first line `exe --version` prints ("valgrind-3.19.0"), or why not: it
/// could not start, failed, printed something else, or ran past
/// `timeout_seconds`, when it is killed with everything it started.
Probed<std::string> ReadValgrindVersion(const std::string& exe, double timeout_seconds);

/// Valgrind's name for this machine's platform, as in its tools' file names
/// (`memcheck-amd64-linux`): "amd64" on x86_64, "arm64" on aarch64, else
/// uname's machine as it is; "" when uname fails.
std::string ValgrindPlatform();

/// Whether GatherSystemInfo lists the PMUs libpfm4 detects. Initialising
/// libpfm4 takes about 2 ms of CPU (it checks every table it has), so only
/// `workgate probe`, which shows them, lists them; a count leaves
/// `libpfm_pmus` unread and initialises libpfm4 only to encode an event.
enum class LibpfmPmus { kListed, kNotListed };

/// Reads everything above from this machine. Runs `valgrind --version` (no
/// shell, 5 s limit) and nothing else, and that only where it did not run
/// before for the same files (machine/valgrind_version.h).
SystemInfo GatherSystemInfo(LibpfmPmus libpfm);

/// Whether a kernel PMU counts the CPU's own events. By name: "cpu" (x86
/// and most others), "cpu_core"/"cpu_atom" (Intel hybrid), "armv8_*" and
/// "armv7_*" (Arm's PMUv3 driver: "armv8_pmuv3_0", "armv8_cortex_a53");
/// otherwise a PMU whose directory lists `cpus` (the arm_pmu framework's
/// per-core PMUs, e.g. "apple_firestorm_pmu"). Uncore PMUs list `cpumask`
/// instead and are not core PMUs.
bool IsCorePmu(const std::string& name, bool dir_has_cpus_file);

/// Reads /sys/bus/event_source/devices (or `devices_dir`, for tests).
Probed<std::vector<KernelPmu>> ReadKernelPmus(
    const std::string& devices_dir = "/sys/bus/event_source/devices");

/// Parses /proc/sys/kernel/perf_event_paranoid content ("2\n").
std::optional<int> ParseParanoid(const std::string& text);

/// The probe as JSON. Field names are stable: architecture, kernel_release,
/// cpu_vendor, cpu_model, hypervisor_present, hypervisor_vendor,
/// hypervisor_name, perf_event_paranoid, core_pmu_present, kernel_pmus[]
/// {name, type, is_core}, libpfm_pmus[] {name, desc, type, num_events,
/// is_default}, valgrind_path, valgrind_version; a missing value is null and
/// `notes` maps its field name to why.
nlohmann::json ToJson(const SystemInfo& info);

}  // namespace workgate
