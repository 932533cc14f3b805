// Clone matching on real builds: tests/explain/testdata/clones.c built at
// -O1 (plain functions) and -O2 (mix.constprop.0, fill.part.0, check.cold)
// by tests/CMakeLists.txt, both run under callgrind. Without matching by the
// name a clone was made from, each function splits into a row that loses
// its cost and a row that gains it, and the top rows say little about the
// delta (between -O2 and -O1 builds of SQLite they covered 26% of it).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "explain/callgrind_run.h"
#include "explain/explain.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// Iterations of each loop: enough that the three functions carry nearly all
// of each build's count. The -O2 build (the candidate) also does a quarter
// more work, so that every one of them changes: a candidate that adds work
// and was built with other flags.
constexpr const char* kIterations[] = {"20000", "25000"};

uint64_t Cost(const Profile& p, const std::string& function) {
  auto it = p.self.find(FunctionId{function, "clones"});
  return it == p.self.end() ? 0 : it->second;
}

class ExplainClones : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef WORKGATE_EXPLAIN_CLONES_BUILT
    GTEST_SKIP() << "the -O1 and -O2 builds of clones.c are made with GCC only, whose clone "
                    "names the test expects";
#endif
    const std::string missing = testing::MissingCallgrindTool();
    WORKGATE_REQUIRE_TOOL(missing.empty(), missing);
    for (int i = 0; i < 2; ++i) {
      const std::string exe = testing::BuildPath(std::string("tests/explain_clones/") +
                                                 (i == 0 ? "O1" : "O2") + "/clones");
      std::vector<std::string> files =
          testing::RunUnderCallgrind(dir_.path(), exe + " " + kIterations[i],
                                     fs::path(dir_.path()) / ("out" + std::to_string(i)));
      std::string err;
      ASSERT_TRUE(LoadProfiles(files, &profiles_[i], &err)) << err;
    }
  }
  TempDir dir_;
  Profile profiles_[2];  // -O1, -O2
};

TEST_F(ExplainClones, DeltaLandsOnTheFunctionTheClonesWereMadeFrom) {
  const Profile& o1 = profiles_[0];
  const Profile& o2 = profiles_[1];
  // The builds really name their work differently.
  const std::map<std::string, std::string> clone_of = {
      {"mix", "mix.constprop.0"}, {"fill", "fill.part.0"}, {"check", "check.cold"}};
  for (const auto& [plain, clone] : clone_of) {
    EXPECT_GT(Cost(o1, plain), 10000u) << plain;
    EXPECT_EQ(Cost(o1, clone), 0u) << clone;
    EXPECT_GT(Cost(o2, clone), 0u) << clone;
  }
  EXPECT_EQ(Cost(o2, "mix"), 0u);
  EXPECT_EQ(Cost(o2, "fill"), 0u);

  Explanation e = ExplainProfiles(o1, o2, 4);
  ASSERT_TRUE(e.error.empty()) << e.error;
  std::map<std::string, const FunctionDelta*> rows;
  int64_t listed = 0;
  for (const FunctionDelta& row : e.rows) {
    rows[row.function] = &row;
    listed += row.delta();
  }
  for (const auto& [plain, clone] : clone_of) {
    ASSERT_TRUE(rows.count(plain)) << plain << " is not among the top rows";
    const FunctionDelta& row = *rows.at(plain);
    EXPECT_EQ(row.object, "clones");
    // The row sums the plain function and its clones on each side.
    EXPECT_EQ(row.baseline, static_cast<int64_t>(Cost(o1, plain) + Cost(o1, clone)));
    EXPECT_EQ(row.candidate, static_cast<int64_t>(Cost(o2, plain) + Cost(o2, clone)));
    EXPECT_NE(std::find(row.clones.begin(), row.clones.end(), clone), row.clones.end()) << plain;
    EXPECT_NE(std::find(row.clones.begin(), row.clones.end(), plain), row.clones.end()) << plain;
  }
  // No row is left for a clone alone.
  for (const FunctionDelta& row : e.rows) {
    EXPECT_EQ(row.function.find('.'), std::string::npos) << row.function;
  }
  // The three functions and main hold the whole delta but for code that
  // moved by a few instructions (the C library is the same on both sides).
  ASSERT_NE(e.total_delta, 0);
  const double covered = static_cast<double>(listed) / static_cast<double>(e.total_delta);
  EXPECT_NEAR(covered, 1.0, 0.01) << "listed " << listed << " of " << e.total_delta;
}

}  // namespace
}  // namespace workgate
