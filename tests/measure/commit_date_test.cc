// The date history shows for a recorded commit: the committer date of the
// commit REF names in the checkout, read from git's objects as data.

#include "measure/commit_date.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "measure/git_test_repo.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

TEST(CommitDateTest, TheCommittersTimeInUtc) {
  // git writes the time in seconds since the epoch and the committer's zone:
  // 1764580500 is 2025-12-01T09:15:00Z, whatever the zone says.
  const std::string commit =
      "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
      "author A <a@example.org> 1700000000 +0000\n"
      "committer C <c@example.org> 1764580500 -0700\n"
      "\n"
      "committer M <m@example.org> 0 +0000\n";
  EXPECT_EQ(CommitterDate(commit), "2025-12-01T09:15:00Z");
  // A name with '>' in it: the time follows the last one.
  EXPECT_EQ(CommitterDate("committer <a> b <c> 0 +0000\n"), "1970-01-01T00:00:00Z");
}

TEST(CommitDateTest, NoDateWithoutAWellFormedCommitterLine) {
  for (const char* commit :
       {"tree x\nauthor A <a> 1700000000 +0000\n", "tree x\n\ncommitter C <c> 1700000000 +0000\n",
        "committer C <c> soon +0000\n", "committer C <c> 1700000000\n",
        "committer C <c>1700000000 +0000\n", "committer C <c> -1 +0000\n",
        "committer C <c> 253402300800 +0000\n", "committer C c 1 +0000\n", ""}) {
    EXPECT_EQ(CommitterDate(commit), std::nullopt) << commit;
  }
}

class CheckoutCommitDateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::canonical(dir_.path()).string() + "/checkout";
    fs::create_directories(root_);
    std::ofstream(root_ + "/a.c") << "int a;\n";
    // Committed on the 1st at 09:15 in UTC-7, authored a day before.
    testing::ShellIn(root_,
                     "git init -q . && git add a.c && GIT_AUTHOR_DATE='2025-11-30T09:15:00-0700' "
                     "GIT_COMMITTER_DATE='2025-12-01T09:15:00-0700' " +
                         testing::kGitCommit + " -m first && git tag v1");
  }
  TempDir dir_{"wg-commit-date"};
  std::string root_;
};

TEST_F(CheckoutCommitDateTest, AnyNameOfACommitGivesItsDate) {
  const std::string id = testing::ShellOutputIn(root_, "git rev-parse HEAD");
  ASSERT_EQ(id.size(), 40u);
  for (const std::string& ref : {id, id.substr(0, 7), std::string("HEAD"), std::string("v1")}) {
    EXPECT_EQ(CommitDate(root_, ref), "2025-12-01T16:15:00Z") << ref;
  }
  // From a folder inside the checkout too.
  fs::create_directories(root_ + "/sub");
  EXPECT_EQ(CommitDate(root_ + "/sub", "HEAD"), "2025-12-01T16:15:00Z");
}

TEST_F(CheckoutCommitDateTest, ALabelOrAPlaceWithoutGitHasNoDate) {
  EXPECT_EQ(CommitDate(root_, "nightly-2025-12-01"), std::nullopt);
  EXPECT_EQ(CommitDate(root_, "--all"), std::nullopt);     // never an option
  EXPECT_EQ(CommitDate(root_, "HEAD:a.c"), std::nullopt);  // a blob, not a commit
  const std::string plain = fs::canonical(dir_.path()).string() + "/plain";
  fs::create_directories(plain);
  EXPECT_EQ(CommitDate(plain, "HEAD"), std::nullopt);
}

}  // namespace
}  // namespace workgate
