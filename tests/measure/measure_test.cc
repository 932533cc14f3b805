// Counting workloads through the normalised launch, on callgrind (exact and
// repeatable, so these tests can demand equality).

#include "measure/measure.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "counter/valgrind_counter.h"
#include "model/backend.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::BuildPath;
using testing::KnownLoop;
using testing::SourcePath;

class MeasureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
    counter_ = std::make_unique<ValgrindCounter>(ValgrindCounter::Tool::kCallgrind);
  }
  CountedWorkload CountOnce(const Workload& w, const std::string& exe, int repeat = 1,
                            const std::string& suite_dir = "") {
    WorkDir dir(w, suite_dir);
    return CountWorkload(*counter_, {w, suite_dir, dir, exe, LaunchOptions{}},
                         {.score_side = ScoreSide::kCandidate, .repeat = repeat});
  }
  Suite LoadBundled(const std::string& file) {
    Suite suite;
    std::string err;
    EXPECT_TRUE(LoadSuite(SourcePath(file), &suite, &err)) << err;
    return suite;
  }
  std::unique_ptr<ValgrindCounter> counter_;
};

Workload LoopWorkload(const std::string& n) {
  Workload w;
  w.name = "loop";
  w.command = {"{exe}", n};
  w.timeout_seconds = 60;
  return w;
}

TEST_F(MeasureTest, CopiesOfOneBinaryAtDifferentPathsCountTheSame) {
  TempDir a("a"), b("a-much-longer-directory-name");
  const std::string short_copy = a.path() + "/x", long_copy = b.path() + "/known_loop_copy";
  fs::copy_file(KnownLoop(), short_copy);
  fs::copy_file(KnownLoop(), long_copy);
  CountedWorkload one = CountOnce(LoopWorkload("1000"), short_copy);
  CountedWorkload two = CountOnce(LoopWorkload("1000"), long_copy);
  ASSERT_TRUE(one.valid() && two.valid()) << one.error << two.error;
  EXPECT_EQ(one.counts(), two.counts());
  EXPECT_EQ(one.argv, two.argv);  // both ran through the private directory's link
}

TEST_F(MeasureTest, RunsWithAFixedMinimalEnvironment) {
  Workload w;
  w.name = "env";
  w.command = {"/usr/bin/env"};
  w.command[0] = "{exe}";
  w.env = {{"EXTRA", "1"}};
  CountedWorkload c = CountOnce(w, "/usr/bin/env");
  ASSERT_TRUE(c.valid()) << c.error;
  ASSERT_EQ(c.runs.size(), 1u);
  const std::string& out = c.runs[0].launch.out;
  EXPECT_NE(out.find("EXTRA=1\n"), std::string::npos);
  EXPECT_NE(out.find("PATH=/usr/local/bin:/usr/bin:/bin\n"), std::string::npos);
  EXPECT_EQ(out.find("USER="), std::string::npos) << out;
}

TEST_F(MeasureTest, BundledBenchmarkPinnedCountIsIdenticalAcrossRepeats) {
  const std::string wgmark = BuildPath("workloads/wgmark");
  WORKGATE_ASSERT_BUILT(wgmark);
  Suite suite = LoadBundled("workloads/wgmark.toml");
  CountedWorkload c = CountOnce(suite.workloads[0], wgmark, 2, suite.dir);
  ASSERT_TRUE(c.valid()) << c.error;
  ASSERT_EQ(c.counts().size(), 2u);
  EXPECT_EQ(c.counts()[0], c.counts()[1]);
  ASSERT_TRUE(c.score.has_value());
  EXPECT_EQ(*c.score, "10.000");
}

TEST_F(MeasureTest, InterpreterScriptsPinnedCountsAreIdenticalAcrossRepeats) {
  const std::string wgi = BuildPath("workloads/wgi-baseline");
  WORKGATE_ASSERT_BUILT(wgi);
  Suite suite = LoadBundled("workloads/interp.toml");
  for (const auto& w : suite.workloads) {
    CountedWorkload c = CountOnce(w, wgi, 2, suite.dir);
    ASSERT_TRUE(c.valid()) << w.name << ": " << c.error;
    ASSERT_EQ(c.counts().size(), 2u) << w.name;
    EXPECT_EQ(c.counts()[0], c.counts()[1]) << w.name;
  }
}

TEST(TimeWorkloadTest, ATimedRunLeavesTheClockToTheProgram) {
  // The bundled benchmark's timed run gets no WORKGATE_FIXED_CLOCK, so it
  // calibrates from the clock it reads. That clock is the shim's here (by
  // --env), two seconds per reading: the first round of 10 iterations is
  // long enough, 10 / 2 s. Pinned, the benchmark would score 10.000.
  const std::string wgmark = BuildPath("workloads/wgmark");
  const std::string shim = BuildPath("libworkgate-clock.so");
  WORKGATE_ASSERT_BUILT(wgmark);
  WORKGATE_ASSERT_BUILT(shim);
  Suite suite;
  std::string err;
  ASSERT_TRUE(LoadSuite(SourcePath("workloads/wgmark.toml"), &suite, &err)) << err;
  ASSERT_FALSE(suite.workloads.empty());
  LaunchOptions options;
  options.extra_env = {{"LD_PRELOAD", shim}, {"WORKGATE_CLOCK_STEP", "2"}};
  WorkDir dir(suite.workloads[0], suite.dir);
  TimedSample s = TimeWorkload({suite.workloads[0], suite.dir, dir, wgmark, options}, &err);
  ASSERT_TRUE(err.empty()) << err;
  ASSERT_TRUE(s.score.has_value());
  EXPECT_EQ(*s.score, 5.0);
}

TEST_F(MeasureTest, AScoreMismatchMakesTheSideInvalid) {
  const std::string wgmark = BuildPath("workloads/wgmark");
  WORKGATE_ASSERT_BUILT(wgmark);
  Suite suite = LoadBundled("workloads/wgmark.toml");
  Workload w = suite.workloads[0];
  w.score_expect = "12.5";
  CountedWorkload c = CountOnce(w, wgmark, 1, suite.dir);
  EXPECT_FALSE(c.valid());
  EXPECT_NE(c.error.find("score mismatch: expected 12.5, got 10.000"), std::string::npos)
      << c.error;
}

TEST_F(MeasureTest, MissingBuildIsInvalid) {
  CountedWorkload c = CountOnce(LoopWorkload("1"), "/nonexistent/build");
  EXPECT_FALSE(c.valid());
  EXPECT_NE(c.error.find("does not exist"), std::string::npos) << c.error;
}

// Stands in for the perf backend: every run reads `primary` as given.
class FixedReadingCounter : public Counter {
 public:
  explicit FixedReadingCounter(EventCount primary) : primary_(std::move(primary)) {}
  Backend backend() const override { return Backend::kPerf; }
  std::string event() const override { return primary_.event; }
  CountedRun Run(const LaunchSpec& spec, const CountOptions& options) override {
    (void)options;
    CountedRun run;
    run.launch = Launch(spec);
    MarkFailedLaunch(&run, spec.timeout_seconds);
    run.events = {primary_};
    return run;
  }

 private:
  EventCount primary_;
};

TEST(MultiplexedCountTest, APartlyCountedPrimaryEventMakesTheSideInvalid) {
  FixedReadingCounter partial({"instructions:u", 1234, 1000000, 400000});
  const Workload loop = LoopWorkload("10");
  WorkDir dir(loop, "");
  CountedWorkload c = CountWorkload(partial, {loop, "", dir, KnownLoop(), LaunchOptions{}},
                                    {.score_side = ScoreSide::kCandidate});
  // An ad hoc count keeps the figure (its report says multiplexed)...
  ASSERT_TRUE(c.valid()) << c.error;
  EXPECT_EQ(c.counts(), (std::vector<uint64_t>{1234}));
  // ...a suite or a comparison refuses it.
  RejectMultiplexed(&c);
  EXPECT_FALSE(c.valid());
  EXPECT_NE(c.error.find("instructions:u was multiplexed: the kernel counted it 40.0% of the run"),
            std::string::npos)
      << c.error;

  FixedReadingCounter whole({"instructions:u", 1234, 1000000, 1000000});
  CountedWorkload w = CountWorkload(whole, {loop, "", dir, KnownLoop(), LaunchOptions{}},
                                    {.score_side = ScoreSide::kCandidate, .repeat = 2});
  RejectMultiplexed(&w);
  ASSERT_TRUE(w.valid()) << w.error;
  EXPECT_EQ(w.counts(), (std::vector<uint64_t>{1234, 1234}));
}

TEST(OutputTailTest, KeepsTheLastLines) {
  EXPECT_EQ(OutputTail("a\nb\nc\nd\n", 2), "c\nd");
  EXPECT_EQ(OutputTail("only", 5), "only");
  EXPECT_EQ(OutputTail("", 5), "");
}

}  // namespace
}  // namespace workgate
