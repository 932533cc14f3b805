// An explanation's lines get their text and links only from files git tracks
// in the checkout: a profile is the candidate's, and it can name any path.

#include "measure/source_lines.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// Runs a shell command in `dir`; fails the test when it fails.
void Shell(const std::string& dir, const std::string& command) {
  const std::string line = "cd '" + dir + "' && " + command + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(line.c_str()), 0) << command;
}

// MakeSourceView(root, "") under GitHub Actions' variables, GITHUB_SHA
// 0123abc.
SourceView GithubView(const std::string& root) {
  setenv("GITHUB_SERVER_URL", "https://github.com", 1);
  setenv("GITHUB_REPOSITORY", "o/r", 1);
  setenv("GITHUB_SHA", "0123abc", 1);
  SourceView view = MakeSourceView(root, "");
  unsetenv("GITHUB_SERVER_URL");
  unsetenv("GITHUB_REPOSITORY");
  unsetenv("GITHUB_SHA");
  return view;
}

class SourceLinesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::canonical(dir_.path()).string() + "/checkout";
    fs::create_directories(root_ + "/src");
    std::ofstream(root_ + "/src/vm.c")
        << "int x;\n  \tcounts[op]++;   \n\nlast line without newline";
    std::ofstream(root_ + "/secret.env") << "TOKEN=hunter2\n";
    std::ofstream(outside_ = fs::canonical(dir_.path()).string() + "/outside.c") << "SECRET\n";
    Shell(root_, "git init -q . && git add src/vm.c");
  }

  // An explanation with one row listing `files` at `line` each.
  static Explanation Listing(const std::vector<std::string>& files, uint64_t line) {
    Explanation e;
    FunctionDelta row{"vm_run", "wgi", 10, 20};
    for (const std::string& f : files) row.lines.push_back(LineDelta{f, line, 1, 2});
    e.rows.push_back(row);
    return e;
  }

  TempDir dir_{"wg-source-lines"};
  std::string root_, outside_;
};

TEST_F(SourceLinesTest, PathsInsideTheCheckoutOnly) {
  EXPECT_EQ(PathInCheckout("/r", "/r/src/vm.c"), "src/vm.c");
  EXPECT_EQ(PathInCheckout("/r", "/r/src/../src/vm.c"), "src/vm.c");
  EXPECT_EQ(PathInCheckout("/r", "src/vm.c"), "src/vm.c");
  EXPECT_EQ(PathInCheckout("/r/", "/r/vm.c"), "vm.c");
  EXPECT_FALSE(PathInCheckout("/r", "/r/../etc/passwd"));
  EXPECT_FALSE(PathInCheckout("/r", "../r2/vm.c"));
  EXPECT_FALSE(PathInCheckout("/r", "/etc/passwd"));
  EXPECT_FALSE(PathInCheckout("/r", "/rr/vm.c"));
  EXPECT_FALSE(PathInCheckout("/r", "/r"));
  EXPECT_FALSE(PathInCheckout("", "/r/vm.c"));
  EXPECT_FALSE(PathInCheckout("/r", std::string("/r/vm.c\0x", 9)));
}

TEST_F(SourceLinesTest, ReadsALineTrimmedAndTheLastWithoutANewline) {
  EXPECT_EQ(ReadSourceLine(root_, "src/vm.c", 2), "counts[op]++;");
  EXPECT_EQ(ReadSourceLine(root_, "src/vm.c", 3), "");
  EXPECT_EQ(ReadSourceLine(root_, "src/vm.c", 4), "last line without newline");
  EXPECT_FALSE(ReadSourceLine(root_, "src/vm.c", 5));
  EXPECT_FALSE(ReadSourceLine(root_, "src/vm.c", 0));
  EXPECT_FALSE(ReadSourceLine(root_, "src/missing.c", 1));
  EXPECT_FALSE(ReadSourceLine(root_, "src", 1)) << "a directory";
}

TEST_F(SourceLinesTest, NeverThroughASymbolicLinkNorFromAnythingButARegularFile) {
  fs::create_symlink(outside_, root_ + "/link.c");
  EXPECT_FALSE(ReadSourceLine(root_, "link.c", 1));
  fs::create_directory_symlink(fs::path(outside_).parent_path(), root_ + "/up");
  EXPECT_FALSE(ReadSourceLine(root_, "up/outside.c", 1));
  ASSERT_EQ(mkfifo((root_ + "/fifo.c").c_str(), 0600), 0);
  EXPECT_FALSE(ReadSourceLine(root_, "fifo.c", 1)) << "a FIFO must not be read (nor block)";
}

TEST_F(SourceLinesTest, ALongLineIsCutAtACharacterBoundary) {
  std::string line(kMaxSourceTextBytes - 1, 'a');
  line += "\u00e9\u00e9\u00e9";  // two bytes each, across the cut
  std::ofstream(root_ + "/long.c") << line << "\n";
  const std::optional<std::string> text = ReadSourceLine(root_, "long.c", 1);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, std::string(kMaxSourceTextBytes - 1, 'a') + "\u2026");
}

TEST_F(SourceLinesTest, OnlyTrackedFilesCount) {
  const std::set<std::string> tracked =
      TrackedAmong(root_, {"src/vm.c", "secret.env", "src", ":(glob)*", ".git/config"});
  EXPECT_EQ(tracked, std::set<std::string>{"src/vm.c"});
}

TEST_F(SourceLinesTest, AttachesTextPathAndLinkToTrackedLinesOnly) {
  SourceView view;
  view.root = root_;
  view.link = "https://example.org/o/r/blob/abc/{path}#L{line}";
  Explanation e = Listing({root_ + "/src/vm.c", root_ + "/secret.env", outside_,
                           "/home/runner/.ssh/id_rsa", root_ + "/.git/config"},
                          2);
  AttachSourceLines(view, &e);
  const std::vector<LineDelta>& lines = e.rows[0].lines;
  EXPECT_EQ(lines[0].path, "src/vm.c");
  EXPECT_EQ(lines[0].text, "counts[op]++;");
  EXPECT_EQ(lines[0].url, "https://example.org/o/r/blob/abc/src/vm.c#L2");
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].path, "") << lines[i].file;
    EXPECT_EQ(lines[i].text, "") << lines[i].file;
    EXPECT_EQ(lines[i].url, "") << lines[i].file;
  }
}

TEST_F(SourceLinesTest, ATrackedSymbolicLinkToASecretShowsNothing) {
  // A pull request can add a symbolic link to git; what it points at is the
  // runner's, not the project's.
  fs::create_symlink(outside_, root_ + "/src/evil.c");
  Shell(root_, "git add src/evil.c");
  SourceView view;
  view.root = root_;
  Explanation e = Listing({root_ + "/src/evil.c"}, 1);
  AttachSourceLines(view, &e);
  EXPECT_EQ(e.rows[0].lines[0].path, "src/evil.c");
  EXPECT_EQ(e.rows[0].lines[0].text, "");
}

TEST_F(SourceLinesTest, LinksAreEncodedAndPlain) {
  const std::string link = "https://github.com/o/r/blob/abc/{path}#L{line}";
  EXPECT_EQ(LineLink(link, "src/a b(1).c", 7),
            "https://github.com/o/r/blob/abc/src/a%20b%281%29.c#L7");
  EXPECT_EQ(LineLink(link, "src/\u00e9.c", 1), "https://github.com/o/r/blob/abc/src/%C3%A9.c#L1");
  EXPECT_EQ(LineLink("javascript:alert(1)//{path}", "a.c", 1), "");
  EXPECT_EQ(LineLink("https://x/{path} <b>", "a.c", 1), "");
  EXPECT_EQ(LineLink("", "a.c", 1), "");
  EXPECT_EQ(LineLink(link, "", 1), "");
}

TEST_F(SourceLinesTest, TheViewComesFromTheCheckoutAndTheCiVariables) {
  const SourceView view = MakeSourceView(root_ + "/src", "");
  EXPECT_EQ(view.root, root_);
  const SourceView none = MakeSourceView(root_, "none");
  EXPECT_EQ(none.root, root_);
  EXPECT_EQ(none.link, "");
  const SourceView outside = MakeSourceView(fs::path(outside_).parent_path().string(), "");
  EXPECT_EQ(outside.root, "");
  EXPECT_NE(outside.note.find("not in a git work tree"), std::string::npos) << outside.note;

  const SourceView github = GithubView(root_);
  EXPECT_EQ(github.link, "https://github.com/o/r/blob/0123abc/{path}#L{line}");
  setenv("CI_PROJECT_URL", "https://gitlab.com/o/r", 1);
  setenv("CI_COMMIT_SHA", "0123abc", 1);
  const SourceView gitlab = MakeSourceView(root_, "");
  unsetenv("CI_PROJECT_URL");
  unsetenv("CI_COMMIT_SHA");
  EXPECT_EQ(gitlab.link, "https://gitlab.com/o/r/-/blob/0123abc/{path}#L{line}");
}

TEST_F(SourceLinesTest, LinksGoToTheCheckoutsCommitWhereItHasOne) {
  // A workflow that checks out a pull request's head: GITHUB_SHA is the
  // merge commit, and the candidate's source is the checkout's HEAD.
  Shell(root_, "git -c user.name=t -c user.email=t@t commit -qm head");
  Shell(root_, "git rev-parse HEAD | tee ../head");
  std::string sha;
  std::ifstream(dir_.path() + "/head") >> sha;
  ASSERT_EQ(sha.size(), 40u);
  const SourceView github = GithubView(root_);
  EXPECT_EQ(github.link, "https://github.com/o/r/blob/" + sha + "/{path}#L{line}");
}

}  // namespace
}  // namespace workgate

namespace workgate {
namespace {

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

TEST_F(SourceLinesTest, TheBaselinesLinesAreFoundWhereTheCandidateHasThem) {
  // The baseline's commit, then the candidate's source in the work tree:
  // two lines inserted at the top and the old line 2 changed.
  std::ofstream(root_ + "/src/vm.c") << "a;\nb;\nc;\nd;\n";
  Shell(root_, "git add src/vm.c && git -c user.name=t -c user.email=t@t commit -qm base");
  std::ofstream(root_ + "/src/vm.c") << "new1;\nnew2;\na;\nB;\nc;\nd;\n";
  SourceView view = MakeSourceView(root_, "none", "HEAD");
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

}  // namespace
}  // namespace workgate
