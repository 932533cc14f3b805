// The clock shim (libworkgate-clock.so) run natively: what each replaced
// function returns, the settings, threads, entropy, and python3 -m timeit.
// Counting under callgrind is in shim_callgrind_test.cc.

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "shim/child_process.h"
#include "test_requirements.h"

namespace workgate::shim_test {
namespace {

ChildResult Probe(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<std::string> argv = {ClockProbe()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunChild(argv, env, FixedWorkDir(), 60);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// One call of each function, in order, share one counter stepping 1 s:
// realtime from 2020-01-01, monotonic from 1000 s, CPU time from 0.
constexpr const char* kDefaultSequence =
    "clock_gettime(CLOCK_REALTIME) 1577836800.000000000\n"
    "clock_gettime(CLOCK_MONOTONIC) 1001.000000000\n"
    "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) 2.000000000\n"
    "clock_gettime(CLOCK_THREAD_CPUTIME_ID) 3.000000000\n"
    "clock_gettime(CLOCK_MONOTONIC_RAW) 1004.000000000\n"
    "clock_gettime(CLOCK_REALTIME_COARSE) 1577836805.000000000\n"
    "clock_gettime(CLOCK_MONOTONIC_COARSE) 1006.000000000\n"
    "clock_gettime(CLOCK_BOOTTIME) 1007.000000000\n"
    "clock_gettime(CLOCK_TAI) 1577836808.000000000\n"
    "gettimeofday 1577836809.000000\n"
    "time 1577836810 stored\n"
    "clock 11000000\n"
    "timespec_get 1 1577836812.000000000\n"
    // An invalid id fails like the kernel's and uses no tick.
    "clock_gettime(10) error EINVAL\n"
    "clock_gettime(CLOCK_MONOTONIC) 1013.000000000\n";

TEST(ClockShim, EveryFunctionFollowsOneCounterAndRepeats) {
  for (int run = 0; run < 3; ++run) {
    ChildResult r = Probe({"sequence"}, PinnedEnv());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, kDefaultSequence) << "run " << run;
  }
}

TEST(ClockShim, WithoutThePreloadTheClockIsReal) {
  ChildResult r = Probe({"sequence"}, PinnedEnv({}, /*shim=*/false));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The real clock is past 2020-01-01 and monotonic is not 1001 s by chance.
  EXPECT_NE(r.out, kDefaultSequence);
  EXPECT_EQ(r.out.find("clock_gettime(CLOCK_REALTIME) 1577836800.000000000"), std::string::npos);
}

TEST(ClockShim, StartAndDecimalStepAreHonoured) {
  ChildResult r = Probe({"repeat", "realtime", "4"},
                        PinnedEnv({"WORKGATE_CLOCK_START=100.5", "WORKGATE_CLOCK_STEP=0.25"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "100.500000000\n100.750000000\n101.000000000\n101.250000000\n");
}

TEST(ClockShim, TableComesFirstThenTheStepFromItsLastValue) {
  // As in CoreMark's fixed clock: the table's values, then on by the step.
  ChildResult r = Probe({"repeat", "monotonic", "6"},
                        PinnedEnv({"WORKGATE_CLOCK_TABLE=0,1,11", "WORKGATE_CLOCK_STEP=0.5"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "1000.000000000\n1001.000000000\n1011.000000000\n"
            "1011.500000000\n1012.000000000\n1012.500000000\n");
  // Offsets apply to the wall clock from WORKGATE_CLOCK_START.
  r = Probe({"repeat", "realtime", "3"},
            PinnedEnv({"WORKGATE_CLOCK_START=0", "WORKGATE_CLOCK_TABLE=5, 6.125"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "5.000000000\n6.125000000\n7.125000000\n");
}

TEST(ClockShim, UnreadableSettingStopsTheProgram) {
  for (const std::string setting : {"WORKGATE_CLOCK_STEP=abc", "WORKGATE_CLOCK_START=-1",
                                    "WORKGATE_CLOCK_TABLE=1,,2", "WORKGATE_RANDOM_SEED=0x10"}) {
    ChildResult r = Probe({"sequence"}, PinnedEnv({setting}));
    EXPECT_EQ(r.exit_code, 125) << setting;
    EXPECT_TRUE(r.out.empty()) << setting;
    const std::string name = setting.substr(0, setting.find('='));
    EXPECT_NE(r.err.find("workgate-clock: cannot use " + name), std::string::npos) << r.err;
  }
}

TEST(ClockShim, ThreadsGetDistinctReadingsAndTheSameMultisetEveryRun) {
  constexpr int kThreads = 4;
  constexpr int kReadings = 5000;
  std::string first;
  for (int run = 0; run < 3; ++run) {
    ChildResult r = Probe({"threads", std::to_string(kThreads), std::to_string(kReadings)},
                          PinnedEnv({"WORKGATE_CLOCK_STEP=0.001"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> lines = Lines(r.out);
    ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kReadings + 1));
    EXPECT_EQ(lines.back(), "per-thread increasing: yes");
    lines.pop_back();
    // Sorted readings: only the threads read the clock, so they are exactly
    // the first N*K ticks, each once, whichever thread took which.
    std::set<long long> distinct;
    for (size_t i = 0; i < lines.size(); ++i) {
      const long long value = std::stoll(lines[i]);
      distinct.insert(value);
      ASSERT_EQ(value, 1000000000000LL + static_cast<long long>(i) * 1000000LL) << i;
    }
    EXPECT_EQ(distinct.size(), lines.size());
    if (run == 0) first = r.out;
    EXPECT_EQ(r.out, first);
  }
}

TEST(EntropyShim, OneSeededStreamWhateverTheCallSizes) {
  ChildResult a = Probe({"random", "36"}, PinnedEnv());
  ChildResult b = Probe({"random", "20"}, PinnedEnv());
  ChildResult again = Probe({"random", "20"}, PinnedEnv());
  ChildResult seeded = Probe({"random", "20"}, PinnedEnv({"WORKGATE_RANDOM_SEED=42"}));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(b.out, again.out);
  EXPECT_NE(b.out, seeded.out);
  // "getrandom HEX", "getentropy HEX", ...: 36 bytes then 16 are the same
  // stream as 20 bytes then 16, cut in different places.
  auto hex = [](const std::string& line) { return line.substr(line.find(' ') + 1); };
  std::vector<std::string> la = Lines(a.out), lb = Lines(b.out);
  ASSERT_EQ(la.size(), 4u);
  ASSERT_EQ(lb.size(), 4u);
  const std::string stream_a = hex(la[0]) + hex(la[1]);
  const std::string stream_b = hex(lb[0]) + hex(lb[1]);
  EXPECT_EQ(stream_a.substr(0, stream_b.size()), stream_b);
  // Without the shim the bytes are the kernel's.
  ChildResult real = Probe({"random", "20"}, PinnedEnv({}, /*shim=*/false));
  EXPECT_NE(real.out, b.out);
}

TEST(ClockShim, PythonTimeitDoesOneLoopEveryRun) {
  WORKGATE_REQUIRE_TOOL(access("/usr/bin/python3", X_OK) == 0, "/usr/bin/python3 is not installed");
  for (int run = 0; run < 3; ++run) {
    // A step too small for timeit would make it grow its loop for ever: the
    // minute is that case's deadline, far beyond a pinned run's start-up.
    ChildResult r = RunChild({"/usr/bin/python3", "-m", "timeit", "sum(range(1000))"}, PinnedEnv(),
                             FixedWorkDir(), 60);
    ASSERT_FALSE(r.timed_out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Each timing reads the clock twice, one 1 s step apart: at least
    // timeit's 0.2 s target on the first try, so one loop, five repeats.
    EXPECT_EQ(r.out, "1 loop, best of 5: 1 sec per loop\n");
  }
}

}  // namespace
}  // namespace workgate::shim_test
