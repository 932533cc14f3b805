// Tests of vgcount's simulated branch predictors and caches
// (tools/vgcount/vgcount_sim.c), through workgate's counter: the figures of
// known work against the model's arithmetic, their repeatability, their sum
// over processes and exec parts, and the count they must leave alone.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "counter/valgrind_counter.h"
#include "explain/callgrind_profile.h"
#include "launch/launch.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

using testing::BuildPath;
using testing::KnownLoop;

std::string SimProbe() { return BuildPath("tests/vgcount_sim_probe"); }

class VgcountSimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_VGCOUNT(SimProbe());
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
    // The build's tool, whoever runs the tests.
    setenv("WORKGATE_VGCOUNT_LIB", BuildPath("valgrind-lib").c_str(), 1);
  }
  void TearDown() override { unsetenv("WORKGATE_VGCOUNT_LIB"); }

  // vgcount's run of `argv`, simulating unless told not to.
  CountedRun Count(std::vector<std::string> argv, bool simulate = true,
                   const std::string& keep_profiles = "") {
    ValgrindCounter counter(ValgrindCounter::Tool::kVgcount);
    LaunchSpec spec;
    spec.argv = std::move(argv);
    spec.env = MinimalEnvironment("/tmp");
    spec.timeout_seconds = 300;
    CountOptions options;
    options.simulate = simulate;
    options.keep_profiles_dir = keep_profiles;
    CountedRun run = counter.Run(spec, options);
    EXPECT_TRUE(run.valid()) << run.error;
    return run;
  }

  // The simulated events of `argv` less those of `base`: the work that
  // differs between the two (the same program, other arguments).
  std::map<std::string, int64_t> Delta(const CountedRun& run, const CountedRun& base) {
    std::map<std::string, int64_t> delta;
    for (const auto& [event, n] : run.simulated) {
      delta[event] = static_cast<int64_t>(n) - static_cast<int64_t>(base.simulated.at(event));
    }
    return delta;
  }
};

constexpr int64_t kN = 100000;
// What reading longer arguments adds, outside the loops: a few reads and
// branches per digit.
constexpr int64_t kArguments = 200;

TEST_F(VgcountSimTest, ABranchFreeLoopRetiresMoreAndMispredictsFarLess) {
  const CountedRun base = Count({SimProbe(), "branchy", "0"});
  const CountedRun branchy = Count({SimProbe(), "branchy", std::to_string(kN)});
  const CountedRun branchless = Count({SimProbe(), "branchless", std::to_string(kN)});
  ASSERT_EQ(base.simulated.size(), 12u);
  EXPECT_GT(*branchless.instructions(), *branchy.instructions());
  // One branch per iteration on a random bit: the predictor can do no
  // better than a coin, nor much worse.
  auto d = Delta(branchy, base);
  EXPECT_GE(d["Bc"], 2 * kN);  // the bit's branch and the loop's
  EXPECT_GT(d["Bcm"], kN * 45 / 100);
  EXPECT_LT(d["Bcm"], kN * 55 / 100);
  // Without it only the loop's branch is left: taken every time but the last.
  d = Delta(branchless, base);
  EXPECT_GE(d["Bc"], kN);
  EXPECT_LT(d["Bc"], kN + kArguments);
  EXPECT_LT(d["Bcm"], kN / 100);
}

TEST_F(VgcountSimTest, TheFiguresRepeatAndLeaveTheCountAlone) {
  const std::vector<std::string> argv = {SimProbe(), "branchy", std::to_string(kN)};
  const CountedRun first = Count(argv);
  const CountedRun second = Count(argv);
  const CountedRun counted = Count(argv, false);
  EXPECT_EQ(first.simulated, second.simulated);
  EXPECT_EQ(*first.instructions(), *second.instructions());
  EXPECT_EQ(*first.instructions(), *counted.instructions());
  EXPECT_TRUE(counted.simulated.empty());
}

TEST_F(VgcountSimTest, RandomIndirectCallsMispredictAndOneTargetDoesNot) {
  const CountedRun base = Count({SimProbe(), "indirect", "0"});
  auto d = Delta(Count({SimProbe(), "indirect", std::to_string(kN)}), base);
  // One call through the table per iteration; the target buffer holds the
  // last of four equally likely targets: right a quarter of the time.
  EXPECT_GE(d["Bi"], kN);
  EXPECT_LE(d["Bi"], kN + 2);
  EXPECT_GT(d["Bim"], kN * 70 / 100);
  EXPECT_LT(d["Bim"], kN * 80 / 100);
  d = Delta(Count({SimProbe(), "monomorphic", std::to_string(kN)}), base);
  EXPECT_GE(d["Bi"], kN);
  EXPECT_LE(d["Bi"], kN + 2);
  EXPECT_LE(d["Bim"], 2);  // its first call only
}

TEST_F(VgcountSimTest, CacheMissesFollowTheGeometry) {
  // Reads of one byte per 64-byte line, in address order, twice over.
  const CountedRun base = Count({SimProbe(), "walk", "0", "0"});
  // What the rest of the program moves: its arguments' lengths, and the
  // private directory's path, whose length moves the loader's and libc's reads.
  const int64_t slack = 200;
  // 32 MiB, four times LL: every read misses both levels, both passes.
  const int64_t big_lines = (32 << 20) / 64;
  auto d = Delta(Count({SimProbe(), "walk", "32768", "2"}), base);
  EXPECT_GE(d["Dr"], 2 * big_lines - 20);
  EXPECT_LE(d["Dr"], 2 * big_lines + 20);  // reading the arguments, other lengths
  EXPECT_GE(d["D1mr"], 2 * big_lines - slack);
  EXPECT_LE(d["D1mr"], 2 * big_lines + slack);
  EXPECT_GE(d["DLmr"], 2 * big_lines - slack);
  EXPECT_LE(d["DLmr"], 2 * big_lines + slack);
  // 1 MiB: beyond D1, within LL: the second pass hits LL.
  const int64_t mid_lines = (1 << 20) / 64;
  d = Delta(Count({SimProbe(), "walk", "1024", "2"}), base);
  EXPECT_GE(d["Dr"], 2 * mid_lines - 20);
  EXPECT_LE(d["Dr"], 2 * mid_lines + 20);  // reading the arguments, other lengths
  EXPECT_GE(d["D1mr"], 2 * mid_lines - slack);
  EXPECT_LE(d["D1mr"], 2 * mid_lines + slack);
  EXPECT_GE(d["DLmr"], mid_lines - slack);
  EXPECT_LE(d["DLmr"], mid_lines + slack);
  // 16 KiB, a hundred passes: within D1, so only the first pass misses.
  const int64_t small_lines = (16 << 10) / 64;
  d = Delta(Count({SimProbe(), "walk", "16", "100"}), base);
  EXPECT_GE(d["Dr"], 100 * small_lines - 20);
  EXPECT_LE(d["Dr"], 100 * small_lines + 20);  // reading the arguments, other lengths
  EXPECT_GE(d["D1mr"], small_lines - slack);
  EXPECT_LE(d["D1mr"], small_lines + slack);
}

TEST_F(VgcountSimTest, TheFirstLevelReplacesTheLeastRecentlyUsedLine) {
  // Nine lines of one D1 set: a hot one read every round, and eight read in
  // turn. LRU keeps the hot line (it is never the least recent) and misses
  // every other read; a cache that forgot the hits (first in, first out)
  // would drop the hot line once every eight rounds too.
  const CountedRun base = Count({SimProbe(), "lru", "0"});
  const auto d = Delta(Count({SimProbe(), "lru", std::to_string(kN)}), base);
  EXPECT_GE(d.at("Dr"), 2 * kN);
  EXPECT_LE(d.at("Dr"), 2 * kN + 20);
  EXPECT_GE(d.at("D1mr"), kN - 50);
  EXPECT_LE(d.at("D1mr"), kN + 50);
}

TEST_F(VgcountSimTest, EventsAddUpOverForkedProcesses) {
  // A child per count, each running a loop of one conditional branch per
  // iteration: the run's figures are the parent's and both children's.
  const CountedRun one = Count({KnownLoop(), "--fork", "0"});
  const CountedRun base = Count({KnownLoop(), "--fork", "0", "0"});
  const CountedRun run = Count({KnownLoop(), "--fork", std::to_string(kN), std::to_string(kN)});
  EXPECT_EQ(run.processes, 3);
  const auto d = Delta(run, base);
  EXPECT_GE(d.at("Bc"), 2 * kN);
  EXPECT_LE(d.at("Bc"), 2 * kN + kArguments);
  // A child's figures start at the fork: one more empty child adds its own
  // few branches (the fork's return, exit), not its parent's start-up again
  // (over 20,000).
  const auto child = Delta(base, one);
  EXPECT_GT(child.at("Bc"), 0);
  EXPECT_LT(child.at("Bc"), 2000);
}

TEST_F(VgcountSimTest, EventsAddUpOverExecParts) {
  // The shell forks a child that execs the loop, then execs the loop itself:
  // each program's figures come in a part of their own.
  const auto script = [](int64_t n) {
    return KnownLoop() + " " + std::to_string(n) + "; exec " + KnownLoop() + " " +
           std::to_string(n);
  };
  const CountedRun base = Count({"/bin/sh", "-c", script(0)});
  const CountedRun run = Count({"/bin/sh", "-c", script(kN)});
  const auto d = Delta(run, base);
  EXPECT_GE(d.at("Bc"), 2 * kN);
  EXPECT_LE(d.at("Bc"), 2 * kN + kArguments);
}

TEST_F(VgcountSimTest, TheProfileCarriesTheEventsPerFunctionAndLine) {
  TempDir kept;
  const std::vector<std::string> argv = {SimProbe(), "branchy", std::to_string(kN)};
  const CountedRun profiled = Count(argv, true, kept.path());
  const CountedRun plain = Count(argv);
  // Profiling changes none of the figures.
  EXPECT_EQ(profiled.simulated, plain.simulated);
  EXPECT_EQ(*profiled.instructions(), *plain.instructions());
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kept.path())) {
    files.push_back(entry.path().string());
  }
  ASSERT_EQ(files.size(), 1u);
  Profile ir, bcm, dr;
  std::string err;
  ASSERT_TRUE(LoadCallgrindFile(files[0], &ir, &err, "Ir")) << err;
  ASSERT_TRUE(LoadCallgrindFile(files[0], &bcm, &err, "Bcm")) << err;
  ASSERT_TRUE(LoadCallgrindFile(files[0], &dr, &err, "Dr")) << err;
  EXPECT_EQ(ir.total, *profiled.instructions());
  EXPECT_EQ(bcm.total, profiled.simulated.at("Bcm"));
  EXPECT_EQ(dr.total, profiled.simulated.at("Dr"));
  // The mispredictions are the branchy function's, on its lines.
  const FunctionId branchy{"branchy", "vgcount_sim_probe"};
  ASSERT_TRUE(bcm.self.count(branchy)) << files[0];
  EXPECT_GT(bcm.self.at(branchy), static_cast<uint64_t>(kN * 45 / 100));
  uint64_t on_lines = 0;
  for (const auto& [line, n] : bcm.lines.at(branchy)) {
    if (line.line != 0) on_lines += n;
  }
  EXPECT_EQ(on_lines, bcm.self.at(branchy));
}

}  // namespace
}  // namespace workgate
