// A workload runs in an empty private directory: a relative path in its
// command names nothing there. When the program then fails with "No such
// file or directory", the reason says where the file goes
// (workload/run_plan.h RelativePathHint).

#include <gtest/gtest.h>

#include <string>

#include "workload/run_plan.h"

namespace workgate {
namespace {

Workload Running(std::vector<std::string> command) {
  Workload w;
  w.name = "w";
  w.command = std::move(command);
  return w;
}

constexpr const char* kMissing = "lua: cannot open bench/fib.lua: No such file or directory";

TEST(RelativePathHintTest, ASuitesRelativeScriptIsToldAboutSuiteDir) {
  EXPECT_EQ(RelativePathHint(Running({"{exe}", "bench/fib.lua"}), true, kMissing),
            "bench/fib.lua is a relative path, and a workload runs in an empty private directory, "
            "not in the suite's folder or where workgate started: name a file beside the suite "
            "as {suite_dir}/bench/fib.lua");
}

TEST(RelativePathHintTest, AnAdHocRelativeFileIsToldToBeAbsolute) {
  EXPECT_EQ(RelativePathHint(Running({"{exe}", "--in=data.txt"}), false,
                             "open: No such file or directory"),
            "data.txt is a relative path, and a workload runs in an empty private directory, not "
            "where workgate started: give it as an absolute path (\"$PWD/data.txt\")");
}

TEST(RelativePathHintTest, NothingForOtherErrorsOrArgumentsThatAreNoRelativePaths) {
  EXPECT_EQ(RelativePathHint(Running({"{exe}", "data.txt"}), true, "Segmentation fault"), "");
  for (const char* arg : {"{suite_dir}/x.lua", "/abs/x.lua", "1000", "1.5", "--size",
                          "https://example.org/x.html", "-v"}) {
    EXPECT_EQ(RelativePathHint(Running({"{exe}", arg}), true, kMissing), "") << arg;
  }
}

}  // namespace
}  // namespace workgate
