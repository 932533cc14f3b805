// The counting factory: the order `auto` prefers (perf where it counts, then
// vgcount where it is built, then callgrind; with none, an environment error
// that gives the reasons), and what a requested backend needs. Each case runs
// the factory in a program of its own (testdata/choose_backend.cc) on a
// machine set up here: perf_event_open refused by a seccomp filter or not, a
// stand-in valgrind or none, a vgcount tool beside the program or not.

#include "counter/factory.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "counter/synthetic_systems.h"
#include "launch/launch.h"
#include "launch/syscall_filter.h"
#include "machine/perf_reason.h"
#include "machine/system_info.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/exit_codes.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// perf counts a software event without a PMU; the hardware event is the one
// the seccomp filter makes it refuse.
constexpr const char* kFactorySoftwareEvent = "perf::page-faults";
constexpr const char* kHardwareEvent = "instructions:u";

struct Machine {
  bool perf = true;  // else perf_event_open fails with `perf_errno`
  int perf_errno = ENOENT;
  bool valgrind = true;  // a valgrind that answers --version
  bool vgcount = true;   // a built vgcount tool beside the program
  // The Valgrind version the tool's record names ("": no record).
  std::string vgcount_valgrind{};
};

// What the program printed: ChooseBackend's choice, and MakeCounter's answer.
struct Choice {
  std::string backend;
  std::string reason;
  std::string made;
};

class FactoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string helper = testing::BuildPath("tests/choose_backend");
    WORKGATE_ASSERT_BUILT(helper);
    // A copy, so that the companions found beside it are this test's.
    fs::copy_file(helper, program());
    std::ofstream(valgrind()) << "#!/bin/sh\necho valgrind-3.99.0\n";
    fs::permissions(valgrind(), fs::perms::owner_all);
    fs::create_directory(empty_path());
  }

  std::string program() const { return dir_.path() + "/choose_backend"; }
  std::string valgrind() const { return dir_.path() + "/valgrind"; }
  // The program's PATH: a directory with no valgrind in it.
  std::string empty_path() const { return dir_.path() + "/bin"; }

  Choice Choose(const Machine& m, const std::string& request, const std::string& events,
                const std::string& system) {
    // FindVgcountLib takes valgrind-lib beside the program only when it holds
    // the tool.
    const std::string lib = dir_.path() + "/valgrind-lib";
    fs::remove_all(lib);
    fs::create_directory(lib);
    if (m.vgcount) std::ofstream(lib + "/vgcount-amd64-linux");
    if (!m.vgcount_valgrind.empty()) {
      std::ofstream(lib + "/vgcount.valgrind")
          << "version: " << m.vgcount_valgrind << "\nlauncher: /opt/vg/bin/valgrind\n";
    }
    LaunchSpec spec;
    spec.argv = {program(), request, events, system};
    spec.env = {{"PATH", empty_path()}};
    if (m.valgrind) spec.env["WORKGATE_VALGRIND"] = valgrind();
    spec.timeout_seconds = 60;
    testing::SyscallFilterSetup refuse_perf(SYS_perf_event_open, SECCOMP_RET_ERRNO | m.perf_errno);
    if (!m.perf) spec.setup = &refuse_perf;
    const LaunchResult r = Launch(spec);
    EXPECT_TRUE(r.ok()) << r.Describe() << r.err;
    Choice c;
    std::istringstream lines(r.out);
    std::getline(lines, c.backend);
    std::getline(lines, c.reason);
    std::getline(lines, c.made);
    return c;
  }

  // Why perf cannot count instructions:u on `system` when perf_event_open
  // fails with `err`, as the probe words it for that machine.
  static std::string WhyNotPerf(int err, const std::string& system) {
    return std::string("perf cannot count ") + kHardwareEvent + ": " +
           PerfOpenFailureReason(err, kHardwareEvent, testing::SyntheticSystem(system),
                                 geteuid() == 0);
  }
  // Why there is no Valgrind for the program, as the lookup words it.
  std::string NoValgrind() const { return ResolveValgrind("", empty_path()).note; }

  TempDir dir_;
};

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

TEST_F(FactoryTest, AutoPrefersPerfWhereItCounts) {
  const PerfCheck here = CheckPerf(kFactorySoftwareEvent, GatherSystemInfo(LibpfmPmus::kNotListed));
  if (!here.ok) GTEST_SKIP() << "perf_event_open refuses even software events: " << here.reason;
  // Over vgcount and callgrind, both there.
  Choice c = Choose({}, "auto", kFactorySoftwareEvent, "kvm-without-pmu");
  EXPECT_EQ(c.backend, "perf");
  EXPECT_EQ(c.reason,
            std::string("perf_event_open counts ") + kFactorySoftwareEvent + " on this machine");
  EXPECT_EQ(c.made, "made perf");
}

TEST_F(FactoryTest, AutoTakesVgcountWherePerfCannotCount) {
  Choice c = Choose({.perf = false}, "auto", kHardwareEvent, "kvm-without-pmu");
  EXPECT_EQ(c.backend, "vgcount");
  // The reason says why not perf, in the words of the machine described.
  EXPECT_TRUE(StartsWith(c.reason, WhyNotPerf(ENOENT, "kvm-without-pmu") + "; ")) << c.reason;
  EXPECT_NE(c.reason.find("the hypervisor (KVM) does not expose a PMU"), std::string::npos)
      << c.reason;
  EXPECT_NE(c.reason.find("; vgcount (workgate's own Valgrind tool) counts exactly"),
            std::string::npos)
      << c.reason;
  EXPECT_EQ(c.made, "made vgcount");
}

// In a virtual machine whose kernel lists no CPU PMU, the default event is
// not tried: the reason is the missing PMU, as trying would say
// (AutoTakesVgcountWherePerfCannotCount), even where perf_event_open would
// refuse for another reason first. Any other event, and bare metal, are
// tried, and their reason is what the refusal says.
TEST_F(FactoryTest, AutoDoesNotTryTheDefaultEventInAVmWithoutAPmu) {
  const std::string no_pmu =
      std::string("perf cannot count ") + kHardwareEvent + ": " +
      NoCorePmuReason(kHardwareEvent, testing::SyntheticSystem("kvm-without-pmu"));
  Choice c =
      Choose({.perf = false, .perf_errno = EACCES}, "auto", kHardwareEvent, "kvm-without-pmu");
  EXPECT_EQ(c.backend, "vgcount");
  EXPECT_TRUE(StartsWith(c.reason, no_pmu + "; ")) << c.reason;
  EXPECT_EQ(c.made, "made vgcount");

  c = Choose({.perf = false, .perf_errno = EACCES}, "auto", kHardwareEvent, "metal-without-pmu");
  EXPECT_EQ(c.backend, "vgcount");
  EXPECT_TRUE(StartsWith(c.reason, WhyNotPerf(EACCES, "metal-without-pmu") + "; ")) << c.reason;

  const std::string cycles = "cycles:u";
  c = Choose({.perf = false, .perf_errno = EACCES}, "auto", cycles, "kvm-without-pmu");
  EXPECT_EQ(c.backend, "vgcount");
  EXPECT_TRUE(StartsWith(
      c.reason,
      "perf cannot count " + cycles + ": " +
          PerfOpenFailureReason(EACCES, cycles, testing::SyntheticSystem("kvm-without-pmu"),
                                geteuid() == 0) +
          "; "))
      << c.reason;
}

TEST_F(FactoryTest, AutoTakesCallgrindWhereVgcountIsNotBuilt) {
  Choice c = Choose({.perf = false, .perf_errno = EACCES, .vgcount = false}, "auto", kHardwareEvent,
                    "paranoid-3");
  EXPECT_EQ(c.backend, "callgrind");
  EXPECT_TRUE(StartsWith(c.reason, WhyNotPerf(EACCES, "paranoid-3") + "; ")) << c.reason;
  EXPECT_NE(c.reason.find("(vgcount, the faster tool, is not built)"), std::string::npos)
      << c.reason;
  EXPECT_EQ(c.made, "made callgrind");
}

// vgcount built against another Valgrind than the one workgate runs is not
// run: auto counts with callgrind and says why, a request for it is refused.
TEST_F(FactoryTest, VgcountRunsOnlyUnderTheValgrindItWasBuiltAgainst) {
  const std::string mismatch = "vgcount in " + dir_.path() +
                               "/valgrind-lib was built against valgrind-3.22.0 "
                               "(/opt/vg/bin/valgrind), but the Valgrind that workgate runs is "
                               "valgrind-3.99.0 (" +
                               RealPath(valgrind()) +
                               "): set WORKGATE_VALGRIND=/opt/vg/bin/valgrind, or rebuild "
                               "vgcount against valgrind-3.99.0";
  Choice c = Choose({.perf = false, .vgcount_valgrind = "valgrind-3.22.0"}, "auto", kHardwareEvent,
                    "kvm-without-pmu");
  EXPECT_EQ(c.backend, "callgrind");
  EXPECT_NE(c.reason.find("(vgcount, the faster tool, cannot run: " + mismatch + ")"),
            std::string::npos)
      << c.reason;
  c = Choose({.vgcount_valgrind = "valgrind-3.22.0"}, "vgcount", kHardwareEvent, "");
  EXPECT_EQ(c.backend, "");
  EXPECT_EQ(c.reason, "vgcount was requested, but " + mismatch);
  EXPECT_EQ(c.made, "error " + std::to_string(kExitEnvironment) +
                        ": no usable counting backend: " + c.reason);
  // Under its own Valgrind's version it counts.
  c = Choose({.perf = false, .vgcount_valgrind = "valgrind-3.99.0"}, "auto", kHardwareEvent,
             "kvm-without-pmu");
  EXPECT_EQ(c.backend, "vgcount");
  EXPECT_EQ(c.made, "made vgcount");
}

TEST_F(FactoryTest, AutoWithNothingThatCountsIsAnEnvironmentErrorWithEveryReason) {
  // A built vgcount is of no use without Valgrind to run it.
  Choice c = Choose({.perf = false, .valgrind = false}, "auto", kHardwareEvent, "kvm-without-pmu");
  EXPECT_EQ(c.backend, "");
  EXPECT_EQ(c.reason, WhyNotPerf(ENOENT, "kvm-without-pmu") +
                          "; and no backend can count without Valgrind: " + NoValgrind());
  EXPECT_EQ(c.made, "error " + std::to_string(kExitEnvironment) +
                        ": no usable counting backend: " + c.reason);
}

TEST_F(FactoryTest, ARequestedBackendIsUsedOrRefusedWithTheReason) {
  Choice c = Choose({}, "callgrind", kHardwareEvent, "");
  EXPECT_EQ(c.backend, "callgrind");  // although vgcount is there
  EXPECT_EQ(c.made, "made callgrind");
  c = Choose({}, "vgcount", kHardwareEvent, "");
  EXPECT_EQ(c.backend, "vgcount");
  EXPECT_EQ(c.made, "made vgcount");

  c = Choose({.perf = false}, "perf", kHardwareEvent, "kvm-without-pmu");
  EXPECT_EQ(c.backend, "");  // no fallback from a request
  EXPECT_EQ(c.reason, WhyNotPerf(ENOENT, "kvm-without-pmu"));
  EXPECT_EQ(c.made, "error " + std::to_string(kExitEnvironment) +
                        ": no usable counting backend: " + c.reason);

  c = Choose({.valgrind = false}, "callgrind", kHardwareEvent, "");
  EXPECT_EQ(c.backend, "");
  EXPECT_EQ(c.reason, "callgrind was requested, but " + NoValgrind());
  c = Choose({.valgrind = false}, "vgcount", kHardwareEvent, "");
  EXPECT_EQ(c.backend, "");
  EXPECT_EQ(c.reason, "vgcount was requested, but " + NoValgrind());

  c = Choose({.vgcount = false}, "vgcount", kHardwareEvent, "");
  EXPECT_EQ(c.backend, "");
  EXPECT_EQ(c.reason, "vgcount was requested but the tool is not built");
}

TEST(BackendRequestTest, ParsesTheFourNamesOnly) {
  BackendRequest r = BackendRequest::kPerf;
  ASSERT_TRUE(ParseBackendRequest("auto", &r));
  EXPECT_EQ(r, BackendRequest::kAuto);
  ASSERT_TRUE(ParseBackendRequest("callgrind", &r));
  EXPECT_EQ(r, BackendRequest::kCallgrind);
  ASSERT_TRUE(ParseBackendRequest("vgcount", &r));
  EXPECT_EQ(r, BackendRequest::kVgcount);
  ASSERT_TRUE(ParseBackendRequest("perf", &r));
  EXPECT_EQ(r, BackendRequest::kPerf);
  for (const char* bad : {"", "Perf", "valgrind", "auto "}) {
    EXPECT_FALSE(ParseBackendRequest(bad, &r)) << bad;
  }
}

}  // namespace
}  // namespace workgate
