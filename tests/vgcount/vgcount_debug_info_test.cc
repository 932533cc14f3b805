// A count that keeps no profile runs without the detached debug information
// of /usr/lib/debug (counter/valgrind_counter.cc): vgcount names nothing
// then, and Valgrind would read glibc's whole DWARF where libc6-dbg is
// installed, about half of a short run's time. The run sees the directory
// empty, the count is what a run with a profile counts, and a run that keeps
// a profile sees the directory as it is, for the names of its functions.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "counter/valgrind_counter.h"
#include "launch/launch.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

constexpr char kDebugDir[] = "/usr/lib/debug";

class VgcountDebugInfoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WORKGATE_REQUIRE_VGCOUNT(testing::KnownLoop());
    WORKGATE_REQUIRE_TOOL(!FindValgrind().path.empty(), FindValgrind().missing);
    if (!PidNamespaceAvailable() || !ReadOnlyFileSystemAvailable()) {
      GTEST_SKIP() << "this machine cannot give a run a file system of its own "
                      "(no mount namespace, or / is no mount point)";
    }
    setenv("WORKGATE_VGCOUNT_LIB", testing::BuildPath("valgrind-lib").c_str(), 1);
  }
  void TearDown() override { unsetenv("WORKGATE_VGCOUNT_LIB"); }

  // vgcount's contained run of `argv`, keeping its profile in `keep` unless
  // that is empty.
  CountedRun Count(std::vector<std::string> argv, const std::string& keep) {
    ValgrindCounter counter(ValgrindCounter::Tool::kVgcount);
    LaunchSpec spec;
    spec.argv = std::move(argv);
    spec.env = MinimalEnvironment("/tmp");
    spec.timeout_seconds = 120;
    spec.new_pid_namespace = true;
    CountOptions options;
    options.keep_profiles_dir = keep;
    CountedRun run = counter.Run(spec, options);
    EXPECT_TRUE(run.valid()) << run.error;
    return run;
  }
};

// How many entries the directory has, as `ls -A` lists them.
std::string EntriesCommand() {
  return std::string("if test -d ") + kDebugDir + "; then ls -A " + kDebugDir +
         " | wc -l; else echo absent; fi";
}

TEST_F(VgcountDebugInfoTest, ACountWithoutAProfileSeesNoDetachedDebugInformation) {
  std::string here = "absent";
  if (fs::is_directory(kDebugDir)) {
    size_t n = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(kDebugDir)) ++n;
    here = std::to_string(n);
  }
  const CountedRun bare = Count({"/bin/sh", "-c", EntriesCommand()}, "");
  EXPECT_EQ(bare.launch.out, here == "absent" ? "absent\n" : "0\n");
  TempDir keep;
  const CountedRun profiled = Count({"/bin/sh", "-c", EntriesCommand()}, keep.path() + "/kept");
  EXPECT_EQ(profiled.launch.out, here + "\n");
}

TEST_F(VgcountDebugInfoTest, TheCountIsTheOneARunWithAProfileCounts) {
  TempDir keep;
  const CountedRun profiled = Count({testing::KnownLoop(), "100000"}, keep.path() + "/kept");
  const CountedRun bare = Count({testing::KnownLoop(), "100000"}, "");
  ASSERT_TRUE(profiled.instructions().has_value());
  ASSERT_TRUE(bare.instructions().has_value());
  EXPECT_EQ(*bare.instructions(), *profiled.instructions());
}

}  // namespace
}  // namespace workgate
