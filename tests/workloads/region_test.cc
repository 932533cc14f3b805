// <workgate/region.h>: compiles in C++ (this file) and C (region_probe), does
// nothing outside workgate, limits a callgrind count to the region, and
// drives inherited perf counters named in WORKGATE_PERF_FDS.
#include "workgate/region.h"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "run_program.h"
#include "test_requirements.h"

namespace workgate::testing {
namespace {

const std::string kProbe = WorkloadBinary("region_probe");

class RegionTest : public ::testing::Test {
 protected:
  void SetUp() override { WORKGATE_ASSERT_BUILT(kProbe); }
};

TEST(RegionHeaderTest, MarkersOnlyFlipTheirFlagOutsideWorkgate) {
  if (getenv("WORKGATE_PERF_FDS") != nullptr) GTEST_SKIP() << "running under workgate's perf";
  WORKGATE_REGION_END();  // not inside: nothing happens
  EXPECT_EQ(workgate_region_state_.inside, 0);
  WORKGATE_REGION_BEGIN();
  EXPECT_EQ(workgate_region_state_.inside, 1);
  EXPECT_EQ(workgate_region_state_.fd_count, 0);  // no counters were handed over
  WORKGATE_REGION_BEGIN();
  WORKGATE_REGION_END();
  EXPECT_EQ(workgate_region_state_.inside, 0);
}

TEST_F(RegionTest, ProbeRunsNativelyWithoutWorkgate) {
  ProgramResult r = RunProgram({kProbe, "100", "100"}, {});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("result: ", 0), 0u) << r.out;
}

// Instructions callgrind collected for region_probe SETUP REGION, or -1.
long long CallgrindIr(const std::string& valgrind, const std::string& setup,
                      const std::string& region, std::string* log) {
  // ASLR off and a fixed, minimal environment, as workgate's launcher does.
  ProgramResult r =
      RunProgram({"/usr/bin/setarch", "-R", valgrind, "--tool=callgrind", "--collect-atstart=no",
                  "--callgrind-out-file=/dev/null", kProbe, setup, region},
                 {"PATH=/usr/bin:/bin", "LC_ALL=C"});
  *log = r.err;
  std::smatch m;
  static const std::regex kCollected("Collected : ([0-9]+)");
  if (r.exit_code != 0 || !std::regex_search(r.err, m, kCollected)) return -1;
  return std::stoll(m[1].str());
}

TEST_F(RegionTest, CallgrindCountsOnlyTheRegion) {
  std::string valgrind;
  for (const char* p : {"/usr/bin/valgrind", "/usr/local/bin/valgrind"}) {
    if (IsExecutable(p)) valgrind = p;
  }
  WORKGATE_REQUIRE_TOOL(!valgrind.empty(), "valgrind is not installed");
  WORKGATE_REQUIRE_TOOL(IsExecutable("/usr/bin/setarch"), "setarch is not installed");
  std::string log;
  long long light = CallgrindIr(valgrind, "1", "1000", &log);
  ASSERT_GT(light, 0) << log;
  // 5,000 units of setup (about 4 million instructions) outside the region.
  long long heavy = CallgrindIr(valgrind, "5000", "1000", &log);
  ASSERT_GT(heavy, 0) << log;
  EXPECT_LE(std::llabs(heavy - light), 300) << light << " vs " << heavy;
  // The region's 1,000 units (about 800 instructions each) are counted, and
  // nothing like the setup is.
  EXPECT_GT(light, 500000);
  EXPECT_LT(light, 1500000);
}

// A disabled, inherited page-fault counter for this process and its children
// (the child inherits the descriptor too); -1 with errno set when the kernel
// refuses.
int OpenPageFaultCounter() { return testing::OpenSoftwareEvent(PERF_COUNT_SW_PAGE_FAULTS, true); }

uint64_t ReadCounter(int fd) {
  uint64_t value = 0;
  EXPECT_EQ(read(fd, &value, sizeof value), static_cast<ssize_t>(sizeof value));
  return value;
}

TEST_F(RegionTest, PerfCountersFollowTheRegion) {
  int first = OpenPageFaultCounter();
  if (first < 0) GTEST_SKIP() << "perf_event_open (software page faults): " << strerror(errno);
  int second = OpenPageFaultCounter();
  ASSERT_GE(second, 0) << strerror(errno);
  std::string fds = "WORKGATE_PERF_FDS=" + std::to_string(first) + "," + std::to_string(second);
  // 5,000 page faults of setup, 300 inside the region.
  ProgramResult r = RunProgram({kProbe, "5000", "300"}, {fds}, {first, second});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  uint64_t a = ReadCounter(first);
  uint64_t b = ReadCounter(second);
  close(first);
  close(second);
  // Both descriptors of the list were enabled for the region only (measured
  // here: exactly 300 each); the margin allows a stray fault in the markers.
  EXPECT_GE(a, 300u);
  EXPECT_LT(a, 340u);
  EXPECT_GE(b, 300u);
  EXPECT_LT(b, 340u);

  int unused = OpenPageFaultCounter();
  ASSERT_GE(unused, 0) << strerror(errno);
  // Without the variable the markers leave counters alone.
  ASSERT_EQ(RunProgram({kProbe, "100", "300"}, {}, {unused}).exit_code, 0);
  EXPECT_EQ(ReadCounter(unused), 0u);
  close(unused);
}

}  // namespace
}  // namespace workgate::testing
