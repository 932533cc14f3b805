#include "explain/line_diff.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

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
  // Code built without -g has no line information: vgcount and callgrind
  // charge its costs to line 0, which no row of the diff shows.
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

TEST(LineDiff, ALineOnlyTheBaselineRanIsInTheBaselinesNumbering) {
  const Lines base = {{{"vm.c", 10}, 5}, {{"vm.c", 20}, 7}};
  const Lines cand = {{{"vm.c", 10}, 9}};
  // Matched by number: line 20 is the baseline's line 20, whatever the
  // candidate has there.
  std::vector<LineDelta> rows = DiffLines(&base, &cand, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line, 20u);
  EXPECT_EQ(rows[0].numbering, kBaselineNumbering);
  EXPECT_EQ(rows[1].numbering, kCandidateNumbering);
  // Matched through the diff: an unchanged line has the candidate's number.
  const BaselineLineMap shift = [](const std::string&, uint64_t line) { return line + 2; };
  rows = DiffLines(&base, &cand, 10, &shift);
  ASSERT_EQ(rows.size(), 3u);
  for (const LineDelta& l : rows) EXPECT_EQ(l.numbering, kCandidateNumbering) << l.line;
  // A line the candidate changed is the baseline's.
  const BaselineLineMap removed = [](const std::string&, uint64_t line) {
    return line == 20 ? 0 : line;
  };
  rows = DiffLines(&base, &cand, 10, &removed);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].baseline_only);
  EXPECT_EQ(rows[0].numbering, kBaselineNumbering);
}

// A line of `file` with `text` and its costs.
LineDelta TextLine(uint64_t line, int64_t baseline, int64_t candidate, std::string text,
                   std::string file = "/src/lua/lvm.c") {
  LineDelta l;
  l.file = std::move(file);
  l.line = line;
  l.baseline = baseline;
  l.candidate = candidate;
  l.text = std::move(text);
  return l;
}

TEST(LineDiff, LinesOfOneTextWhoseCostsOffsetAreFolded) {
  // Lua's dispatch: GCC charges the merged dispatch code to one vmbreak or
  // another, a different one in each build; the change is at line 1210.
  std::vector<LineDelta> lines = {
      TextLine(1899, 0, 10'000'012, "vmbreak;"), TextLine(1854, 10'000'007, 0, "vmbreak;"),
      TextLine(1210, 100, 3'000'100, "if (l_unlikely(trap)) {"),
      TextLine(1300, 50, 2'000'050, "vmbreak;"), TextLine(1400, 10, 20, "}")};
  FoldIdenticalLines(&lines, 3);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].line, 1210u);
  // The three vmbreak lines are one, the largest's place, their costs summed.
  EXPECT_EQ(lines[1].line, 1899u);
  EXPECT_EQ(lines[1].baseline, 10'000'007 + 50);
  EXPECT_EQ(lines[1].candidate, 10'000'012 + 2'000'050);
  ASSERT_EQ(lines[1].folded.size(), 2u);
  EXPECT_EQ(lines[1].folded[0].line, 1300u);
  EXPECT_EQ(lines[1].folded[1].line, 1854u);
  EXPECT_EQ(lines[1].folded[1].delta(), -10'000'007);
  EXPECT_EQ(lines[2].line, 1400u);
}

TEST(LineDiff, OnlyOffsettingLinesOfOneTextAndFileAreFolded) {
  // Both gained: two places of real work, not one that moved.
  std::vector<LineDelta> lines = {TextLine(10, 0, 500, "x++;"), TextLine(20, 0, 400, "x++;")};
  FoldIdenticalLines(&lines, 3);
  EXPECT_EQ(lines.size(), 2u);
  // Another text, another file, or no text at all: not folded.
  lines = {TextLine(10, 0, 500, "x++;"), TextLine(20, 500, 0, "y++;")};
  FoldIdenticalLines(&lines, 3);
  EXPECT_EQ(lines.size(), 2u);
  lines = {TextLine(10, 0, 500, "x++;"), TextLine(20, 500, 0, "x++;", "/src/other.c")};
  FoldIdenticalLines(&lines, 3);
  EXPECT_EQ(lines.size(), 2u);
  lines = {TextLine(10, 0, 500, ""), TextLine(20, 500, 0, "")};
  FoldIdenticalLines(&lines, 3);
  EXPECT_EQ(lines.size(), 2u);
  // And the lines kept are the top_n.
  lines = {TextLine(10, 0, 500, "a"), TextLine(20, 0, 400, "b"), TextLine(30, 0, 600, "c")};
  FoldIdenticalLines(&lines, 2);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].line, 30u);
  EXPECT_EQ(lines[1].line, 10u);
}

}  // namespace
}  // namespace workgate
