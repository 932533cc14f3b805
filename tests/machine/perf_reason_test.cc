#include "machine/perf_reason.h"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace workgate {
namespace {

::testing::AssertionResult ReasonContains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" lacks \"" << part << "\"";
}

::testing::AssertionResult Lacks(const std::string& text, const std::string& part) {
  if (text.find(part) == std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" contains \"" << part << "\"";
}

// What this very machine looks like: a KVM guest with only software PMUs.
SystemInfo Vm(const std::string& vendor = "KVMKVMKVM") {
  SystemInfo info;
  info.architecture.value = "x86_64";
  info.kernel_release.value = "6.1.0-18-amd64";
  info.hypervisor_present.value = true;
  info.hypervisor_vendor.value = vendor;
  info.perf_event_paranoid.value = 2;
  info.kernel_pmus.value = std::vector<KernelPmu>{{"breakpoint", 5, false},
                                                  {"msr", 9, false},
                                                  {"software", 1, false},
                                                  {"tracepoint", 2, false}};
  return info;
}

SystemInfo BareMetal(int paranoid = 2) {
  SystemInfo info = Vm();
  info.hypervisor_present.value = false;
  info.hypervisor_vendor = {std::nullopt, "no hypervisor"};
  info.perf_event_paranoid.value = paranoid;
  info.kernel_pmus.value->push_back({"cpu", 4, true});
  return info;
}

const char kHypervisorReason[] = "the hypervisor (KVM) does not expose a PMU to this VM";

TEST(PerfOpenFailureReason, HardwareEventOnAVmWithoutPmuBlamesTheHypervisor) {
  for (int e : {ENOENT, EOPNOTSUPP, ENODEV}) {
    EXPECT_TRUE(
        ReasonContains(PerfOpenFailureReason(e, "instructions:u", Vm(), true), kHypervisorReason))
        << e;
    EXPECT_TRUE(
        ReasonContains(PerfOpenFailureReason(e, "instructions:u", Vm(), false), kHypervisorReason))
        << e;
  }
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(ENOENT, "cycles:u", Vm("Microsoft Hv"), false),
                             "the hypervisor (Hyper-V) does not expose a PMU to this VM"));
  SystemInfo unnamed = Vm();
  unnamed.hypervisor_vendor = {std::nullopt, "empty signature"};
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(ENOENT, "cycles:u", unnamed, false),
                             "the hypervisor does not expose a PMU to this VM"));
}

TEST(PerfOpenFailureReason, NoCorePmuOnBareMetalBlamesTheKernel) {
  SystemInfo info = BareMetal();
  info.kernel_pmus.value->pop_back();  // drop "cpu"
  std::string reason = PerfOpenFailureReason(ENOENT, "instructions:u", info, false);
  EXPECT_TRUE(ReasonContains(reason, "this machine's kernel exposes no CPU PMU"));
  EXPECT_TRUE(Lacks(reason, "hypervisor"));
  // arm64: whether a hypervisor is there cannot be told, so say it may be.
  info.hypervisor_present = {std::nullopt, "cannot tell on this architecture"};
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(ENODEV, "instructions:u", info, false),
                             "a hypervisor that cannot be detected here"));
}

TEST(PerfOpenFailureReason, UnknownEventWithACorePmu) {
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(ENOENT, "ref-cycles:u", BareMetal(), false),
                             "this PMU has no such event (ref-cycles:u)"));
  // A VM that does pass its PMU through is not blamed on the hypervisor.
  SystemInfo vm_with_pmu = Vm();
  vm_with_pmu.kernel_pmus.value->push_back({"cpu", 4, true});
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(ENOENT, "ref-cycles:u", vm_with_pmu, false),
                             "this PMU has no such event (ref-cycles:u)"));
  EXPECT_TRUE(
      ReasonContains(PerfOpenFailureReason(ENODEV, "cycles:u:precise=3", BareMetal(), false),
                     "needs a PMU feature this CPU does not have"));
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(EOPNOTSUPP, "cycles:u", BareMetal(), false),
                             "lacks a feature"));
}

TEST(PerfOpenFailureReason, SoftwareEventsAreNeverBlamedOnAMissingPmu) {
  std::string reason = PerfOpenFailureReason(ENOENT, "perf::task-clock", Vm(), false);
  EXPECT_TRUE(Lacks(reason, "hypervisor"));
  EXPECT_TRUE(ReasonContains(reason, "no such event (perf::task-clock)"));
  EXPECT_TRUE(IsSoftwareEventName("task-clock"));
  EXPECT_TRUE(IsSoftwareEventName("perf::PERF_COUNT_SW_CONTEXT_SWITCHES:u"));
  EXPECT_TRUE(IsSoftwareEventName("Page-Faults:u"));
  EXPECT_FALSE(IsSoftwareEventName("instructions:u"));
  EXPECT_FALSE(IsSoftwareEventName("perf::cycles"));
}

TEST(PerfOpenFailureReason, ParanoidRefusesAnUnprivilegedUser) {
  for (int e : {EACCES, EPERM}) {
    std::string reason = PerfOpenFailureReason(e, "instructions", BareMetal(2), false);
    EXPECT_TRUE(ReasonContains(reason, "perf_event_paranoid=2 refuses unprivileged counting"));
    EXPECT_TRUE(ReasonContains(reason, "as root: sysctl kernel.perf_event_paranoid=1"));
    EXPECT_TRUE(ReasonContains(reason, ":u"));
  }
  // Level 2 lets a user count user space of their own processes.
  std::string user_only = PerfOpenFailureReason(EACCES, "instructions:u", BareMetal(2), false);
  EXPECT_TRUE(ReasonContains(user_only, "perf_event_paranoid=2 refuses unprivileged counting"));
  EXPECT_TRUE(ReasonContains(user_only, "seccomp"));
  EXPECT_TRUE(ReasonContains(user_only, "as root: sysctl kernel.perf_event_paranoid=1"));
  EXPECT_TRUE(
      Lacks(PerfOpenFailureReason(EACCES, "instructions:u:k", BareMetal(2), false), "seccomp"));
  for (int level : {3, 4}) {
    std::string reason = PerfOpenFailureReason(EACCES, "instructions:u", BareMetal(level), false);
    EXPECT_TRUE(ReasonContains(
        reason, "perf_event_paranoid=" + std::to_string(level) + " refuses unprivileged counting"));
    EXPECT_TRUE(ReasonContains(reason, "as root: sysctl kernel.perf_event_paranoid=1"));
    EXPECT_TRUE(ReasonContains(reason, "Debian"));
    EXPECT_TRUE(ReasonContains(reason, "Ubuntu"));
    EXPECT_TRUE(ReasonContains(reason, "no perf_event_open at all"));
  }
}

TEST(PerfOpenFailureReason, PermissiveParanoidPointsElsewhere) {
  std::string reason = PerfOpenFailureReason(EACCES, "instructions:u", BareMetal(1), false);
  EXPECT_TRUE(Lacks(reason, "refuses"));
  EXPECT_TRUE(ReasonContains(reason, "seccomp"));
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(EPERM, "instructions:u", BareMetal(-1), false),
                             "exclude_kernel"));
  SystemInfo unknown = BareMetal();
  unknown.perf_event_paranoid = {std::nullopt, "cannot read it"};
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(EACCES, "instructions:u", unknown, false),
                             "perf_event_paranoid is unknown (cannot read it)"));
}

TEST(PerfOpenFailureReason, RootIsRefusedByAFilterNotByParanoid) {
  for (int paranoid : {2, 4}) {
    std::string reason = PerfOpenFailureReason(EACCES, "instructions:u", BareMetal(paranoid), true);
    EXPECT_TRUE(ReasonContains(reason, "even as root"));
    EXPECT_TRUE(ReasonContains(reason, "seccomp"));
    EXPECT_TRUE(ReasonContains(reason, "Docker"));
    EXPECT_TRUE(Lacks(reason, "refuses unprivileged"));
  }
}

TEST(PerfOpenFailureReason, OtherErrnos) {
  SystemInfo info = BareMetal();
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(ENOSYS, "instructions:u", info, true),
                             "CONFIG_PERF_EVENTS"));
  EXPECT_TRUE(
      ReasonContains(PerfOpenFailureReason(ENOSYS, "instructions:u", info, true), "seccomp"));
  EXPECT_TRUE(
      ReasonContains(PerfOpenFailureReason(EMFILE, "instructions:u", info, true), "ulimit -n"));
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(EINVAL, "r00c0:u", info, true),
                             "attributes of r00c0:u as invalid"));
  EXPECT_TRUE(
      ReasonContains(PerfOpenFailureReason(EBUSY, "instructions:u", info, true), "NMI watchdog"));
  EXPECT_TRUE(ReasonContains(PerfOpenFailureReason(ENOSPC, "instructions:u", info, true),
                             "no free counter"));
  EXPECT_TRUE(
      ReasonContains(PerfOpenFailureReason(E2BIG, "instructions:u", info, true), "6.1.0-18-amd64"));
  EXPECT_EQ(PerfOpenFailureReason(EIO, "instructions:u", info, true),
            std::string("perf_event_open failed for instructions:u: ") + std::strerror(EIO));
}

TEST(LibpfmEncodingFailureReason, ExplainsAndPointsToTheProbe) {
  ASSERT_EQ(pfm_initialize(), PFM_SUCCESS);
  std::string reason = LibpfmEncodingFailureReason(PFM_ERR_NOTFOUND, "bogus:u");
  EXPECT_TRUE(ReasonContains(reason, "\"bogus:u\""));
  EXPECT_TRUE(ReasonContains(reason, pfm_strerror(PFM_ERR_NOTFOUND)));
  EXPECT_TRUE(ReasonContains(reason, "workgate probe"));
  EXPECT_TRUE(ReasonContains(reason, "perf::task-clock"));

  // The reason for a real failure of the encoder the perf backend uses.
  pfm_perf_encode_arg_t arg;
  perf_event_attr attr;
  std::memset(&arg, 0, sizeof arg);
  std::memset(&attr, 0, sizeof attr);
  arg.attr = &attr;
  arg.size = sizeof arg;
  int ret =
      pfm_get_os_event_encoding("instructions:nosuchmodifier", PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
  ASSERT_NE(ret, PFM_SUCCESS);
  EXPECT_TRUE(ReasonContains(LibpfmEncodingFailureReason(ret, "instructions:nosuchmodifier"),
                             pfm_strerror(ret)));
}

// The real thing: open instructions:u the way the perf backend will.
TEST(PerfOpenFailureReason, MatchesWhatThisMachineSays) {
  ASSERT_EQ(pfm_initialize(), PFM_SUCCESS);
  perf_event_attr attr;
  pfm_perf_encode_arg_t arg;
  std::memset(&attr, 0, sizeof attr);
  std::memset(&arg, 0, sizeof arg);
  arg.attr = &attr;
  arg.size = sizeof arg;
  int ret = pfm_get_os_event_encoding("instructions:u", PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
  ASSERT_EQ(ret, PFM_SUCCESS) << LibpfmEncodingFailureReason(ret, "instructions:u");
  attr.size = sizeof attr;
  attr.disabled = 1;
  long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  int err = errno;
  if (fd >= 0) {
    close(static_cast<int>(fd));
    GTEST_SKIP() << "instructions:u opened: this machine has a PMU";
  }
  SystemInfo info = GatherSystemInfo(LibpfmPmus::kNotListed);
  std::string reason = PerfOpenFailureReason(err, "instructions:u", info, geteuid() == 0);
  std::cout << "errno " << err << " (" << std::strerror(err) << "): " << reason << "\n";
  if (!info.hypervisor_present.value.value_or(false) || info.HasCorePmu()) {
    GTEST_SKIP() << "not a VM without a PMU; the reason here is: " << reason;
  }
  EXPECT_TRUE(ReasonContains(reason, "does not expose a PMU to this VM"));
  EXPECT_TRUE(ReasonContains(reason, "(" + info.HypervisorName() + ")"));
}

}  // namespace
}  // namespace workgate
