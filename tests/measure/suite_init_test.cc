// `workgate init` below its command line (measure/suite_init.h): the
// request made of its options, the backend it counts with, and the header
// of the suite it writes. The runs themselves are InitCliTest's, under
// Valgrind.

#include "measure/suite_init.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/exit_codes.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

class SuiteInitTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fs::canonical(tmp_.path()).string(); }

  // A file at `rel` in the suite's folder, named as a user types it: relative
  // to the working directory.
  std::string Typed(const std::string& rel) const {
    const fs::path file = fs::path(dir_) / rel;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "x\n";
    return fs::relative(file, fs::current_path()).string();
  }

  TempDir tmp_;
  std::string dir_;  // the suite's folder, links resolved
};

TEST_F(SuiteInitTest, AFileInTheSuitesFolderIsNamedFromIt) {
  EXPECT_EQ(AsTheSuiteNamesIt(Typed("bench.py"), dir_), "{suite_dir}/bench.py");
  EXPECT_EQ(AsTheSuiteNamesIt(Typed("data/in.txt"), dir_), "{suite_dir}/data/in.txt");
  // An option's value, after its '='.
  EXPECT_EQ(AsTheSuiteNamesIt("--in=" + Typed("in.txt"), dir_), "--in={suite_dir}/in.txt");
}

TEST_F(SuiteInitTest, AFileOutsideTheSuitesFolderIsNamedByItsAbsolutePath) {
  fs::create_directories(dir_ + "/suite");
  EXPECT_EQ(AsTheSuiteNamesIt(Typed("other.txt"), dir_ + "/suite"), dir_ + "/other.txt");
  EXPECT_EQ(AsTheSuiteNamesIt("--in=" + Typed("other.txt"), dir_ + "/suite"),
            "--in=" + dir_ + "/other.txt");
}

TEST_F(SuiteInitTest, AnArgumentThatNamesNoFileByAPathOfItsOwnIsKept) {
  const std::string absolute = fs::absolute(Typed("bench.py")).string();
  fs::create_directories(dir_ + "/folder");
  const std::string folder = fs::relative(dir_ + "/folder", fs::current_path()).string();
  const std::string missing = fs::relative(dir_ + "/missing.py", fs::current_path()).string();
  for (const std::string& arg :
       {std::string(""), std::string("-v"), std::string("--size"), "--in=" + missing, missing,
        folder, absolute, std::string("{exe}"), std::string("{suite_dir}/bench.py")}) {
    EXPECT_EQ(AsTheSuiteNamesIt(arg, dir_), arg);
  }
}

TEST_F(SuiteInitTest, TheWorkloadIsNamedAfterTheBuildUnlessNamed) {
  InitOptions options;
  options.exe = "build/release/prog";
  options.output = dir_ + "/workgate.toml";
  EXPECT_EQ(InitRequestFor(options).name, "prog");
  options.name = "bench";
  EXPECT_EQ(InitRequestFor(options).name, "bench");
}

TEST_F(SuiteInitTest, TheRequestNamesTheCommandsFilesFromTheSuitesFolder) {
  // The output through a link: the folder is the one it leads to.
  fs::create_directory_symlink(dir_, dir_ + "/link");
  InitOptions options;
  options.exe = "/usr/bin/python3";
  options.output = dir_ + "/link/bench.toml";
  options.timeout_seconds = 30;
  options.command = {Typed("bench.py"), "-n", "3"};
  const InitRequest request = InitRequestFor(options);
  EXPECT_EQ(request.suite_dir, dir_);
  EXPECT_EQ(request.exe, "/usr/bin/python3");
  EXPECT_EQ(request.timeout_seconds, 30);
  // No {exe} in the command: the build is argv[0].
  EXPECT_EQ(request.command,
            (std::vector<std::string>{"{exe}", "{suite_dir}/bench.py", "-n", "3"}));
  options.command = {};
  EXPECT_EQ(InitRequestFor(options).command, (std::vector<std::string>{"{exe}"}));
}

TEST(SuiteInitBackendTest, InitCountsWithVgcountElseCallgrind) {
  const BackendChoice vgcount{"vgcount", "requested"};
  const BackendChoice callgrind{"callgrind", "requested"};
  const BackendChoice no_vgcount{"", "vgcount was requested but the tool is not built"};
  const BackendChoice no_callgrind{"", "callgrind was requested, but valgrind is not installed"};
  EXPECT_EQ(InitBackend(vgcount, callgrind).backend, "vgcount");
  EXPECT_EQ(InitBackend(no_vgcount, callgrind).backend, "callgrind");
  try {
    InitBackend(no_vgcount, no_callgrind);
    ADD_FAILURE() << "no error where neither can count";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitEnvironment);
    EXPECT_STREQ(e.what(),
                 "workgate init counts with Valgrind: callgrind was requested, but valgrind is "
                 "not installed");
  }
}

TEST(SuiteInitHeaderTest, TheHeaderSaysWhenFromWhichCommandAndWhatACountTook) {
  InitOptions options;
  options.exe = "build/prog";
  options.output = "suites/bench.toml";
  options.command = {"{exe}", "--size", "a b"};
  InitRun first;
  first.count = 1234567;
  first.seconds = 1.5;
  EXPECT_EQ(
      InitHeader(options, "vgcount", first, "2026-12-05T21:00:00Z"),
      (std::vector<std::string>{
          "A workgate suite, written by workgate init on 2026-12-05T21:00:00Z from:",
          "  workgate init --exe build/prog -- {exe} --size 'a b'",
          "One count of that build with vgcount took 1.50 s: 1,234,567 instructions.",
          "Gate two builds of the program with it:",
          "  workgate compare --baseline OLD --candidate NEW --suite suites/bench.toml",
          "Every key: docs/suites.md. {exe} is the build under test; {suite_dir} is this file's",
          "folder: the workload runs in an empty private directory, so name its files from "
          "there.",
      }));
  // Without arguments, the command line has no "--".
  options.command = {};
  EXPECT_EQ(InitHeader(options, "vgcount", first, "2026-12-05T21:00:00Z")[1],
            "  workgate init --exe build/prog");
}

}  // namespace
}  // namespace workgate
