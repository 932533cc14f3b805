#pragma once
// Why a counter could not be opened, in words a person can act on. The
// perf_event_open(2) errors are terse and overloaded (ENOENT means "no PMU
// here" on a VM and "no such event" on bare metal), so the mapping reads the
// machine description to tell the cases apart.

#include <string>

#include "machine/system_info.h"

namespace workgate {

/// The reason perf_event_open failed with `errno_value` for `event` (a
/// libpfm4 name such as "instructions:u"), given what the machine is and
/// whether the caller is root (euid 0). Starts lower-case, no trailing
/// period, so callers can prefix it ("perf cannot count instructions:u: ...").
/// Cases: no core PMU under a hypervisor ("the hypervisor (KVM) does not
/// expose a PMU to this VM"), no core PMU on bare metal, an unknown event,
/// perf_event_paranoid refusals (with Debian's and Ubuntu's levels 3 and 4),
/// seccomp/containers for root, ENOSYS, EMFILE, EINVAL, EBUSY, ENOSPC, E2BIG,
/// and strerror for the rest.
std::string PerfOpenFailureReason(int errno_value, const std::string& event, const SystemInfo& info,
                                  bool is_root);

/// Why no hardware event counts where the kernel lists no CPU PMU: the
/// hypervisor that hides it where there is one ("the hypervisor (KVM) does
/// not expose a PMU to this VM, so hardware events such as `event` cannot be
/// counted; ..."), else the kernel or firmware. PerfOpenFailureReason gives
/// it for a hardware event that failed that way.
std::string NoCorePmuReason(const std::string& event, const SystemInfo& info);

/// The reason libpfm4 could not encode `event` (`pfm_error` is a PFM_ERR_*
/// value from pfm_get_os_event_encoding): pfm_strerror's text, what it means
/// for an event name, and where to find valid names.
std::string LibpfmEncodingFailureReason(int pfm_error, const std::string& event);

/// True for the kernel's software events ("task-clock", "perf::page-faults",
/// "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", with or without ":u"): they need
/// no PMU, so a missing PMU never explains their failure.
bool IsSoftwareEventName(const std::string& event);

}  // namespace workgate
