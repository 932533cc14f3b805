// The sentences that say what to do and how many counts there were
// (report/summary.h ThreadHintSentence, RepeatSentence).

#include <gtest/gtest.h>

#include <string>

#include "report/sample_report.h"
#include "report/summary.h"

namespace workgate {
namespace {

TEST(ThreadHintSentenceTest, NamesTheThreadsAndEachProgramsSwitch) {
  const std::pair<ThreadRuntime, const char*> switches[] = {
      {ThreadRuntime::kZstd, "zstd compresses on one thread with --single-thread"},
      {ThreadRuntime::kGo, "with GOMAXPROCS=1: set it in the workload's env"},
      {ThreadRuntime::kOpenMp, "OMP_NUM_THREADS=1"},
      {ThreadRuntime::kPython, "Python has no switch that runs it on one thread"},
      {ThreadRuntime::kJava, "-XX:+UseSerialGC"},
      {ThreadRuntime::kNode, "UV_THREADPOOL_SIZE=1"},
      {ThreadRuntime::kUnknown, "where the program has a way to run on one thread"},
  };
  for (const auto& [runtime, words] : switches) {
    const std::string text = ThreadHintSentence(ThreadHint{7, runtime});
    EXPECT_EQ(text.rfind("its counted runs met 7 threads, which Valgrind runs one at a time", 0),
              0u)
        << text;
    EXPECT_NE(text.find(words), std::string::npos) << ThreadRuntimeName(runtime) << ": " << text;
  }
}

TEST(ThreadHintSentenceTest, RuntimeNamesReadBack) {
  for (ThreadRuntime r : {ThreadRuntime::kUnknown, ThreadRuntime::kZstd, ThreadRuntime::kGo,
                          ThreadRuntime::kOpenMp, ThreadRuntime::kPython, ThreadRuntime::kJava,
                          ThreadRuntime::kNode}) {
    ThreadRuntime back = ThreadRuntime::kUnknown;
    ASSERT_TRUE(ParseThreadRuntime(ThreadRuntimeName(r), &back)) << ThreadRuntimeName(r);
    EXPECT_EQ(back, r);
  }
  ThreadRuntime back;
  EXPECT_FALSE(ParseThreadRuntime("rust", &back));
}

TEST(RepeatSentenceTest, SaysHowManyCountsEachSideHad) {
  CompareReport r = testing_report::CallgrindReport();
  EXPECT_EQ(RepeatSentence(r), "One count per side.");
  // Three a side, alike; then one spread.
  r.workloads = {testing_report::Counted("a", {5, 5, 5}, {6, 6, 6})};
  EXPECT_EQ(RepeatSentence(r), "3 counts per side agree exactly.");
  r.workloads[0].candidate.counts = {1'000'000, 1'000'012, 1'000'000};
  EXPECT_EQ(RepeatSentence(r), "3 counts per side; the widest spread was 12.0 ppm of a count.");
  // The report's --repeat says 1, but the stability check counted one
  // workload four times a side: the footer says what there was.
  r.repeat = 1;
  r.workloads = testing_report::ThreadedReport().workloads;
  EXPECT_EQ(RepeatSentence(r).rfind("1 to 4 counts per side; the widest spread was", 0), 0u)
      << RepeatSentence(r);
  r.workloads[0].baseline.counts = r.workloads[0].candidate.counts = {7, 7, 7, 7};
  EXPECT_EQ(RepeatSentence(r).rfind(
                "1 to 4 counts per side; where a side had several, they agree exactly.", 0),
            0u)
      << RepeatSentence(r);
  // Nothing counted.
  for (WorkloadResult& w : r.workloads) w.baseline.counts = w.candidate.counts = {};
  EXPECT_EQ(RepeatSentence(r).rfind("No side gave a count.", 0), 0u) << RepeatSentence(r);
}

}  // namespace
}  // namespace workgate
