#include "machine/perf_reason.h"

#include <perfmon/pfmlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>

namespace workgate {
namespace {

const char kLibpfmAdvice[] =
    "run `workgate probe` to list the PMUs libpfm4 detects; event names are libpfm4's, "
    "e.g. instructions:u, cycles:u, perf::task-clock";

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Whether a libpfm4 event name asks for user space only ("instructions:u",
// "cycles:u=1"), which paranoid level 2 still allows for one's own processes.
bool IsUserOnly(const std::string& event) {
  bool user = false;
  size_t pos = event.find(':');
  while (pos != std::string::npos) {
    size_t next = event.find(':', pos + 1);
    std::string mod =
        Lower(event.substr(pos + 1, next == std::string::npos ? next : next - pos - 1));
    if (mod == "u" || mod == "u=1") user = true;
    if (mod == "k" || mod == "k=1" || mod == "h" || mod == "h=1") return false;
    pos = next;
  }
  return user;
}

std::string ParanoidReason(int level, const std::string& event) {
  const std::string fix = "as root: sysctl kernel.perf_event_paranoid=1";
  std::string head = "perf_event_paranoid=" + std::to_string(level) + " refuses unprivileged ";
  if (level >= 3) {
    // Upstream stops at 2; Debian's kernel patch adds 3 and Ubuntu's adds 4,
    // both meaning no perf_event_open at all without CAP_PERFMON.
    return head + "counting; " + fix + " (" + std::to_string(level) +
           " comes from a distribution kernel patch, Debian's 3 or Ubuntu's 4, and means no "
           "perf_event_open at all for users without CAP_PERFMON or CAP_SYS_ADMIN)";
  }
  if (IsUserOnly(event)) {
    // Level 2 only stops kernel-space and CPU-wide counting; a user-space
    // event on one's own process passes it, so something else said no.
    return head + "counting of kernel code and whole CPUs, but " + event +
           " counts user space only, so a seccomp filter or security module (as in "
           "containers) more likely blocks perf_event_open, or the process belongs to another "
           "user; " +
           fix + " rules paranoid out";
  }
  return head +
         "counting of kernel code and whole CPUs (count user space only with the :u "
         "modifier, e.g. instructions:u); " +
         fix;
}

std::string PermissionReason(int errno_value, const std::string& event, const SystemInfo& info,
                             bool is_root) {
  const std::optional<int> level = info.perf_event_paranoid.value;
  // EPERM also means an exclude_* privilege filter the PMU cannot apply
  // (perf_event_open(2), EPERM).
  const std::string filter =
      errno_value == EPERM ? ", or the PMU cannot apply the exclude_kernel/exclude_user filter " +
                                 event + " asks for"
                           : "";
  if (is_root) {
    std::string reason =
        "perf_event_open was refused even as root: a seccomp filter blocks it (Docker's "
        "default seccomp profile denies perf_event_open unless the container is given "
        "CAP_PERFMON or CAP_SYS_ADMIN, e.g. --cap-add PERFMON), root here lacks CAP_PERFMON "
        "(a user namespace or rootless container";
    if (level && *level >= 2) {
      reason += ", where perf_event_paranoid=" + std::to_string(*level) + " still applies";
    }
    return reason + "), or a security module (SELinux, lockdown) denies it" + filter;
  }
  if (!level) {
    return "permission denied and perf_event_paranoid is unknown (" +
           info.perf_event_paranoid.note + "); run as root or with CAP_PERFMON" + filter;
  }
  if (*level >= 2) return ParanoidReason(*level, event) + filter;
  return "permission denied although perf_event_paranoid=" + std::to_string(*level) +
         " allows unprivileged per-process counting: a seccomp filter or security module "
         "blocks perf_event_open (as in containers), or the process to count belongs to "
         "another user" +
         filter;
}

}  // namespace

// ENOENT, EOPNOTSUPP and ENODEV for a hardware event where no kernel PMU
// counts CPU events: the event was never the problem, the PMU is missing.
std::string NoCorePmuReason(const std::string& event, const SystemInfo& info) {
  const bool hypervisor = info.hypervisor_present.value.value_or(false);
  if (hypervisor) {
    std::string name = info.HypervisorName();
    return "the hypervisor" + (name.empty() ? "" : " (" + name + ")") +
           " does not expose a PMU to this VM, so hardware events such as " + event +
           " cannot be counted; count with Valgrind instead, or run on a host or instance "
           "type that passes a virtual PMU to its guests (QEMU/KVM: -cpu host,pmu=on)";
  }
  std::string reason =
      "this machine's kernel exposes no CPU PMU (no cpu or armv8_pmuv3 entry in "
      "/sys/bus/event_source/devices), so " +
      event +
      " cannot be counted: the kernel lacks the PMU driver or the firmware does not describe "
      "the PMU";
  if (!info.hypervisor_present.value) {
    reason += ", or a hypervisor that cannot be detected here hides it";
  }
  return reason + "; count with Valgrind instead";
}

bool IsSoftwareEventName(const std::string& event) {
  static const std::set<std::string> kSoftware = {
      "cpu-clock",      "task-clock",       "page-faults",
      "faults",         "context-switches", "cs",
      "cpu-migrations", "migrations",       "minor-faults",
      "major-faults",   "alignment-faults", "emulation-faults",
      "dummy",          "bpf-output",       "cgroup-switches",
  };
  std::string name = Lower(event);
  if (name.rfind("perf::", 0) == 0) name = name.substr(6);
  name = name.substr(0, name.find(':'));
  return kSoftware.count(name) > 0 || name.rfind("perf_count_sw_", 0) == 0;
}

std::string PerfOpenFailureReason(int errno_value, const std::string& event, const SystemInfo& info,
                                  bool is_root) {
  const bool hardware = !IsSoftwareEventName(event);
  // Only a PMU list we could read proves the absence of a core PMU.
  const bool no_core_pmu = info.kernel_pmus.value && !info.HasCorePmu();
  switch (errno_value) {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      if (hardware && no_core_pmu) return NoCorePmuReason(event, info);
      if (errno_value == ENOENT) {
        return (hardware ? "this PMU has no such event (" : "this kernel has no such event (") +
               event + "); " + kLibpfmAdvice;
      }
      if (errno_value == ENODEV) {
        return event + " needs a PMU feature this CPU does not have";
      }
      return "the PMU cannot count " + event +
             " as asked: it lacks a feature the event needs (sampling interrupts, a "
             "privilege-level filter, branch stacks)";
    case EACCES:
    case EPERM:
      return PermissionReason(errno_value, event, info, is_root);
    case ENOSYS:
      return "this kernel has no perf_event_open: it was built without CONFIG_PERF_EVENTS, "
             "or a seccomp filter (some container runtimes) answers ENOSYS for it";
    case EMFILE:
      return "too many open files: each counter takes a file descriptor and this process "
             "reached its limit (raise it with ulimit -n)";
    case EINVAL:
      return "the kernel rejected the attributes of " + event +
             " as invalid for this kernel or PMU (an event code, unit mask or modifier it "
             "does not accept, or a counter setup it cannot schedule)";
    case EBUSY:
      return "the counter is in use: another event has exclusive access to the PMU (an "
             "exclusive or pinned event of another user, or the NMI watchdog holding a "
             "counter: as root, sysctl kernel.nmi_watchdog=0)";
    case ENOSPC:
      return "the PMU has no free counter for " + event +
             " (older kernels say ENOSPC where newer ones say EINVAL; fewer simultaneous "
             "events help)";
    case E2BIG:
      return "the kernel (" + info.kernel_release.value.value_or("unknown release") +
             ") does not accept workgate's perf_event_attr: it was built against newer "
             "kernel headers and sets fields this kernel does not know";
    case ESRCH:
      return "the process to count no longer exists";
    default:
      return "perf_event_open failed for " + event + ": " + std::strerror(errno_value);
  }
}

std::string LibpfmEncodingFailureReason(int pfm_error, const std::string& event) {
  std::string reason = "libpfm4 cannot encode \"" + event + "\": " + pfm_strerror(pfm_error);
  switch (pfm_error) {
    case PFM_ERR_NOTFOUND:
      reason += " (no PMU that libpfm4 detects on this machine has an event of that name)";
      break;
    case PFM_ERR_UMASK:
      reason += " (the event needs a unit mask, or the one given does not exist)";
      break;
    case PFM_ERR_ATTR:
    case PFM_ERR_ATTR_VAL:
    case PFM_ERR_ATTR_SET:
      reason += " (a modifier after ':' is unknown, has a bad value or is given twice)";
      break;
    case PFM_ERR_FEATCOMB:
      reason += " (its modifiers cannot be combined)";
      break;
    case PFM_ERR_NOINIT:
      reason += " (libpfm4 did not initialise on this machine)";
      break;
    default:
      break;
  }
  return reason + "; " + kLibpfmAdvice;
}

}  // namespace workgate
