// An explanation's lines get their text and links only from the candidate's
// commit, read from git's objects as data: a profile is the candidate's and
// can name any path, and the checkout is the candidate's to write while it
// is counted.

#include "measure/source_lines.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "measure/git_test_repo.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::kGitCommit;
using testing::ShellIn;
using testing::ShellOutputIn;

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

constexpr const char* kSecret = "SECRET-XYZZY-13 token=ghp_0123456789";

class SourceLinesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::canonical(dir_.path()).string();
    root_ = base_ + "/checkout";
    fs::create_directories(root_ + "/src");
    std::ofstream(root_ + "/src/vm.c")
        << "int x;\n  \tcounts[op]++;   \n\nlast line without newline";
    std::ofstream(root_ + "/secret.env") << kSecret << "\n";
    std::ofstream(outside_ = base_ + "/outside.c") << kSecret << "\n";
    ShellIn(root_, "git init -q . && git add src/vm.c && " + kGitCommit + " -m candidate");
  }

  // The view of the checkout, linking to example.org.
  SourceView View(const std::string& base = "") {
    return MakeSourceView(root_, "https://example.org/o/r/blob/c/{path}#L{line}", base);
  }

  // An explanation with one row listing `files` at `line` each.
  static Explanation Listing(const std::vector<std::string>& files, uint64_t line) {
    Explanation e;
    FunctionDelta row{"vm_run", "wgi", 10, 20};
    for (const std::string& f : files) row.lines.push_back(LineDelta{f, line, 1, 2});
    e.rows.push_back(row);
    return e;
  }

  // The line `line` of `file` (in the checkout) as View() attaches it.
  LineDelta Attached(const std::string& file, uint64_t line) {
    return testing::AttachedLine(View(), file, line);
  }

  TempDir dir_{"wg-source-lines"};
  std::string base_, root_, outside_;
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

TEST_F(SourceLinesTest, LinesEndAtLineFeedsAsGitsDo) {
  EXPECT_EQ(SourceLineOf("a\nb\n", 2), "b");
  EXPECT_EQ(SourceLineOf("a\nb", 2), "b") << "a last line without a line feed";
  EXPECT_EQ(SourceLineOf("a\n\nb", 2), "");
  EXPECT_EQ(SourceLineOf("a\r\nb\r\n", 2), "b\r") << "CRLF ends a line for git and compilers";
  EXPECT_FALSE(SourceLineOf("a\nb\n", 3));
  EXPECT_FALSE(SourceLineOf("", 1));
  EXPECT_FALSE(SourceLineOf("a\n", 0));
  // A lone carriage return ends a line for GCC and Clang, not for git: a
  // line from there on has two numbers.
  EXPECT_EQ(SourceLineOf("a\nb\rc\nd\n", 1), "a");
  EXPECT_FALSE(SourceLineOf("a\nb\rc\nd\n", 2));
  EXPECT_FALSE(SourceLineOf("a\nb\rc\nd\n", 3));
  EXPECT_FALSE(SourceLineOf("a\nb\r", 2));
}

TEST_F(SourceLinesTest, ALineOfTheCommitTrimmedAndTheLastWithoutANewline) {
  EXPECT_EQ(Attached("src/vm.c", 2).text, "counts[op]++;");
  EXPECT_EQ(Attached("src/vm.c", 2).url, "https://example.org/o/r/blob/c/src/vm.c#L2");
  EXPECT_EQ(Attached("src/vm.c", 3).text, "");
  EXPECT_EQ(Attached("src/vm.c", 4).text, "last line without newline");
  EXPECT_EQ(Attached("src/vm.c", 5).path, "src/vm.c");
  EXPECT_EQ(Attached("src/vm.c", 5).text, "") << "no such line";
  EXPECT_EQ(Attached("src/vm.c", 5).url, "");
}

TEST_F(SourceLinesTest, ALongLineIsCutAtACharacterBoundary) {
  std::string line(kMaxSourceTextBytes - 1, 'a');
  line += "\u00e9\u00e9\u00e9";  // two bytes each, across the cut
  std::ofstream(root_ + "/long.c") << "   " << line << "\n";
  ShellIn(root_, "git add long.c && " + kGitCommit + " -m long");
  EXPECT_EQ(Attached("long.c", 1).text, std::string(kMaxSourceTextBytes - 1, 'a') + "\u2026");
}

TEST_F(SourceLinesTest, OnlyRegularFilesOfTheCommitAreQuoted) {
  ASSERT_EQ(mkfifo((root_ + "/fifo.c").c_str(), 0600), 0);
  Explanation e =
      Listing({root_ + "/src/vm.c", root_ + "/secret.env", outside_, "/home/runner/.ssh/id_rsa",
               root_ + "/.git/config", root_ + "/src", root_ + "/fifo.c"},
              2);
  AttachSourceLines(View(), &e);
  const std::vector<LineDelta>& lines = e.rows[0].lines;
  EXPECT_EQ(lines[0].path, "src/vm.c");
  EXPECT_EQ(lines[0].text, "counts[op]++;");
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
  fs::create_directory_symlink(base_, root_ + "/up");
  ShellIn(root_, "git add src/evil.c up && " + kGitCommit + " -m links");
  for (const std::string file : {"src/evil.c", "up/outside.c"}) {
    const LineDelta l = Attached(file, 1);
    EXPECT_EQ(l.path, "") << file;
    EXPECT_EQ(l.text, "") << file;
  }
}

TEST_F(SourceLinesTest, AHardLinkToASecretIsNeverQuoted) {
  // While it is counted, the candidate replaces a tracked source with a
  // hard link to a secret: no symbolic link, a regular file git tracks.
  ASSERT_EQ(unlink((root_ + "/src/vm.c").c_str()), 0);
  ASSERT_EQ(link(outside_.c_str(), (root_ + "/src/vm.c").c_str()), 0);
  const LineDelta l = Attached("src/vm.c", 1);
  EXPECT_EQ(l.path, "src/vm.c");
  EXPECT_EQ(l.text, "") << "the work tree is not the commit: no text";
  EXPECT_EQ(l.url, "");
}

TEST_F(SourceLinesTest, AFileTheWorkTreeChangedHasNoTextAndNoLink) {
  // What was built is the work tree: the commit's line of that number is
  // another one.
  std::ofstream(root_ + "/src/vm.c") << "int inserted;\nint x;\n  \tcounts[op]++;   \n";
  EXPECT_EQ(Attached("src/vm.c", 2).text, "");
  EXPECT_EQ(Attached("src/vm.c", 2).url, "");
  // The same bytes again (a new modification time): the commit's text.
  std::ofstream(root_ + "/src/vm.c") << "int x;\n  \tcounts[op]++;   \n\nlast line without newline";
  EXPECT_EQ(Attached("src/vm.c", 2).text, "counts[op]++;");
}

TEST_F(SourceLinesTest, AForgedObjectIsNeverQuoted) {
  // The candidate copies an object of its own, a secret, over the file of
  // the object that holds a tracked source: git hands out those bytes under
  // the source's name.
  const std::string id = ShellOutputIn(root_, "git rev-parse HEAD:src/vm.c");
  const std::string forged = ShellOutputIn(root_, "git hash-object -w '" + outside_ + "'");
  ASSERT_EQ(forged.size(), 40u);
  testing::CopyObjectOver(root_, forged, id);
  ASSERT_EQ(ShellOutputIn(root_, "git show HEAD:src/vm.c"), kSecret);
  const LineDelta l = Attached("src/vm.c", 1);
  EXPECT_EQ(l.path, "src/vm.c");
  EXPECT_EQ(l.text, "");
}

TEST_F(SourceLinesTest, LoneCarriageReturnsQuoteOnlyLinesGitAndTheCompilerNumberAlike) {
  // GCC numbers "b();" line 3 and git line 2: past the first lone carriage
  // return no line is quoted, rather than the wrong one beside a cost.
  std::ofstream(root_ + "/cr.c") << "a();\nx();\ry();\nb();\n";
  std::ofstream(root_ + "/crlf.c") << "a();\r\nb();\r\n";
  ShellIn(root_, "git add cr.c crlf.c && " + kGitCommit + " -m cr");
  EXPECT_EQ(Attached("cr.c", 1).text, ShellOutputIn(root_, "git show HEAD:cr.c | sed -n 1p"));
  EXPECT_EQ(Attached("cr.c", 1).text, "a();");
  for (uint64_t line : {2, 3}) {
    EXPECT_EQ(Attached("cr.c", line).text, "") << line;
    EXPECT_EQ(Attached("cr.c", line).url, "") << line;
  }
  EXPECT_EQ(ShellOutputIn(root_, "git show HEAD:crlf.c | sed -n 2p"), "b();\r");
  EXPECT_EQ(Attached("crlf.c", 2).text, "b();");
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
  EXPECT_EQ(view.objects, root_ + "/.git/objects");
  EXPECT_EQ(view.format, "sha1");
  EXPECT_EQ(view.commit, ShellOutputIn(root_, "git rev-parse HEAD"));
  const SourceView none = MakeSourceView(root_, "none");
  EXPECT_EQ(none.root, root_);
  EXPECT_EQ(none.link, "");
  const SourceView outside = MakeSourceView(base_, "");
  EXPECT_EQ(outside.root, "");
  EXPECT_NE(outside.note.find("not in a git work tree"), std::string::npos) << outside.note;
  fs::create_directories(base_ + "/empty");
  ShellIn(base_ + "/empty", "git init -q .");
  const SourceView empty = MakeSourceView(base_ + "/empty", "none");
  EXPECT_EQ(empty.commit, "");
  EXPECT_NE(empty.note.find("has no commit"), std::string::npos) << empty.note;

  const SourceView github = GithubView(base_ + "/empty");
  EXPECT_EQ(github.link, "https://github.com/o/r/blob/0123abc/{path}#L{line}");
  setenv("CI_PROJECT_URL", "https://gitlab.com/o/r", 1);
  setenv("CI_COMMIT_SHA", "0123abc", 1);
  const SourceView gitlab = MakeSourceView(base_ + "/empty", "");
  unsetenv("CI_PROJECT_URL");
  unsetenv("CI_COMMIT_SHA");
  EXPECT_EQ(gitlab.link, "https://gitlab.com/o/r/-/blob/0123abc/{path}#L{line}");
}

TEST_F(SourceLinesTest, LinksGoToTheCheckoutsCommitWhereItHasOne) {
  // A workflow that checks out a pull request's head: GITHUB_SHA is the
  // merge commit, and the candidate's source is the checkout's HEAD.
  const std::string sha = ShellOutputIn(root_, "git rev-parse HEAD");
  ASSERT_EQ(sha.size(), 40u);
  const SourceView github = GithubView(root_);
  EXPECT_EQ(github.link, "https://github.com/o/r/blob/" + sha + "/{path}#L{line}");
}

TEST_F(SourceLinesTest, TheCommitIsTheOneTheCheckoutHadWhenTheViewWasMade) {
  const SourceView view = View();
  // Then the candidate points HEAD at a commit of its own, whose vm.c is a
  // secret (the work tree unchanged).
  ShellIn(
      root_,
      "git checkout -q -b evil && cp '" + outside_ + "' src/vm.c && " + kGitCommit +
          " -am evil && git checkout -q - && evil=$(git rev-parse evil) && echo $evil > .git/HEAD");
  ASSERT_EQ(ShellOutputIn(root_, "git show HEAD:src/vm.c"), kSecret);
  EXPECT_EQ(testing::AttachedLine(view, "src/vm.c", 1).text, "int x;");
  EXPECT_EQ(Attached("src/vm.c", 1).text, "") << "a view made now: not the work tree";
}

}  // namespace
}  // namespace workgate
