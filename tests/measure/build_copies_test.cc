// BuildCopies: what runs is a read-only copy of the build, and a build or a
// copy that changes after it was taken is refused, by name.
#include "measure/build_copies.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

class BuildCopiesTest : public ::testing::Test {
 protected:
  std::string Build(const std::string& name, const std::string& text) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), 0755);
    return path;
  }
  TempDir dir_;
};

TEST_F(BuildCopiesTest, RunsAReadOnlyCopyOfEachBuild) {
  const std::string a = Build("a", "#!/bin/sh\necho a\n");
  const std::string b = Build("b", "#!/bin/sh\necho b\n");
  BuildCopies copies;
  std::string err, ta, tb;
  ASSERT_TRUE(copies.Add(a, true, &err)) << err;
  ASSERT_TRUE(copies.Add(b, true, &err)) << err;
  ASSERT_TRUE(copies.Resolve(a, &ta, &err)) << err;
  ASSERT_TRUE(copies.Resolve(b, &tb, &err)) << err;
  EXPECT_NE(ta, a);
  EXPECT_NE(ta, tb);
  EXPECT_EQ(fs::path(ta).filename(), "exe");  // the same shape on both sides
  EXPECT_EQ(ReadFile(ta), ReadFile(a));
  struct stat st;
  ASSERT_EQ(stat(ta.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0555u);
  ASSERT_EQ(stat(fs::path(ta).parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);  // workgate's to write, and to remove
  ASSERT_EQ(stat(fs::path(ta).parent_path().parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
}

TEST_F(BuildCopiesTest, ABuildRewrittenAfterItWasTakenIsRefusedByName) {
  const std::string a = Build("a", "#!/bin/sh\necho a\n");
  BuildCopies copies;
  std::string err, target;
  ASSERT_TRUE(copies.Add(a, true, &err)) << err;
  Build("a", "#!/bin/sh\necho other\n");
  EXPECT_FALSE(copies.Resolve(a, &target, &err));
  EXPECT_NE(err.find("the build " + a + " changed during the run"), std::string::npos) << err;
}

TEST_F(BuildCopiesTest, ACopyRewrittenIsRefused) {
  const std::string a = Build("a", "#!/bin/sh\necho a\n");
  BuildCopies copies;
  std::string err, target;
  ASSERT_TRUE(copies.Add(a, true, &err)) << err;
  ASSERT_TRUE(copies.Resolve(a, &target, &err)) << err;
  chmod(target.c_str(), 0755);
  std::ofstream(target, std::ios::app) << "x";
  EXPECT_FALSE(copies.Resolve(a, &target, &err));
  EXPECT_NE(err.find("(the copy it runs from, "), std::string::npos) << err;
  EXPECT_NE(err.find("was rewritten)"), std::string::npos) << err;
}

TEST_F(BuildCopiesTest, WithoutACopyTheBuildItselfRunsAndIsChecked) {
  const std::string a = Build("a", "#!/bin/sh\necho a\n");
  BuildCopies copies;
  std::string err, target;
  ASSERT_TRUE(copies.Add(a, false, &err)) << err;
  ASSERT_TRUE(copies.Resolve(a, &target, &err)) << err;
  EXPECT_EQ(target, a);
  fs::remove(a);
  EXPECT_FALSE(copies.Resolve(a, &target, &err));
  EXPECT_NE(err.find("the build " + a + " changed during the run"), std::string::npos) << err;
}

TEST_F(BuildCopiesTest, ADirectoryIsNeitherCopiedNorChecked) {
  BuildCopies copies;
  std::string err, target;
  ASSERT_TRUE(copies.Add(dir_.path(), true, &err)) << err;
  ASSERT_TRUE(copies.Resolve(dir_.path(), &target, &err)) << err;
  EXPECT_EQ(target, dir_.path());
}

}  // namespace
}  // namespace workgate
