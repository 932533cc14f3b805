// Where workgate finds Valgrind: one absolute, symlink-free path, from
// WORKGATE_VALGRIND or PATH, and a message that says what was searched when
// there is none.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "machine/system_info.h"
#include "util/paths.h"

namespace workgate {
namespace {

class ResolveValgrindTest : public ::testing::Test {
 protected:
  // An executable shell script at `rel` in the test's directory.
  std::string Executable(const std::string& rel, const std::string& body = "exit 0\n") {
    const std::string path = dir_.path() + "/" + rel;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    chmod(path.c_str(), 0755);
    return path;
  }
  TempDir dir_;
};

TEST_F(ResolveValgrindTest, FollowsSymlinksToTheRealFile) {
  mkdir((dir_.path() + "/bin").c_str(), 0755);
  const std::string real = Executable("valgrind-real");
  ASSERT_EQ(symlink(real.c_str(), (dir_.path() + "/bin/valgrind").c_str()), 0);
  Probed<std::string> found = ResolveValgrind("", "/nonexistent:" + dir_.path() + "/bin");
  ASSERT_TRUE(found.value) << found.note;
  EXPECT_EQ(*found.value, RealPath(real));
}

TEST_F(ResolveValgrindTest, OverrideBeatsPath) {
  const std::string chosen = Executable("my-valgrind");
  Probed<std::string> found = ResolveValgrind(chosen, "/usr/bin:/bin");
  ASSERT_TRUE(found.value) << found.note;
  EXPECT_EQ(*found.value, RealPath(chosen));
}

// Debian's /usr/bin/valgrind is a script that sets LD_LIBRARY_PATH for the
// measured program and execs valgrind.bin beside it: the launcher is what
// runs. A script with no ELF launcher beside it, and an ELF valgrind with a
// .bin beside it, stay as they are.
TEST_F(ResolveValgrindTest, AWrapperScriptGivesWayToItsLauncher) {
  mkdir((dir_.path() + "/bin").c_str(), 0755);
  const std::string wrapper = Executable("bin/valgrind", "exec $0.bin \"$@\"\n");
  const std::string launcher = dir_.path() + "/bin/valgrind.bin";
  ASSERT_EQ(symlink("/bin/true", launcher.c_str()), 0);  // an ELF executable
  Probed<std::string> found = ResolveValgrind("", dir_.path() + "/bin");
  ASSERT_TRUE(found.value) << found.note;
  EXPECT_EQ(*found.value, RealPath(wrapper) + ".bin");
  found = ResolveValgrind(wrapper, "");
  ASSERT_TRUE(found.value) << found.note;
  EXPECT_EQ(*found.value, RealPath(wrapper) + ".bin");

  // A script beside a .bin that is no ELF file is run as it is.
  ASSERT_EQ(unlink(launcher.c_str()), 0);
  Executable("bin/valgrind.bin");
  found = ResolveValgrind("", dir_.path() + "/bin");
  ASSERT_TRUE(found.value) << found.note;
  EXPECT_EQ(*found.value, RealPath(wrapper));

  // So is an ELF valgrind with a .bin beside it.
  ASSERT_EQ(unlink(wrapper.c_str()), 0);
  std::filesystem::copy_file("/bin/true", wrapper);
  found = ResolveValgrind("", dir_.path() + "/bin");
  ASSERT_TRUE(found.value) << found.note;
  EXPECT_EQ(*found.value, RealPath(wrapper));
}

TEST_F(ResolveValgrindTest, AnUnusableOverrideIsNamed) {
  const std::string plain = dir_.path() + "/not-executable";
  std::ofstream(plain) << "text\n";
  for (const std::string& bad : {plain, dir_.path(), dir_.path() + "/missing"}) {
    Probed<std::string> found = ResolveValgrind(bad, "/usr/bin:/bin");
    EXPECT_FALSE(found.value) << bad;
    EXPECT_EQ(found.note, "WORKGATE_VALGRIND=" + bad + " is not an executable file");
  }
}

TEST_F(ResolveValgrindTest, NotOnPathSaysWhatWasSearchedAndHowToFixIt) {
  Probed<std::string> found = ResolveValgrind("", "/nonexistent:" + dir_.path());
  ASSERT_FALSE(found.value);
  EXPECT_NE(found.note.find("valgrind is not on PATH (searched /nonexistent, " + dir_.path() + ")"),
            std::string::npos)
      << found.note;
  EXPECT_NE(found.note.find("WORKGATE_VALGRIND"), std::string::npos) << found.note;
  // Installed where PATH does not look: the message names it, never
  // "not installed".
  if (access("/usr/bin/valgrind", X_OK) == 0) {
    EXPECT_NE(found.note.find("but /usr/bin/valgrind exists: add /usr/bin to PATH, or set "
                              "WORKGATE_VALGRIND=/usr/bin/valgrind"),
              std::string::npos)
        << found.note;
  }
  EXPECT_EQ(found.note.find("not installed"), std::string::npos) << found.note;
  EXPECT_NE(ResolveValgrind("", "").note.find("PATH is empty"), std::string::npos);
}

using ReadValgrindVersionTest = ResolveValgrindTest;

TEST_F(ReadValgrindVersionTest, ReadsTheFirstLine) {
  Probed<std::string> v =
      ReadValgrindVersion(Executable("valgrind", "echo valgrind-3.99.0; echo more\n"), 30);
  ASSERT_TRUE(v.value) << v.note;
  EXPECT_EQ(*v.value, "valgrind-3.99.0");
}

TEST_F(ReadValgrindVersionTest, SomethingElseIsNoVersion) {
  const std::string fake = Executable("valgrind", "echo 'GNU bash, version 5'; exit 2\n");
  Probed<std::string> v = ReadValgrindVersion(fake, 30);
  EXPECT_FALSE(v.value);
  EXPECT_EQ(v.note, fake + " --version exited with status 2 and printed \"GNU bash, version 5\"");
}

TEST_F(ReadValgrindVersionTest, OneThatFailsToStartSaysWhyFromItsStderr) {
  const std::string fake = Executable(
      "valgrind",
      "echo 'valgrind: no such tool' >&2; echo >&2; "
      "echo \"valgrind: failed to start tool 'none' for platform 'amd64-linux'\" >&2; exit 1\n");
  Probed<std::string> v = ReadValgrindVersion(fake, 30);
  EXPECT_FALSE(v.value);
  EXPECT_EQ(v.note, fake +
                        " --version exited with status 1 and printed \"\"; on stderr: \"valgrind: "
                        "failed to start tool 'none' for platform 'amd64-linux'\"");
  const std::string long_line = std::string(300, 'x');
  Probed<std::string> bounded =
      ReadValgrindVersion(Executable("valgrind", "echo " + long_line + " >&2; exit 1\n"), 30);
  EXPECT_NE(bounded.note.find("on stderr: \"" + std::string(200, 'x') + "\u2026\""),
            std::string::npos)
      << bounded.note;
}

TEST_F(ReadValgrindVersionTest, OneThatHangsIsKilledAtTheDeadlineWithWhatItStarted) {
  // A valgrind that never answers must not hold up the probe or every count,
  // nor leave its children behind.
  const std::string pid_file = dir_.path() + "/pid";
  const std::string fake =
      Executable("valgrind", "sleep 300 &\necho $! > " + pid_file + "\nwait\n");
  // Long enough for a loaded machine to start the script and its child.
  Probed<std::string> v = ReadValgrindVersion(fake, 2);
  EXPECT_FALSE(v.value);
  EXPECT_EQ(v.note, fake + " --version did not finish: timed out after 2 s (process tree killed)");
  pid_t sleeper = 0;
  std::ifstream(pid_file) >> sleeper;
  ASSERT_GT(sleeper, 0) << "the fake valgrind did not start its child";
  errno = 0;
  EXPECT_EQ(kill(sleeper, 0), -1) << "pid " << sleeper << " survived";
  EXPECT_EQ(errno, ESRCH);
}

}  // namespace
}  // namespace workgate
