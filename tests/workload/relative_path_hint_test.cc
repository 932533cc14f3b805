// A workload runs in an empty private directory: a relative path in its
// command, or one its program names, finds nothing there. When the run
// fails and says so, the reason says where the file goes
// (workload/path_hint.h RelativePathHint).

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "util/paths.h"
#include "workload/path_hint.h"

namespace workgate {
namespace {

Workload Running(std::vector<std::string> command) {
  Workload w;
  w.name = "w";
  w.command = std::move(command);
  return w;
}

constexpr const char* kMissing = "lua: cannot open bench/fib.lua: No such file or directory";

class RelativePathHintTest : public ::testing::Test {
 protected:
  TempDir run_;    // the run's private directory
  TempDir suite_;  // the suite's folder
};

TEST_F(RelativePathHintTest, ASuitesRelativeScriptIsToldAboutSuiteDir) {
  EXPECT_EQ(RelativePathHint(Running({"{exe}", "bench/fib.lua"}), suite_.path(), run_.path(),
                             kMissing),
            "the program's output mentions bench/fib.lua, a relative path, and a workload runs "
            "in an empty private directory, not in the suite's folder or where workgate "
            "started: name a file beside the suite as {suite_dir}/bench/fib.lua, or give an "
            "absolute path");
}

TEST_F(RelativePathHintTest, AFileTheSuitesFolderHasIsNamedThere) {
  // The program read the path from elsewhere (a script, a configuration):
  // the output names it, the command does not.
  std::ofstream(suite_.path() + "/input.txt") << "x";
  EXPECT_EQ(RelativePathHint(Running({"{exe}", "{suite_dir}/run.lua"}), suite_.path(),
                             run_.path(),
                             "Traceback (most recent call last):\n"
                             "FileNotFoundError: [Errno 2] No such file or directory: "
                             "'input.txt'\n"),
            "the program's output mentions input.txt, a relative path, and a workload runs in "
            "an empty private directory, not in the suite's folder or where workgate started: "
            "the suite's folder has input.txt, so name it {suite_dir}/input.txt");
  // Other programs' words for it.
  for (const char* said :
       {"open data/in.csv: no such file or directory", "zstd: in.txt: No such file or directory",
        "Error: ENOENT: no such file or directory, open 'in.txt'",
        "fopen failed; cannot open \"./in.txt\".", "error opening in.txt"}) {
    EXPECT_NE(RelativePathHint(Running({"{exe}"}), suite_.path(), run_.path(), said), "") << said;
  }
}

TEST_F(RelativePathHintTest, AnAdHocRelativeFileIsToldToBeAbsolute) {
  EXPECT_EQ(RelativePathHint(Running({"{exe}", "--in=data.txt"}), "", run_.path(),
                             "open: No such file or directory"),
            "data.txt is a relative path, and a workload runs in an empty private directory, not "
            "where workgate started: give it as an absolute path (\"$PWD/data.txt\")");
}

TEST_F(RelativePathHintTest, NothingForOtherErrorsOrArgumentsThatAreNoRelativePaths) {
  EXPECT_EQ(RelativePathHint(Running({"{exe}", "data.txt"}), suite_.path(), run_.path(),
                             "Segmentation fault"),
            "");
  for (const char* arg : {"{suite_dir}/x.lua", "/abs/x.lua", "1000", "1.5", "--size",
                          "https://example.org/x.html", "-v"}) {
    EXPECT_EQ(RelativePathHint(Running({"{exe}", arg}), suite_.path(), run_.path(), kMissing),
              "the program's output mentions bench/fib.lua, a relative path, and a workload "
              "runs in an empty private directory, not in the suite's folder or where workgate "
              "started: name a file beside the suite as {suite_dir}/bench/fib.lua, or give an "
              "absolute path")
        << arg;
    EXPECT_EQ(RelativePathHint(Running({"{exe}", arg}), suite_.path(), run_.path(),
                               "x: No such file or directory"),
              "")
        << arg;
  }
  // An assertion names a source file, the loader a library: neither is a
  // file the run missed.
  for (const char* said : {"a.out: main.c:12: main: Assertion `n > 0' failed.",
                           "./x: error while loading shared libraries: libfoo.so: cannot open "
                           "shared object file: No such file or directory",
                           "lua: bench/fib.lua:3: attempt to index a nil value"}) {
    EXPECT_EQ(RelativePathHint(Running({"{exe}"}), suite_.path(), run_.path(), said), "") << said;
  }
}

TEST_F(RelativePathHintTest, APathTheRunsDirectoryHoldsIsNoHint) {
  std::ofstream(run_.path() + "/out.txt") << "x";
  EXPECT_EQ(RelativePathHint(Running({"{exe}"}), suite_.path(), run_.path(),
                             "cannot open out.txt for writing: permission denied"),
            "");
  // Without a private directory (--as-is) there is no hint at all.
  EXPECT_EQ(RelativePathHint(Running({"{exe}"}), suite_.path(), "", kMissing), "");
}

TEST_F(RelativePathHintTest, OnlyAShortPlainPathOfTheOutputIsQuoted) {
  const std::string escape = "cannot open in\x1b[31m.txt: No such file or directory";
  EXPECT_EQ(RelativePathHint(Running({"{exe}"}), suite_.path(), run_.path(), escape), "");
  const std::string longer =
      "cannot open " + std::string(300, 'a') + "/x.txt: No such file or directory";
  EXPECT_EQ(RelativePathHint(Running({"{exe}"}), suite_.path(), run_.path(), longer), "");
}

}  // namespace
}  // namespace workgate
