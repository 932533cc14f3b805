// A candidate that attacks its own count under vgcount
// (hostile_counter.c), run through the real workgate: each attack makes the
// run invalid with what it did named, or is counted as the work it is. The
// baseline is the same source built to behave (benign_counter).

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "counter/valgrind_counter.h"
#include "hostile/workgate_process.h"
#include "launch/launch.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::WorkgateProcess;

// The honest work of every mode: 100,000 iterations of two instructions.
constexpr const char* kHonestWork = "100000";

class HostileCounterTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef WORKGATE_VGCOUNT_BUILT
    WORKGATE_REQUIRE_TOOL(false, "CMake did not build vgcount");
#endif
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
    std::filesystem::create_directory(dir_.path() + "/tmp");
  }

  static std::string Hostile() { return BuildPath("tests/hostile_counter"); }
  static std::string Benign() { return BuildPath("tests/benign_counter"); }

  std::unique_ptr<WorkgateProcess> Start(const std::vector<std::string>& args) const {
    const std::map<std::string, std::string> env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                                    {"HOME", dir_.path()},
                                                    {"TMPDIR", dir_.path() + "/tmp"}};
    return std::make_unique<WorkgateProcess>(args, env, dir_.path());
  }

  /// `count` of the hostile program in `mode` under vgcount (with `options`):
  /// invalid (3), each of `said` in what workgate printed, no count.
  void ExpectInvalid(const std::string& mode, const std::vector<std::string>& said,
                     const std::vector<std::string>& options = {}) const {
    std::vector<std::string> args = {"count", "--no-store", "--backend", "vgcount"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"--", Hostile(), mode, kHonestWork});
    auto wg = Start(args);
    EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
    for (const std::string& text : said) {
      EXPECT_NE(wg->err().find(text), std::string::npos) << wg->err();
    }
    EXPECT_EQ(testing::CountedIr(wg->out()), -1) << wg->out();
  }

  /// The instructions `count` reports for `program` in `mode` under
  /// vgcount, or -1 when it reports none.
  long long Counted(const std::string& program, const std::string& mode,
                    const std::vector<std::string>& options = {}) const {
    std::vector<std::string> args = {"count", "--no-store", "--backend", "vgcount"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"--", program, mode, kHonestWork});
    auto wg = Start(args);
    EXPECT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
    return testing::CountedIr(wg->out());
  }

  /// `compare` of the benign build against the hostile one in `mode`, with
  /// its JSON report; returns workgate's exit code.
  int Compare(const std::string& mode, nlohmann::json* report, std::string* said) const {
    const std::string json = dir_.path() + "/report.json";
    std::vector<std::string> args = {"compare",     "--no-store", "--backend",  "vgcount",
                                     "--timed",     "0",          "--baseline", Benign(),
                                     "--candidate", Hostile(),    "--json",     json};
    args.insert(args.end(), {"--", "{exe}", mode, kHonestWork});
    auto wg = Start(args);
    const auto code = wg->Wait(180);
    *said = wg->out() + wg->err();
    std::ifstream in(json);
    if (in) *report = nlohmann::json::parse(in, nullptr, false);
    return code.value_or(-1);
  }

  TempDir dir_;
};

// dup2 from Valgrind's reserved range hands a child the channel (and the
// log); it writes a forged count there and is killed, so no count of its own
// follows. The dup2 itself makes the run invalid, and the forged message,
// without its process's token, is named as forged too.
// Whether the Valgrind found lets a program duplicate Valgrind's reserved
// descriptors: from 3.26.0 on, whose system call wrappers check more of the
// descriptors they are given, dup2(2) of one (and fstat, and others, but not
// sendmsg) fails with EBADF.
bool ValgrindLetsDup2ReachItsDescriptors() {
  unsigned major = 0, minor = 0;
  return std::sscanf(FindValgrind().version.c_str(), "valgrind-%u.%u", &major, &minor) == 2 &&
         (major < 3 || (major == 3 && minor < 26));
}

TEST_F(HostileCounterTest, ACountForgedThroughDup2IsInvalid) {
  // The dup2 alone makes the run invalid; where it succeeds, the message
  // forged through the copy is also refused, lacking the process's token.
  std::vector<std::string> said = {"called dup2", "could be forged"};
  if (ValgrindLetsDup2ReachItsDescriptors()) said.push_back("that its vgcount did not send");
  ExpectInvalid("forge-dup2", said);
}

TEST_F(HostileCounterTest, IoUringIsInvalid) {
  ExpectInvalid("io-uring", {"called io_uring_setup"});
}

// A child does the work, unlinks Valgrind's logs and is killed: the
// process is known from its hello on the channel, not from its log.
TEST_F(HostileCounterTest, AKilledChildWithoutLogsIsStillMissing) {
  // Its pid, and its parent's, are 3 and 2 in a PID namespace of the run's
  // own; where there is none (a user's chroot, unprivileged) they are the
  // machine's.
  if (PidNamespaceAvailable()) {
    ExpectInvalid("unlink-logs", {"process 3 (a child of 2) wrote no count"});
  } else {
    ExpectInvalid("unlink-logs", {"uncounted work: process ", " (a child of ", ") wrote no count"});
  }
}

TEST_F(HostileCounterTest, ZeroingTheStatsIsInvalid) {
  ExpectInvalid("zero-stats", {"client request CALLGRIND_ZERO_STATS"});
}

TEST_F(HostileCounterTest, TogglingCollectionWithoutARegionIsInvalid) {
  ExpectInvalid("toggle", {"client request CALLGRIND_TOGGLE_COLLECT"});
}

TEST_F(HostileCounterTest, TogglingCollectionInsideARegionIsInvalid) {
  ExpectInvalid("toggle-in-region", {"turned counting on again after its region had ended"},
                {"--region"});
}

TEST_F(HostileCounterTest, TogglingCollectionInASignalHandlerIsInvalid) {
  ExpectInvalid("toggle-in-handler", {"inside a signal handler"}, {"--region"});
}

// Ten times the work in a signal handler raised inside the region: the
// handler is counted with the region (callgrind would leave it out).
TEST_F(HostileCounterTest, ASignalHandlerInsideARegionIsCounted) {
  const long long benign = Counted(Benign(), "signal-in-region", {"--region"});
  const long long hostile = Counted(Hostile(), "signal-in-region", {"--region"});
  ASSERT_GT(benign, 0);
  EXPECT_GT(hostile, benign + 1800000);
}

TEST_F(HostileCounterTest, ANativeCallIsUncountedWork) {
  ExpectInvalid("native-call", {"VALGRIND_NON_SIMD_CALL", "on the real CPU"});
}

TEST_F(HostileCounterTest, AMonitorCommandIsInvalid) {
  ExpectInvalid("monitor", {"VALGRIND_MONITOR_COMMAND"});
}

// Ten times the work, then an exec of /bin/true: the work before the exec
// is counted (work added), and the report says the exec happened.
TEST_F(HostileCounterTest, WorkBeforeAnExecIsCounted) {
  nlohmann::json report;
  std::string said;
  ASSERT_EQ(Compare("exec-after-work", &report, &said), 1) << said;
  ASSERT_TRUE(report.is_object()) << said;
  const auto& w = report["workloads"][0];
  const uint64_t baseline = w["baseline"]["counts"][0], candidate = w["candidate"]["counts"][0];
  // 2,000,000 instructions of loop before the exec, and /bin/true's own.
  EXPECT_GT(candidate, baseline + 1800000) << said;
  EXPECT_NE(said.find("ran /bin/true by exec after"), std::string::npos) << said;
}

// An exec that fails: the program goes on, and every part of it is counted.
TEST_F(HostileCounterTest, AFailedExecIsCountedWhole) {
  nlohmann::json report;
  std::string said;
  ASSERT_EQ(Compare("exec-fails", &report, &said), 1) << said;
  const auto& w = report["workloads"][0];
  const uint64_t baseline = w["baseline"]["counts"][0], candidate = w["candidate"]["counts"][0];
  // The candidate's second loop runs after the failed exec.
  EXPECT_GT(candidate, baseline + 190000) << said;
  EXPECT_NE(said.find("ran /nonexistent/program by exec"), std::string::npos) << said;
}

// Work sized from /proc/uptime: pinned, so an A/A comparison counts the
// same on both sides, deterministically, and says what it pinned.
TEST_F(HostileCounterTest, UptimeIsPinned) {
  const std::string json = dir_.path() + "/count.json";
  auto wg = Start({"count", "--no-store", "--backend", "vgcount", "--repeat", "2", "--json", json,
                   "--", Hostile(), "uptime", kHonestWork});
  ASSERT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("uptime 1"), std::string::npos) << wg->out();
  std::ifstream in(json);
  const auto report = nlohmann::json::parse(in);
  const std::string text = report.dump();
  EXPECT_NE(text.find("\"deterministic\":true"), std::string::npos) << text;
  EXPECT_NE(wg->out().find("spread 0 "), std::string::npos) << wg->out();
}

// Work sized from /proc/loadavg, which no pin reaches: the count is not
// deterministic, and says which input made it so.
TEST_F(HostileCounterTest, ALoadAverageIsAnUnpinnedInput) {
  const std::string json = dir_.path() + "/count.json";
  auto wg = Start({"count", "--no-store", "--backend", "vgcount", "--json", json, "--", Hostile(),
                   "loadavg", kHonestWork});
  ASSERT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
  std::ifstream in(json);
  const std::string text = nlohmann::json::parse(in).dump();
  EXPECT_NE(text.find("\"deterministic\":false"), std::string::npos) << text;
  EXPECT_NE(text.find("files or devices that change as the machine runs"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace workgate
