#include "machine/cpu_identity.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <utility>

#include "machine/proc_file.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define WORKGATE_HAVE_CPUID 1
#endif

namespace workgate {
namespace {

using probe_internal::ReadProcFile;
using probe_internal::Trim;

// MIDR implementer codes, as the kernel prints them in "CPU implementer"
// (arch/arm64/include/asm/cputype.h).
const std::map<unsigned, const char*>& ArmImplementers() {
  static const std::map<unsigned, const char*> kNames = {
      {0x41, "ARM"},       {0x42, "Broadcom"},  {0x43, "Cavium"}, {0x46, "Fujitsu"},
      {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},    {0x50, "APM"},    {0x51, "Qualcomm"},
      {0x61, "Apple"},     {0x6d, "Microsoft"}, {0xc0, "Ampere"},
  };
  return kNames;
}

// The cores found on CI runners, cloud instances and developer machines.
const std::map<std::pair<unsigned, unsigned>, const char*>& ArmParts() {
  static const std::map<std::pair<unsigned, unsigned>, const char*> kNames = {
      {{0x41, 0xd03}, "Cortex-A53"},
      {{0x41, 0xd04}, "Cortex-A35"},
      {{0x41, 0xd05}, "Cortex-A55"},
      {{0x41, 0xd07}, "Cortex-A57"},
      {{0x41, 0xd08}, "Cortex-A72"},
      {{0x41, 0xd09}, "Cortex-A73"},
      {{0x41, 0xd0a}, "Cortex-A75"},
      {{0x41, 0xd0b}, "Cortex-A76"},
      {{0x41, 0xd0c}, "Neoverse-N1"},
      {{0x41, 0xd0d}, "Cortex-A77"},
      {{0x41, 0xd40}, "Neoverse-V1"},
      {{0x41, 0xd41}, "Cortex-A78"},
      {{0x41, 0xd44}, "Cortex-X1"},
      {{0x41, 0xd46}, "Cortex-A510"},
      {{0x41, 0xd47}, "Cortex-A710"},
      {{0x41, 0xd48}, "Cortex-X2"},
      {{0x41, 0xd49}, "Neoverse-N2"},
      {{0x41, 0xd4a}, "Neoverse-E1"},
      {{0x41, 0xd4b}, "Cortex-A78C"},
      {{0x41, 0xd4f}, "Neoverse-V2"},
      {{0x41, 0xd80}, "Cortex-A520"},
      {{0x41, 0xd81}, "Cortex-A720"},
      {{0x41, 0xd82}, "Cortex-X4"},
      {{0x41, 0xd84}, "Neoverse-V3"},
      {{0x41, 0xd8e}, "Neoverse-N3"},
      {{0x43, 0x0a1}, "ThunderX"},
      {{0x43, 0x0af}, "ThunderX2"},
      {{0x46, 0x001}, "A64FX"},
      {{0x48, 0xd01}, "TSV110 (Kunpeng 920)"},
      {{0x51, 0xc00}, "Falkor"},
      {{0x61, 0x022}, "M1 Icestorm"},
      {{0x61, 0x023}, "M1 Firestorm"},
      {{0x61, 0x032}, "M2 Blizzard"},
      {{0x61, 0x033}, "M2 Avalanche"},
      {{0xc0, 0xac3}, "AmpereOne"},
  };
  return kNames;
}

std::string Hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

// The value of the first "key : value" line of /proc/cpuinfo with this key.
std::optional<std::string> CpuinfoField(const std::string& cpuinfo, const std::string& key) {
  std::istringstream lines(cpuinfo);
  std::string line;
  while (std::getline(lines, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (Trim(line.substr(0, colon)) == key) return Trim(line.substr(colon + 1));
  }
  return std::nullopt;
}

std::optional<unsigned> ParseHex(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  try {
    return static_cast<unsigned>(std::stoul(*text, nullptr, 0));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

#ifdef WORKGATE_HAVE_CPUID
// Twelve bytes of a vendor signature from three registers, in the given order.
std::string Signature(uint32_t r1, uint32_t r2, uint32_t r3) {
  char text[13] = {};
  std::memcpy(text, &r1, 4);
  std::memcpy(text + 4, &r2, 4);
  std::memcpy(text + 8, &r3, 4);
  return std::string(text, 12);
}
#endif

}  // namespace

std::optional<std::string> ArmCoreName(unsigned implementer, unsigned part) {
  auto it = ArmParts().find({implementer, part});
  if (it == ArmParts().end()) return std::nullopt;
  return std::string(it->second);
}

CpuIdentity CpuIdentityFromCpuinfo(const std::string& cpuinfo) {
  CpuIdentity id;
  // Keep to the first processor block: a big.LITTLE machine lists several
  // cores, and the first is the one the kernel booted on.
  std::string first = cpuinfo.substr(0, cpuinfo.find("\n\n"));
  std::optional<unsigned> implementer = ParseHex(CpuinfoField(first, "CPU implementer"));
  std::optional<unsigned> part = ParseHex(CpuinfoField(first, "CPU part"));
  std::optional<std::string> model_name = CpuinfoField(first, "model name");
  std::optional<std::string> vendor_id = CpuinfoField(first, "vendor_id");

  if (implementer) {
    auto it = ArmImplementers().find(*implementer);
    id.vendor = it != ArmImplementers().end() ? std::string(it->second)
                                              : "implementer " + Hex(*implementer);
  } else if (vendor_id) {
    id.vendor = *vendor_id;
  } else {
    id.vendor_note = "/proc/cpuinfo has no \"CPU implementer\" or \"vendor_id\" line";
  }

  std::optional<std::string> core;
  if (implementer && part) core = ArmCoreName(*implementer, *part);
  if (core) {
    id.model = id.vendor.value_or("") + " " + *core;
  } else if (model_name && !model_name->empty()) {
    id.model = *model_name;
  } else if (implementer && part) {
    id.model = "implementer " + Hex(*implementer) + " part " + Hex(*part);
  } else {
    id.model_note = "/proc/cpuinfo has no \"model name\" or \"CPU part\" line";
  }
  return id;
}

std::string CpuDisplayName(const std::string& vendor, const std::string& model) {
  if (model == vendor || model.rfind(vendor + " ", 0) == 0) return model;
  return vendor + " " + model;
}

std::string HypervisorDisplayName(const std::string& vendor) {
  static const std::map<std::string, std::string> kNames = {
      {"KVMKVMKVM", "KVM"},       {"Linux KVM Hv", "KVM"},       {"Microsoft Hv", "Hyper-V"},
      {"VMwareVMware", "VMware"}, {"XenVMMXenVMM", "Xen"},       {"xen", "Xen"},
      {"bhyve bhyve", "bhyve"},   {"TCGTCGTCGTCG", "QEMU TCG"},  {"VBoxVBoxVBox", "VirtualBox"},
      {"ACRNACRNACRN", "ACRN"},   {"lrpepyh  vr", "Parallels"},  {"QNXQVMBSQG", "QNX"},
      {"Jailhouse", "Jailhouse"}, {"EVMMEVMMEVMM", "Intel KGT"},
  };
  std::string trimmed = Trim(vendor);
  auto it = kNames.find(trimmed);
  return it != kNames.end() ? it->second : trimmed;
}

CpuIdentity ReadCpuIdentity() {
#ifdef WORKGATE_HAVE_CPUID
  CpuIdentity id;
  unsigned a, b, c, d;
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    id.vendor = Signature(b, d, c);  // leaf 0 spells the vendor in EBX, EDX, ECX
  } else {
    id.vendor_note = "cpuid leaf 0 is not available";
  }
  // The brand string: leaves 0x80000002..4, 48 bytes, padded with spaces.
  // unsigned: GCC's cpuid.h returns unsigned, clang's int.
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000, nullptr)) >= 0x80000004u) {
    char brand[49] = {};
    for (unsigned i = 0; i < 3; ++i) {
      uint32_t regs[4];
      __get_cpuid(0x80000002 + i, &regs[0], &regs[1], &regs[2], &regs[3]);
      std::memcpy(brand + 16 * i, regs, sizeof regs);
    }
    id.model = Trim(brand);
  }
  if (!id.model || id.model->empty()) {
    // Old or emulated CPUs without a brand string: fall back to the kernel's view.
    std::string why;
    std::optional<std::string> text = ReadProcFile("/proc/cpuinfo", &why);
    std::optional<std::string> name = text ? CpuinfoField(*text, "model name") : std::nullopt;
    id.model = name;
    if (!name) id.model_note = text ? "no cpuid brand string and no \"model name\" line" : why;
  }
  return id;
#else
  std::string why;
  std::optional<std::string> text = ReadProcFile("/proc/cpuinfo", &why);
  if (!text) return CpuIdentity{std::nullopt, why, std::nullopt, why};
  return CpuIdentityFromCpuinfo(*text);
#endif
}

HypervisorIdentity ReadHypervisorIdentity() {
  HypervisorIdentity hv;
#ifdef WORKGATE_HAVE_CPUID
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) {
    hv.present_note = "cpuid leaf 1 is not available";
    hv.vendor_note = hv.present_note;
    return hv;
  }
  // CPUID.1:ECX bit 31 is reserved for hypervisors to announce themselves.
  hv.present = (c >> 31) & 1;
  hv.present_note = "cpuid leaf 1, ECX bit 31";
  if (!*hv.present) {
    hv.vendor_note = "no hypervisor";
    return hv;
  }
  // Leaf 0x40000000 lies outside the range __get_cpuid checks; with the
  // hypervisor bit set it is defined (vendor in EBX, ECX, EDX).
  __cpuid(0x40000000, a, b, c, d);
  std::string vendor = Signature(b, c, d);
  hv.vendor = std::string(vendor.c_str());  // drop NUL padding, keep the rest raw
  while (!hv.vendor->empty() && hv.vendor->back() == ' ') hv.vendor->pop_back();
  if (hv.vendor->empty()) {
    hv.vendor.reset();
    hv.vendor_note = "cpuid leaf 0x40000000 gives an empty signature";
  }
  return hv;
#else
  std::string why;
  if (std::optional<std::string> type = ReadProcFile("/sys/hypervisor/type", &why)) {
    hv.present = true;
    hv.present_note = "/sys/hypervisor/type";
    hv.vendor = Trim(*type);
    return hv;
  }
  std::optional<std::string> cpuinfo = ReadProcFile("/proc/cpuinfo", &why);
  std::optional<std::string> flags = cpuinfo ? CpuinfoField(*cpuinfo, "flags") : std::nullopt;
  if (flags && (" " + *flags + " ").find(" hypervisor ") != std::string::npos) {
    hv.present = true;
    hv.present_note = "the \"hypervisor\" flag in /proc/cpuinfo";
    hv.vendor_note = "the hypervisor does not name itself here";
    return hv;
  }
  // arm64 has no architectural "running under a hypervisor" bit visible to EL0.
  hv.present_note =
      "cannot tell on this architecture: no /sys/hypervisor/type and no "
      "\"hypervisor\" cpu flag";
  hv.vendor_note = hv.present_note;
  return hv;
#endif
}

}  // namespace workgate
