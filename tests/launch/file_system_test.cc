// The temporary directories of a contained workload (launch/file_system.h):
// each run finds /tmp, /var/tmp and /dev/shm empty and leaves nothing in
// them for the next, bounded; what its launch needs from there it still
// finds at its own path. Where the machine shares a directory
// (SharedTemporaryDirectories), the test checks that it is shared indeed.
#include "launch/file_system.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "launch/launch.h"
#include "test_paths.h"
#include "util/cleanup.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

bool Shared(const std::string& dir) {
  const std::vector<std::string> shared = SharedTemporaryDirectories();
  return std::find(shared.begin(), shared.end(), dir) != shared.end();
}

class FreshTmpContainmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PidNamespaceAvailable()) GTEST_SKIP() << "PID namespaces need root or user namespaces";
    // A directory under /tmp itself, whatever TMPDIR says: what a fresh
    // /tmp hides.
    char pattern[] = "/tmp/workgate-fresh.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    name_ = fs::path(root_).filename().string();
  }
  void TearDown() override {
    if (!root_.empty()) RemoveTree(root_);
    for (const char* dir : kFreshDirectories) {
      std::error_code ec;
      fs::remove(std::string(dir) + "/" + name_ + ".native", ec);
      fs::remove(std::string(dir) + "/" + name_ + ".run", ec);
    }
  }
  LaunchSpec Shell(const std::string& script) const {
    LaunchSpec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.env = MinimalEnvironment("/");
    spec.timeout_seconds = 30;
    spec.new_pid_namespace = true;
    return spec;
  }
  std::string root_, name_;
};

// A cache a step before workgate left, and one an earlier run left, are
// not there; a run's files are gone when it ends.
TEST_F(FreshTmpContainmentTest, WhatANativeStepOrAnEarlierRunLeftIsNotThere) {
  std::string look, leave;
  for (const char* dir : kFreshDirectories) {
    if (!fs::is_directory(dir)) continue;
    std::ofstream(std::string(dir) + "/" + name_ + ".native") << "cached\n";
    look += fmt::format("test -e {0}/{1}.native && echo native {0}; ", dir, name_);
    look += fmt::format("test -e {0}/{1}.run && echo run {0}; ", dir, name_);
    leave += fmt::format("echo x > {}/{}.run; ", dir, name_);
  }
  ASSERT_FALSE(leave.empty());
  LaunchResult first = Launch(Shell(look + leave + "echo done"));
  ASSERT_TRUE(first.ok()) << first.Describe() << first.err;
  LaunchResult second = Launch(Shell(look + "echo done"));
  ASSERT_TRUE(second.ok()) << second.Describe() << second.err;
  std::string first_expected = "", second_expected = "";
  for (const char* dir : kFreshDirectories) {
    if (!fs::is_directory(dir)) continue;
    const bool shared = Shared(dir);
    if (shared) first_expected += fmt::format("native {}\n", dir);
    if (shared) second_expected += fmt::format("native {}\nrun {}\n", dir, dir);
    EXPECT_EQ(fs::exists(std::string(dir) + "/" + name_ + ".run"), shared) << dir;
  }
  EXPECT_EQ(first.out, first_expected + "done\n");
  EXPECT_EQ(second.out, second_expected + "done\n");
}

// Each fresh directory is a tmpfs of a fifth of the machine's memory and
// 65,536 files.
TEST_F(FreshTmpContainmentTest, EachIsABoundedTmpfs) {
  if (Shared("/tmp")) GTEST_SKIP() << "this machine shares /tmp between runs";
  LaunchResult r = Launch(Shell("stat -f -c '%T %b %S %c' /tmp"));
  ASSERT_TRUE(r.ok()) << r.Describe() << r.err;
  std::istringstream out(r.out);
  std::string type;
  unsigned long long blocks = 0, block_size = 0, files = 0;
  out >> type >> blocks >> block_size >> files;
  EXPECT_EQ(type, "tmpfs") << r.out;
  struct sysinfo info;
  ASSERT_EQ(sysinfo(&info), 0);
  const unsigned long long memory = static_cast<unsigned long long>(info.totalram) * info.mem_unit;
  // The kernel rounds the fifth up to whole pages.
  EXPECT_LE(blocks * block_size, memory / 5 + block_size) << r.out;
  EXPECT_GE(blocks * block_size, memory / 5) << r.out;
  EXPECT_EQ(files, 65536u) << r.out;
}

// What the launch binds in a fresh directory is there at its own path:
// read-only what the spec keeps from the workload and what its command
// names, writable its directory, TMPDIR made empty where it does not exist
// and bound where it does; nothing else of it.
TEST_F(FreshTmpContainmentTest, WhatTheLaunchBindsIsThereAtItsPath) {
  if (Shared("/tmp")) GTEST_SKIP() << "this machine shares /tmp between runs";
  for (const char* dir : {"/ro", "/cwd", "/rw"}) fs::create_directory(root_ + dir);
  std::ofstream(root_ + "/ro/file") << "kept\n";
  std::ofstream(root_ + "/rofile") << "single\n";
  std::ofstream(root_ + "/named") << "named\n";
  std::ofstream(root_ + "/other") << "other\n";
  fs::copy_file("/bin/echo", root_ + "/echo");
  LaunchSpec spec = Shell(
      "cat \"$R/ro/file\" \"$R/rofile\" \"$1\"; "
      "(echo x > \"$R/ro/new\") 2>/dev/null || echo ro refused; "
      "(echo x >> \"$R/rofile\") 2>/dev/null || echo rofile refused; "
      "test -e \"$R/other\" || echo no other; "
      "echo w > in-cwd && echo w > \"$R/rw/f\" && echo t > \"$TMPDIR/t\" && ls -A \"$TMPDIR\"; "
      "\"$R/echo\" ran");
  spec.argv.push_back("sh");
  spec.argv.push_back(root_ + "/named");
  spec.env["R"] = root_;
  spec.env["TMPDIR"] = root_ + "/tmpdir";
  spec.cwd = root_ + "/cwd";
  spec.readonly_dirs = {root_ + "/ro", root_ + "/rofile", root_ + "/echo"};
  spec.writable_dirs = {root_ + "/rw"};
  LaunchResult r = Launch(spec);
  ASSERT_TRUE(r.ok()) << r.Describe() << r.err;
  EXPECT_EQ(r.out, "kept\nsingle\nnamed\nro refused\nrofile refused\nno other\nt\nran\n");
  EXPECT_TRUE(fs::exists(root_ + "/cwd/in-cwd"));
  EXPECT_TRUE(fs::exists(root_ + "/rw/f"));
  EXPECT_FALSE(fs::exists(root_ + "/tmpdir")) << "TMPDIR was the machine's";
  EXPECT_FALSE(fs::exists(root_ + "/ro/new"));
  // The program it executes, named by its command, and a TMPDIR that
  // exists: the machine's, writable.
  LaunchSpec program = Shell("");
  program.argv = {root_ + "/echo", "executed"};
  program.env["TMPDIR"] = root_ + "/rw";
  LaunchResult executed = Launch(program);
  ASSERT_TRUE(executed.ok()) << executed.Describe() << executed.err;
  EXPECT_EQ(executed.out, "executed\n");
  LaunchSpec shared = Shell("cat \"$TMPDIR/f\" && echo s > \"$TMPDIR/s\"");
  shared.env["TMPDIR"] = root_ + "/rw";
  LaunchResult in_tmpdir = Launch(shared);
  ASSERT_TRUE(in_tmpdir.ok()) << in_tmpdir.Describe() << in_tmpdir.err;
  EXPECT_EQ(in_tmpdir.out, "w\n");
  EXPECT_TRUE(fs::exists(root_ + "/rw/s"));
}

// A hidden directory shows empty and read-only to the run, and is as it was
// afterwards; one in a fresh directory is left to it.
TEST_F(FreshTmpContainmentTest, AHiddenDirectoryIsEmptyAndReadOnly) {
  if (!ReadOnlyFileSystemAvailable()) GTEST_SKIP() << "this machine cannot: / is no mount point";
  // Outside the fresh directories: in the build tree, or in HOME for a user
  // who cannot write there (ci/test's unprivileged run).
  std::string hidden;
  const char* home = getenv("HOME");
  for (const std::string& dir : {testing::BuildPath(""), std::string(home ? home : "")}) {
    std::string pattern = (fs::path(dir) / "hidden.XXXXXX").string();
    bool fresh = dir.empty();
    for (const char* f : kFreshDirectories) fresh = fresh || PathIsWithin(dir.c_str(), f);
    if (!fresh && mkdtemp(pattern.data()) != nullptr) {
      hidden = pattern;
      break;
    }
  }
  ASSERT_FALSE(hidden.empty()) << "neither the build tree nor HOME is writable outside /tmp";
  struct RemovedAtEnd {
    const std::string& path;
    ~RemovedAtEnd() { RemoveTree(path); }
  } removed_at_end{hidden};
  std::ofstream(hidden + "/kept") << "secret\n";
  fs::create_directory(root_ + "/fresh");
  std::ofstream(root_ + "/fresh/file") << "left\n";
  LaunchSpec spec = Shell(
      "ls -A \"$H\" | wc -l; test -e \"$H/kept\" || echo no kept; "
      "(echo x > \"$H/new\") 2>/dev/null || echo refused; cat \"$R/fresh/file\"");
  spec.env["H"] = hidden;
  spec.env["R"] = root_;
  spec.readonly_dirs = {root_ + "/fresh"};
  spec.hidden_dirs = {hidden, root_ + "/fresh", "/nonexistent/hidden"};
  LaunchResult r = Launch(spec);
  ASSERT_TRUE(r.ok()) << r.Describe() << r.err;
  EXPECT_EQ(r.out, "0\nno kept\nrefused\nleft\n");
  EXPECT_EQ(ReadFile(hidden + "/kept").value_or(""), "secret\n");
  EXPECT_FALSE(fs::exists(hidden + "/new"));
}

TEST(PathIsWithinTest, ByWholeComponents) {
  EXPECT_TRUE(PathIsWithin("/tmp", "/tmp"));
  EXPECT_TRUE(PathIsWithin("/tmp/a", "/tmp"));
  EXPECT_FALSE(PathIsWithin("/tmpfoo", "/tmp"));
  EXPECT_FALSE(PathIsWithin("/var", "/var/tmp"));
  EXPECT_TRUE(PathIsWithin("/anything", "/"));
}

}  // namespace
}  // namespace workgate
