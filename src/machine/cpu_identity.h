#pragma once
// Who made this CPU, what it is, and whether it runs under a hypervisor.
// x86 asks the CPU itself (cpuid); other architectures read /proc/cpuinfo
// and /sys/hypervisor. The parsing is split into pure functions so tests can
// feed them text from machines we do not have.

#include <optional>
#include <string>

namespace workgate {

/// CPU vendor and model, each with why it is missing.
struct CpuIdentity {
  std::optional<std::string> vendor;  // "GenuineIntel", "AuthenticAMD", "ARM", ...
  std::string vendor_note;            // why vendor is missing
  std::optional<std::string> model;   // brand string or a readable core name
  std::string model_note;             // why model is missing
};

/// Hypervisor detection. `present` is nullopt where the architecture gives
/// no reliable way to tell (arm64 without /sys/hypervisor).
struct HypervisorIdentity {
  std::optional<bool> present;
  std::string present_note;           // how it was decided, or why it could not be
  std::optional<std::string> vendor;  // raw signature: "KVMKVMKVM", "Microsoft Hv"
  std::string vendor_note;            // why vendor is missing
};

/// Reads this machine's CPU identity (cpuid on x86, /proc/cpuinfo elsewhere).
CpuIdentity ReadCpuIdentity();

/// Reads this machine's hypervisor identity (cpuid leaves 1 and 0x40000000
/// on x86; /sys/hypervisor/type and the cpuinfo "hypervisor" flag elsewhere).
HypervisorIdentity ReadHypervisorIdentity();

/// Parses /proc/cpuinfo text of a non-x86 machine: a readable Arm core name
/// from "CPU implementer"/"CPU part" where the pair is known (e.g. "ARM
/// Neoverse-N1"), else its "model name", else the raw ids
/// ("implementer 0x41 part 0xd99"). Reads the first processor only.
CpuIdentity CpuIdentityFromCpuinfo(const std::string& cpuinfo);

/// A person's name for a cpuid hypervisor signature: "KVMKVMKVM" -> "KVM",
/// "Microsoft Hv" -> "Hyper-V", "VMwareVMware" -> "VMware", "xen" -> "Xen".
/// Unknown signatures come back trimmed; an empty one as "".
std::string HypervisorDisplayName(const std::string& vendor);

/// The CPU for a person to read: vendor then model, but the model alone where
/// it already starts with the vendor ("ARM" and "ARM Neoverse-N1" give "ARM
/// Neoverse-N1"; "implementer 0x00" and "implementer 0x00 part 0x051" give
/// the latter).
std::string CpuDisplayName(const std::string& vendor, const std::string& model);

/// The Arm core name for a MIDR implementer/part pair, or nullopt if unknown.
std::optional<std::string> ArmCoreName(unsigned implementer, unsigned part);

}  // namespace workgate
