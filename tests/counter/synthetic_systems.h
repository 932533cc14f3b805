#pragma once
// Machines described to the counting factory by name, for its tests and the
// program they run it in (testdata/choose_backend.cc): the description words
// the reason perf could not count; whether it counts is measured, except for
// the default event in a virtual machine whose kernel lists no CPU PMU
// (ChooseBackend does not try it there).

#include <string>
#include <vector>

#include "machine/system_info.h"

namespace workgate::testing {

/// "kvm-without-pmu": a KVM guest whose kernel exposes no CPU PMU.
/// "metal-without-pmu": no hypervisor, and a kernel that lists no CPU PMU.
/// "paranoid-3": bare metal with a CPU PMU and Debian's perf_event_paranoid=3.
/// Anything else: a machine of which nothing is known.
inline SystemInfo SyntheticSystem(const std::string& name) {
  SystemInfo info;
  info.architecture.value = "x86_64";
  if (name == "kvm-without-pmu") {
    info.hypervisor_present.value = true;
    info.hypervisor_vendor.value = "KVMKVMKVM";
    info.perf_event_paranoid.value = 2;
    info.kernel_pmus.value = std::vector<KernelPmu>{{"software", 1, false}};
  } else if (name == "metal-without-pmu") {
    info.hypervisor_present.value = false;
    info.perf_event_paranoid.value = 2;
    info.kernel_pmus.value = std::vector<KernelPmu>{{"software", 1, false}};
  } else if (name == "paranoid-3") {
    info.hypervisor_present.value = false;
    info.perf_event_paranoid.value = 3;
    info.kernel_pmus.value = std::vector<KernelPmu>{{"cpu", 4, true}, {"software", 1, false}};
  }
  return info;
}

}  // namespace workgate::testing
