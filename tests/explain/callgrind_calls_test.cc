// Per-line self cost and call edges from a real callgrind run of
// tests/explain/testdata/calls_prog.c, whose call counts and hot line are
// known in advance: what explanations by line and by caller stand on.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "explain/callgrind_profile.h"
#include "explain/callgrind_run.h"
#include "explain/explain.h"
#include "explain/line_diff.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

constexpr int kCalls = 300;
const std::string kSource = WORKGATE_SOURCE_DIR "/tests/explain/testdata/calls_prog.c";

// The 1-based number of the line of `source` that holds `marker`.
uint64_t LineOf(const std::string& marker, const std::string& source = kSource) {
  std::ifstream in(source);
  std::string line;
  for (uint64_t n = 1; std::getline(in, line); ++n) {
    if (line.find(marker) != std::string::npos) return n;
  }
  ADD_FAILURE() << marker << " is not in " << source;
  return 0;
}

TEST(CallgrindCalls, LinesAndCallEdgesOfARealRun) {
  const std::string missing = testing::MissingCallgrindTool();
  WORKGATE_REQUIRE_TOOL(missing.empty(), missing);
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  TempDir dir("wg-calls");
  const std::string exe = dir.path() + "/calls_prog";
  const std::string cc = "cc -O1 -g -DCALLS=" + std::to_string(kCalls) + " -o " + exe + " " + kSource;
  ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
  const std::vector<std::string> files =
      testing::RunUnderCallgrind(dir.path(), "./calls_prog", dir.path() + "/out");
  Profile p;
  std::string err;
  ASSERT_TRUE(LoadProfiles(files, &p, &err)) << err;

  const FunctionId helper{"helper", "calls_prog"};
  const FunctionId caller{"caller", "calls_prog"};
  const FunctionId main_fn{"main", "calls_prog"};
  ASSERT_EQ(p.calls.count({caller, helper}), 1u);
  const CallCost into_helper = p.calls.at({caller, helper});
  EXPECT_EQ(into_helper.calls, static_cast<uint64_t>(kCalls));
  // helper calls nothing and only caller calls it: its calls' inclusive
  // cost is its self cost.
  EXPECT_EQ(into_helper.inclusive, p.self.at(helper));
  ASSERT_EQ(p.calls.count({main_fn, caller}), 1u);
  EXPECT_EQ(p.calls.at({main_fn, caller}).calls, 1u);
  EXPECT_EQ(p.calls.at({main_fn, caller}).inclusive, p.self.at(caller) + into_helper.inclusive);

  // The loop's line holds most of helper's cost; every function's lines add
  // up to its self cost.
  const std::map<SourceLine, uint64_t>& lines = p.lines.at(helper);
  const SourceLine hot{kSource, LineOf("/* HOT */")};
  ASSERT_EQ(lines.count(hot), 1u) << "lines of helper: " << lines.size();
  EXPECT_GT(lines.at(hot) * 10, p.self.at(helper) * 9);
  EXPECT_EQ(p.lines.at(caller).count(SourceLine{kSource, LineOf("/* CALL */")}), 1u);
  for (const auto& [id, self] : p.self) {
    uint64_t sum = 0;
    for (const auto& [where, cost] : p.lines.at(id)) sum += cost;
    EXPECT_EQ(sum, self) << id.name;
  }
}

TEST(CallgrindCalls, AChangeOnTwoLinesOfALongFunctionListsThoseLinesFirst) {
  const std::string missing = testing::MissingCallgrindTool();
  WORKGATE_REQUIRE_TOOL(missing.empty(), missing);
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  const std::string source = WORKGATE_SOURCE_DIR "/tests/explain/testdata/long_function.c";
  TempDir dir("wg-lines");
  // Two checkouts' builds: the source file at two paths, as a merge base
  // worktree and the head give it.
  Profile sides[2];
  for (int s = 0; s < 2; ++s) {
    const std::string side = dir.path() + (s == 0 ? "/base" : "/head");
    fs::create_directories(side);
    fs::copy_file(source, side + "/long_function.c");
    const std::string cc = "cd " + side + " && cc -O1 -g " + (s == 1 ? "-DCANDIDATE " : "") +
                           "-o prog long_function.c";
    ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
    std::string err;
    ASSERT_TRUE(
        LoadProfiles(testing::RunUnderCallgrind(side, "./prog", side + "/out"), &sides[s], &err))
        << err;
  }
  const FunctionId work{"work", "prog"};
  const std::vector<LineDelta> rows =
      DiffLines(&sides[0].lines.at(work), &sides[1].lines.at(work), 5);
  ASSERT_GE(rows.size(), 2u);
  // 200 iterations: 3 more inner iterations on FIRST, 6 more on SECOND.
  EXPECT_EQ(rows[0].line, LineOf("/* SECOND */", source));
  EXPECT_EQ(rows[1].line, LineOf("/* FIRST */", source));
  EXPECT_EQ(rows[0].file, dir.path() + "/head/long_function.c");
  for (const LineDelta& row : rows) EXPECT_GT(row.delta(), 0) << row.line;
  // Between them, those two lines hold the function's whole delta.
  const int64_t work_delta =
      static_cast<int64_t>(sides[1].self.at(work)) - static_cast<int64_t>(sides[0].self.at(work));
  EXPECT_EQ(rows[0].delta() + rows[1].delta(), work_delta);
  // The explanation lists them under the function's row.
  const Explanation e = ExplainProfiles(sides[0], sides[1], 10);
  ASSERT_FALSE(e.rows.empty());
  EXPECT_EQ(e.rows[0].function, "work");
  ASSERT_GE(e.rows[0].lines.size(), 2u);
  EXPECT_EQ(e.rows[0].lines[0].line, rows[0].line);
  EXPECT_EQ(e.rows[0].lines[1].line, rows[1].line);
}

}  // namespace
}  // namespace workgate
