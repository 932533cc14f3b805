// Valgrind's version, read by running it once for the same launcher and
// tool, and recalled after that: a changed file of either is asked again.

#include "machine/valgrind_version.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "scoped_env.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// A Valgrind installed under a prefix of its own: bin/valgrind, a script
// that says `says` and notes each run of it in runs.log, and the tool it
// would start to print that, libexec/valgrind/memcheck-<platform>-linux.
class ValgrindVersionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(prefix() + "/bin");
    fs::create_directories(prefix() + "/libexec/valgrind");
    Say("valgrind-9.1.0");
    std::ofstream(tool()) << "a tool\n";
  }
  std::string prefix() const { return dir_.path() + "/prefix"; }
  std::string launcher() const { return prefix() + "/bin/valgrind"; }
  std::string tool() const {
    return prefix() + "/libexec/valgrind/memcheck-" + ValgrindPlatform() + "-linux";
  }
  std::string memo() const { return dir_.path() + "/memo"; }
  // File times come from the kernel's coarse clock, which moves once a tick
  // (up to 10 ms): a file changed within the tick of its last change keeps
  // its times. The changes these tests make must show in them.
  static void NextClockTick() { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }
  void Say(const std::string& says) {
    std::ofstream(launcher()) << "#!/bin/sh\necho run >>" << dir_.path() << "/runs.log\necho '"
                              << says << "'\n";
    chmod(launcher().c_str(), 0755);
  }
  int Runs() const {
    std::ifstream in(dir_.path() + "/runs.log");
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }
  std::string Version() {
    const Probed<std::string> v = RememberedValgrindVersion(launcher(), memo(), 30);
    return v.value ? *v.value : "(none: " + v.note + ")";
  }
  int MemoFiles() const {
    std::error_code ec;
    int n = 0;
    for (auto it = fs::directory_iterator(memo(), ec); !ec && it != fs::directory_iterator();
         ++it) {
      ++n;
    }
    return n;
  }
  ScopedEnv no_lib_{"VALGRIND_LIB", nullptr};
  TempDir dir_;
};

TEST_F(ValgrindVersionTest, RunsOnceForTheSameFiles) {
  EXPECT_EQ(Version(), "valgrind-9.1.0");
  EXPECT_EQ(Runs(), 1);
  EXPECT_EQ(MemoFiles(), 1);
  EXPECT_EQ(Version(), "valgrind-9.1.0");
  EXPECT_EQ(Version(), "valgrind-9.1.0");
  EXPECT_EQ(Runs(), 1);
  // Without a place to remember, it runs each time.
  const Probed<std::string> v = RememberedValgrindVersion(launcher(), "", 30);
  ASSERT_TRUE(v.value) << v.note;
  EXPECT_EQ(Runs(), 2);
}

TEST_F(ValgrindVersionTest, AChangedLauncherOrToolIsAskedAgain) {
  EXPECT_EQ(Version(), "valgrind-9.1.0");
  // A new launcher of the same size, in the same inode: its times moved.
  NextClockTick();
  Say("valgrind-9.2.0");
  EXPECT_EQ(Version(), "valgrind-9.2.0");
  EXPECT_EQ(Runs(), 2);
  // A tool whose content changed.
  std::ofstream(tool()) << "another tool\n";
  EXPECT_EQ(Version(), "valgrind-9.2.0");
  EXPECT_EQ(Runs(), 3);
  // Only the change time moves with chmod: that is a change too, the one
  // time no program can set back.
  NextClockTick();
  ASSERT_EQ(chmod(tool().c_str(), 0700), 0);
  EXPECT_EQ(Version(), "valgrind-9.2.0");
  EXPECT_EQ(Runs(), 4);
  EXPECT_EQ(Version(), "valgrind-9.2.0");
  EXPECT_EQ(Runs(), 4);
}

TEST_F(ValgrindVersionTest, WhatIsNoVersionIsNeitherRememberedNorRecalled) {
  Say("not a version");
  EXPECT_EQ(Version().rfind("(none: ", 0), 0u);
  EXPECT_EQ(MemoFiles(), 0);

  Say("valgrind-9.1.0");
  EXPECT_EQ(Version(), "valgrind-9.1.0");
  ASSERT_EQ(MemoFiles(), 1);
  const std::string file = fs::directory_iterator(memo())->path().string();
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  // A memo rewritten to say something else than a version, or for other
  // files, is not believed: the version is read again.
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"valgrind-9.1.0\n", "valgrind-9 1\n"},
                                                        {"valgrind-9.1.0\n", "valgrind-9.1.0"},
                                                        {"launcher ", "launcher /elsewhere"}}) {
    std::string changed = text.str();
    changed.replace(changed.find(from), from.size(), to);
    std::ofstream(file, std::ios::trunc) << changed;
    const int before = Runs();
    EXPECT_EQ(Version(), "valgrind-9.1.0") << to;
    EXPECT_EQ(Runs(), before + 1) << to;
  }
  // And a good one is recalled as it says.
  std::string other = text.str();
  other.replace(other.find("valgrind-9.1.0\n"), 15, "valgrind-9.1.1\n");
  std::ofstream(file, std::ios::trunc) << other;
  EXPECT_EQ(Version(), "valgrind-9.1.1");
}

TEST_F(ValgrindVersionTest, WithoutItsToolNothingIsRemembered) {
  fs::remove(tool());
  EXPECT_EQ(ValgrindVersionKey(launcher(), ValgrindToolDirectory(launcher()), ValgrindPlatform()),
            "");
  EXPECT_EQ(Version(), "valgrind-9.1.0");
  EXPECT_EQ(Version(), "valgrind-9.1.0");
  EXPECT_EQ(Runs(), 2);
  EXPECT_EQ(MemoFiles(), 0);
}

TEST_F(ValgrindVersionTest, ToolsAreWhereValgrindLooksForThem) {
  EXPECT_EQ(ValgrindToolDirectory("/opt/vg/bin/valgrind.bin"), "/opt/vg/libexec/valgrind");
  {
    ScopedEnv lib("VALGRIND_LIB", "/somewhere/lib");
    EXPECT_EQ(ValgrindToolDirectory("/opt/vg/bin/valgrind.bin"), "/somewhere/lib");
  }
  // A relative one is the launcher's directory's, not known here.
  ScopedEnv relative("VALGRIND_LIB", "relative/lib");
  EXPECT_EQ(ValgrindToolDirectory("/opt/vg/bin/valgrind.bin"), "");
}

}  // namespace
}  // namespace workgate
