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

TEST_F(SuiteInitTest, EachFileOfAGlobIsOneWorkloadNamedAfterIt) {
  Typed("b/fib.lua");
  Typed("b/sum.lua");
  Typed("b/sub/x.lua");
  InitOptions options;
  options.exe = "/usr/bin/lua5.4";
  options.output = dir_ + "/suite.toml";
  options.each = {dir_ + "/b/*.lua", dir_ + "/b/f*.lua"};  // fib.lua twice: once
  options.command = {"{exe}", "--file={file}", "-e"};
  const std::vector<InitRequest> requests = InitRequestsFor(options);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].name, "fib");
  EXPECT_EQ(requests[0].command,
            (std::vector<std::string>{"{exe}", "--file={suite_dir}/b/fib.lua", "-e"}));
  EXPECT_EQ(requests[1].name, "sum");
  // No {file}: after the last argument; no command: the build, then the file.
  options.each = {dir_ + "/b/sum.lua"};
  options.command = {"-e"};
  EXPECT_EQ(InitRequestsFor(options)[0].command,
            (std::vector<std::string>{"{exe}", "-e", "{suite_dir}/b/sum.lua"}));
  options.command = {};
  EXPECT_EQ(InitRequestsFor(options)[0].command,
            (std::vector<std::string>{"{exe}", "{suite_dir}/b/sum.lua"}));
  // Two files of one name: each named by its path.
  Typed("c/sum.lua");
  options.each = {dir_ + "/b/sum.lua", dir_ + "/c/sum.lua"};
  const std::vector<InitRequest> two = InitRequestsFor(options);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].name, dir_ + "/b/sum");
  EXPECT_EQ(two[1].name, dir_ + "/c/sum");
}

TEST_F(SuiteInitTest, EachRefusesWhatWouldMisnameAWorkload) {
  Typed("b/fib.lua");
  InitOptions options;
  options.exe = "/usr/bin/lua5.4";
  options.output = dir_ + "/suite.toml";
  auto refused = [&](const std::string& why) {
    try {
      InitRequestsFor(options);
      ADD_FAILURE() << "accepted; expected: " << why;
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), kExitUsage);
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  options.each = {dir_ + "/b/*.py"};
  refused("no file matches it");
  options.each = {dir_ + "/b/*.lua"};
  options.name = "mine";
  refused("--name names one workload; with --each each is named after its file");
  options.name = "";
  options.each = {};
  options.command = {"{exe}", "{file}"};
  refused("{file} stands for each file of --each GLOB");
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
      InitHeader(options, "vgcount", {first}, "2026-12-05T21:00:00Z"),
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
  EXPECT_EQ(InitHeader(options, "vgcount", {first}, "2026-12-05T21:00:00Z")[1],
            "  workgate init --exe build/prog");
  // Several workloads, added to a suite: what made them and what they took,
  // and no second copy of the suite's own header.
  options.each = {"bench/*.lua"};
  options.append = true;
  InitRun second = first;
  second.seconds = 0.25;
  EXPECT_EQ(InitHeader(options, "vgcount", {first, second}, "2026-12-05T21:00:00Z"),
            (std::vector<std::string>{
                "Workloads added to this suite, written by workgate init on "
                "2026-12-05T21:00:00Z from:",
                "  workgate init --append --exe build/prog --each 'bench/*.lua'",
                "One count of each of the 2 workloads with vgcount took 1.75 s in all.",
            }));
}

}  // namespace
}  // namespace workgate
