// The real workgate against candidate builds that misbehave on purpose
// (hostile.c): each test asserts the exit code, the message, that nothing of
// the workload's tree is left running (by pid), and that no temporary file is
// left in TMPDIR. The baseline side is the same program built to behave.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>

#include "counter/valgrind_counter.h"
#include "hostile/hostile_paths.h"
#include "hostile/workgate_process.h"
#include "launch/launch.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::BenignWorkload;
using testing::HostileWorkload;
using testing::RecordedPids;
using testing::Survivors;
using testing::WorkgateProcess;

class HostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (FindValgrind().path.empty()) GTEST_SKIP() << "Valgrind is not installed";
    fs::create_directory(tmp());
  }

  std::string tmp() const { return dir_.path() + "/tmp"; }
  std::string pids() const { return dir_.path() + "/pids"; }
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  std::map<std::string, std::string> Env() const {
    return {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
            {"HOME", dir_.path()},
            {"TMPDIR", tmp()},
            {"HOSTILE_PIDS", pids()}};
  }

  /// `compare` of the benign baseline against the hostile candidate, on one
  /// ad hoc command: the candidate's MODE and ARGS.
  std::vector<std::string> Compare(std::vector<std::string> mode,
                                   std::vector<std::string> options = {}) const {
    std::vector<std::string> args = {"compare", "--baseline", BenignWorkload(), "--candidate",
                                     HostileWorkload(), "--timed", "0", "--pass-env",
                                     "HOSTILE_PIDS"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.insert(args.end(), mode.begin(), mode.end());
    return args;
  }

  std::unique_ptr<WorkgateProcess> Start(const std::vector<std::string>& args) const {
    return std::make_unique<WorkgateProcess>(args, Env(), dir_.path());
  }

  /// Nothing the hostile workload started still runs, and workgate left
  /// nothing in TMPDIR but its (empty) per-user directory.
  void ExpectNothingLeft() const {
    EXPECT_TRUE(Survivors(pids()).empty()) << "a process of the tree survived";
    for (const auto& entry : fs::recursive_directory_iterator(tmp())) {
      const std::string name = entry.path().filename().string();
      EXPECT_TRUE(entry.is_directory() && name == "workgate-" + std::to_string(getuid()) &&
                  fs::is_empty(entry.path()))
          << "left behind: " << entry.path();
    }
  }

  /// Waits until the workload's `n` processes have recorded their pids.
  void AwaitWorkload(WorkgateProcess& wg, size_t n = 1) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (RecordedPids(pids()).size() < n && std::chrono::steady_clock::now() < deadline) {
      ASSERT_FALSE(wg.Wait(0.01).has_value()) << "workgate ended early: " << wg.err();
    }
    ASSERT_EQ(RecordedPids(pids()).size(), n) << wg.err();
  }

  TempDir dir_;
};

// --- Interruption ---------------------------------------------------------

TEST_F(HostileTest, CtrlCEndsTheTreeRemovesTheFilesAndExits130) {
  auto wg = Start({"count", "--json", Path("count.json"), "--pass-env", "HOSTILE_PIDS", "--",
                   HostileWorkload(), "spin-with-daemon"});
  AwaitWorkload(*wg, 2);
  wg->Signal(SIGINT);
  EXPECT_EQ(wg->Wait(30), 130);
  EXPECT_NE(wg->err().find("workgate: interrupted by SIGINT: 1 running workload tree killed"),
            std::string::npos)
      << wg->err();
  EXPECT_FALSE(fs::exists(Path("count.json")));
  EXPECT_EQ(RecordedPids(pids()).size(), 2u);
  ExpectNothingLeft();
}

TEST_F(HostileTest, ACancelledCompareWritesNoReportAndExits143) {
  auto wg = Start(Compare({"spin"}, {"--json", Path("r.json"), "--markdown", Path("r.md")}));
  AwaitWorkload(*wg);
  wg->Signal(SIGTERM);
  EXPECT_EQ(wg->Wait(30), 143);
  EXPECT_NE(wg->err().find("interrupted by SIGTERM"), std::string::npos) << wg->err();
  EXPECT_FALSE(fs::exists(Path("r.json")));
  EXPECT_FALSE(fs::exists(Path("r.md")));
  EXPECT_EQ(wg->out(), "");  // no table that could read as a verdict
  ExpectNothingLeft();
}

TEST_F(HostileTest, AHangupIsAnInterruptionToo) {
  auto wg = Start(Compare({"ignore-signals"}));
  AwaitWorkload(*wg);
  wg->Signal(SIGHUP);
  EXPECT_EQ(wg->Wait(30), 129);
  ExpectNothingLeft();
}

TEST_F(HostileTest, ASecondSignalEndsWorkgateAtOnce) {
  auto wg = Start({"count", "--as-is", "--", HostileWorkload(), "sleep", "60"});
  AwaitWorkload(*wg);
  // Stop the tree's supervisor, so the first signal's clean-up has to wait
  // for it (two seconds, then it would kill it outright).
  pid_t supervisor = getppid();
  for (pid_t pid : RecordedPids(pids())) {
    auto stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
    ASSERT_TRUE(stat.has_value());
    supervisor = std::stoi(stat->substr(stat->rfind(')') + 4));
  }
  ASSERT_EQ(kill(supervisor, SIGSTOP), 0);
  wg->Signal(SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto start = std::chrono::steady_clock::now();
  wg->Signal(SIGINT);
  EXPECT_EQ(wg->Wait(30), 130);  // the second signal's code, not 143
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  // What the stopped supervisor held is this test's to end now.
  kill(-supervisor, SIGKILL);
  kill(supervisor, SIGKILL);
}

// --- Containment ----------------------------------------------------------

TEST_F(HostileTest, ADescendantHoldingStdoutCannotOutwaitTheTimeout) {
  // The workload spins past its timeout while a daemon keeps stdout open.
  auto start = std::chrono::steady_clock::now();
  auto wg = Start(Compare({"spin-with-daemon"}, {"--timeout", "2"}));
  EXPECT_EQ(wg->Wait(60), 3);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 15);
  EXPECT_NE(wg->out().find("candidate: timed out after 2 s (process tree killed)"),
            std::string::npos)
      << wg->out();
  EXPECT_EQ(RecordedPids(pids()).size(), 2u);
  ExpectNothingLeft();
}

TEST_F(HostileTest, ADaemonLeftBehindIsKilledWithoutANamespace) {
  // --as-is runs without a PID namespace: the supervisor, a subreaper, gets
  // the double-forked daemon back and kills it.
  auto wg = Start({"count", "--as-is", "--", HostileWorkload(), "daemon-holding-stdout"});
  EXPECT_EQ(wg->Wait(60), 0) << wg->out() << wg->err();
  EXPECT_EQ(RecordedPids(pids()).size(), 1u);
  ExpectNothingLeft();
}

TEST_F(HostileTest, AWorkloadThatKillsItsSupervisorIsInvalidAndLeavesNothing) {
  auto wg = Start({"count", "--as-is", "--", HostileWorkload(), "kill-supervisor"});
  EXPECT_EQ(wg->Wait(60), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->err().find("Error: no valid count: killed by signal 9"), std::string::npos)
      << wg->err();
  EXPECT_EQ(RecordedPids(pids()).size(), 1u);
  ExpectNothingLeft();
}

// --- Bounded resources ----------------------------------------------------

TEST_F(HostileTest, TwoGigabytesOfOutputKeepWorkgateUnder64MiB) {
  auto wg = Start({"count", "--quiet", "--pass-env", "HOSTILE_PIDS", "--", HostileWorkload(),
                   "flood", "2000000000"});
  EXPECT_EQ(wg->Wait(300), 0) << wg->out() << wg->err();
  ExpectNothingLeft();
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make the resident set no "
                  "measure of workgate's own use";
#endif
  EXPECT_GT(wg->peak_kib(), 0u);
  EXPECT_LT(wg->peak_kib(), 64u * 1024) << "workgate's own peak resident set";
}

}  // namespace
}  // namespace workgate
