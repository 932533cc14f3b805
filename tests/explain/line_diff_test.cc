#include "explain/line_diff.h"

#include <gtest/gtest.h>

namespace workgate {
namespace {

using Lines = std::map<SourceLine, uint64_t>;

TEST(LineDiff, TheLinesThatChangedMostComeFirst) {
  // Two checkouts of one project: the same file at different paths.
  const Lines base = {{{"/src/base/vm.c", 10}, 100}, {{"/src/base/vm.c", 11}, 50},
                      {{"/src/base/vm.c", 12}, 7},   {{"/src/base/vm.c", 13}, 9}};
  const Lines cand = {{{"/src/head/vm.c", 10}, 100}, {{"/src/head/vm.c", 11}, 80},
                      {{"/src/head/vm.c", 12}, 2},   {{"/src/head/vm.c", 14}, 4}};
  const std::vector<LineDelta> rows = DiffLines(&base, &cand, 10);
  ASSERT_EQ(rows.size(), 4u);  // line 10 did not change
  EXPECT_EQ(rows[0].file, "/src/head/vm.c");
  EXPECT_EQ(rows[0].line, 11u);
  EXPECT_EQ(rows[0].delta(), 30);
  // -9 (line 13 gone) before -5 (line 12), +4 (line 14, new) last.
  EXPECT_EQ(rows[1].line, 13u);
  EXPECT_EQ(rows[1].file, "/src/base/vm.c");  // only the baseline ran it
  EXPECT_EQ(rows[1].delta(), -9);
  EXPECT_EQ(rows[2].line, 12u);
  EXPECT_EQ(rows[2].delta(), -5);
  EXPECT_EQ(rows[3].line, 14u);
  EXPECT_EQ(rows[3].baseline, 0);
  EXPECT_EQ(rows[3].candidate, 4);
  EXPECT_EQ(DiffLines(&base, &cand, 2).size(), 2u);
  EXPECT_TRUE(DiffLines(&base, &cand, 0).empty());
  EXPECT_TRUE(DiffLines(&base, &base, 10).empty());
}

TEST(LineDiff, AFunctionOnOneSideOnlyHasAllItsLines) {
  const Lines cand = {{{"a.c", 3}, 5}, {{"a.c", 4}, 6}};
  const std::vector<LineDelta> rows = DiffLines(nullptr, &cand, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line, 4u);
  EXPECT_EQ(rows[0].delta(), 6);
  EXPECT_EQ(DiffLines(&cand, nullptr, 10)[0].delta(), -6);
}

TEST(LineDiff, FilesWithOneNameInOneFunctionMatchByTheirPath) {
  // Inlined code of two headers called util.h: the file name cannot tell
  // them apart, so the whole path must match.
  const std::vector<std::string> files = {"/src/a/util.h", "/src/b/util.h", "/src/vm.c"};
  EXPECT_EQ(SourceFileKey("/src/a/util.h", files), "/src/a/util.h");
  EXPECT_EQ(SourceFileKey("/src/vm.c", files), "vm.c");
  const Lines base = {{{"/src/a/util.h", 5}, 10}, {{"/src/b/util.h", 5}, 20}};
  const Lines cand = {{{"/src/a/util.h", 5}, 10}, {{"/src/b/util.h", 5}, 25}};
  const std::vector<LineDelta> rows = DiffLines(&base, &cand, 10);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].file, "/src/b/util.h");
  EXPECT_EQ(rows[0].delta(), 5);
}

TEST(LineDiff, CodeWithoutLineInformationIsLeftOut) {
  // vgcount's profiles, and code built without -g, put every cost on line 0.
  const Lines base = {{{"???", 0}, 10}, {{"a.c", 3}, 1}};
  const Lines cand = {{{"???", 0}, 50}, {{"a.c", 3}, 2}};
  const std::vector<LineDelta> rows = DiffLines(&base, &cand, 10);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line, 3u);
}

TEST(LineDiff, CostsBeyondInt64AreClampedNotWrapped) {
  const Lines base = {{{"a.c", 1}, 1}};
  const Lines cand = {{{"a.c", 1}, UINT64_MAX}};
  const std::vector<LineDelta> rows = DiffLines(&base, &cand, 1);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].candidate, INT64_MAX);
  EXPECT_GT(rows[0].delta(), 0);
}

}  // namespace
}  // namespace workgate
