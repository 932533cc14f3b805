// BuildCopies: what runs is a read-only copy of the build, and a build, a
// copy or a library it loads that changes after it was taken is refused, by
// name.
#include "measure/build_copies.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "identity/test_programs.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

class BuildCopiesTest : public ::testing::Test {
 protected:
  // The copies go under $TMPDIR, kept from one workgate to the next: the
  // test's own, so that a test that damages a copy reaches no other test's.
  void SetUp() override {
    const char* tmp = getenv("TMPDIR");
    if (tmp != nullptr) saved_tmpdir_ = tmp;
    setenv("TMPDIR", dir_.path().c_str(), 1);
  }
  void TearDown() override {
    if (saved_tmpdir_) {
      setenv("TMPDIR", saved_tmpdir_->c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
  }
  std::string Build(const std::string& name, const std::string& text) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), 0755);
    return path;
  }
  TempDir dir_;
  std::optional<std::string> saved_tmpdir_;
};

TEST_F(BuildCopiesTest, RunsAReadOnlyCopyOfEachBuild) {
  const std::string a = Build("a", "#!/bin/sh\necho a\n");
  const std::string b = Build("b", "#!/bin/sh\necho b\n");
  BuildCopies copies;
  std::string err, ta, tb;
  ASSERT_TRUE(copies.Add(a, true, &err)) << err;
  ASSERT_TRUE(copies.Add(b, true, &err)) << err;
  ASSERT_TRUE(copies.Resolve(a, nullptr, &ta, &err)) << err;
  ASSERT_TRUE(copies.Resolve(b, nullptr, &tb, &err)) << err;
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
  EXPECT_FALSE(copies.Resolve(a, nullptr, &target, &err));
  EXPECT_NE(err.find("the build " + a + " changed during the run"), std::string::npos) << err;
}

TEST_F(BuildCopiesTest, ACopyRewrittenIsRefused) {
  const std::string a = Build("a", "#!/bin/sh\necho a\n");
  BuildCopies copies;
  std::string err, target;
  ASSERT_TRUE(copies.Add(a, true, &err)) << err;
  ASSERT_TRUE(copies.Resolve(a, nullptr, &target, &err)) << err;
  chmod(target.c_str(), 0755);
  std::ofstream(target, std::ios::app) << "x";
  EXPECT_FALSE(copies.Resolve(a, nullptr, &target, &err));
  EXPECT_NE(err.find("(the copy it runs from, "), std::string::npos) << err;
  EXPECT_NE(err.find("was rewritten)"), std::string::npos) << err;
}

TEST_F(BuildCopiesTest, OneBuildHasOneCopyPathWhichTheLastWorkgateRemoves) {
  const std::string a = Build("a", "#!/bin/sh\necho a\n");
  std::string err, first, second;
  auto one = std::make_unique<BuildCopies>();
  ASSERT_TRUE(one->Add(a, true, &err)) << err;
  ASSERT_TRUE(one->Resolve(a, nullptr, &first, &err)) << err;
  EXPECT_EQ(first.rfind(dir_.path() + "/workgate-" + std::to_string(getuid()) + "-builds/", 0),
            0u)
      << first;
  // Another workgate of the same build, at the same time, finds the copy
  // damaged: it makes it again, at the same path.
  chmod(first.c_str(), 0755);
  std::ofstream(first, std::ios::app) << "x";
  auto two = std::make_unique<BuildCopies>();
  ASSERT_TRUE(two->Add(a, true, &err)) << err;
  ASSERT_TRUE(two->Resolve(a, nullptr, &second, &err)) << err;
  EXPECT_EQ(second, first);
  EXPECT_EQ(ReadFile(second), ReadFile(a));
  // The first to end leaves the copy to the other; the last removes it,
  // and the directory of copies with it.
  two.reset();
  EXPECT_TRUE(fs::exists(first));
  EXPECT_TRUE(one->Resolve(a, nullptr, &first, &err)) << err;
  one.reset();
  EXPECT_FALSE(fs::exists(fs::path(first).parent_path().parent_path()));
  // The next workgate runs it from the same path again.
  BuildCopies three;
  ASSERT_TRUE(three.Add(a, true, &err)) << err;
  ASSERT_TRUE(three.Resolve(a, nullptr, &second, &err)) << err;
  EXPECT_EQ(second, first);
}

TEST_F(BuildCopiesTest, ADirectoryOfCopiesRemovedByTheLastOtherWorkgateIsMadeAgain) {
  const std::string a = Build("a", "#!/bin/sh\necho a\n");
  const std::string b = Build("b", "#!/bin/sh\necho b\n");
  BuildCopies copies;
  std::string err, ta, tb;
  ASSERT_TRUE(copies.Add(a, true, &err)) << err;
  ASSERT_TRUE(copies.Resolve(a, nullptr, &ta, &err)) << err;
  // Another workgate, ending, removed the directory of copies between this
  // one's making it and its next lock (here: everything in it, as if a's
  // copy had been that workgate's alone).
  const fs::path copies_dir = fs::path(ta).parent_path().parent_path();
  fs::remove_all(copies_dir);
  ASSERT_FALSE(fs::exists(copies_dir));
  ASSERT_TRUE(copies.Add(b, true, &err)) << err;
  ASSERT_TRUE(copies.Resolve(b, nullptr, &tb, &err)) << err;
  EXPECT_EQ(fs::path(tb).parent_path().parent_path(), copies_dir);
  EXPECT_EQ(ReadFile(tb), ReadFile(b));
}

TEST_F(BuildCopiesTest, WithoutACopyTheBuildItselfRunsAndIsChecked) {
  const std::string a = Build("a", "#!/bin/sh\necho a\n");
  BuildCopies copies;
  std::string err, target;
  ASSERT_TRUE(copies.Add(a, false, &err)) << err;
  ASSERT_TRUE(copies.Resolve(a, nullptr, &target, &err)) << err;
  EXPECT_EQ(target, a);
  fs::remove(a);
  EXPECT_FALSE(copies.Resolve(a, nullptr, &target, &err));
  EXPECT_NE(err.find("the build " + a + " changed during the run"), std::string::npos) << err;
}

TEST_F(BuildCopiesTest, ADirectoryIsNeitherCopiedNorChecked) {
  BuildCopies copies;
  std::string err, target;
  ASSERT_TRUE(copies.Add(dir_.path(), true, &err)) << err;
  ASSERT_TRUE(copies.Resolve(dir_.path(), nullptr, &target, &err)) << err;
  EXPECT_EQ(target, dir_.path());
}

constexpr char kHeldLibrary[] = "int wg_held(void) { return 1; }\n";
constexpr char kOtherHeldLibrary[] = "int wg_held(void) { return 2; }\n";
constexpr char kUsesHeldLibrary[] = "int wg_held(void);\nint main(void) { return wg_held(); }\n";

// `dir`/program, which needs libwgheld.so, built in `libs` (made here) and
// linked with `flags` besides.
std::string ProgramUsingHeldLibrary(const std::string& dir, const std::string& libs,
                                    const std::string& flags) {
  fs::create_directory(libs);
  const std::string program = dir + "/program";
  EXPECT_TRUE(testing::CompileC(kHeldLibrary, libs + "/libwgheld.so", "-shared -fPIC"));
  EXPECT_TRUE(testing::CompileC(kUsesHeldLibrary, program, "-L'" + libs + "' -lwgheld " + flags));
  return program;
}

// A library a build finds through its RUNPATH, in a directory anyone may
// write (as /tmp/libs), rewritten after Add: every run after is refused,
// naming the library.
TEST_F(BuildCopiesTest, ALibraryTheBuildLoadsRewrittenIsRefusedByName) {
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  const std::string libs = dir_.path() + "/libs";
  const std::string library = libs + "/libwgheld.so";
  const std::string program = ProgramUsingHeldLibrary(
      dir_.path(), libs, "-Wl,--enable-new-dtags -Wl,-rpath,'" + libs + "'");
  BuildCopies copies;
  std::string err, target;
  ASSERT_TRUE(copies.Add(program, true, &err)) << err;
  ASSERT_TRUE(copies.Resolve(program, nullptr, &target, &err)) << err;
  ASSERT_TRUE(testing::CompileC(kOtherHeldLibrary, library, "-shared -fPIC"));
  EXPECT_FALSE(copies.Resolve(program, nullptr, &target, &err));
  EXPECT_NE(err.find("the files the build " + program +
                     " loads changed during the run (the library libwgheld.so at " + library +
                     " changed)"),
            std::string::npos)
      << err;
}

// A library only the run's LD_LIBRARY_PATH finds: held from the first
// check of a run with that environment.
TEST_F(BuildCopiesTest, ALibraryTheRunsEnvironmentFindsIsHeldFromItsFirstCheck) {
  WORKGATE_REQUIRE_TOOL(testing::HaveTool("cc"), "cc is not installed");
  const std::string libs = dir_.path() + "/env";
  const std::string library = libs + "/libwgheld.so";
  const std::string program = ProgramUsingHeldLibrary(dir_.path(), libs, "");
  const std::map<std::string, std::string> env = {{"LD_LIBRARY_PATH", libs}};
  BuildCopies copies;
  std::string err, target;
  ASSERT_TRUE(copies.Add(program, true, &err)) << err;
  ASSERT_TRUE(copies.Resolve(program, &env, &target, &err)) << err;
  ASSERT_TRUE(copies.Resolve(program, &env, &target, &err)) << err;
  ASSERT_TRUE(testing::CompileC(kOtherHeldLibrary, library, "-shared -fPIC"));
  EXPECT_FALSE(copies.Resolve(program, &env, &target, &err));
  EXPECT_NE(err.find("(the library libwgheld.so at " + library + " changed)"), std::string::npos)
      << err;
  // Without that environment the build does not load it.
  EXPECT_TRUE(copies.Resolve(program, nullptr, &target, &err)) << err;
}

}  // namespace
}  // namespace workgate
