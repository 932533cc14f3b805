// The explain path on files written by real callgrind runs: a baseline and
// a candidate build of tests/explain/testdata/hot_prog.c, which adds a
// known number of iterations to hot_function (assembly: 2 * n + 4
// instructions per call) in every process and thread of its tree.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "explain/callgrind_run.h"
#include "explain/explain.h"
#include "test_requirements.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// Iterations of each hot_function call: main thread, second thread, forked
// child, exec'd child (the WORK_* macros of hot_prog.c).
constexpr uint64_t kBase[] = {1000, 2000, 3000, 4000};
constexpr uint64_t kCand[] = {1100, 2200, 3400, 4800};

uint64_t HotCost(std::initializer_list<uint64_t> iterations) {
  uint64_t sum = 0;
  for (uint64_t n : iterations) sum += 2 * n + 4;
  return sum;
}

using testing::HaveTool;
using testing::ReadAllOf;

// Builds hot_prog into DIR/<side>/hot_prog. Both sides' directories have
// names of the same length: the path length alone moves the count.
bool Build(const fs::path& dir, const std::string& side, const uint64_t (&work)[4]) {
  fs::path exe = dir / side / "hot_prog";
  fs::create_directories(exe.parent_path());
  std::string cmd = "cc -O2 -pthread -DWORK_MAIN=" + std::to_string(work[0]) +
                    " -DWORK_THREAD=" + std::to_string(work[1]) +
                    " -DWORK_FORK=" + std::to_string(work[2]) +
                    " -DWORK_EXEC=" + std::to_string(work[3]) + " -o " + exe.string() + " " +
                    WORKGATE_SOURCE_DIR "/tests/explain/testdata/hot_prog.c";
  return std::system(cmd.c_str()) == 0;
}

class ExplainCallgrind : public ::testing::Test {
 protected:
  // The two builds are shared by all tests of the suite.
  static void SetUpTestSuite() {
#if defined(__x86_64__)
    for (const char* tool : {"valgrind", "cc", "setarch"}) {
      if (!HaveTool(tool)) {
        missing_tool_ = std::string(tool) + " is not installed";
        return;
      }
    }
    std::string tmpl = (fs::temp_directory_path() / "workgate-explain-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      setup_error_ = "cannot create " + tmpl + ": " + std::strerror(errno);
      return;
    }
    dir_ = tmpl;
    if (!Build(dir_, "base", kBase) || !Build(dir_, "cand", kCand)) built_ = false;
#else
    skip_ = "hot_prog's hot_function is x86-64 assembly";
#endif
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    WORKGATE_REQUIRE_TOOL(missing_tool_.empty(), missing_tool_);
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
    ASSERT_TRUE(built_) << "cc failed to build hot_prog";
  }

  // Runs ./hot_prog MODE of one side in its own directory under callgrind
  // with ASLR off and a fixed environment; returns the output files, sorted,
  // and sets `collected` to the sum of callgrind's own "Collected" log lines.
  std::vector<std::string> RunCallgrind(const std::string& side, const std::string& mode,
                                        const std::string& options, uint64_t* collected = nullptr) {
    fs::path cwd = dir_ / side;
    fs::path out = cwd / ("out" + std::to_string(runs_++));
    std::vector<std::string> files =
        testing::RunUnderCallgrind(cwd, "./hot_prog " + mode, out, options);
    if (collected != nullptr) {
      std::string log = ReadAllOf(out.string() + ".log");
      std::regex line("Collected : ([0-9]+)");
      *collected = 0;
      for (std::sregex_iterator it(log.begin(), log.end(), line), end; it != end; ++it) {
        *collected += std::stoull((*it)[1]);
      }
    }
    return files;
  }

  static inline fs::path dir_;
  static inline std::string skip_;          // what this machine cannot do
  static inline std::string missing_tool_;  // what ci/setup installs
  static inline std::string setup_error_;   // a failure, not a skip
  static inline bool built_ = true;
  static inline int runs_ = 0;
};

uint64_t Hot(const Profile& p) {
  auto it = p.self.find(FunctionId{"hot_function", "hot_prog"});
  return it == p.self.end() ? 0 : it->second;
}

TEST_F(ExplainCallgrind, ProcessTreeDeltaIsExact) {
  // --dump-before=fork: the parent writes and zeroes its counters before
  // each fork, so a forked child's file holds only the child's own work.
  const std::string options = "--dump-before=fork";
  std::vector<std::string> base_files = RunCallgrind("base", "tree", options);
  std::vector<std::string> cand_files = RunCallgrind("cand", "tree", options);
  // Parent: two fork dumps and the final one; the forked and exec'd
  // children: one each.
  EXPECT_EQ(base_files.size(), 5u);

  Profile b, c;
  std::string err;
  ASSERT_TRUE(LoadProfiles(base_files, &b, &err)) << err;
  ASSERT_TRUE(LoadProfiles(cand_files, &c, &err)) << err;
  EXPECT_EQ(Hot(b), HotCost({kBase[0], kBase[1], kBase[2], kBase[3]}));
  EXPECT_EQ(Hot(c), HotCost({kCand[0], kCand[1], kCand[2], kCand[3]}));

  Explanation e = DiffProfiles(b, c, 1000);
  ASSERT_TRUE(e.error.empty()) << e.error;
  ASSERT_FALSE(e.rows.empty());
  EXPECT_EQ(e.rows[0].function, "hot_function");
  EXPECT_EQ(e.rows[0].object, "hot_prog");
  EXPECT_EQ(e.rows[0].delta(), 2 * (100 + 200 + 400 + 800));
  // Every changed function is listed, so the rows add up to the total.
  int64_t sum = 0;
  for (const FunctionDelta& row : e.rows) sum += row.delta();
  EXPECT_EQ(sum, e.total_delta);
  // Apart from hot_function only the thread join's wait path may differ
  // between runs (whether the thread is done before the join is a race).
  EXPECT_LT(std::abs(e.total_delta - e.rows[0].delta()), 500) << e.total_delta;
}

// Without --dump-before=fork the forked child starts from a copy of the
// parent's counters: the second thread's call is counted twice. This pins
// down why LoadProfiles' documentation asks for the option.
TEST_F(ExplainCallgrind, ForkedChildRepeatsParentWorkWithoutDumpBeforeFork) {
  Profile p;
  std::string err;
  ASSERT_TRUE(LoadProfiles(RunCallgrind("base", "tree", ""), &p, &err)) << err;
  EXPECT_EQ(Hot(p), HotCost({kBase[0], kBase[1], kBase[1], kBase[2], kBase[3]}));
}

TEST_F(ExplainCallgrind, ThreadFilesAreSummed) {
  std::vector<std::string> files = RunCallgrind("base", "threads", "--separate-threads=yes");
  // callgrind.out.PID (left empty), callgrind.out.PID-01 and -02.
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(fs::file_size(files[0]), 0u);
  Profile all, main_thread, second_thread;
  std::string err;
  ASSERT_TRUE(LoadProfiles(files, &all, &err)) << err;
  ASSERT_TRUE(LoadCallgrindFile(files[1], &main_thread, &err)) << err;
  ASSERT_TRUE(LoadCallgrindFile(files[2], &second_thread, &err)) << err;
  EXPECT_EQ(Hot(main_thread), HotCost({kBase[0]}));
  EXPECT_EQ(Hot(second_thread), HotCost({kBase[1]}));
  EXPECT_EQ(Hot(all), HotCost({kBase[0], kBase[1]}));
  EXPECT_EQ(all.total, main_thread.total + second_thread.total);
  EXPECT_EQ(all.parts, 2);
}

// One single-threaded process counts the same on every run, so every
// output format option must give the same profile, and its total must be
// what callgrind itself reports.
TEST_F(ExplainCallgrind, OutputOptionsGiveTheSameProfile) {
  uint64_t collected = 0;
  Profile reference;
  std::string err;
  ASSERT_TRUE(LoadProfiles(RunCallgrind("base", "exec-child", "", &collected), &reference, &err))
      << err;
  EXPECT_EQ(reference.total, collected);
  EXPECT_EQ(Hot(reference), HotCost({kBase[3]}));
  EXPECT_GT(reference.self.count(FunctionId{"recurse", "hot_prog"}), 0u);
  for (const char* options :
       {"--dump-instr=yes --collect-jumps=yes --compress-pos=no --separate-recs=1",
        "--compress-strings=no --separate-callers=3 --cache-sim=yes --branch-sim=yes",
        "--combine-dumps=yes --dump-before=hot_function --dump-line=no --dump-instr=yes"}) {
    Profile p;
    ASSERT_TRUE(LoadProfiles(RunCallgrind("base", "exec-child", options), &p, &err))
        << options << err;
    EXPECT_EQ(p.self, reference.self) << options;
    EXPECT_EQ(p.total, reference.total) << options;
  }
}

TEST_F(ExplainCallgrind, TruncatedRealOutputIsAnError) {
  std::vector<std::string> files = RunCallgrind("base", "exec-child", "--dump-instr=yes");
  ASSERT_EQ(files.size(), 1u);
  std::string text = ReadAllOf(files[0]);
  ASSERT_GT(text.size(), 1000u);
  Profile p;
  std::string err;
  ASSERT_TRUE(ParseCallgrind(text, "cg", &p, &err)) << err;
  // Cut at 200 places spread over the file, and just before the end.
  std::vector<size_t> cuts;
  for (size_t i = 0; i < 200; ++i) cuts.push_back(text.size() * i / 200);
  for (size_t back = 2; back < 20; ++back) cuts.push_back(text.size() - back);
  std::regex located("^cg:[0-9]+: .+");
  for (size_t len : cuts) {
    Profile q;
    EXPECT_FALSE(ParseCallgrind(text.substr(0, len), "cg", &q, &err)) << "cut at " << len;
    EXPECT_TRUE(std::regex_match(err, located)) << err;
  }
}

}  // namespace
}  // namespace workgate
