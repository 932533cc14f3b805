// The build given to compare, count and explain, checked before anything
// runs (workload/build_check.h): each kind of path a user gives by mistake
// fails with the path they gave and what to give instead.

#include "workload/build_check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "util/paths.h"

namespace workgate {
namespace {

class BuildCheckTest : public ::testing::Test {
 protected:
  // A file at `name` in the test's directory with `text`, mode `mode`.
  std::string File(const std::string& name, const std::string& text, mode_t mode) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
    return path;
  }
  static std::vector<Workload> Running(std::vector<std::string> command) {
    Workload w;
    w.name = "sort";
    w.command = std::move(command);
    return {w};
  }
  std::string Refusal(const std::string& build, std::vector<std::string> command = {"{exe}"}) {
    std::string err;
    EXPECT_FALSE(CheckBuild(build, Running(std::move(command)), &err)) << build;
    return err;
  }
  TempDir dir_;
};

TEST_F(BuildCheckTest, AProgramAScriptAndAFolderLookedIntoPass) {
  std::string err;
  EXPECT_TRUE(CheckBuild("/bin/true", Running({"{exe}"}), &err)) << err;
  EXPECT_TRUE(
      CheckBuild(File("run.sh", "#!/bin/sh\necho 1\n", 0755), Running({"{exe}", "x"}), &err))
      << err;
  // A build directory whose program the command names below it.
  EXPECT_TRUE(CheckBuild(dir_.path(), Running({"{exe}/bin/prog"}), &err)) << err;
  // A file another program reads: any file, executable or not.
  EXPECT_TRUE(
      CheckBuild(File("bench.lua", "print(1)\n", 0644), Running({"/usr/bin/lua", "{exe}"}), &err))
      << err;
}

TEST_F(BuildCheckTest, AMissingBuildIsNamed) {
  EXPECT_EQ(Refusal(dir_.path() + "/nope"), "the build " + dir_.path() + "/nope does not exist");
}

TEST_F(BuildCheckTest, AFolderRunAsTheProgramSaysWhatToGive) {
  EXPECT_EQ(Refusal(dir_.path()),
            "the build " + dir_.path() +
                " is a directory, and workload 'sort' runs {exe} as its program: give the "
                "program's file (for example " +
                dir_.path() + "/PROG), or write the command as [\"{exe}/PROG\", ...]");
}

TEST_F(BuildCheckTest, AFileWithoutExecutePermissionSaysItsMode) {
  const std::string path = File("prog",
                                "\x7f"
                                "ELF....",
                                0644);
  EXPECT_EQ(Refusal(path), "the build " + path +
                               " is not executable (mode 0644), and workload 'sort' runs {exe} "
                               "as its program: give the built program, or make it executable "
                               "(chmod +x)");
}

TEST_F(BuildCheckTest, AnExecutableThatIsNeitherElfNorAScriptIsRefused) {
  const std::string path = File("notes.txt", "hello\n", 0755);
  EXPECT_EQ(Refusal(path), "the build " + path +
                               " is neither an ELF executable nor a script that starts with #!, "
                               "and workload 'sort' runs {exe} as its program: give the built "
                               "program");
}

TEST_F(BuildCheckTest, SomethingThatIsNoRegularFileIsRefused) {
  EXPECT_NE(Refusal("/dev/null").find("is not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace workgate
