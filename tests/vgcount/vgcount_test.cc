// Tests of the vgcount Valgrind tool (tools/vgcount): exact deltas on known
// work, agreement with callgrind's Ir, children, threads and marked regions.
// Every run is pinned (ASLR off, empty environment, same VALGRIND_LIB for both
// tools), because what the client sees moves its count: the VALGRIND_LIB path
// alone, visible to the client through LD_PRELOAD, moves it by hundreds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "explain/callgrind_profile.h"
#include "test_requirements.h"
#include "vgcount/profile_match.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

#if defined(__x86_64__)
constexpr const char* kPlatform = "amd64-linux";
#elif defined(__aarch64__)
constexpr const char* kPlatform = "arm64-linux";
#else
constexpr const char* kPlatform = "unsupported";
#endif

// Callgrind adds a block's cost when the thread's next block starts, so the
// last block of each thread is never counted; VEX blocks are at most 50
// instructions (--vex-guest-max-insns default).
constexpr int64_t kMaxBlockInstructions = 50;

const fs::path kBuild = WORKGATE_BUILD_DIR;
const fs::path kLib = kBuild / "valgrind-lib";
const fs::path kKnownLoop = kBuild / "probes" / "known_loop";
const fs::path kThreadProbe = kBuild / "probes" / "vgcount_thread_probe";
const fs::path kFiniAfterCall = kBuild / "tests" / "fini_after_call";
const fs::path kCallEdges = kBuild / "tests" / "call_edges";
const fs::path kReloadMain = kBuild / "tests" / "reload_main";
const fs::path kReloadLib = kBuild / "tests" / "libvgcount_reload.so";
const fs::path kLoops = kBuild / "tests" / "vgcount_loops";
const fs::path kSwapMain = kBuild / "tests" / "swap_main";
const fs::path kSwapLibA = kBuild / "tests" / "libvgcount_swap_a.so";
const fs::path kSwapLibB = kBuild / "tests" / "libvgcount_swap_b.so";
const fs::path kUnwindProbe = kBuild / "tests" / "unwind_probe";
const fs::path kThrowProbe = kBuild / "tests" / "throw_probe";

std::string Quote(const std::string& s) { return "'" + s + "'"; }

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The value of the first line "<key>: <value>" or "<key> <value>".
std::optional<int64_t> Field(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(key, 0) != 0) continue;
    size_t at = key.size();
    while (at < line.size() && (line[at] == ':' || line[at] == ' ')) at++;
    return std::stoll(line.substr(at));
  }
  return std::nullopt;
}

class VgcountTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef WORKGATE_VGCOUNT_BUILT
    WORKGATE_ASSERT_BUILT((kLib / (std::string("vgcount-") + kPlatform)).string());
#else
    WORKGATE_REQUIRE_TOOL(false,
                          "CMake did not build vgcount (it needs the Debian valgrind "
                          "package's tool headers and archives)");
#endif
    WORKGATE_REQUIRE_TOOL(std::system("command -v valgrind >/dev/null 2>&1") == 0,
                          "valgrind is not on PATH");
    dir_ = fs::temp_directory_path() /
           ("vgcount_test." + std::to_string(::getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Runs `valgrind <tool_args> <command>` pinned; returns stderr.
  std::string Valgrind(const std::string& tool_args, const std::string& command) {
    std::string err = (dir_ / "stderr").string();
    std::string line = "cd " + Quote(dir_.string()) + " && setarch \"$(uname -m)\" -R env -i " +
                       "VALGRIND_LIB=" + Quote(kLib.string()) + " valgrind " + tool_args + " " +
                       command + " </dev/null >/dev/null 2>" + Quote(err);
    EXPECT_EQ(std::system(line.c_str()), 0) << line << "\n" << ReadFile(err);
    return ReadFile(err);
  }

  // vgcount's count of `command` (one process).
  int64_t Vgcount(const std::string& command, const std::string& extra = "") {
    fs::path out = dir_ / "vgcount.out";
    Valgrind("-q --tool=vgcount --vgcount-out-file=" + Quote(out.string()) + " " + extra, command);
    std::optional<int64_t> n = Field(ReadFile(out), "instructions");
    EXPECT_TRUE(n.has_value()) << ReadFile(out);
    return n.value_or(-1);
  }

  // callgrind's Ir total for `command` (one process): its `totals:` line, as
  // workgate's callgrind backend reads it. (Its `summary:` line leaves out
  // what signal handlers executed.)
  int64_t Callgrind(const std::string& command, const std::string& extra = "") {
    fs::path out = dir_ / "callgrind.out";
    Valgrind("-q --tool=callgrind --callgrind-out-file=" + Quote(out.string()) + " " + extra,
             command);
    std::optional<int64_t> n = Field(ReadFile(out), "totals");
    EXPECT_TRUE(n.has_value()) << ReadFile(out);
    return n.value_or(-1);
  }

  // vgcount's profile of `command` (one process) from the run that counted
  // `*total`, and callgrind's profile of the same command: both read by
  // workgate's callgrind reader. With `vgcount_messages`, vgcount runs at
  // -v -v and its messages (its statistics among them) are kept there.
  void Profiles(const std::string& command, const std::string& extra, Profile* vgcount,
                Profile* callgrind, int64_t* total, std::string* vgcount_messages = nullptr) {
    const fs::path out = dir_ / "vgcount.out", profile = dir_ / "vgcount.profile",
                   cg = dir_ / "callgrind.out";
    const std::string messages =
        Valgrind(std::string(vgcount_messages != nullptr ? "-v -v" : "-q") +
                     " --tool=vgcount --vgcount-out-file=" + Quote(out.string()) +
                     " --vgcount-profile-file=" + Quote(profile.string()) + " " + extra,
                 command);
    if (vgcount_messages != nullptr) *vgcount_messages = messages;
    Valgrind("-q --tool=callgrind --callgrind-out-file=" + Quote(cg.string()) + " " + extra,
             command);
    *total = Field(ReadFile(out), "instructions").value_or(-1);
    std::string err;
    EXPECT_TRUE(LoadCallgrindFile(profile.string(), vgcount, &err)) << err;
    EXPECT_TRUE(LoadCallgrindFile(cg.string(), callgrind, &err)) << err;
    EXPECT_EQ(static_cast<int64_t>(vgcount->total), *total);
  }

  // The report files vgcount wrote under dir_ with --vgcount-out-file=vgc.%p.
  std::vector<std::string> Reports() {
    std::vector<std::string> reports;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      if (entry.path().filename().string().rfind("vgc.", 0) == 0) {
        reports.push_back(ReadFile(entry.path()));
      }
    }
    return reports;
  }

  fs::path dir_;
};

// The number after "<what>: " in Valgrind's messages `err` (vgcount's -v -v
// statistics), or -1 when no line says it.
int64_t Said(const std::string& err, const std::string& what) {
  const size_t at = err.find(what + ": ");
  if (at == std::string::npos) return -1;
  return std::stoll(err.substr(at + what.size() + 2));
}

// Fails the test for each source line whose costs differ in `gaps`.
void ReportLineGaps(const std::vector<testing::LineGap>& gaps) {
  for (const testing::LineGap& gap : gaps) {
    ADD_FAILURE() << gap.function.name << " in " << gap.function.object << ", " << gap.line.file
                  << ":" << gap.line.line << ": vgcount " << gap.vgcount << ", callgrind "
                  << gap.callgrind;
  }
}

TEST_F(VgcountTest, DeltaOfKnownLoopIsExactlyTwoPerIteration) {
  int64_t small = Vgcount(Quote(kKnownLoop.string()) + " 100000");
  int64_t large = Vgcount(Quote(kKnownLoop.string()) + " 300000");
  EXPECT_EQ(large - small, 400000);
}

TEST_F(VgcountTest, TotalIsCallgrindIrPlusTheFinalBlock) {
  std::string command = Quote(kKnownLoop.string()) + " 100000";
  fs::path out = dir_ / "vgcount.out";
  std::string err = Valgrind("--tool=vgcount --vgcount-out-file=" + Quote(out.string()), command);
  std::string report = ReadFile(out);
  int64_t ours = Field(report, "instructions").value_or(-1);
  int64_t theirs = Callgrind(command);
  // Measured here: 2 (the exit_group block).
  EXPECT_GE(ours - theirs, 0);
  EXPECT_LE(ours - theirs, kMaxBlockInstructions);
  EXPECT_NE(err.find("vgcount instructions: " + std::to_string(ours)), std::string::npos) << err;
  EXPECT_EQ(Field(report, "version"), 2);
  EXPECT_EQ(Field(report, "threads"), 1);
  // One thread, no signal, no unpinned system call: an empty list, present.
  EXPECT_NE(report.find("\nunpinned:\n"), std::string::npos) << report;
  EXPECT_NE(report.find("\npinned:"), std::string::npos) << report;
  EXPECT_NE(report.find("cmd: " + kKnownLoop.string() + " 100000\n"), std::string::npos);
}

TEST_F(VgcountTest, QuietRunPrintsNothing) {
  std::string err =
      Valgrind("-q --tool=vgcount --vgcount-out-file=vgc.%p", Quote(kKnownLoop.string()) + " 10");
  EXPECT_EQ(err, "");
  EXPECT_EQ(Reports().size(), 1u);
}

TEST_F(VgcountTest, ForkedChildGetsItsOwnReportOfItsOwnWork) {
  const int64_t n = 300000;
  std::string command = Quote(kKnownLoop.string()) + " --fork " + std::to_string(n);
  Valgrind("-q --trace-children=yes --tool=vgcount --vgcount-out-file=vgc.%p", command);
  std::vector<std::string> reports = Reports();
  ASSERT_EQ(reports.size(), 2u);
  const std::string& parent =
      Field(reports[0], "ppid") == Field(reports[1], "pid") ? reports[1] : reports[0];
  const std::string& child = &parent == &reports[0] ? reports[1] : reports[0];
  EXPECT_EQ(Field(child, "ppid"), Field(parent, "pid"));
  // The child counts from the fork: the loop plus its way to _exit.
  int64_t child_count = Field(child, "instructions").value_or(-1);
  EXPECT_GE(child_count, 2 * n);
  EXPECT_LE(child_count, 2 * n + 1000);
  // The parent's figure is callgrind's parent figure, up to its final block.
  int64_t parent_count = Field(parent, "instructions").value_or(-1);
  int64_t callgrind_parent = Callgrind(command);
  EXPECT_GE(parent_count - callgrind_parent, 0);
  EXPECT_LE(parent_count - callgrind_parent, kMaxBlockInstructions);
}

TEST_F(VgcountTest, AProfiledForkCountsEachProcessAsAnUnprofiledRun) {
  // A forked child starts its profile afresh, as its count does: with the
  // profile on, each process counts what it counts without it, and its
  // profile adds up to that count (a child that kept its parent's profile
  // counted the parent's work again, and its profile still added up).
  const std::string command = Quote(kKnownLoop.string()) + " --fork 100000 300000";
  Valgrind("-q --trace-children=yes --tool=vgcount --vgcount-out-file=vgc.%p", command);
  Valgrind("-q --trace-children=yes --tool=vgcount --vgcount-out-file=vgp.%p "
           "--vgcount-profile-file=prof.%p",
           command);
  std::vector<int64_t> plain, profiled;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("vgc.", 0) == 0) {
      plain.push_back(Field(ReadFile(entry.path()), "instructions").value_or(-1));
    } else if (name.rfind("vgp.", 0) == 0) {
      const int64_t count = Field(ReadFile(entry.path()), "instructions").value_or(-1);
      profiled.push_back(count);
      const fs::path profile = dir_ / ("prof." + name.substr(4));
      EXPECT_EQ(Field(ReadFile(profile), "totals"), count) << profile;
    }
  }
  std::sort(plain.begin(), plain.end());
  std::sort(profiled.begin(), profiled.end());
  ASSERT_EQ(plain.size(), 3u);
  EXPECT_EQ(profiled, plain);
}

TEST_F(VgcountTest, TraceChildrenFollowsExec) {
  // dash forks and execs the first command; /bin/true is not a builtin path.
  std::string script = Quote(kKnownLoop.string()) + " 1000; /bin/true";
  Valgrind("-q --trace-children=yes --tool=vgcount --vgcount-out-file=vgc.%p",
           "/bin/sh -c " + Quote(script));
  int exec_reports = 0;
  for (const std::string& report : Reports()) {
    if (report.find("cmd: " + kKnownLoop.string() + " 1000\n") != std::string::npos) {
      exec_reports++;
      EXPECT_GT(Field(report, "instructions").value_or(0), 2000);
    }
  }
  EXPECT_EQ(exec_reports, 1);
}

TEST_F(VgcountTest, ToggledRegionEqualsCallgrinds) {
  std::string command = Quote(kThreadProbe.string()) + " --region 100000";
  int64_t ours = Vgcount(command, "--collect-atstart=no");
  EXPECT_EQ(ours, Callgrind(command, "--collect-atstart=no"));
  // Only the region: the loop plus the request block and loop set-up (26 here).
  EXPECT_GE(ours, 200000);
  EXPECT_LE(ours, 200100);
}

TEST_F(VgcountTest, PerThreadRegionsEqualCallgrinds) {
  // Four threads each toggle their own region; thread switches fall inside
  // the regions (Valgrind's time slice is 100000 blocks).
  std::string command = Quote(kThreadProbe.string()) + " --region 4 300000";
  int64_t ours = Vgcount(command, "--collect-atstart=no");
  EXPECT_EQ(ours, Callgrind(command, "--collect-atstart=no"));
  EXPECT_GE(ours, 4 * 600000);
  EXPECT_LE(ours, 4 * 600100);
}

TEST_F(VgcountTest, SignalHandlersAreCounted) {
  // The handler runs the loop N times, 3 times over. Valgrind puts the
  // counter back when a handler returns (it restores the shadow state from
  // the signal frame); the handler's work must survive that.
  std::string probe = Quote(kThreadProbe.string()) + " --signal ";
  int64_t small = Vgcount(probe + "100000");
  int64_t large = Vgcount(probe + "200000");
  EXPECT_EQ(large - small, 3 * 2 * 100000);
  int64_t theirs = Callgrind(probe + "100000");
  EXPECT_GE(small, theirs);
  EXPECT_LE(small - theirs, kMaxBlockInstructions);
}

TEST_F(VgcountTest, SignalInsideRegionIsCountedWithIt) {
  // A handler goes on in the interrupted code's collect state, so a signal
  // inside a region is counted with it; callgrind gives the handler a fresh
  // state (--collect-atstart=no here) and leaves its loop out.
  std::string command = Quote(kThreadProbe.string()) + " --signal-in-region 100000";
  int64_t ours = Vgcount(command, "--collect-atstart=no");
  int64_t theirs = Callgrind(command, "--collect-atstart=no");
  EXPECT_GE(ours, 3 * 200000);
  EXPECT_LE(ours, 3 * 200000 + 1000);
  EXPECT_GE(ours - theirs, 200000);
  EXPECT_LE(ours - theirs, 200000 + 1000);
}

TEST_F(VgcountTest, ThreadedTotalAgreesWithCallgrind) {
  std::string command = Quote(kThreadProbe.string()) + " 4 100000";
  fs::path out = dir_ / "vgcount.out";
  Valgrind("-q --tool=vgcount --vgcount-out-file=" + Quote(out.string()), command);
  std::string report = ReadFile(out);
  int64_t ours = Field(report, "instructions").value_or(-1);
  int64_t theirs = Callgrind(command);
  EXPECT_EQ(Field(report, "threads"), 5);
  // Which thread takes Valgrind's lock after a blocking syscall is up to the
  // kernel, so pthread_join and thread exit take the futex path or not: runs
  // of either tool move by about 100 instructions (measured: 917404..917506).
  EXPECT_LE(std::llabs(ours - theirs), 1000) << ours << " vs " << theirs;
}

// Fails the test for each call edge whose count or inclusive cost differs
// in `gaps`.
void ReportCallGaps(const std::vector<testing::CallGap>& gaps) {
  for (const testing::CallGap& gap : gaps) {
    ADD_FAILURE() << gap.edge.first.name << " (" << gap.edge.first.object << ") -> "
                  << gap.edge.second.name << " (" << gap.edge.second.object << "): vgcount "
                  << gap.vgcount.calls << " calls, " << gap.vgcount.inclusive
                  << " inclusive; callgrind " << gap.callgrind.calls << ", "
                  << gap.callgrind.inclusive;
  }
}

TEST_F(VgcountTest, CallEdgesAndInclusiveCostsEqualCallgrinds) {
  WORKGATE_ASSERT_BUILT(kCallEdges);
  const std::string command = Quote(kCallEdges.string()) + " 100";
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "", &vgcount, &callgrind, &total);
  const auto calls = [&](const char* caller, const char* callee) {
    const CallEdge edge{{caller, "call_edges"}, {callee, "call_edges"}};
    return vgcount.calls.count(edge) ? vgcount.calls.at(edge) : CallCost{};
  };
  // Direct and through a pointer; the jump in tail position is a call from
  // tail. GCC turns one of fib's two recursive calls into a loop, so how
  // often fib calls itself is the compiler's (callgrind's figure, below).
  EXPECT_EQ(calls("main", "leaf").calls, 200u);
  EXPECT_EQ(calls("main", "tail").calls, 100u);
  EXPECT_EQ(calls("tail", "leaf").calls, 100u);
  EXPECT_EQ(calls("main", "tail_only").calls, 100u);
  EXPECT_EQ(calls("tail_only", "tail_leaf").calls, 100u);
  EXPECT_EQ(calls("main", "fib").calls, 1u);
  EXPECT_GE(calls("fib", "fib").calls, 986u);
  // A call's inclusive cost is the callee's self cost and its calls'.
  const uint64_t tail_self = vgcount.self.at({"tail", "call_edges"});
  EXPECT_EQ(calls("main", "tail").inclusive, tail_self + calls("tail", "leaf").inclusive);
  // Both frames left at tail_leaf's one return.
  EXPECT_EQ(calls("tail_only", "tail_leaf").inclusive,
            vgcount.self.at({"tail_leaf", "call_edges"}));
  EXPECT_EQ(calls("main", "tail_only").inclusive, vgcount.self.at({"tail_only", "call_edges"}) +
                                                      calls("tail_only", "tail_leaf").inclusive);
  EXPECT_EQ(calls("main", "fib").inclusive, vgcount.self.at({"fib", "call_edges"}));
  // Through the PLT: atoi(argv[1]), then once an iteration (glibc's
  // header makes each atoi a call of strtol).
  const CallEdge to_strtol{{"main", "call_edges"}, {"strtol", "libc.so.6"}};
  ASSERT_TRUE(vgcount.calls.count(to_strtol));
  EXPECT_EQ(vgcount.calls.at(to_strtol).calls, 101u);
  // The C library calls back into the program: qsort's comparator.
  uint64_t comparisons = 0;
  for (const auto& [edge, cost] : vgcount.calls) {
    if (edge.second == FunctionId{"by_value", "call_edges"}) {
      EXPECT_EQ(edge.first.object, "libc.so.6") << edge.first.name;
      comparisons += cost.calls;
    }
  }
  EXPECT_GE(comparisons, 99u);
  // Every edge of the run, the C library's and the loader's too, as
  // callgrind has it.
  EXPECT_GE(vgcount.calls.size(), 100u);
  ReportCallGaps(testing::UnexplainedCallGaps(vgcount, callgrind, 1));
  EXPECT_TRUE(testing::UnexplainedGaps(vgcount, callgrind, 1).empty());
  ReportLineGaps(testing::UnexplainedLineGaps(vgcount, callgrind, 1));
}

// A block's line check finds its slot from the program counter only in the
// first translation made for an address; a library unloaded and loaded again
// at the same place is translated a second time for the same addresses, and
// those blocks pass their slot instead. Both rounds are counted, on the
// library's own lines. (Callgrind looks lines up when it writes its file, by
// which time the library is gone, so it has its costs on line 0: its lines
// are compared for the rest of the program only.)
TEST_F(VgcountTest, CodeTranslatedAgainAtTheSameAddressKeepsItsLines) {
  WORKGATE_ASSERT_BUILT(kReloadMain);
  WORKGATE_ASSERT_BUILT(kReloadLib);
  const fs::path addresses = dir_ / "addresses";
  const std::string command = Quote(kReloadMain.string()) + " " + Quote(kReloadLib.string()) + " " +
                              Quote(addresses.string());
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "", &vgcount, &callgrind, &total);
  // The case under test: the second load put reload_work where the first did.
  std::istringstream loads(ReadFile(addresses));
  std::string first, second;
  ASSERT_TRUE(loads >> first >> second) << ReadFile(addresses);
  ASSERT_EQ(first, second) << "the library was not loaded again at the same address";
  const FunctionId work{"reload_work", "libvgcount_reload.so"};
  ASSERT_TRUE(vgcount.self.count(work));
  ASSERT_TRUE(callgrind.self.count(work));
  // Both rounds (1000 and 2000 iterations), as callgrind counts them.
  EXPECT_EQ(vgcount.self.at(work), callgrind.self.at(work));
  EXPECT_GE(vgcount.self.at(work), 3000u);
  uint64_t on_lines = 0;
  for (const auto& [line, cost] : vgcount.lines.at(work)) {
    EXPECT_NE(line.file.find("reload_lib.c"), std::string::npos) << line.file;
    EXPECT_GT(line.line, 0u) << cost;
    on_lines += cost;
  }
  EXPECT_EQ(on_lines, vgcount.self.at(work));
  EXPECT_TRUE(testing::UnexplainedGaps(vgcount, callgrind, 1).empty());
  vgcount.lines.erase(work);
  callgrind.lines.erase(work);
  ReportLineGaps(testing::UnexplainedLineGaps(vgcount, callgrind, 1));
}

// One library unloaded and another loaded at its place, its function where
// the first one's was (testdata/swap_main.c): Valgrind discards the first's
// translations, and vgcount must forget what it kept about the code at those
// addresses (the function a call target names, the edge a call site last
// made), or the calls into the second library are charged as calls of the
// first's function. Calls, inclusive and self costs as callgrind has them.
TEST_F(VgcountTest, ALibraryLoadedWhereAnUnloadedOneWasGetsItsOwnCallsAndCosts) {
  for (const fs::path& built : {kSwapMain, kSwapLibA, kSwapLibB}) WORKGATE_ASSERT_BUILT(built);
  const fs::path addresses = dir_ / "addresses";
  const std::string command = Quote(kSwapMain.string()) + " " + Quote(kSwapLibA.string()) + " " +
                              Quote(kSwapLibB.string()) + " " + Quote(addresses.string());
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "", &vgcount, &callgrind, &total);
  // The case under test: bravo_work where alpha_work was.
  std::istringstream loads(ReadFile(addresses));
  std::string first, second;
  ASSERT_TRUE(loads >> first >> second) << ReadFile(addresses);
  ASSERT_EQ(first, second) << "the second library's function is not where the first's was";
  const FunctionId run{"Run", "swap_main"};
  const FunctionId alpha{"alpha_work", "libvgcount_swap_a.so"};
  const FunctionId bravo{"bravo_work", "libvgcount_swap_b.so"};
  const FunctionId step{"bravo_step", "libvgcount_swap_b.so"};
  for (const CallEdge& edge : {CallEdge{run, alpha}, CallEdge{run, bravo}, CallEdge{bravo, step}}) {
    ASSERT_TRUE(vgcount.calls.count(edge)) << edge.first.name << " -> " << edge.second.name;
    ASSERT_TRUE(callgrind.calls.count(edge)) << edge.first.name << " -> " << edge.second.name;
    EXPECT_EQ(vgcount.calls.at(edge).calls, callgrind.calls.at(edge).calls) << edge.second.name;
    EXPECT_EQ(vgcount.calls.at(edge).inclusive, callgrind.calls.at(edge).inclusive)
        << edge.second.name;
  }
  EXPECT_EQ(vgcount.calls.at({run, alpha}).calls, 10u);
  EXPECT_EQ(vgcount.calls.at({run, bravo}).calls, 10u);
  for (const FunctionId& function : {alpha, bravo, step}) {
    ASSERT_TRUE(vgcount.self.count(function)) << function.name;
    EXPECT_EQ(vgcount.self.at(function), callgrind.self.at(function)) << function.name;
  }
  ReportCallGaps(testing::UnexplainedCallGaps(vgcount, callgrind, 1));
  EXPECT_TRUE(testing::UnexplainedGaps(vgcount, callgrind, 1).empty());
  // Callgrind looks lines up when it writes its file, by which time both
  // libraries are gone: their lines are compared for the rest only.
  for (const FunctionId& function : {alpha, bravo, step}) {
    vgcount.lines.erase(function);
    callgrind.lines.erase(function);
  }
  ReportLineGaps(testing::UnexplainedLineGaps(vgcount, callgrind, 1));
  // The simulated events are kept per instruction address, with its line:
  // bravo_work's writes are on its own lines (those with instructions), not
  // on the ones alpha_work had at those addresses.
  const fs::path simulated = dir_ / "simulated.profile";
  Valgrind("-q --tool=vgcount --vgcount-sim=yes --vgcount-out-file=" +
               Quote((dir_ / "simulated.out").string()) +
               " --vgcount-profile-file=" + Quote(simulated.string()),
           command);
  Profile ir, writes;
  std::string err;
  ASSERT_TRUE(LoadCallgrindFile(simulated.string(), &ir, &err, "Ir")) << err;
  ASSERT_TRUE(LoadCallgrindFile(simulated.string(), &writes, &err, "Dw")) << err;
  ASSERT_TRUE(writes.lines.count(bravo));
  uint64_t on_own_lines = 0;
  for (const auto& [line, n] : writes.lines.at(bravo)) {
    EXPECT_TRUE(ir.lines.at(bravo).count(line)) << line.file << ":" << line.line << ": " << n;
    on_own_lines += n;
  }
  EXPECT_GE(on_own_lines, 1000u);  // bravo_step's calls push their return addresses
}

// leaf's return block is made while leaf has only been called, with the
// one-pop form; then tail jumps to it, and that return leaves two frames,
// which the block leaves to the helper (vgcount_call_stack.c's PopReturn):
// the edges keep callgrind's counts and inclusive costs.
TEST_F(VgcountTest, AReturnMadeBeforeATailCallIntoItsFunctionLeavesBothFrames) {
  WORKGATE_ASSERT_BUILT(kCallEdges);
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(Quote(kCallEdges.string()) + " 100", "", &vgcount, &callgrind, &total);
  const CallEdge tail_to_leaf{{"tail", "call_edges"}, {"leaf", "call_edges"}};
  const CallEdge main_to_tail{{"main", "call_edges"}, {"tail", "call_edges"}};
  for (const CallEdge& edge : {tail_to_leaf, main_to_tail}) {
    ASSERT_TRUE(vgcount.calls.count(edge)) << edge.first.name << " -> " << edge.second.name;
    ASSERT_TRUE(callgrind.calls.count(edge)) << edge.first.name << " -> " << edge.second.name;
    EXPECT_EQ(vgcount.calls.at(edge).calls, 100u) << edge.first.name;
    EXPECT_EQ(vgcount.calls.at(edge).calls, callgrind.calls.at(edge).calls) << edge.first.name;
    EXPECT_EQ(vgcount.calls.at(edge).inclusive, callgrind.calls.at(edge).inclusive)
        << edge.first.name;
  }
  ReportCallGaps(testing::UnexplainedCallGaps(vgcount, callgrind, 1));
  EXPECT_TRUE(testing::UnexplainedGaps(vgcount, callgrind, 1).empty());
}

// Loops of one block are repeated in one translation when vgcount profiles
// (tools/vgcount/vgcount_unroll.c), and the profile is the one of a run
// without that, which is callgrind's: per function, line and call edge.
TEST_F(VgcountTest, LoopsRepeatedInOneTranslationKeepTheProfile) {
  WORKGATE_ASSERT_BUILT(kLoops);
  const std::string command = Quote(kLoops.string()) + " 10";
  int64_t total = 0;
  Profile vgcount, callgrind;
  std::string err;
  Profiles(command, "", &vgcount, &callgrind, &total, &err);
  // The run says how many loops it repeated (at -v -v): Countdown's at
  // least, and on x86-64 the string instructions'.
  EXPECT_GE(Said(err, "vgcount loops unrolled"), 1) << err;
  // The same run without: the same profile, to the instruction.
  std::string load_error;
  const fs::path plain = dir_ / "plain.profile";
  Valgrind("-q --tool=vgcount --vgcount-unroll=no --vgcount-out-file=" +
               Quote((dir_ / "plain.out").string()) +
               " --vgcount-profile-file=" + Quote(plain.string()),
           command);
  Profile without;
  ASSERT_TRUE(LoadCallgrindFile(plain.string(), &without, &load_error)) << load_error;
  EXPECT_EQ(vgcount.self, without.self);
  EXPECT_EQ(vgcount.lines, without.lines);
  EXPECT_EQ(vgcount.calls.size(), without.calls.size());
  for (const auto& [edge, cost] : without.calls) {
    ASSERT_TRUE(vgcount.calls.count(edge)) << edge.first.name << " -> " << edge.second.name;
    EXPECT_EQ(vgcount.calls.at(edge).calls, cost.calls)
        << edge.first.name << " -> " << edge.second.name;
    EXPECT_EQ(vgcount.calls.at(edge).inclusive, cost.inclusive)
        << edge.first.name << " -> " << edge.second.name;
  }
  // Each loop's function, as callgrind counts it.
  for (const char* name : {"Countdown", "Fill", "Find"}) {
    const FunctionId function{name, "vgcount_loops"};
    ASSERT_TRUE(vgcount.self.count(function)) << name;
    EXPECT_EQ(vgcount.self.at(function), callgrind.self.at(function)) << name;
    EXPECT_GT(vgcount.self.at(function), 400u) << name;
  }
  EXPECT_TRUE(testing::UnexplainedGaps(vgcount, callgrind, 1).empty());
  ReportLineGaps(testing::UnexplainedLineGaps(vgcount, callgrind, 1));
  ReportCallGaps(testing::UnexplainedCallGaps(vgcount, callgrind, 1));
}

TEST_F(VgcountTest, AProfileIsWrittenOnlyWhenAskedForAndAddsUpToTheCount) {
  const std::string command = Quote(kKnownLoop.string()) + " 100000";
  Vgcount(command);
  EXPECT_FALSE(fs::exists(dir_ / "vgcount.profile.1"));
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "", &vgcount, &callgrind, &total);
  const std::string text = ReadFile(dir_ / "vgcount.profile");
  EXPECT_EQ(Field(text, "totals"), total);
  EXPECT_EQ(Field(text, "summary"), total);
  EXPECT_NE(text.find("\nevents: Ir\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cmd: " + kKnownLoop.string() + " 100000\n"), std::string::npos);
  // The loop is main's: two instructions an iteration, and a little more.
  const FunctionId main_fn{"main", "known_loop"};
  ASSERT_TRUE(vgcount.self.count(main_fn)) << text.substr(0, 2000);
  EXPECT_GE(vgcount.self.at(main_fn), 200000u);
  EXPECT_LE(vgcount.self.at(main_fn), 200000u + 5000u);
  EXPECT_EQ(vgcount.self.at(main_fn), callgrind.self.at(main_fn));
  EXPECT_TRUE(testing::UnexplainedGaps(vgcount, callgrind, 1).empty());
  // Line by line too: main's instructions on lines of known_loop.c and of
  // the header whose loop it inlines, the loop's line holding the most.
  ASSERT_TRUE(vgcount.lines.count(main_fn));
  uint64_t main_lines = 0;
  SourceLine busiest;
  uint64_t busiest_cost = 0;
  for (const auto& [line, cost] : vgcount.lines.at(main_fn)) {
    EXPECT_GT(line.line, 0u) << line.file;
    EXPECT_NE(line.file.find("probes/"), std::string::npos) << line.file;
    if (cost > busiest_cost) busiest = line, busiest_cost = cost;
    main_lines += cost;
  }
  EXPECT_EQ(main_lines, vgcount.self.at(main_fn));
  EXPECT_NE(busiest.file.find("two_instruction_loop.h"), std::string::npos) << busiest.file;
  EXPECT_GE(busiest_cost, 200000u);
  ReportLineGaps(testing::UnexplainedLineGaps(vgcount, callgrind, 1));
  ReportCallGaps(testing::UnexplainedCallGaps(vgcount, callgrind, 1));
}

TEST_F(VgcountTest, ProfileChargesCodeRightAfterACallAsTheWayInSays) {
  // _fini follows a call that ends .text, so its code looks like that call's
  // return site; main and ld.so jump or call into it from other objects,
  // which callgrind takes for calls: _fini's 3 instructions are charged to
  // its own address each time, never to the function that jumped
  // (testdata/fini_after_call.c; the case of glibc 2.41's ld.so).
  WORKGATE_ASSERT_BUILT(kFiniAfterCall);
  const std::string command = Quote(kFiniAfterCall.string());
  ASSERT_EQ(std::system(command.c_str()), 0) << "the link did not put _fini right after the call";
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "", &vgcount, &callgrind, &total);
  uint64_t unnamed = 0;
  for (const auto& [function, self] : callgrind.self) {
    if (function.object == "???") unnamed += self;
  }
  EXPECT_GE(unnamed, 6u) << "callgrind charged _fini to no code outside the objects";
  for (const testing::ProfileGap& gap : testing::UnexplainedGaps(vgcount, callgrind, 1)) {
    ADD_FAILURE() << gap.function.name << " in " << gap.function.object << ": vgcount "
                  << gap.vgcount << ", callgrind " << gap.callgrind;
  }
  ReportLineGaps(testing::UnexplainedLineGaps(vgcount, callgrind, 1));
  ReportCallGaps(testing::UnexplainedCallGaps(vgcount, callgrind, 1));
}

TEST_F(VgcountTest, ProfileOfRegionsInFourThreadsEqualsCallgrinds) {
  const std::string command = Quote(kThreadProbe.string()) + " --region 4 300000";
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "--collect-atstart=no", &vgcount, &callgrind, &total);
  EXPECT_GE(total, 4 * 600000);
  for (const testing::ProfileGap& gap : testing::ProfileGaps(vgcount, callgrind)) {
    ADD_FAILURE() << gap.function.name << " in " << gap.function.object << ": vgcount "
                  << gap.vgcount << ", callgrind " << gap.callgrind;
  }
  // The regions toggle collection inside their blocks: the request's block
  // goes to the new state line by line as it does by function.
  ReportLineGaps(testing::LineGaps(vgcount, callgrind));
  // The calls made inside the regions, with the cost collected in them.
  ReportCallGaps(testing::CallGaps(vgcount, callgrind));
}

TEST_F(VgcountTest, ProfileOfASignalInsideARegionAddsTheHandler) {
  // Callgrind's profile without the handler, which vgcount counts with the
  // region: the profiles differ in the handler's code alone, by its loop.
  const std::string command = Quote(kThreadProbe.string()) + " --signal-in-region 100000";
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "--collect-atstart=no", &vgcount, &callgrind, &total);
  EXPECT_GE(total, 3 * 200000);
  int64_t handler = 0;
  for (const testing::ProfileGap& gap : testing::ProfileGaps(vgcount, callgrind)) {
    const std::string& name = gap.function.name;
    EXPECT_TRUE(name == "run_loop" || name == "loop_handler" || name == "__restore_rt")
        << name << ": vgcount " << gap.vgcount << ", callgrind " << gap.callgrind;
    handler += gap.difference();
  }
  EXPECT_GE(handler, 200000);
  EXPECT_LE(handler, 200000 + 100);
}

// Fails the test unless the self costs differ in two functions only:
// `handler` by the block each of its `signals` runs returns through (the C
// library's sigreturn trampoline, two instructions), which callgrind loses,
// and another by the last block.
void ExpectOnlyTrampolinesAndLastBlock(const Profile& vgcount, const Profile& callgrind,
                                       const FunctionId& handler, int signals) {
  const std::vector<testing::ProfileGap> gaps = testing::ProfileGaps(vgcount, callgrind);
  ASSERT_EQ(gaps.size(), 2u) << (gaps.empty() ? "" : gaps[0].function.name);
  const auto& trampoline = gaps[0].function == handler ? gaps[0] : gaps[1];
  const auto& last_block = gaps[0].function == handler ? gaps[1] : gaps[0];
  EXPECT_EQ(trampoline.function, handler);
  EXPECT_EQ(trampoline.difference(), signals * 2);
  EXPECT_GT(last_block.difference(), 0);
  EXPECT_LE(last_block.difference(), testing::kMaxLastBlockInstructions);
}

TEST_F(VgcountTest, ProfileChargesSignalHandlersTheirReturnTrampoline) {
  // Callgrind loses the block a handler returns through (the C library's
  // sigreturn trampoline, two instructions), whose cost it would add when
  // the next block starts, after the signal frame is gone; vgcount charges
  // it to the handler. Three signals: six instructions, and the last block.
  const std::string command = Quote(kThreadProbe.string()) + " --signal 100000";
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "", &vgcount, &callgrind, &total);
  ExpectOnlyTrampolinesAndLastBlock(vgcount, callgrind, {"loop_handler", "vgcount_thread_probe"},
                                    3);
  EXPECT_GE(vgcount.self.at({"loop_handler", "vgcount_thread_probe"}), 3u * 2 * 100000);
  // Lines differ only where those two functions do, and add up to it.
  ReportLineGaps(testing::LineGapsBeyondFunctionGaps(vgcount, callgrind));
  // A handler is called by no one: its calls are its own, as callgrind has
  // them.
  ReportCallGaps(testing::UnexplainedCallGaps(vgcount, callgrind, 1));
}

// CALLGRIND_ZERO_STATS three calls deep (testdata/unwind_probe.c zero):
// everything before it is dropped, the request's own block is kept, and the
// calls still in progress count from it on, as callgrind has them. (Without
// a region vgcount also says that the count is not valid: the figures are
// callgrind's all the same.)
TEST_F(VgcountTest, ZeroStatsInsideCallsEqualsCallgrinds) {
  WORKGATE_ASSERT_BUILT(kUnwindProbe);
  const std::string command = Quote(kUnwindProbe.string()) + " zero 1000";
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "", &vgcount, &callgrind, &total);
  // What is left: the second halves of zero_here, zero_middle and
  // zero_outer, and main's last spin, each 1000 iterations of spin's loop.
  const FunctionId spin{"spin", "unwind_probe"};
  ASSERT_TRUE(vgcount.self.count(spin));
  EXPECT_EQ(vgcount.self.at(spin), callgrind.self.at(spin));
  const CallEdge outer_to_middle{{"zero_outer", "unwind_probe"}, {"zero_middle", "unwind_probe"}};
  const CallEdge middle_to_here{{"zero_middle", "unwind_probe"}, {"zero_here", "unwind_probe"}};
  for (const CallEdge& edge : {outer_to_middle, middle_to_here}) {
    ASSERT_TRUE(vgcount.calls.count(edge)) << edge.second.name;
    ASSERT_TRUE(callgrind.calls.count(edge)) << edge.second.name;
    EXPECT_EQ(vgcount.calls.at(edge).inclusive, callgrind.calls.at(edge).inclusive)
        << edge.second.name;
  }
  EXPECT_TRUE(testing::UnexplainedGaps(vgcount, callgrind, 1).empty());
  ReportCallGaps(testing::UnexplainedCallGaps(vgcount, callgrind, 1));
  // main's lines after zero_outer returns (`spin(n); return 0;`, three
  // instructions) are on those lines in vgcount's file; callgrind's puts
  // them seven lines up, as its own callgrind_annotate reads it too (its
  // relative line numbers after a call whose count was zeroed). main's
  // self cost is the same (above); its lines are compared as a sum.
  const FunctionId main_function{"main", "unwind_probe"};
  const auto line_sum = [&](const Profile& profile) {
    uint64_t sum = 0;
    for (const auto& [line, cost] : profile.lines.at(main_function)) sum += cost;
    return sum;
  };
  EXPECT_EQ(line_sum(vgcount), line_sum(callgrind));
  vgcount.lines.erase(main_function);
  callgrind.lines.erase(main_function);
  ReportLineGaps(testing::UnexplainedLineGaps(vgcount, callgrind, 1));
}

// The call edges whose inclusive cost differs from callgrind's beyond the
// last block, by callee name; fails the test for a count that differs or an
// inclusive cost below callgrind's. The last block is what the totals
// differ by, and the calls still open at the end hold it.
std::map<std::string, int64_t> LargerInclusiveCosts(const Profile& vgcount,
                                                    const Profile& callgrind) {
  const int64_t last_block =
      static_cast<int64_t>(vgcount.total) - static_cast<int64_t>(callgrind.total);
  EXPECT_GT(last_block, 0);
  EXPECT_LE(last_block, kMaxBlockInstructions);
  std::map<std::string, int64_t> larger;
  for (const testing::CallGap& gap : testing::CallGaps(vgcount, callgrind)) {
    if (gap.vgcount.calls == gap.callgrind.calls && gap.difference() == last_block) continue;
    EXPECT_EQ(gap.vgcount.calls, gap.callgrind.calls)
        << gap.edge.first.name << " -> " << gap.edge.second.name;
    EXPECT_GT(gap.difference(), 0) << gap.edge.first.name << " -> " << gap.edge.second.name;
    larger[gap.edge.second.name] += gap.difference();
  }
  return larger;
}

// longjmp past four frames, five times (testdata/unwind_probe.c longjmp).
// Self costs and call counts are callgrind's; inclusive costs differ where
// README.md says they do: callgrind ends the frames a longjmp skipped at the
// first block above them, vgcount at the next call or return above them,
// so their calls' inclusive costs also hold what ran in between: for the
// inner frames the four instructions from where setjmp returns to the next
// call (spin), for the outermost that call too (a call that starts where
// the frame did does not end it; its return does).
TEST_F(VgcountTest, LongjmpOutOfNestedCallsKeepsCallgrindsSelfCostsAndCalls) {
  WORKGATE_ASSERT_BUILT(kUnwindProbe);
  const std::string command = Quote(kUnwindProbe.string()) + " longjmp 100";
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "", &vgcount, &callgrind, &total);
  EXPECT_TRUE(testing::UnexplainedGaps(vgcount, callgrind, 1).empty());
  ReportLineGaps(testing::UnexplainedLineGaps(vgcount, callgrind, 1));
  const std::map<std::string, int64_t> larger = LargerInclusiveCosts(vgcount, callgrind);
  const int64_t spin = static_cast<int64_t>(
      vgcount.calls.at({{"run_longjmp", "unwind_probe"}, {"spin", "unwind_probe"}}).inclusive);
  const int64_t landing = 5 * 4;  // per skipped frame: five longjmps, 4 instructions each
  EXPECT_EQ(larger, (std::map<std::string, int64_t>{{"jump_a", landing + spin},
                                                    {"jump_b", landing},
                                                    {"jump_c", landing},
                                                    {"jump_d", landing},
                                                    {"longjmp", landing},
                                                    {"__longjmp", landing}}));
}

// A C++ exception thrown from four calls deep and caught three frames up,
// ten times (testdata/throw_probe.cc). As for longjmp, the frames the
// unwinder leaves end later on vgcount's side, so their calls' inclusive
// costs are larger; the counts are callgrind's. Self costs are callgrind's
// but for one documented case: libgcc's _Unwind_DeleteException ends in an
// indirect jump to libstdc++'s exception cleanup, code without a symbol in
// Debian's build, which callgrind takes for a call (a jump between objects)
// and vgcount does not, so the cleanup's cost and calls are charged to
// _Unwind_DeleteException.
TEST_F(VgcountTest, ExceptionsThroughSeveralFramesKeepCallgrindsCallsAndAllButOneSelfCost) {
#ifndef WORKGATE_THROW_PROBE_BUILT
  GTEST_SKIP() << "throw_probe is built with g++ only, whose code and libstdc++'s cleanup the "
                  "test expects";
#endif
  WORKGATE_ASSERT_BUILT(kThrowProbe);
  const std::string command = Quote(kThrowProbe.string()) + " 100";
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "", &vgcount, &callgrind, &total);
  int64_t moved = 0;
  for (const testing::ProfileGap& gap : testing::UnexplainedGaps(vgcount, callgrind, 1)) {
    if (gap.function.name == "_Unwind_DeleteException") {
      EXPECT_GT(gap.difference(), 0);
      moved += gap.difference();
    } else {
      EXPECT_EQ(gap.function.name, "(code without a symbol)");
      EXPECT_EQ(gap.function.object.rfind("libstdc++.so", 0), 0u) << gap.function.object;
      moved += gap.difference();
    }
  }
  EXPECT_EQ(moved, 0) << "the cleanup's cost moved, not changed";
  // The edges the cleanup's calls make, from its caller on vgcount's side.
  Profile folded_vgcount = vgcount, folded_callgrind = callgrind;
  for (Profile* profile : {&folded_vgcount, &folded_callgrind}) {
    std::map<CallEdge, CallCost> calls;
    for (const auto& [edge, cost] : profile->calls) {
      CallEdge e = edge;
      for (FunctionId* f : {&e.first, &e.second}) {
        if (f->name.rfind("0x", 0) == 0 && f->object.rfind("libstdc++.so", 0) == 0) {
          f->name = "_Unwind_DeleteException";
          f->object = "libgcc_s.so.1";
        }
      }
      if (e.first == e.second) continue;  // the jump itself
      calls[e].calls += cost.calls;
      calls[e].inclusive += cost.inclusive;
    }
    profile->calls = calls;
  }
  const std::map<std::string, int64_t> larger =
      LargerInclusiveCosts(folded_vgcount, folded_callgrind);
  // The frames below the catching one end at the landing pad's first call
  // on vgcount's side, four instructions after callgrind ends them; the
  // catching call's own (Middle's) at that call's return, __cxa_begin_catch
  // (with, the first time, the lazy binding of its PLT entry).
  const int64_t landing = 10 * 4;
  const std::string middle = "(anonymous namespace)::Middle(unsigned long)";
  const auto catcher_calls = [&](const std::string& callee) {
    for (const auto& [edge, cost] : vgcount.calls) {
      if (edge.first.name == "(anonymous namespace)::Catcher(unsigned long)" &&
          edge.second.name == callee) {
        return static_cast<int64_t>(cost.inclusive);
      }
    }
    return int64_t{-1};
  };
  const int64_t begin_catch = catcher_calls("__cxa_begin_catch");
  ASSERT_GT(begin_catch, 0);
  ASSERT_TRUE(larger.count(middle));
  EXPECT_GE(larger.at(middle), landing + begin_catch);
  const int64_t resolver = std::max<int64_t>(0, catcher_calls("_dl_runtime_resolve_xsave"));
  EXPECT_LE(larger.at(middle), landing + begin_catch + resolver);
  std::map<std::string, int64_t> inner = larger;
  inner.erase(middle);
  EXPECT_EQ(inner, (std::map<std::string, int64_t>{
                       {"(anonymous namespace)::Inner(unsigned long)", landing},
                       {"(anonymous namespace)::Thrower(unsigned long)", landing},
                       {"_Unwind_RaiseException", landing},
                       {"__cxa_throw", landing}}));
}

// A signal handler that raises its signal again from two calls inside it,
// five handlers deep on an alternate signal stack (testdata/unwind_probe.c
// signals). Callgrind's profile, recursion levels summed, but for what
// README.md documents for every handler: the block it returns through (the
// C library's sigreturn trampoline, two instructions) is the handler's on
// vgcount's side only. Each handler's calls are its own, as callgrind has
// them.
TEST_F(VgcountTest, NestedSignalHandlersOnAnAlternateStackEqualCallgrinds) {
  WORKGATE_ASSERT_BUILT(kUnwindProbe);
  const std::string command = Quote(kUnwindProbe.string()) + " signals 100";
  int64_t total = 0;
  Profile vgcount, callgrind;
  Profiles(command, "", &vgcount, &callgrind, &total);
  ExpectOnlyTrampolinesAndLastBlock(vgcount, callgrind, {"nested_handler", "unwind_probe"}, 5);
  const CallEdge to_raise{{"raise_again", "unwind_probe"}, {"raise", "libc.so.6"}};
  ASSERT_TRUE(vgcount.calls.count(to_raise));
  EXPECT_EQ(vgcount.calls.at(to_raise).calls, 4u);
  ReportLineGaps(testing::LineGapsBeyondFunctionGaps(vgcount, callgrind));
  ReportCallGaps(testing::UnexplainedCallGaps(vgcount, callgrind, 1));
}

}  // namespace
}  // namespace workgate
