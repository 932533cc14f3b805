// Source lines from each kind of checkout a CI makes (a worktree, a shallow
// clone, submodules, SHA-256), the baseline's lines matched across the
// change, and a checkout whose git configuration the candidate wrote: no
// program it names ever runs.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "measure/git_test_repo.h"
#include "measure/source_lines.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::kGitCommit;
using testing::ShellIn;
using testing::ShellOutputIn;

class SourceCheckoutsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::canonical(dir_.path()).string();
    root_ = base_ + "/checkout";
    fs::create_directories(root_ + "/src");
    // The baseline's commit, then the candidate's: two lines inserted at the
    // top and the old line 2 changed.
    std::ofstream(root_ + "/src/vm.c") << "a;\nb;\nc;\nd;\n";
    ShellIn(root_, "git init -q . && git add src/vm.c && " + kGitCommit + " -m base");
    std::ofstream(root_ + "/src/vm.c") << "new1;\nnew2;\na;\nB;\nc;\nd;\n";
    ShellIn(root_, kGitCommit + " -am candidate");
  }

  // The text of line `line` of `file` as AttachSourceLines gives it from the
  // checkout at `root`.
  static std::string TextAt(const std::string& root, const std::string& file, uint64_t line) {
    return testing::AttachedLine(MakeSourceView(root, "none"), file, line).text;
  }

  TempDir dir_{"wg-source-checkouts"};
  std::string base_, root_;
};

TEST(SourceAlignment, HunksAndWhereALineGoes) {
  const std::vector<DiffHunk> hunks = ParseDiffHunks(
      "diff --git a/vm.c b/vm.c\n"
      "@@ -0,0 +1,3 @@\n"  // three lines inserted at the top
      "+a\n+b\n+c\n"
      "@@ -5 +8 @@ int x;\n"  // line 5 changed
      "-old\n+new\n"
      "@@ -9,2 +12,0 @@\n"  // lines 9 and 10 removed
      "@@ not a header\n");
  ASSERT_EQ(hunks.size(), 3u);
  EXPECT_EQ(hunks[1].old_start, 5u);
  EXPECT_EQ(hunks[1].old_count, 1u);
  EXPECT_EQ(hunks[2].new_count, 0u);
  EXPECT_EQ(LineAfter(hunks, 1), 4u);
  EXPECT_EQ(LineAfter(hunks, 4), 7u);
  EXPECT_EQ(LineAfter(hunks, 5), 0u) << "changed";
  EXPECT_EQ(LineAfter(hunks, 6), 9u);
  EXPECT_EQ(LineAfter(hunks, 9), 0u) << "removed";
  EXPECT_EQ(LineAfter(hunks, 10), 0u) << "removed";
  EXPECT_EQ(LineAfter(hunks, 11), 12u);
  EXPECT_EQ(LineAfter({}, 7), 7u);
}

TEST_F(SourceCheckoutsTest, TheBaselinesLinesAreFoundWhereTheCandidateHasThem) {
  SourceView view = MakeSourceView(root_, "none", "HEAD~1");
  ASSERT_EQ(view.base.size(), 40u) << view.note;
  const BaselineLineMap map = LineAlignment(view);
  ASSERT_TRUE(map);
  const std::string file = root_ + "/src/vm.c";
  EXPECT_EQ(map(file, 1), 3u);
  EXPECT_EQ(map(file, 2), 0u);
  EXPECT_EQ(map(file, 4), 6u);
  EXPECT_EQ(map(root_ + "/untracked.c", 4), 4u) << "a file git cannot diff keeps its numbers";
  // The lines of a function whose code only moved: no change but the line
  // that changed, shown in each side's numbering, the baseline's with its
  // old text.
  const std::map<SourceLine, uint64_t> base = {{{file, 1}, 10}, {{file, 2}, 20}, {{file, 4}, 40}};
  const std::map<SourceLine, uint64_t> cand = {{{file, 3}, 10}, {{file, 4}, 25}, {{file, 6}, 40}};
  Explanation e;
  FunctionDelta row{"f", "prog", 70, 75};
  row.lines = DiffLines(&base, &cand, 10, &map);
  e.rows.push_back(row);
  AttachSourceLines(view, &e);
  const std::vector<LineDelta>& lines = e.rows[0].lines;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].line, 4u);
  EXPECT_FALSE(lines[0].baseline_only);
  EXPECT_EQ(lines[0].text, "B;");
  EXPECT_EQ(lines[1].line, 2u);
  EXPECT_TRUE(lines[1].baseline_only);
  EXPECT_EQ(lines[1].baseline, 20);
  EXPECT_EQ(lines[1].candidate, 0);
  EXPECT_EQ(lines[1].text, "b;");
  EXPECT_EQ(lines[1].url, "");
  // A base that is no commit: matched by number, and said.
  const SourceView bad = MakeSourceView(root_, "none", "-no-such");
  EXPECT_EQ(bad.base, "");
  EXPECT_NE(bad.note.find("not a commit"), std::string::npos) << bad.note;
}

TEST_F(SourceCheckoutsTest, AFileWithALoneCarriageReturnOrChangedSinceTheCommitKeepsItsNumbers) {
  std::ofstream(root_ + "/src/cr.c") << "a;\rb;\n";
  ShellIn(root_, "git add src/cr.c && " + kGitCommit + " -m cr");
  std::ofstream(root_ + "/src/cr.c") << "x;\ny;\na;\rb;\n";
  std::ofstream(root_ + "/src/vm.c") << "changed;\nnew1;\nnew2;\na;\nB;\nc;\nd;\n";
  ShellIn(root_, kGitCommit + " -am cr2");
  const BaselineLineMap committed = LineAlignment(MakeSourceView(root_, "none", "HEAD~1"));
  ASSERT_TRUE(committed);
  EXPECT_EQ(committed(root_ + "/src/vm.c", 4), 5u);
  EXPECT_EQ(committed(root_ + "/src/cr.c", 1), 1u) << "git would say 3, a compiler 1 or 3";
  // Then a change the candidate was built from, not committed.
  std::ofstream(root_ + "/src/vm.c") << "x;\nchanged;\nnew1;\nnew2;\na;\nB;\nc;\nd;\n";
  const BaselineLineMap map = LineAlignment(MakeSourceView(root_, "none", "HEAD~1"));
  ASSERT_TRUE(map);
  EXPECT_EQ(map(root_ + "/src/vm.c", 4), 4u) << "the work tree's vm.c is no commit's";
}

TEST_F(SourceCheckoutsTest, AWorktreeAShallowCloneAndASha256Repository) {
  // A worktree's .git is a file naming the repository's.
  ShellIn(root_, "git worktree add -q --detach ../wt HEAD");
  ASSERT_TRUE(fs::is_regular_file(base_ + "/wt/.git"));
  EXPECT_EQ(MakeSourceView(base_ + "/wt", "none").objects, root_ + "/.git/objects");
  EXPECT_EQ(TextAt(base_ + "/wt", "src/vm.c", 4), "B;");
  // A shallow clone has no base, but its own commit.
  ShellIn(base_, "git clone -q --depth 1 file://" + root_ + " shallow");
  EXPECT_EQ(TextAt(base_ + "/shallow", "src/vm.c", 4), "B;");
  EXPECT_EQ(MakeSourceView(base_ + "/shallow", "none", "HEAD~1").base, "");
  const std::string sha256 = base_ + "/sha256";
  fs::create_directories(sha256);
  std::ofstream(sha256 + "/vm.c") << "a;\nB;\n";
  ShellIn(sha256,
          "git init -q --object-format=sha256 . && git add vm.c && " + kGitCommit + " -m one");
  EXPECT_EQ(MakeSourceView(sha256, "none").format, "sha256");
  EXPECT_EQ(TextAt(sha256, "vm.c", 2), "B;");
}

TEST_F(SourceCheckoutsTest, ASubmodulesFilesHaveNoText) {
  const std::string sub = base_ + "/sub";
  fs::create_directories(sub);
  std::ofstream(sub + "/lib.c") << "int lib;\n";
  ShellIn(sub, "git init -q . && git add lib.c && " + kGitCommit + " -m lib");
  ShellIn(root_, "git -c protocol.file.allow=always submodule -q add " + sub + " sub && " +
                     kGitCommit + " -m sub");
  ASSERT_TRUE(fs::exists(root_ + "/sub/lib.c"));
  EXPECT_EQ(TextAt(root_, "sub/lib.c", 1), "");
  EXPECT_EQ(TextAt(root_, "src/vm.c", 4), "B;");
}

// One way a candidate plants a command in the checkout's git configuration.
struct Planting {
  const char* name;
  // The configuration and attributes it writes; MARKER is a file the
  // command would create, BASE the folder above the checkout (where
  // `included`, `attributes` and `hooks/` are).
  const char* config;
  const char* attributes;
};

void PrintTo(const Planting& planting, std::ostream* out) { *out << planting.name; }

class PlantedConfigurationTest : public SourceCheckoutsTest,
                                 public ::testing::WithParamInterface<Planting> {
 protected:
  std::string Placed(std::string text, const std::string& marker) const {
    for (const auto& [name, value] : {std::pair{"MARKER", marker}, std::pair{"BASE", base_}}) {
      for (size_t at = text.find(name); at != std::string::npos;
           at = text.find(name, at + value.size())) {
        text.replace(at, std::string(name).size(), value);
      }
    }
    return text;
  }
};

TEST_P(PlantedConfigurationTest, NoProgramItNamesRuns) {
  const std::string marker = base_ + "/ran-" + GetParam().name;
  const std::string hooks = base_ + "/hooks";
  fs::create_directories(hooks);
  for (const char* hook : {"pre-commit", "post-checkout", "post-index-change", "pre-auto-gc",
                           "reference-transaction", "fsmonitor-watchman", "post-rewrite"}) {
    std::ofstream(hooks + "/" + hook) << "#!/bin/sh\ntouch '" << marker << "'\n";
    fs::permissions(hooks + "/" + hook, fs::perms::owner_all);
  }
  std::ofstream(base_ + "/included")
      << Placed("[filter \"x\"]\n\tclean = touch MARKER && cat\n", marker);
  std::ofstream(base_ + "/attributes") << "* filter=x\n";
  std::ofstream(root_ + "/.git/config", std::ios::app) << Placed(GetParam().config, marker);
  fs::create_directories(root_ + "/.git/info");
  std::ofstream(root_ + "/.git/info/attributes") << GetParam().attributes;
  // A new modification time: git would hash the work tree's file again.
  std::ofstream(root_ + "/src/vm.c") << "new1;\nnew2;\na;\nB;\nc;\nd;\n";

  const SourceView view = MakeSourceView(root_, "none", "HEAD~1");
  const BaselineLineMap map = LineAlignment(view);
  ASSERT_TRUE(map);
  EXPECT_EQ(map(root_ + "/src/vm.c", 4), 6u);
  EXPECT_EQ(TextAt(root_, "src/vm.c", 4), "B;");
  EXPECT_FALSE(fs::exists(marker)) << GetParam().name << " ran";
}

INSTANTIATE_TEST_SUITE_P(
    Checkout, PlantedConfigurationTest,
    ::testing::Values(Planting{"filter",
                               "[filter \"x\"]\n\tclean = touch MARKER && cat\n"
                               "\tsmudge = touch MARKER && cat\n\tprocess = touch MARKER\n",
                               "* filter=x\n"},
                      Planting{"textconv",
                               "[diff \"x\"]\n\ttextconv = touch MARKER && cat\n"
                               "\tcommand = touch MARKER\n[diff]\n\texternal = touch MARKER\n",
                               "* diff=x\n"},
                      Planting{"fsmonitor", "[core]\n\tfsmonitor = touch MARKER\n", ""},
                      Planting{"hooks", "[core]\n\thooksPath = BASE/hooks\n", ""},
                      Planting{"include", "[include]\n\tpath = BASE/included\n", "* filter=x\n"},
                      Planting{"attributesfile",
                               "[core]\n\tattributesFile = BASE/attributes\n"
                               "[filter \"x\"]\n\tclean = touch MARKER && cat\n",
                               ""}),
    [](const ::testing::TestParamInfo<Planting>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace workgate
