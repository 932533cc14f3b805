// A checkout's objects are read through a private repository and taken only
// when their bytes are what their names say: the candidate can write the
// checkout's object store while it is counted.

#include "measure/git_objects.h"

#include <gtest/gtest.h>

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

class GitObjectsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = fs::canonical(dir_.path()).string() + "/repo";
    fs::create_directories(repo_ + "/src/deep");
    std::ofstream(repo_ + "/src/deep/vm.c") << "int vm;\n";
    std::ofstream(repo_ + "/top.c") << "int top;\n";
    fs::create_symlink("top.c", repo_ + "/link.c");
    ShellIn(repo_, "git init -q . && git add -A && " + kGitCommit + " -m one");
    commit_ = ShellOutputIn(repo_, "git rev-parse HEAD");
    ASSERT_EQ(commit_.size(), 40u);
  }
  std::string Id(const std::string& rev) { return ShellOutputIn(repo_, "git rev-parse " + rev); }

  TempDir dir_{"wg-git-objects"};
  std::string repo_, commit_;
};

TEST_F(GitObjectsTest, AnObjectsNameIsGitsOwn) {
  EXPECT_EQ(GitObjectId("sha1", "blob", "int top;\n"), Id("HEAD:top.c"));
  EXPECT_EQ(GitObjectId("sha1", "blob", ""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  EXPECT_EQ(GitObjectId("md5", "blob", ""), "");
  const std::string sha256 = repo_ + "-256";
  fs::create_directories(sha256);
  ShellIn(sha256, "git init -q --object-format=sha256 .");
  EXPECT_EQ(GitObjectId("sha256", "blob", "int top;\n"),
            ShellOutputIn(sha256, "printf 'int top;\\n' | git hash-object --stdin"));
  EXPECT_TRUE(IsObjectId("sha1", commit_));
  EXPECT_FALSE(IsObjectId("sha256", commit_));
  EXPECT_FALSE(IsObjectId("sha1", "HEAD"));
  EXPECT_FALSE(IsObjectId("sha1", std::string(39, 'a') + "A"));
  EXPECT_TRUE(IsObjectId("sha256", std::string(64, 'f')));
}

TEST_F(GitObjectsTest, ReadsAnObjectOfItsTypeAndSize) {
  GitObjects git(repo_ + "/.git/objects", "sha1");
  EXPECT_EQ(git.Read("blob", Id("HEAD:top.c")), "int top;\n");
  EXPECT_EQ(git.Read("blob", Id("HEAD:top.c"), 8), std::nullopt) << "larger than asked";
  EXPECT_EQ(git.Read("tree", Id("HEAD:top.c")), std::nullopt) << "not a tree";
  EXPECT_EQ(git.Read("blob", "HEAD"), std::nullopt) << "only a whole object name";
  EXPECT_EQ(git.Read("blob", std::string(40, '0')), std::nullopt) << "no such object";
  EXPECT_EQ(GitObjects("objects", "sha1").Read("blob", Id("HEAD:top.c")), std::nullopt)
      << "a relative object directory";
  EXPECT_EQ(GitObjects(repo_ + "/.git/objects", "md5").Read("blob", Id("HEAD:top.c")),
            std::nullopt);
}

TEST_F(GitObjectsTest, ALooseObjectWhoseBytesAreNotItsNameIsRefused) {
  // The candidate writes a secret as an object of its own and copies that
  // object's file over the one of a tracked source: git would return the
  // secret under the source's name.
  const std::string id = Id("HEAD:top.c");
  const std::string secret =
      ShellOutputIn(repo_, "printf 'SECRET-XYZZY-13 token=ghp_x\\n' | git hash-object -w --stdin");
  ASSERT_EQ(secret.size(), 40u);
  testing::CopyObjectOver(repo_, secret, id);
  ASSERT_EQ(ShellOutputIn(repo_, "git cat-file blob " + id), "SECRET-XYZZY-13 token=ghp_x")
      << "git itself returns the forged bytes";
  GitObjects git(repo_ + "/.git/objects", "sha1");
  EXPECT_EQ(git.Read("blob", id), std::nullopt);
  EXPECT_EQ(git.Read("blob", secret), "SECRET-XYZZY-13 token=ghp_x\n") << "under its own name";
}

TEST_F(GitObjectsTest, TheBlobAtAPathIsARegularFileReachedThroughDirectories) {
  GitObjects git(repo_ + "/.git/objects", "sha1");
  EXPECT_EQ(git.BlobAt(commit_, "src/deep/vm.c"), Id("HEAD:src/deep/vm.c"));
  EXPECT_EQ(git.BlobAt(commit_, "top.c"), Id("HEAD:top.c"));
  EXPECT_EQ(git.BlobAt(commit_, "link.c"), std::nullopt) << "a symbolic link";
  EXPECT_EQ(git.BlobAt(commit_, "src/deep"), std::nullopt) << "a directory";
  EXPECT_EQ(git.BlobAt(commit_, "top.c/x"), std::nullopt) << "a file as a directory";
  EXPECT_EQ(git.BlobAt(commit_, "src//deep/vm.c"), std::nullopt);
  EXPECT_EQ(git.BlobAt(commit_, "missing.c"), std::nullopt);
  EXPECT_EQ(git.BlobAt(Id("HEAD:top.c"), "top.c"), std::nullopt) << "a blob is no commit";
}

TEST_F(GitObjectsTest, ASha256RepositoryIsReadInItsFormat) {
  const std::string repo = repo_ + "-256";
  fs::create_directories(repo);
  std::ofstream(repo + "/a.c") << "int a;\n";
  ShellIn(repo, "git init -q --object-format=sha256 . && git add a.c && " + kGitCommit + " -m a");
  const std::string commit = ShellOutputIn(repo, "git rev-parse HEAD");
  ASSERT_EQ(commit.size(), 64u);
  GitObjects git(repo + "/.git/objects", "sha256");
  const std::optional<std::string> blob = git.BlobAt(commit, "a.c");
  ASSERT_TRUE(blob);
  EXPECT_EQ(git.Read("blob", *blob), "int a;\n");
}

TEST_F(GitObjectsTest, TheHunksOfTwoBlobs) {
  std::ofstream(repo_ + "/top.c") << "int first;\nint top;\nint last;\n";
  ShellIn(repo_, kGitCommit + " -am two");
  GitObjects git(repo_ + "/.git/objects", "sha1");
  EXPECT_EQ(git.DiffHeaders(Id("HEAD~1:top.c"), Id("HEAD:top.c")),
            "@@ -0,0 +1 @@\n@@ -1,0 +3 @@ int top;\n");
  EXPECT_EQ(git.DiffHeaders(Id("HEAD:top.c"), Id("HEAD:top.c")), "");
  EXPECT_EQ(git.DiffHeaders("HEAD~1", "HEAD"), std::nullopt) << "only whole object names";
}

}  // namespace
}  // namespace workgate
