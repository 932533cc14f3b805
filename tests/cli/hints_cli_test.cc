// The hints that say what to do, end to end: an instruction Valgrind cannot
// decode is named by its instruction set with the build option that avoids
// it; an unstable threaded workload gets its thread count and its program's
// single-thread switch; a relative path in a failed run's output is flagged.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_fixture.h"

namespace workgate {
namespace {

TEST_F(CountingCliTest, AnAvx512BuildIsNamedWithTheOptionThatAvoidsIt) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "AVX-512 is x86-64's";
#else
  const std::string program = testing::BuildPath("tests/avx512_instruction");
  WORKGATE_ASSERT_BUILT(program);
  for (const std::string& backend : testing::ValgrindBackends()) {
    LaunchResult r = Run({"count", "--backend", backend, "--", program});
    EXPECT_EQ(r.exit_code, 3) << backend << r.out << r.err;
    const std::string said = r.out + r.err;
    EXPECT_NE(said.find("Valgrind cannot decode an instruction of the program (bytes 0x62 "),
              std::string::npos)
        << backend << said;
    EXPECT_NE(said.find("it is an AVX-512 instruction (EVEX-encoded), which this Valgrind does "
                        "not implement"),
              std::string::npos)
        << backend << said;
    EXPECT_NE(said.find("build without -march=native (or add -mno-avx512f)"), std::string::npos)
        << backend << said;
  }
#endif
}

// The comparison of `program` against itself with every workload checked
// for stability (the two sides are one build: only the threads move it).
class ThreadedCliTest : public CountingCliTest {
 protected:
  void SetUp() override {
    CountingCliTest::SetUp();
#ifndef WORKGATE_VGCOUNT_BUILT
    // Only vgcount sees the threads a run met.
    WORKGATE_REQUIRE_TOOL(false, "vgcount is not built (Valgrind's tool-building pieces)");
#endif
  }
  LaunchResult CompareItself(const std::string& program, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"compare",     "--backend", "vgcount", "--baseline",
                                     program,       "--candidate", program, "--stability",
                                     "always",      "--timed",   "0",       "--no-store",
                                     "--json",      "r.json",    "--markdown", "r.md"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "x"});
    return Run(args);
  }
};

TEST_F(ThreadedCliTest, AnUnstableThreadedWorkloadGetsItsThreadCountInEveryReport) {
  const std::string program = testing::BuildPath("tests/lock_threads");
  WORKGATE_ASSERT_BUILT(program);
  LaunchResult r = CompareItself(program);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 4) << r.out << r.err;
  const nlohmann::json w = ReadJson("r.json")["workloads"][0];
  ASSERT_TRUE(w["stability"]["unstable"].get<bool>()) << w.dump(1);
  // Its four threads and the main one; a program workgate knows no switch of.
  const nlohmann::json& hint = w["thread_hint"];
  ASSERT_TRUE(hint.is_object()) << w.dump(1);
  EXPECT_EQ(hint["threads"], 5);
  EXPECT_EQ(hint["program"], "unknown");
  const std::string advice = hint["advice"];
  EXPECT_NE(advice.find("where the program has a way to run on one thread"), std::string::npos);
  EXPECT_NE(r.out.find("command: hint: its counted runs met 5 threads, which Valgrind runs one "
                       "at a time"),
            std::string::npos)
      << r.out;
  const std::optional<std::string> md = ReadFile(Path("r.md"));
  ASSERT_TRUE(md);
  EXPECT_NE(md->find("`command`: its counted runs met 5 threads"), std::string::npos) << *md;
  // The footer counts what the stability check counted: more than one a side.
  EXPECT_EQ(r.out.find("One count per side."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" counts per side"), std::string::npos) << r.out;

  // `count` says it too where its repeats differ.
  LaunchResult count = Run({"count", "--backend", "vgcount", "--repeat", "3", "--", program});
  EXPECT_EQ(count.exit_code, 0) << count.out << count.err;
  if (count.out.find("unstable: ") != std::string::npos) {
    EXPECT_NE(count.out.find("hint: its counted runs met 5 threads"), std::string::npos)
        << count.out;
  }
}

TEST_F(ThreadedCliTest, AnOpenMpProgramIsToldOmpNumThreadsWhichMakesItStable) {
#ifndef WORKGATE_OMP_BUILT
  WORKGATE_REQUIRE_TOOL(false, "no OpenMP for the C compiler (Debian libgomp1)");
#else
  const std::string program = testing::BuildPath("tests/omp_threads");
  WORKGATE_ASSERT_BUILT(program);
  LaunchResult r = CompareItself(program, {"--env", "OMP_NUM_THREADS=4"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 4) << r.out << r.err;
  nlohmann::json w = ReadJson("r.json")["workloads"][0];
  ASSERT_TRUE(w["stability"]["unstable"].get<bool>()) << w.dump(1);
  EXPECT_EQ(w["thread_hint"]["program"], "openmp") << w.dump(1);
  EXPECT_NE(r.out.find("OMP_NUM_THREADS=1"), std::string::npos) << r.out;
  // What the hint says to do works: one thread, counts that repeat.
  r = CompareItself(program, {"--env", "OMP_NUM_THREADS=1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  w = ReadJson("r.json")["workloads"][0];
  EXPECT_FALSE(w["stability"]["unstable"].get<bool>()) << w.dump(1);
  EXPECT_TRUE(w["thread_hint"].is_null()) << w.dump(1);
#endif
}

TEST_F(CountingCliTest, ARelativePathInTheOutputOfAFailedRunIsFlagged) {
  // The program names the file it could not open, not its command: a
  // script that reads bench/input.txt, which lies beside the suite.
  const std::string suite = Path("suite.toml");
  std::filesystem::create_directories(Path("bench"));
  std::ofstream(Path("bench/input.txt")) << "data\n";
  std::ofstream(suite) << "[[workload]]\nname = \"reads\"\nclock = \"none\"\n"
                          "command = [\"{exe}\", \"-c\", \"cat bench/input.txt\"]\n";
  LaunchResult r = Run({"compare", "--backend", kExactBackend, "--baseline", "/bin/sh",
                        "--candidate", "/bin/sh", "--suite", suite, "--timed", "0", "--no-store",
                        "--json", "r.json"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const std::string reason = ReadJson("r.json")["workloads"][0]["reason"];
  EXPECT_NE(reason.find("the program's output mentions bench/input.txt, a relative path, and a "
                        "workload runs in an empty private directory, not in the suite's folder "
                        "or where workgate started: the suite's folder has bench/input.txt, so "
                        "name it {suite_dir}/bench/input.txt"),
            std::string::npos)
      << reason;
}

}  // namespace
}  // namespace workgate
