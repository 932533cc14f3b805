#include "counter/valgrind_counter.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <sstream>
#include <vector>

#include "test_paths.h"
#include "test_requirements.h"
#include "util/error.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::KnownLoop;

TEST(ParseVgcountTotalTest, ReadsTheInstructionsLine) {
  uint64_t n = 0;
  std::string err;
  ASSERT_TRUE(ParseVgcountTotal("version: 1\npid: 5\ninstructions: 4200\n", &n, &err)) << err;
  EXPECT_EQ(n, 4200u);
  EXPECT_FALSE(ParseVgcountTotal("version: 1\n", &n, &err));
  EXPECT_FALSE(ParseVgcountTotal("instructions: -3\n", &n, &err));
}

TEST(ParseVgcountInputsTest, ReadsWhatWasPinnedAndWhatWasNot) {
  VgcountInputs inputs;
  std::string err;
  ASSERT_TRUE(ParseVgcountInputs(
      "version: 2\ninstructions: 7\npinned: tsc=3 clock=2\nunpinned: threads=4 times=1\n", &inputs,
      &err))
      << err;
  EXPECT_TRUE(inputs.listed);
  EXPECT_EQ(inputs.pinned, (std::map<std::string, uint64_t>{{"clock", 2}, {"tsc", 3}}));
  EXPECT_EQ(inputs.unpinned, (std::map<std::string, uint64_t>{{"threads", 4}, {"times", 1}}));
  // Empty lists are lists: a run that met nothing.
  VgcountInputs none;
  ASSERT_TRUE(ParseVgcountInputs("pinned:\nunpinned:\n", &none, &err)) << err;
  EXPECT_TRUE(none.listed);
  EXPECT_TRUE(none.unpinned.empty());
  // An older tool's output lists nothing: not an error, but not seen either.
  VgcountInputs old;
  ASSERT_TRUE(ParseVgcountInputs("version: 1\ninstructions: 7\n", &old, &err)) << err;
  EXPECT_FALSE(old.listed);
  // Both lines, not one of them twice.
  VgcountInputs twice;
  ASSERT_TRUE(ParseVgcountInputs("pinned: tsc=1\npinned:\n", &twice, &err)) << err;
  EXPECT_FALSE(twice.listed);
}

constexpr const char* kSimulatedLine =
    "simulated: Dr=10 Dw=5 I1mr=3 D1mr=4 D1mw=2 ILmr=1 DLmr=1 DLmw=0 Bc=8 Bcm=2 Bi=3 Bim=1\n";

TEST(ParseVgcountSimulatedTest, ReadsEveryEventOnce) {
  std::map<std::string, uint64_t> events;
  bool listed = true;
  std::string err;
  ASSERT_TRUE(ParseVgcountSimulated("instructions: 9\n", &events, &listed, &err)) << err;
  EXPECT_FALSE(listed);
  EXPECT_TRUE(events.empty());
  ASSERT_TRUE(ParseVgcountSimulated(std::string("instructions: 9\n") + kSimulatedLine, &events,
                                    &listed, &err))
      << err;
  EXPECT_TRUE(listed);
  EXPECT_EQ(events.size(), 12u);
  EXPECT_EQ(events["Dr"], 10u);
  EXPECT_EQ(events["Bcm"], 2u);
  EXPECT_EQ(events["DLmw"], 0u);
}

TEST(ParseVgcountSimulatedTest, RefusesWhatTheToolNeverWrites) {
  const std::string good = kSimulatedLine;
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string line = good;
    line.replace(line.find(from), from.size(), to);
    return line;
  };
  for (const std::string& text : {
           good + good,                                // a second line
           with(" Bim=1", ""),                         // an event missing
           with("Bim=1", "Bim=1 Bim=1"),               // one twice
           with("Bim=1", "Bx=1"),                      // one vgcount has not
           with("Bim=1", "Bim=-1"),                    // not a count
           with("Bim=1", "Bim=99999999999999999999"),  // past 64 bits
           with("Bim=1", "Bim"),                       // no value
           with("Bcm=2", "Bcm=9"),                     // more misses than branches
           with("DLmr=1", "DLmr=5"),                   // more LL misses than D1 misses
           with("I1mr=3", "I1mr=0"),                   // ILmr above I1mr
       }) {
    std::map<std::string, uint64_t> events;
    bool listed = false;
    std::string err;
    EXPECT_FALSE(ParseVgcountSimulated(text, &events, &listed, &err)) << text;
    EXPECT_EQ(err.rfind("vgcount output has a malformed simulated line: ", 0), 0u) << err;
  }
}

TEST(SumSimulatedTest, AddsUpProcessesAndRefusesOneWithout) {
  TracedTree tree;
  tree[5].instructions = 100;
  tree[5].simulated = {{"Bc", 7}, {"Bcm", 2}};
  tree[5].simulated_listed = true;
  tree[6].instructions = 50;
  tree[6].simulated = {{"Bc", 3}, {"Bcm", 1}};
  tree[6].simulated_listed = true;
  tree[7].simulated_listed = false;  // wrote no count: not a process that counted
  std::map<std::string, uint64_t> events;
  std::string err;
  ASSERT_TRUE(SumSimulated(tree, &events, &err)) << err;
  EXPECT_EQ(events, (std::map<std::string, uint64_t>{{"Bc", 10}, {"Bcm", 3}}));
  tree[6].simulated_listed = false;
  EXPECT_FALSE(SumSimulated(tree, &events, &err));
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(err,
            "vgcount was asked to simulate branches and caches, and process 6 reported no "
            "simulated events");
  // Processes whose events add up beyond 64 bits are refused, not wrapped.
  tree[6].simulated_listed = true;
  tree[6].simulated = {{"Bc", UINT64_MAX - 6}, {"Bcm", 1}};
  EXPECT_FALSE(SumSimulated(tree, &events, &err));
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(err, "the run's simulated events exceed 2^64-1");
}

TEST(ParseVgcountInputsTest, RefusesWhatTheToolNeverWrites) {
  for (const char* line : {"unpinned: threads\n", "unpinned: threads=x\n", "pinned: TSC=1\n",
                           "pinned: a=1;rm=2\n", "unpinned: threads=99999999999999999999999\n"}) {
    VgcountInputs inputs;
    std::string err;
    EXPECT_FALSE(ParseVgcountInputs(line, &inputs, &err)) << line;
    EXPECT_NE(err.find("malformed input list"), std::string::npos) << err;
  }
}

TEST(DescribeUnpinnedTest, SaysEachKindInWords) {
  const std::vector<std::string> words =
      DescribeUnpinned({{"threads", 4}, {"signals", 1}, {"times", 3}, {"zero", 0}});
  ASSERT_EQ(words.size(), 3u);
  EXPECT_EQ(words[0], "1 signal delivered");
  EXPECT_EQ(words[1], "4 threads (the schedule decides which thread reads what)");
  EXPECT_EQ(words[2], "times() called 3 times (not pinned)");
}

// A profile in callgrind's format whose functions add up to `total`.
std::filesystem::path ProfileFile(const TempDir& dir, long long pid, uint64_t total) {
  const auto path = std::filesystem::path(dir.path()) / ("vgcount.profile." + std::to_string(pid));
  std::ofstream(path) << "# callgrind format\nversion: 1\npositions: line\nevents: Ir\n"
                      << "ob=(1) /bin/prog\nfn=(1) main\n0 " << total - total / 3
                      << "\nfn=(2) helper\n0 " << total / 3 << "\ntotals: " << total << "\n";
  return path;
}

TEST(ProfilesMatchCountsTest, EachCountedProcessNeedsAProfileThatAddsUpToItsCount) {
  TempDir dir;
  const TracedTree tree = {{40, {1, 3000}}, {41, {40, 700}}, {42, {40, std::nullopt}}};
  std::string err;
  EXPECT_TRUE(
      ProfilesMatchCounts({ProfileFile(dir, 40, 3000), ProfileFile(dir, 41, 700)}, tree, &err))
      << err;

  // One instruction off: the profile does not explain that count.
  EXPECT_FALSE(
      ProfilesMatchCounts({ProfileFile(dir, 40, 3000), ProfileFile(dir, 41, 701)}, tree, &err));
  EXPECT_EQ(err, "vgcount's profile of process 41 adds up to 701, its count is 700");

  // A counted process without a profile.
  EXPECT_FALSE(ProfilesMatchCounts({ProfileFile(dir, 40, 3000)}, tree, &err));
  EXPECT_EQ(err, "vgcount wrote no profile of process 41");

  // A profile that is no profile at all.
  const auto broken = std::filesystem::path(dir.path()) / "vgcount.profile.41";
  std::ofstream(broken) << "not callgrind\n";
  EXPECT_FALSE(ProfilesMatchCounts({ProfileFile(dir, 40, 3000), broken}, tree, &err));
  EXPECT_FALSE(err.empty());
}

TEST(TotalsRootFirstTest, TheLaunchedProcessIsTheOneWhoseParentIsNotTraced) {
  // Pids that wrapped: the launched process has the highest pid, its child
  // and grandchild low ones, a sibling in between.
  TracedTree tree = {{32760, {100, 7}}, {300, {32760, 11}}, {301, {300, 13}}, {9000, {32760, 17}}};
  std::vector<uint64_t> totals;
  std::string err;
  ASSERT_TRUE(TotalsRootFirst(tree, &totals, &err)) << err;
  EXPECT_EQ(totals, (std::vector<uint64_t>{7, 11, 13, 17}));
}

TEST(TotalsRootFirstTest, AProcessKilledBeforeItWroteAnythingIsLeftOut) {
  TracedTree tree = {{5, {1, 7}}, {6, {5, std::nullopt}}, {8, {std::nullopt, std::nullopt}}};
  std::vector<uint64_t> totals;
  std::string err;
  ASSERT_TRUE(TotalsRootFirst(tree, &totals, &err)) << err;
  EXPECT_EQ(totals, std::vector<uint64_t>{7});
}

TEST(TotalsRootFirstTest, ATreeWithoutOneKnownRootIsAnError) {
  std::vector<uint64_t> totals;
  std::string err;
  EXPECT_FALSE(TotalsRootFirst({{5, {1, 7}}, {6, {2, 7}}}, &totals, &err));
  EXPECT_EQ(err, "processes 5, 6 have no parent in the run, so which one was launched is unknown");
  EXPECT_FALSE(TotalsRootFirst({{5, {6, 7}}, {6, {5, 7}}}, &totals, &err));
  EXPECT_EQ(err, "no process of the run has its parent outside it");
  EXPECT_FALSE(TotalsRootFirst({{5, {1, 7}}, {6, {std::nullopt, 7}}}, &totals, &err));
  EXPECT_EQ(err, "Valgrind's log of process 6 names no parent");
  EXPECT_FALSE(TotalsRootFirst({{5, {1, std::nullopt}}, {6, {5, 7}}}, &totals, &err));
  EXPECT_EQ(err, "the launched process (pid 5) wrote no count");
}

class CallgrindCounterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
  }
  CountedRun Count(std::vector<std::string> argv, const std::string& cwd = "") {
    ValgrindCounter counter(ValgrindCounter::Tool::kCallgrind);
    LaunchSpec spec;
    spec.argv = std::move(argv);
    spec.env = MinimalEnvironment("/tmp");
    spec.cwd = cwd;
    spec.timeout_seconds = 120;
    return counter.Run(spec, {});
  }
};

TEST_F(CallgrindCounterTest, DeltaBetweenTwoSizesIsExact) {
  CountedRun small = Count({KnownLoop(), "100000"});
  CountedRun large = Count({KnownLoop(), "300000"});
  ASSERT_TRUE(small.valid()) << small.error;
  ASSERT_TRUE(large.valid()) << large.error;
  EXPECT_EQ(*large.instructions() - *small.instructions(), 2u * 200000u);
  EXPECT_EQ(small.events[0].event, "Ir");
  EXPECT_EQ(small.processes, 1);
}

// Valgrind names each process's output by its pid, and pids wrap, so
// per_process comes in no order the tests may rely on: they sort it, or find
// a process by what it counted.
std::vector<uint64_t> Sorted(std::vector<uint64_t> counts) {
  std::sort(counts.begin(), counts.end());
  return counts;
}

TEST_F(CallgrindCounterTest, CountsEveryProcessOfTheTree) {
  CountedRun alone = Count({KnownLoop(), "0"});
  CountedRun forked = Count({KnownLoop(), "--fork", "100000", "300000"});
  ASSERT_TRUE(alone.valid()) << alone.error;
  ASSERT_TRUE(forked.valid()) << forked.error;
  ASSERT_EQ(forked.processes, 3);
  ASSERT_EQ(forked.per_process.size(), 3u);
  const std::optional<uint64_t> total = forked.instructions(), parent_alone = alone.instructions();
  ASSERT_TRUE(total && parent_alone);
  EXPECT_EQ(*total,
            std::accumulate(forked.per_process.begin(), forked.per_process.end(), uint64_t{0}));
  // Each child counts from its fork, not its parent's work before it: two
  // of the processes, the children, differ by their loops alone.
  const std::vector<uint64_t>& p = forked.per_process;
  int pairs = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    for (size_t j = 0; j < p.size(); ++j) pairs += i != j && p[j] - p[i] == 400000u;
  }
  EXPECT_EQ(pairs, 1) << ::testing::PrintToString(p);
  // Both children's loops (800,000 instructions) are in the total.
  EXPECT_GT(*total, *parent_alone + 800000u);
}

TEST_F(CallgrindCounterTest, TheLaunchedProcessComesFirstWhenItsChildHasALowerPid) {
  // A wrap made on purpose: the shell moves the kernel's last pid below its
  // own (ns_last_pid, which only root may write) and starts a long loop,
  // whose pid is then lower than the shell's. Pid order would put it first.
  const std::string script =
      "p=$(($$ - 2000)); [ $p -gt 300 ] && echo $p > /proc/sys/kernel/ns_last_pid || exit 0; " +
      KnownLoop() + " 5000000 & c=$!; wait $c; echo $$ $c";
  // Another process of a busy machine can take the pid written before the
  // loop does: a few tries.
  CountedRun run;
  long long shell = 0, child = 0;
  for (int attempt = 0; attempt < 5 && (child == 0 || child > shell); ++attempt) {
    run = Count({"/bin/sh", "-c", script});
    ASSERT_TRUE(run.valid()) << run.error << run.launch.err;
    shell = child = 0;
    std::istringstream(run.launch.out) >> shell >> child;
  }
  if (child == 0 || child > shell) {
    GTEST_SKIP() << "could not give the child a lower pid than its parent (ns_last_pid needs "
                    "root): "
                 << run.launch.out;
  }
  ASSERT_EQ(run.per_process.size(), 2u);
  EXPECT_LT(run.per_process[0], 10'000'000u) << "the shell";
  EXPECT_GT(run.per_process[1], 10'000'000u) << "the loop";
}

TEST_F(CallgrindCounterTest, RegionCountsOnlyTheMarkedWorkOfEachProcess) {
  // With the loop alone marked as the region, each child's count is its
  // loop and the markers, and the parent's is zero.
  ValgrindCounter counter(ValgrindCounter::Tool::kCallgrind);
  LaunchSpec spec;
  spec.argv = {KnownLoop(), "--region-fork", "100000", "300000"};
  spec.env = MinimalEnvironment("/tmp");
  spec.timeout_seconds = 120;
  CountOptions options;
  options.region = true;
  CountedRun run = counter.Run(spec, options);
  ASSERT_TRUE(run.valid()) << run.error;
  ASSERT_EQ(run.per_process.size(), 3u);
  // Sorted: the parent (which never enters the region), then the children
  // by the size of their loops.
  const std::vector<uint64_t> counts = Sorted(run.per_process);
  EXPECT_EQ(counts[0], 0u);
  EXPECT_EQ(counts[2] - counts[1], 400000u);
  EXPECT_GE(counts[1], 200000u);
  EXPECT_LT(counts[1] - 200000u, 100u);  // the markers cost a few instructions
}

TEST_F(CallgrindCounterTest, ARegionNeverEnteredIsInvalidNotZero) {
  ValgrindCounter counter(ValgrindCounter::Tool::kCallgrind);
  LaunchSpec spec;
  spec.argv = {KnownLoop(), "100000"};  // no markers
  spec.env = MinimalEnvironment("/tmp");
  spec.timeout_seconds = 120;
  CountOptions options;
  options.region = true;
  CountedRun run = counter.Run(spec, options);
  EXPECT_FALSE(run.valid());
  EXPECT_NE(run.error.find("count --region): Valgrind never turned collection on"),
            std::string::npos)
      << run.error;
}

TEST_F(CallgrindCounterTest, ProfilesThatCannotBeKeptMakeTheRunInvalid) {
  // Kept profiles feed explanations and the stability check: one missing
  // would explain a tree without one of its processes.
  TempDir dir;
  const std::string file = dir.path() + "/file";
  std::ofstream(file) << "not a directory";
  ValgrindCounter counter(ValgrindCounter::Tool::kCallgrind);
  LaunchSpec spec;
  spec.argv = {KnownLoop(), "10"};
  spec.env = MinimalEnvironment("/tmp");
  spec.timeout_seconds = 120;
  CountOptions options;
  options.keep_profiles_dir = file + "/kept";
  CountedRun lost = counter.Run(spec, options);
  EXPECT_FALSE(lost.valid());
  EXPECT_EQ(lost.error.rfind("cannot create " + file + "/kept to keep the profiles: ", 0), 0u)
      << lost.error;
  options.keep_profiles_dir = dir.path() + "/kept";
  CountedRun kept = counter.Run(spec, options);
  ASSERT_TRUE(kept.valid()) << kept.error;
  EXPECT_FALSE(std::filesystem::is_empty(options.keep_profiles_dir));
}

TEST_F(CallgrindCounterTest, AProfileThatCannotBeCopiedIsNamedAndNoneIsKept) {
  // In a PID namespace of its own the tree's pids are known: the launched
  // process is 2, its two children 3 and 4. A directory named as the last
  // child's profile where it is to be kept (which a workload could make)
  // stops the copy after the others were made.
  if (!PidNamespaceAvailable()) GTEST_SKIP() << "PID namespaces need root or user namespaces";
  TempDir dir;
  const std::string keep = dir.path() + "/kept";
  ASSERT_TRUE(std::filesystem::create_directories(keep + "/callgrind.out.4/inside"));
  ValgrindCounter counter(ValgrindCounter::Tool::kCallgrind);
  LaunchSpec spec;
  spec.argv = {KnownLoop(), "--fork", "10", "10"};
  spec.env = MinimalEnvironment("/tmp");
  spec.timeout_seconds = 120;
  spec.new_pid_namespace = true;
  CountOptions options;
  options.keep_profiles_dir = keep;
  CountedRun run = counter.Run(spec, options);
  EXPECT_FALSE(run.valid());
  EXPECT_FALSE(run.instructions());
  EXPECT_EQ(run.error.rfind("cannot keep the profile " + keep + "/callgrind.out.4: ", 0), 0u)
      << run.error;
  // The profiles copied before it are removed: no partial tree is left.
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(keep)) {
    left.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"callgrind.out.4"});
}

TEST_F(CallgrindCounterTest, FailedRunsHaveNoCount) {
  CountedRun crashed = Count({KnownLoop(), "--crash"});
  EXPECT_FALSE(crashed.valid());
  EXPECT_NE(crashed.error.find("signal"), std::string::npos) << crashed.error;
  CountedRun failed = Count({KnownLoop(), "--exit", "4"});
  EXPECT_FALSE(failed.valid());
  EXPECT_NE(failed.error.find("status 4"), std::string::npos) << failed.error;
  CountedRun missing = Count({"/nonexistent/program"});
  EXPECT_FALSE(missing.valid());
}

TEST_F(CallgrindCounterTest, AFailedRunQuotesTheProgramNotValgrindsBanner) {
  CountedRun failed = Count({"/bin/sh", "-c", "echo boom >&2; exit 1"});
  EXPECT_FALSE(failed.valid());
  EXPECT_EQ(failed.error, "exited with status 1");
  // The program's own stderr, and nothing of Valgrind's log.
  EXPECT_EQ(failed.launch.err, "boom\n");
}

TEST_F(CallgrindCounterTest, ValgrindsOwnErrorsAreQuotedAsValgrinds) {
  CountedRun run = Count({BuildPath("tests/unrecognised_instruction")});
  EXPECT_FALSE(run.valid());
  EXPECT_NE(run.error.find("killed by signal 4"), std::string::npos) << run.error;
  EXPECT_NE(run.error.find("; Valgrind's own error: valgrind: Unrecognised instruction at "
                           "address"),
            std::string::npos)
      << run.error;
  EXPECT_EQ(run.error.find("Copyright"), std::string::npos) << run.error;
  EXPECT_EQ(run.launch.err, "about to execute an undefined instruction\n");
}

TEST_F(CallgrindCounterTest, ValgrindsTemporaryFilesLiveInTheRunsDirectory) {
  // In a private directory (the normalised launch's), TMPDIR is its tmp/,
  // the same path on every run, and is gone after the run.
  TempDir cwd;
  const std::vector<std::string> show = {
      "/bin/sh", "-c", "echo \"$TMPDIR\"; test -z \"$TMPDIR\" || ls -A \"$TMPDIR\""};
  CountedRun run = Count(show, cwd.path());
  ASSERT_TRUE(run.valid()) << run.error << run.launch.err;
  EXPECT_EQ(run.launch.out, cwd.path() + "/tmp\n");  // Valgrind's files are unlinked at once
  EXPECT_FALSE(std::filesystem::exists(cwd.path() + "/tmp"));
  CountedRun again = Count(show, cwd.path());
  ASSERT_TRUE(again.valid()) << again.error;
  EXPECT_EQ(*again.instructions(), *run.instructions());
  // Without a directory of its own (--as-is), the caller's environment stays.
  CountedRun as_is = Count(show);
  ASSERT_TRUE(as_is.valid()) << as_is.error;
  EXPECT_EQ(as_is.launch.out, "\n");
}

TEST(FindVgcountLibTest, AnOverrideWithoutTheToolIsNoVgcount) {
  // So that `auto` falls back to callgrind instead of choosing a vgcount
  // whose every run would fail.
  TempDir empty;
  setenv("WORKGATE_VGCOUNT_LIB", empty.path().c_str(), 1);
  EXPECT_EQ(FindVgcountLib(), "");
#ifdef WORKGATE_VGCOUNT_BUILT
  const std::string built = testing::BuildPath("valgrind-lib");
  setenv("WORKGATE_VGCOUNT_LIB", built.c_str(), 1);
  EXPECT_EQ(FindVgcountLib(), built);
#endif
  unsetenv("WORKGATE_VGCOUNT_LIB");
}

}  // namespace
}  // namespace workgate
