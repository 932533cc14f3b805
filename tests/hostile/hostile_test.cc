// The real workgate against candidate builds that misbehave on purpose
// (hostile.c): each test asserts the exit code, the message, that nothing of
// the workload's tree is left running (by pid), and that no temporary file is
// left in TMPDIR. The baseline side is the same program built to behave.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "counter/valgrind_counter.h"
#include "hostile/hostile_paths.h"
#include "hostile/workgate_process.h"
#include "launch/launch.h"
#include "test_requirements.h"
#include "util/paths.h"


namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::BenignWorkload;
using testing::CountedIr;
using testing::HostileWorkload;
using testing::RecordedPids;
using testing::Survivors;
using testing::ValgrindBackends;
using testing::WorkgateProcess;


class HostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
    fs::create_directory(tmp());
    testing::CollectPids(pids());
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
    // --no-store: both sides run, whatever an earlier test's run left.
    std::vector<std::string> args = {
        "compare", "--baseline", BenignWorkload(), "--candidate",  HostileWorkload(),
        "--timed", "0",          "--pass-env",     "HOSTILE_PIDS", "--no-store"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.insert(args.end(), mode.begin(), mode.end());
    return args;
  }

  /// `compare` of the hostile program against itself (A/A) on one ad hoc
  /// command: whatever the mode does, both sides do it.
  std::vector<std::string> CompareSelf(std::vector<std::string> mode,
                                       std::vector<std::string> options = {}) const {
    std::vector<std::string> args = Compare(mode, options);
    args[2] = HostileWorkload();
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

  /// Writes a suite whose one workload runs the hostile program with `args`
  /// and asserts its score with `pattern` (TOML literal strings).
  std::string Suite(const std::string& name_toml, const std::vector<std::string>& args,
                    const std::string& pattern = "score: ([0-9]+)",
                    const std::string& extra = "") const {
    std::string command = "\"{exe}\"";
    for (const std::string& a : args) command += ", '" + a + "'";
    const std::string path = Path("suite.toml");
    std::ofstream(path) << "[[workload]]\nname = " << name_toml << "\ncommand = [" << command
                        << "]\nclock = \"env\"\ntimeout = 60\n"
                        << extra << "[workload.score]\npattern = '" << pattern
                        << "'\nexpect = \"1\"\n";
    return path;
  }

  /// workgate's own peak resident set stayed under `mib` MiB.
  static void ExpectPeakUnderMiB(const WorkgateProcess& wg, uint64_t mib) {
#if WORKGATE_TEST_ASAN
    GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make the resident set no "
                    "measure of workgate's own use";
#endif
    EXPECT_GT(wg.peak_kib(), 0u);
    EXPECT_LT(wg.peak_kib(), mib * 1024) << "workgate's own peak resident set";
  }

  /// Waits until the workload's `n` processes have recorded their pids.
  void AwaitWorkload(WorkgateProcess& wg, size_t n = 1) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (RecordedPids(pids()).size() < n && std::chrono::steady_clock::now() < deadline) {
      ASSERT_FALSE(wg.Wait(0.01).has_value()) << "workgate ended early: " << wg.err();
    }
    ASSERT_EQ(RecordedPids(pids()).size(), n) << wg.err();
  }

  /// `count ARGS` on each Valgrind backend: invalid (3), with each of
  /// `said` in its error, no count reported, and nothing left.
  void ExpectUncountedWork(const std::vector<std::string>& command,
                           const std::vector<std::string>& said) const {
    for (const std::string& backend : ValgrindBackends()) {
      SCOPED_TRACE(backend);
      std::vector<std::string> args = {"count", "--backend", backend};
      args.insert(args.end(), command.begin(), command.end());
      auto wg = Start(args);
      EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
      for (const std::string& text : said) {
        EXPECT_NE(wg->err().find(text), std::string::npos) << wg->err();
      }
      EXPECT_EQ(CountedIr(wg->out()), -1) << wg->out();
      ExpectNothingLeft();
    }
  }

  TempDir dir_;
};

// --- Interruption ---------------------------------------------------------

// Whether process `pid` took signal `sig` (sent with kill(2)) off its pending
// set within a minute: proc(5) lists the set in /proc/PID/status, ShdPnd.
bool SignalTaken(pid_t pid, int sig) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string status = ReadFile("/proc/" + std::to_string(pid) + "/status").value_or("");
    const size_t at = status.find("ShdPnd:");
    if (at == std::string::npos) return false;  // the process is gone
    const uint64_t pending = std::strtoull(status.c_str() + at + 7, nullptr, 16);
    if ((pending & (uint64_t{1} << (sig - 1))) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

TEST_F(HostileTest, CtrlCEndsTheTreeRemovesTheFilesAndExits130) {
  auto wg = Start({"count", "--json", Path("count.json"), "--pass-env", "HOSTILE_PIDS", "--",
                   HostileWorkload(), "spin-with-daemon"});
  AwaitWorkload(*wg, 2);
  wg->Signal(SIGINT);
  EXPECT_EQ(wg->Wait(30), 130);
  EXPECT_NE(wg->err().find("workgate: interrupted by SIGINT: 1 running workload tree killed"),
            std::string::npos)
      << wg->err();
  // The private directory at least (and its lock where it is shared), and
  // nothing left behind.
  EXPECT_TRUE(std::regex_search(
      wg->err(), std::regex("killed, [1-9][0-9]* temporary paths? removed, no report")))
      << wg->err();
  EXPECT_EQ(wg->err().find("could not remove"), std::string::npos) << wg->err();
  EXPECT_FALSE(fs::exists(Path("count.json")));
  EXPECT_EQ(RecordedPids(pids()).size(), 2u);
  ExpectNothingLeft();
}

TEST_F(HostileTest, CtrlCAtAnyMomentOfALoadedMachineExits130) {
  // The interruption's clean-up removes workgate's directories while the
  // main thread may still use them; whatever that makes fail, the exit code
  // is the interruption's (cli/run_command.cc). Signals at moments spread
  // over start-up and the run, with both cores kept busy meanwhile.
  std::atomic<bool> busy{true};
  std::vector<std::thread> load;
  for (int i = 0; i < 2; ++i) {
    load.emplace_back([&busy] {
      while (busy.load()) {
      }
    });
  }
  for (int i = 0; i < 12; ++i) {
    SCOPED_TRACE("signal after " + std::to_string(i * 60) + " ms");
    auto wg = Start({"count", "--as-is", "--", HostileWorkload(), "sleep", "60"});
    std::this_thread::sleep_for(std::chrono::milliseconds(i * 60));
    wg->Signal(SIGINT);
    EXPECT_EQ(wg->Wait(30), 130) << wg->err();
    EXPECT_EQ(wg->err().find("Error:"), std::string::npos) << wg->err();
    ExpectNothingLeft();
  }
  busy.store(false);
  for (std::thread& t : load) t.join();
}

TEST_F(HostileTest, ACancelledCompareWritesNoReportAndExits143) {
  // Reports an earlier run left, which read as a pass: gone once counting starts.
  std::ofstream(Path("r.json")) << "{\"verdict\": \"ok\", \"exit_code\": 0}\n";
  std::ofstream(Path("r.md")) << "### workgate: ok\n";
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

// Started under nohup, workgate keeps the hangup ignored, as nohup asked,
// and still ends on SIGTERM.
TEST_F(HostileTest, AHangupIgnoredByItsStarterStaysIgnored) {
  WorkgateProcess wg({"count", "--as-is", "--", HostileWorkload(), "sleep", "60"}, Env(),
                     dir_.path(), {"/usr/bin/nohup"});
  AwaitWorkload(wg);
  wg.Signal(SIGHUP);
  EXPECT_FALSE(wg.Wait(2).has_value()) << "the hangup ended workgate: " << wg.err();
  wg.Signal(SIGTERM);
  EXPECT_EQ(wg.Wait(30), 143) << wg.err();
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
  // workgate takes its signals with sigwait(2), one at a time, lowest number
  // first: SIGINT sent before it took SIGTERM would be taken first. Once
  // SIGTERM has left the pending set, whatever comes next is the second.
  ASSERT_TRUE(SignalTaken(wg->pid(), SIGTERM)) << "workgate did not take SIGTERM";
  wg->Signal(SIGINT);
  // The second signal's code, not 143: the first signal's clean-up, which
  // waits for the stopped supervisor, did not get to finish and say so.
  EXPECT_EQ(wg->Wait(60), 130);
  EXPECT_EQ(wg->err().find("workgate: interrupted by"), std::string::npos) << wg->err();
  // What the stopped supervisor held is this test's to end now.
  kill(-supervisor, SIGKILL);
  kill(supervisor, SIGKILL);
}

// --- Containment ----------------------------------------------------------

TEST_F(HostileTest, ADescendantHoldingStdoutCannotOutwaitTheTimeout) {
  // The workload spins past its timeout while a daemon keeps stdout open;
  // a workgate that waited for the daemon would never end (Wait: nullopt).
  // Where the timeout came before Valgrind had started both processes (a
  // loaded machine), the run proved nothing: again, with a longer one.
  std::unique_ptr<WorkgateProcess> wg;
  std::optional<int> code;
  int timeout = 2;
  for (int attempt = 0; attempt < 3; ++attempt, timeout *= 4) {
    testing::CollectPids(pids());
    wg = Start(Compare({"spin-with-daemon"}, {"--timeout", std::to_string(timeout)}));
    code = wg->Wait(60 + timeout);
    if (code != 3 || RecordedPids(pids()).size() == 2 || attempt == 2) break;
  }
  EXPECT_EQ(code, 3);
  EXPECT_NE(wg->out().find("candidate: timed out after " + std::to_string(timeout) +
                           " s (process tree killed)"),
            std::string::npos)
      << wg->out();
  EXPECT_EQ(RecordedPids(pids()).size(), 2u);
  ExpectNothingLeft();
}

// A process left running did its work uncounted: the run is invalid unless
// the workload allows it (allow_leftover, --allow-leftover).
TEST_F(HostileTest, ADaemonLeftBehindIsUncountedWorkWithoutANamespace) {
  // --as-is runs without a PID namespace: the supervisor, a subreaper, gets
  // the double-forked daemon back and kills it.
  auto wg = Start({"count", "--as-is", "--", HostileWorkload(), "daemon-holding-stdout"});
  EXPECT_EQ(wg->Wait(60), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->err().find("the workload left 1 process running when it ended; what it did "
                           "after that was not counted"),
            std::string::npos)
      << wg->err();
  EXPECT_NE(wg->err().find("--allow-leftover"), std::string::npos) << wg->err();
  EXPECT_EQ(CountedIr(wg->out()), -1) << wg->out();
  EXPECT_EQ(RecordedPids(pids()).size(), 1u);
  ExpectNothingLeft();
}

TEST_F(HostileTest, AnAllowedDaemonIsKilledWithoutANamespace) {
  auto wg = Start(
      {"count", "--as-is", "--allow-leftover", "--", HostileWorkload(), "daemon-holding-stdout"});
  EXPECT_EQ(wg->Wait(60), 0) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("note: the workload left 1 process running; it was killed"),
            std::string::npos)
      << wg->out();
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
  ExpectPeakUnderMiB(*wg, 64);
}

TEST_F(HostileTest, MillionsOfCallEdgesInTheProfileKeepWorkgateUnder128MiB) {
  // 1,200 functions that all call each other: the candidate's profile names
  // 1,440,000 distinct call edges (the explanation kept 0.5 KB of memory
  // for each, 700 MiB in all, before its tables were bounded).
  auto wg = Start({"compare", "--baseline", BenignWorkload(), "--candidate",
                   testing::BuildPath("tests/hostile_calls"), "--backend", ValgrindBackends()[0],
                   "--timed", "0", "--no-store", "--explain", "always", "--json", Path("r.json"),
                   "--flamegraph", Path("f.html"), "--", "{exe}", "1200"});
  EXPECT_EQ(wg->Wait(300), 1) << wg->out() << wg->err();
  const std::string said =
      "The candidate's profile named more than 500,000 call edges; the explanation keeps none "
      "of them";
  EXPECT_NE(wg->out().find(said), std::string::npos) << wg->out();
  EXPECT_NE(ReadFile(Path("f.html")).value_or("").find("more than 500,000 call edges"),
            std::string::npos);
  auto report = nlohmann::json::parse(ReadFile(Path("r.json")).value_or("null"));
  const auto& explanation = report["workloads"][0]["explanation"];
  EXPECT_EQ(explanation["profile_cuts"],
            nlohmann::json::parse(R"([{"side": "candidate", "table": "call_edges",
                                       "named": 500000, "more_than_named": true, "kept": 0}])"))
      << explanation.dump();
  // The rows are the functions' self costs, which no bound cuts.
  EXPECT_EQ(explanation["rows"].size(), 10u) << explanation.dump();
  ExpectNothingLeft();
  ExpectPeakUnderMiB(*wg, 128);
}

// --- Containment, continued -------------------------------------------------

TEST_F(HostileTest, ADaemonInThePidNamespaceIsUncountedWork) {
  auto wg = Start(Compare({"daemon"}, {"--json", Path("r.json")}));
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("candidate: the workload left 1 process running when it ended"),
            std::string::npos)
      << wg->out();
  auto report = nlohmann::json::parse(ReadFile(Path("r.json")).value_or("null"));
  EXPECT_EQ(report["workloads"][0]["verdict"], "invalid") << report.dump();
  EXPECT_EQ(RecordedPids(pids()).size(), 1u);  // the benign baseline leaves none
  ExpectNothingLeft();
}

TEST_F(HostileTest, AnAllowedDaemonInThePidNamespaceIsKilledAndEveryReportSaysSo) {
  auto wg = Start(CompareSelf(
      {"daemon"}, {"--json", Path("r.json"), "--markdown", Path("r.md"), "--allow-leftover"}));
  EXPECT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
  const std::string note = "the workload left 1 process running; it was killed";
  EXPECT_NE(wg->out().find("command: candidate: " + note), std::string::npos) << wg->out();
  auto report = nlohmann::json::parse(ReadFile(Path("r.json")).value_or("null"));
  EXPECT_EQ(report["workloads"][0]["candidate"]["notes"], nlohmann::json::array({note}));
  EXPECT_NE(ReadFile(Path("r.md")).value_or("").find(note), std::string::npos);
  EXPECT_EQ(RecordedPids(pids()).size(), 2u);  // one daemon per side
  ExpectNothingLeft();
}

TEST_F(HostileTest, ATreeLeftRunningIsUncountedWorkAndKilled) {
  auto wg =
      Start({"count", "--pass-env", "HOSTILE_PIDS", "--", HostileWorkload(), "fork-tree", "5"});
  EXPECT_EQ(wg->Wait(120), 3) << wg->err();
  EXPECT_NE(wg->err().find("the workload left 31 processes running when it ended"),
            std::string::npos)
      << wg->err();
  EXPECT_EQ(CountedIr(wg->out()), -1) << wg->out();
  EXPECT_EQ(RecordedPids(pids()).size(), 31u);
  ExpectNothingLeft();
}

TEST_F(HostileTest, ASuiteThatAllowsLeftoversCountsTheTreeAndKillsIt) {
  const std::string suite =
      Suite("\"tree\"", {"fork-tree", "3"}, "score: ([0-9]+)",
            "allow_leftover = true\nenv = { HOSTILE_PIDS = '" + pids() + "' }\n");
  auto wg = Start({"count", "--suite", suite, "--exe", HostileWorkload()});
  EXPECT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("tree: note: the workload left 7 processes running; they were killed"),
            std::string::npos)
      << wg->out();
  EXPECT_EQ(RecordedPids(pids()).size(), 7u);
  ExpectNothingLeft();
}

TEST_F(HostileTest, AWorkloadThatIgnoresEverySignalIsEndedAtItsTimeout) {
  auto wg = Start(CompareSelf({"ignore-signals"}, {"--timeout", "1"}));
  EXPECT_EQ(wg->Wait(60), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("timed out after 1 s (process tree killed)"), std::string::npos)
      << wg->out();
  ExpectNothingLeft();
}

TEST_F(HostileTest, AWorkloadThatStopsItselfIsEndedAtItsTimeout) {
  auto wg = Start(CompareSelf({"stop"}, {"--timeout", "1"}));
  EXPECT_EQ(wg->Wait(60), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("timed out after 1 s (process tree killed)"), std::string::npos)
      << wg->out();
  ExpectNothingLeft();
}

TEST_F(HostileTest, AHostileProgramInterpreterRunsOnlyInsideTheTree) {
  const std::string interpreted = testing::BuildPath("tests/hostile_interpreted");
#ifndef WORKGATE_HOSTILE_INTERP_BUILT
  GTEST_SKIP() << "the hostile interpreter is built for x86-64 and aarch64 only";
#endif
  WORKGATE_ASSERT_BUILT(interpreted);
  // Its PT_INTERP leaves a daemon that holds stdout. The fingerprint reads
  // the ELF file and never starts it; the counted runs start it contained.
  // (The daemon is allowed here: a daemon left running is the subject of
  // ADaemonInThePidNamespaceIsUncountedWork.)
  // --events never: one counted run of the candidate, and no simulated one.
  auto wg = Start({"compare", "--baseline", BenignWorkload(), "--candidate", interpreted, "--timed",
                   "0", "--events", "never", "--pass-env", "HOSTILE_PIDS", "--allow-leftover",
                   "--json", Path("r.json"), "--", "x"});
  EXPECT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
  auto report = nlohmann::json::parse(ReadFile(Path("r.json")).value_or("null"));
  EXPECT_TRUE(report["workloads"][0]["candidate"]["fingerprint"]["libraries"].contains(
      testing::BuildPath("tests/hostile_interp")))
      << report["workloads"][0]["candidate"]["fingerprint"].dump();
  EXPECT_EQ(RecordedPids(pids()).size(), 1u);  // from the counted run, not the fingerprint
  ExpectNothingLeft();
}

TEST_F(HostileTest, AMissingCandidateIsInvalid) {
  auto wg =
      Start({"compare", "--baseline", BenignWorkload(), "--candidate", Path("absent"), "--", "x"});
  EXPECT_EQ(wg->Wait(60), 3);
  EXPECT_NE(wg->err().find("absent does not exist"), std::string::npos) << wg->err();
  ExpectNothingLeft();
}

// --- Bounded resources, continued ---------------------------------------------

TEST_F(HostileTest, TwoGigabytesOfStderrAreQuotedByTheirEnd) {
  auto wg = Start({"count", "--quiet", "--", HostileWorkload(), "flood-stderr", "2000000000"});
  EXPECT_EQ(wg->Wait(300), 3) << wg->err().substr(0, 2000);
  EXPECT_NE(
      wg->err().find("Error: no valid count: exited with status 1; its stderr ends:\n  | xxx"),
      std::string::npos)
      << wg->err().substr(0, 2000);
  EXPECT_LT(wg->err().size(), 10000u);
  ExpectNothingLeft();
#if WORKGATE_TEST_ASAN
  GTEST_SKIP() << "AddressSanitizer's shadow memory makes the resident set no measure";
#endif
  EXPECT_LT(wg->peak_kib(), 64u * 1024);
}

TEST_F(HostileTest, AScoreBetweenTwoFloodsIsStillFound) {
  // 8 MB of output on either side of it: not in the head or the tail kept.
  auto wg = Start({"compare", "--baseline", BenignWorkload(), "--candidate", HostileWorkload(),
                   "--timed", "0", "--suite", Suite("\"sandwich\"", {"sandwich", "8000000"})});
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("candidate: score mismatch: expected 1, got 7"), std::string::npos)
      << wg->out();
  ExpectNothingLeft();
}

TEST_F(HostileTest, AFiftyThousandDigitScoreIsAMismatchNotACrash) {
  auto wg =
      Start({"compare", "--baseline", BenignWorkload(), "--candidate", HostileWorkload(), "--timed",
             "0", "--suite", Suite("\"digits\"", {"line", "score: ", "1", "50000"})});
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("expected 1, got " + std::string(48, '1') + "\u2026(50000 characters)"),
            std::string::npos)
      << wg->out().substr(0, 3000);
  ExpectNothingLeft();
}

TEST_F(HostileTest, ABacktrackingPatternOnALongLineEndsInTime) {
  // A backtracking engine would take 2^60000 steps: it would not end before
  // Wait's deadline.
  auto wg = Start({"compare", "--baseline", BenignWorkload(), "--candidate", HostileWorkload(),
                   "--timed", "0", "--suite",
                   Suite("\"aaa\"", {"line", "", "a", "60000"}, "(?:a+)+b|score: ([0-9]+)")});
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("candidate: the pinned run printed no score"), std::string::npos)
      << wg->out();
  ExpectNothingLeft();
}

// --- Numbers ------------------------------------------------------------------

TEST_F(HostileTest, ANanTimeoutInASuiteIsAUsageError) {
  const std::string suite = Path("nan.toml");
  std::ofstream(suite) << "[[workload]]\nname = \"w\"\ncommand = [\"{exe}\", \"sleep\", "
                          "\"1\"]\nclock = \"none\"\ntimeout = nan\n";
  auto wg = Start({"compare", "--baseline", BenignWorkload(), "--candidate", HostileWorkload(),
                   "--suite", suite});
  EXPECT_EQ(wg->Wait(60), 2);
  EXPECT_NE(wg->err().find("nan.toml:5: workload 'w': key 'timeout'"), std::string::npos)
      << wg->err();
  EXPECT_TRUE(RecordedPids(pids()).empty());  // nothing ran
  ExpectNothingLeft();
}

TEST_F(HostileTest, ANanMarginInASuiteIsAUsageError) {
  auto wg =
      Start({"compare", "--baseline", BenignWorkload(), "--candidate", HostileWorkload(), "--suite",
             Suite("\"w\"", {"sleep", "1"}, "score: ([0-9]+)", "max_work_added = nan\n")});
  EXPECT_EQ(wg->Wait(60), 2);
  EXPECT_NE(wg->err().find("key 'max_work_added'"), std::string::npos) << wg->err();
  EXPECT_TRUE(RecordedPids(pids()).empty());
  ExpectNothingLeft();
}

TEST_F(HostileTest, NonFiniteOrHugeTimeoutsAreUsageErrors) {
  for (const char* value : {"nan", "inf", "-inf", "1e300", "0"}) {
    auto wg = Start(Compare({"sleep", "1"}, {"--timeout", value}));
    EXPECT_EQ(wg->Wait(60), 2) << value;
    EXPECT_NE(wg->err().find("--timeout"), std::string::npos) << value << ": " << wg->err();
  }
  EXPECT_TRUE(RecordedPids(pids()).empty());
  ExpectNothingLeft();
}

TEST_F(HostileTest, AStoredBaselineCountAboveInt64MaxIsInvalid) {
  auto save = Start({"compare", "--baseline", BenignWorkload(), "--save-baseline",
                     Path("base.json"), "--timed", "0", "--", "x"});
  ASSERT_EQ(save->Wait(120), 0) << save->err();
  auto doc = nlohmann::json::parse(ReadFile(Path("base.json")).value_or("null"));
  doc["workloads"][0]["counts"] = nlohmann::json::array({9223372036854775808ULL});
  std::ofstream(Path("base.json")) << doc.dump();
  auto wg = Start({"compare", "--baseline-results", Path("base.json"), "--candidate",
                   BenignWorkload(), "--timed", "0", "--", "x"});
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("above the largest count"), std::string::npos) << wg->out();
  ExpectNothingLeft();
}

TEST_F(HostileTest, ACorruptStoredBaselineSaysItIsCorrupt) {
  std::ofstream(Path("base.json")) << "{\"format\": \"workgate-baseline\", \"schema";
  auto wg = Start({"compare", "--baseline-results", Path("base.json"), "--candidate",
                   BenignWorkload(), "--timed", "0", "--", "x"});
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("is corrupt"), std::string::npos) << wg->out();
  EXPECT_EQ(wg->out().find("has no workload"), std::string::npos) << wg->out();
  ExpectNothingLeft();
}

// --- What workgate publishes ----------------------------------------------------

TEST_F(HostileTest, HostileFunctionNamesStayText) {
  // The candidate's hottest function is named in markup, escape sequences
  // and invalid UTF-8; the explanation shows it everywhere.
  auto wg = Start({"compare", "--baseline", testing::BuildPath("tests/hostile_symbols_baseline"),
                   "--candidate", testing::BuildPath("tests/hostile_symbols_candidate"), "--timed",
                   "0", "--json", Path("r.json"), "--markdown", Path("r.md"), "--", "{exe}"});
  EXPECT_EQ(wg->Wait(180), 1) << wg->out() << wg->err();
  const std::string out = wg->out();
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << "an escape sequence reached the terminal";
  EXPECT_EQ(out.find('\xff'), std::string::npos) << "a byte that is not UTF-8 reached it";
  EXPECT_NE(out.find("q` <img src=x onerror=alert(1)> [link](https://evil.example) ``z &amp; "),
            std::string::npos)
      << out;
  const std::string md = ReadFile(Path("r.md")).value_or("");
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
  for (const char* raw : {"<img", "](https://", "&amp; "}) {
    // Present only inside code spans, never as markup: checked by rendering
    // in tests/report/markdown_hostile_test.cc; here the text must be there.
    EXPECT_NE(md.find(raw), std::string::npos) << raw;
  }
  auto report = nlohmann::json::parse(ReadFile(Path("r.json")).value_or("null"));
  bool found = false;
  for (const auto& row : report["workloads"][0]["explanation"]["rows"]) {
    const std::string name = row["function"].get<std::string>();
    found = found || (name.find("<img src=x") != std::string::npos &&
                      name.find("\ufffd") != std::string::npos);
  }
  EXPECT_TRUE(found) << report["workloads"][0]["explanation"].dump();
  ExpectNothingLeft();
}

TEST_F(HostileTest, AHostileWorkloadNameStaysText) {
  const std::string name =
      "\"evil\\u001b[2J\\u001b]0;pwned\\u0007 <img src=x> [x](https://e.example) `q`\"";
  auto wg =
      Start({"compare", "--baseline", BenignWorkload(), "--candidate", BenignWorkload(), "--timed",
             "0", "--markdown", Path("r.md"), "--suite", Suite(name, {"sleep", "0"})});
  EXPECT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
  EXPECT_EQ(wg->out().find('\x1b'), std::string::npos);
  EXPECT_EQ(wg->out().find('\x07'), std::string::npos);
  EXPECT_NE(wg->out().find("evil"), std::string::npos);
  const std::string md = ReadFile(Path("r.md")).value_or("");
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
  // The escape sequences are gone whole (the window title's text with them);
  // the rest is text in a code span.
  EXPECT_NE(md.find("`` evil <img src=x> [x](https://e.example) `q` ``"), std::string::npos) << md;
  ExpectNothingLeft();
}

TEST_F(HostileTest, OutputPassedThroughCannotDriveTheTerminal) {
  auto wg = Start({"count", "--", HostileWorkload(), "print",
                   "hello\x1b[2J\x1b]0;title\x07 world\x9b"
                   "31m\xff"});
  EXPECT_EQ(wg->Wait(60), 0) << wg->err();
  EXPECT_EQ(wg->out().find('\x1b'), std::string::npos);
  EXPECT_EQ(wg->out().find('\x07'), std::string::npos);
  EXPECT_NE(wg->out().find("hello world"), std::string::npos) << wg->out();
  ExpectNothingLeft();
}

TEST_F(HostileTest, BytesThatAreNotUtf8KeepTheJson) {
  auto wg = Start({"count", "--json", Path("c.json"), "--env", "BAD=\xc3\x28", "--",
                   HostileWorkload(), "print", "\xfe\xff"});
  EXPECT_EQ(wg->Wait(60), 0) << wg->err();
  auto j = nlohmann::json::parse(ReadFile(Path("c.json")).value_or("null"));
  EXPECT_EQ(j["argv"].back(), "\ufffd\ufffd");
  EXPECT_EQ(j["valid"], true);
  ExpectNothingLeft();
}

// --- The environment ------------------------------------------------------------

TEST_F(HostileTest, AValgrindFirstOnPathIsNamedAndNotComparedWithAnother) {
  auto save = Start({"compare", "--baseline", BenignWorkload(), "--save-baseline",
                     Path("base.json"), "--timed", "0", "--", "x"});
  ASSERT_EQ(save->Wait(120), 0) << save->err();
  // A stand-in that runs the real Valgrind: first on PATH, it is what counts.
  fs::create_directory(Path("bin"));
  std::ofstream(Path("bin/valgrind")) << "#!/bin/sh\nexec " << FindValgrind().path << " \"$@\"\n";
  fs::permissions(Path("bin/valgrind"), fs::perms::owner_all);
  auto env = Env();
  env["PATH"] = Path("bin") + ":" + env["PATH"];
  auto wg = std::make_unique<WorkgateProcess>(
      std::vector<std::string>{"compare", "--baseline-results", Path("base.json"), "--candidate",
                               BenignWorkload(), "--timed", "0", "--", "x"},
      env, dir_.path());
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("Valgrind path differs"), std::string::npos) << wg->out();
  EXPECT_NE(wg->out().find("at " + Path("bin/valgrind")), std::string::npos) << wg->out();
  ExpectNothingLeft();
}

TEST_F(HostileTest, AFailingCandidateIsQuotedNotValgrindsBanner) {
  auto wg = Start(Compare({"fail", "boom"}));
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("hostile: boom"), std::string::npos) << wg->out();
  EXPECT_EQ(wg->out().find("Copyright"), std::string::npos) << wg->out();
  EXPECT_EQ(wg->out().find("=="), std::string::npos) << wg->out();
  ExpectNothingLeft();
}

TEST_F(HostileTest, AnUnwritableReportPathFailsBeforeAnythingRuns) {
  auto wg = Start(Compare({"sleep", "1"}, {"--json", Path("no/such/dir/r.json")}));
  EXPECT_EQ(wg->Wait(60), 5);
  EXPECT_NE(wg->err().find(Path("no/such/dir")), std::string::npos) << wg->err();
  EXPECT_TRUE(RecordedPids(pids()).empty());
  ExpectNothingLeft();
}

TEST_F(HostileTest, AFullDiskIsAnEnvironmentFailureNamingThePath) {
  if (getuid() != 0 || access("/usr/bin/unshare", X_OK) != 0) {
    GTEST_SKIP() << "a private tmpfs needs root and unshare(1)";
  }
  // workgate gets a mount namespace of its own, with a 256 KiB TMPDIR.
  auto wg = std::make_unique<WorkgateProcess>(
      std::vector<std::string>{"count", "--", HostileWorkload(), "sleep", "0"}, Env(), dir_.path(),
      std::vector<std::string>{"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh",
                               "-c",
                               "mount -t tmpfs -o size=256k tmpfs \"$TMPDIR\" && "
                               "head -c 262144 /dev/zero > \"$TMPDIR/fill\" 2>/dev/null; "
                               "exec \"$0\" \"$@\""});
  const auto code = wg->Wait(120);
  // unshare(1) or mount(8) refusing (in a chroot "/" is no mount point whose
  // propagation can change) says so on stderr before workgate starts.
  if (code == 126 || wg->err().rfind("unshare:", 0) == 0 ||
      wg->err().find("mount:") != std::string::npos) {
    GTEST_SKIP() << "cannot mount a private tmpfs here: " << wg->err();
  }
  EXPECT_EQ(code, 5) << wg->out() << wg->err();
  EXPECT_NE(wg->err().find("is full"), std::string::npos) << wg->err();
  EXPECT_NE(wg->err().find(tmp()), std::string::npos) << wg->err();
}

TEST_F(HostileTest, ARepeatOfZeroIsExplained) {
  auto wg = Start(Compare({"sleep", "1"}, {"--repeat", "0"}));
  EXPECT_EQ(wg->Wait(60), 2);
  EXPECT_NE(wg->err().find("--repeat"), std::string::npos) << wg->err();
  EXPECT_TRUE(RecordedPids(pids()).empty());
  ExpectNothingLeft();
}

TEST_F(HostileTest, ASuiteThatIsADirectoryIsExplained) {
  auto wg = Start({"compare", "--baseline", BenignWorkload(), "--candidate", HostileWorkload(),
                   "--suite", tmp()});
  EXPECT_EQ(wg->Wait(60), 2);
  EXPECT_NE(wg->err().find("is a directory"), std::string::npos) << wg->err();
  ExpectNothingLeft();
}

// --- The count out of the workload's reach ------------------------------

// A child that outlives its parent looks, in the directories its
// descriptors name, for the count files Valgrind writes, and rewrites them
// to say 1 instruction. vgcount's counts travel on its channel and are
// written only after the tree has ended, where no descriptor points: the
// child finds none, and the count is the real one.
TEST_F(HostileTest, AChildCannotRewriteItsCountUnderVgcount) {
#ifndef WORKGATE_VGCOUNT_BUILT
  WORKGATE_REQUIRE_TOOL(false, "CMake did not build vgcount");
#endif
  auto wg = Start({"count", "--backend", "vgcount", "--", HostileWorkload(), "rewrite-outputs"});
  ASSERT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("rewritten: 0"), std::string::npos) << wg->out();
  EXPECT_GT(CountedIr(wg->out()), 100000) << wg->out();
  ExpectNothingLeft();
}

// A child whose parent ends before the child's first moment (held stopped
// until then, on one CPU): it is still the parent's, and the tree has one
// root. Named by whoever adopted it, it was a second root, and the count
// invalid.
TEST_F(HostileTest, AChildAdoptedBeforeItFirstRanIsStillItsParents) {
#ifndef WORKGATE_VGCOUNT_BUILT
  WORKGATE_REQUIRE_TOOL(false, "CMake did not build vgcount");
#endif
  std::vector<std::string> argv = {"/usr/bin/taskset", "-c", "0", testing::WorkgateBin(), "count",
                                   "--backend", "vgcount", "--no-store", "--",
                                   HostileWorkload(), "orphan-before-it-runs"};
  LaunchSpec spec;
  spec.argv = argv;
  spec.env = Env();
  spec.cwd = dir_.path();
  spec.timeout_seconds = 120;
  const LaunchResult r = Launch(spec);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("orphan ran"), std::string::npos) << r.out;
  EXPECT_GT(CountedIr(r.out), 100000) << r.out;
}

// A program that sends its own count on vgcount's channel (sendmsg on every
// descriptor it may hold, the reserved one included): the count is invalid
// (3), and the message says which call could have forged it.
TEST_F(HostileTest, ACountForgedOnTheChannelIsInvalid) {
#ifndef WORKGATE_VGCOUNT_BUILT
  WORKGATE_REQUIRE_TOOL(false, "CMake did not build vgcount");
#endif
  auto wg = Start({"count", "--backend", "vgcount", "--", HostileWorkload(), "forge-channel"});
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  const std::string said = wg->out() + wg->err();
  EXPECT_NE(said.find("called sendmsg"), std::string::npos) << said;
  EXPECT_NE(said.find("could be forged"), std::string::npos) << said;
  EXPECT_EQ(CountedIr(wg->out()), -1) << said;
  ExpectNothingLeft();
}

// The workload's /proc is its own PID namespace's: workgate (and whatever
// else runs on the runner) is not there, so neither its stdout nor its
// environment (a CI's GITHUB_ENV) can be reached through /proc.
TEST_F(HostileTest, TheWorkloadSeesOnlyItsOwnProcesses) {
  if (!PidNamespaceAvailable()) GTEST_SKIP() << "PID namespaces need root or user namespaces";
  auto wg = Start({"count", "--backend", "vgcount", "--", HostileWorkload(), "reach-proc"});
  ASSERT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
  const std::string out = wg->out();
  // The namespace's init and the workload. The init is a forked copy of
  // workgate (so /proc calls it workgate) with its stdout closed, and not
  // dumpable: its environment is out of reach of a workload that holds no
  // capability, which it never does, root or not.
  EXPECT_NE(out.find("visible: 2 workgate: 1 stdout: 0 environ: 0"), std::string::npos) << out;
  EXPECT_EQ(out.find("workgate: ok (forged)"), std::string::npos) << out;
  ExpectNothingLeft();
}

// A file outside the workload's own directories (here one in the build
// tree, as a build, a report, the result store or a CI's GITHUB_ENV would
// be) is read-only to it: its append is refused and the file is as it was.
// So is another workload's directory; its own working directory is not.
TEST_F(HostileTest, TheWorkloadCannotWriteOutsideItsDirectories) {
  if (!PidNamespaceAvailable() || !ReadOnlyFileSystemAvailable()) {
    GTEST_SKIP() << "this machine lets workgate make no read-only file system for the workload "
                    "(no namespaces, / is no mount point, or a kernel before 5.12)";
  }
  // The build tree, or else HOME: the first this user can write that is
  // outside the directories the workload may write.
  std::string target;
  const char* home = getenv("HOME");
  for (const std::string& dir : {testing::BuildPath("tests"), std::string(home ? home : "")}) {
    const std::string candidate = dir + "/hostile_overwrite_target";
    if (candidate[0] != '/' || candidate.rfind("/tmp/", 0) == 0 ||
        candidate.rfind("/var/tmp/", 0) == 0 || candidate.rfind("/dev/shm/", 0) == 0) {
      continue;
    }
    if (std::ofstream(candidate) << "original\n") {
      target = candidate;
      break;
    }
  }
  if (target.empty()) {
    GTEST_SKIP() << "this user can write no directory outside /tmp (the build tree, HOME) to "
                    "try the attack on";
  }
  auto wg = Start({"count", "--backend", "vgcount", "--", HostileWorkload(), "append", target});
  ASSERT_EQ(wg->Wait(120), 0) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("refused: Read-only file system"), std::string::npos) << wg->out();
  EXPECT_EQ(ReadFile(target).value_or(""), "original\n");
  fs::remove(target);
  // Nor can it write in another workload's directory (here a file beside
  // the directories of workgate's workloads, as one of them would be).
  const std::string base = tmp() + "/workgate-" + std::to_string(getuid());
  fs::create_directory(base);
  fs::permissions(base, fs::perms::owner_all);
  const std::string other = base + "/other-workload";
  std::ofstream(other) << "original\n";
  auto planted = Start({"count", "--backend", "vgcount", "--", HostileWorkload(), "append", other});
  ASSERT_EQ(planted->Wait(120), 0) << planted->out() << planted->err();
  EXPECT_NE(planted->out().find("refused: Read-only file system"), std::string::npos)
      << planted->out();
  EXPECT_EQ(ReadFile(other).value_or(""), "original\n");
  fs::remove(other);
  // The control: its own directory is writable.
  auto control = Start({"count", "--backend", "vgcount", "--", HostileWorkload(), "append", "own"});
  ASSERT_EQ(control->Wait(120), 0) << control->out() << control->err();
  EXPECT_NE(control->out().find("written"), std::string::npos) << control->out();
  ExpectNothingLeft();
}

// --- Uncounted work ---------------------------------------------------------

// A child execs a setuid copy of the program with ten times the work:
// Valgrind does not trace it. Valgrind 3.19 fails the exec, others run it
// natively; either way the run is invalid and names the program. (No root
// needed: any user may set the setuid bit on a file of their own.)
TEST_F(HostileTest, ASetuidProgramLeftUntracedIsUncountedWork) {
  ExpectUncountedWork({"--", HostileWorkload(), "exec-setuid-copy"},
                      {"uncounted work: the workload ran the program ",
                       "/suid-copy, a setuid, setgid or setcap program, which Valgrind does not "
                       "trace"});
}

TEST_F(HostileTest, ASetuidCandidateMakesTheComparisonInvalid) {
  auto wg = Start(Compare({"exec-setuid-copy"}, {"--json", Path("r.json")}));
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("candidate: uncounted work: the workload ran the program "),
            std::string::npos)
      << wg->out();
  auto report = nlohmann::json::parse(ReadFile(Path("r.json")).value_or("null"));
  EXPECT_EQ(report["workloads"][0]["verdict"], "invalid") << report.dump();
  ExpectNothingLeft();
}

// A child that works and is killed before it ends writes no count: its
// Valgrind log without one is the sign, which no rewriting of the log's
// lines can hide.
TEST_F(HostileTest, AProcessThatWroteNoCountIsUncountedWork) {
  ExpectUncountedWork({"--", HostileWorkload(), "kill-working-child"},
                      {"uncounted work: process ",
                       "wrote no count: it was killed before it ended, or it ran a program "
                       "Valgrind does not trace"});
}

TEST_F(HostileTest, ARegionNeverEnteredIsUncountedWork) {
  // A program without markers counts nothing: invalid, never 0 instructions.
  ExpectUncountedWork(
      {"--region", "--", BenignWorkload()},
      {"uncounted work: the program never started its region", "WORKGATE_REGION_BEGIN()"});
  // The markers work: a region entered counts.
  for (const std::string& backend : ValgrindBackends()) {
    SCOPED_TRACE(backend);
    auto marked = Start(
        {"count", "--backend", backend, "--region", "--", HostileWorkload(), "region", "100000"});
    EXPECT_EQ(marked->Wait(120), 0) << marked->out() << marked->err();
    EXPECT_GT(CountedIr(marked->out()), 100000) << marked->out();
  }
  ExpectNothingLeft();
}

// The baseline marks its region; the candidate (the benign build, which
// ignores its arguments) dropped the markers and does its work unmarked.
TEST_F(HostileTest, ACandidateThatDropsItsRegionMarkersIsInvalid) {
  const std::string suite =
      Suite("\"marked\"", {"region", "100000"}, "score: ([0-9]+)", "region = true\n");
  auto wg = Start({"compare", "--baseline", HostileWorkload(), "--candidate", BenignWorkload(),
                   "--timed", "0", "--no-store", "--json", Path("r.json"), "--suite", suite});
  EXPECT_EQ(wg->Wait(120), 3) << wg->out() << wg->err();
  EXPECT_NE(wg->out().find("candidate: uncounted work: the program never started its region"),
            std::string::npos)
      << wg->out();
  auto report = nlohmann::json::parse(ReadFile(Path("r.json")).value_or("null"));
  EXPECT_EQ(report["workloads"][0]["verdict"], "invalid") << report.dump();
  ExpectNothingLeft();
}

// --- The builds under test hold still ------------------------------------------

// Writes a suite of two workloads: the first runs the program with `args`,
// the second only prints its score.
std::string TwoWorkloadSuite(const std::string& path, const std::vector<std::string>& args) {
  std::string command = "\"{exe}\"";
  for (const std::string& a : args) command += ", '" + a + "'";
  std::ofstream(path) << "[[workload]]\nname = \"first\"\ncommand = [" << command
                      << "]\nclock = \"none\"\n"
                      << "[[workload]]\nname = \"second\"\ncommand = [\"{exe}\", \"sleep\", "
                         "\"0\"]\nclock = \"none\"\n";
  return path;
}

// `compare` of two builds on `suite`, one workload after the other
// (--jobs 1), with its JSON report at `json`.
std::vector<std::string> CompareTwoWorkloads(const std::string& baseline,
                                             const std::string& candidate, const std::string& suite,
                                             const std::string& json) {
  return {"compare",    "--baseline", baseline, "--candidate", candidate, "--timed", "0",
          "--no-store", "--jobs",     "1",      "--json",      json,      "--suite", suite};
}

// The candidate writes itself over the baseline's file during its first
// workload. Where each run has a read-only file system and a /tmp of its own
// (the baseline lies in /tmp, in TMPDIR), it cannot: the file is bound
// read-only for it, and the counts stand. Elsewhere the second workload's
// baseline would count the candidate: the run is invalid and names the
// file, and no count of the second workload's baseline is the candidate's.
TEST_F(HostileTest, ACandidateThatOverwritesTheBaselineMakesTheRunInvalid) {
  const std::string baseline = Path("baseline");
  fs::copy_file(BenignWorkload(), baseline);
  const std::string before = ReadFile(baseline).value_or("");
  auto wg = Start(CompareTwoWorkloads(baseline, HostileWorkload(),
                                      TwoWorkloadSuite(Path("suite.toml"), {"overwrite", baseline}),
                                      Path("r.json")));
  const std::vector<std::string> shared = SharedTemporaryDirectories();
  if (PidNamespaceAvailable() && ReadOnlyFileSystemAvailable() &&
      std::find(shared.begin(), shared.end(), "/tmp") == shared.end()) {
    // 1: the hostile program does more work than the benign one.
    EXPECT_EQ(wg->Wait(180), 1) << wg->out() << wg->err();
    EXPECT_EQ(ReadFile(baseline).value_or(""), before);
    EXPECT_EQ(wg->out().find("changed during the run"), std::string::npos) << wg->out();
    ExpectNothingLeft();
    return;
  }
  EXPECT_EQ(wg->Wait(180), 3) << wg->out() << wg->err();
  // The attack was made: the file is the candidate now.
  EXPECT_EQ(ReadFile(baseline), ReadFile(HostileWorkload()));
  EXPECT_NE(wg->out().find("baseline: the build " + baseline + " changed during the run"),
            std::string::npos)
      << wg->out();
  auto report = nlohmann::json::parse(ReadFile(Path("r.json")).value_or("null"));
  const auto& second = report["workloads"][1];
  EXPECT_EQ(second["name"], "second") << report.dump();
  EXPECT_EQ(second["verdict"], "invalid") << second.dump();
  EXPECT_TRUE(second["baseline"]["counts"].empty()) << second.dump();
  ExpectNothingLeft();
}

// The candidate rewrites the file it runs from, workgate's read-only copy.
// Where the workload's file system is read-only (its namespace), it cannot:
// the counts stand and nothing says the build changed. Elsewhere it can
// make the copy writable first: the count it did that in, and every later
// one, is refused, naming the build and the copy.
TEST_F(HostileTest, ACandidateThatRewritesItsRunningCopyMakesTheRunInvalid) {
  const std::string candidate = Path("candidate");
  fs::copy_file(HostileWorkload(), candidate);
  const std::string before = ReadFile(candidate).value_or("");
  auto wg = Start(CompareTwoWorkloads(BenignWorkload(), candidate,
                                      TwoWorkloadSuite(Path("suite.toml"), {"overwrite-self"}),
                                      Path("r.json")));
  if (PidNamespaceAvailable() && ReadOnlyFileSystemAvailable()) {
    // 1: the hostile program does more work than the benign one.
    EXPECT_EQ(wg->Wait(180), 1) << wg->out() << wg->err();
    EXPECT_EQ(ReadFile(candidate).value_or(""), before);
    EXPECT_EQ(wg->out().find("changed during the run"), std::string::npos) << wg->out();
    ExpectNothingLeft();
    return;
  }
  EXPECT_EQ(wg->Wait(180), 3) << wg->out() << wg->err();
  EXPECT_EQ(ReadFile(candidate).value_or(""), before) << "the build itself was not run";
  EXPECT_NE(wg->out().find("candidate: the build " + candidate +
                           " changed during the run (the copy it runs from, "),
            std::string::npos)
      << wg->out();
  EXPECT_NE(wg->out().find("was rewritten)"), std::string::npos) << wg->out();
  auto report = nlohmann::json::parse(ReadFile(Path("r.json")).value_or("null"));
  for (int i : {0, 1}) {
    EXPECT_EQ(report["workloads"][i]["verdict"], "invalid") << report.dump();
    EXPECT_TRUE(report["workloads"][i]["candidate"]["counts"].empty()) << report.dump();
  }
  ExpectNothingLeft();
}

}  // namespace
}  // namespace workgate
