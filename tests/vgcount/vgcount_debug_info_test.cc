// A count that keeps no profile runs without the detached debug information
// of /usr/lib/debug (counter/valgrind_counter.cc): vgcount names nothing
// then, and Valgrind would read glibc's whole DWARF where libc6-dbg is
// installed, about half of a short run's time. The run sees the directory
// empty, the count is what a run with a profile counts, and a run that keeps
// a profile sees the directory as it is, for the names of its functions,
// and each detached debug file with compressed sections as its decompressed
// copy (counter/debug_view.h), from which Valgrind reads the same profile.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "counter/debug_view.h"
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

// The C library the counted programs map (the one /bin/sh maps), and its
// detached debug file, where libc6-dbg is installed.
std::string LibcDebugFile() {
  for (const char* dir : {"/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/lib64", "/lib"}) {
    const std::string libc = std::string(dir) + "/libc.so.6";
    if (fs::exists(libc)) return DetachedDebugFile(libc);
  }
  return "";
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A profile without its process's pid, the one line two runs differ in.
std::string WithoutPid(const std::string& profile) {
  std::istringstream lines(profile);
  std::string line, out;
  while (std::getline(lines, line)) {
    if (!line.starts_with("pid:")) out += line + "\n";
  }
  return out;
}

TEST_F(VgcountDebugInfoTest, AProfiledRunReadsTheDebugFilesSymbolsOnly) {
  const std::string debug_file = LibcDebugFile();
  if (debug_file.empty()) GTEST_SKIP() << "libc6-dbg (which ci/setup installs) is not installed";
  DebugFileCopies* copies = SharedDebugFileCopies();
  ASSERT_NE(copies, nullptr);
  std::string why;
  const std::string copy = copies->CopyOf(debug_file, &why, DebugFileCopies::Kind::kSymbols);
  ASSERT_FALSE(copy.empty()) << why;
  ASSERT_NE(fs::file_size(copy), fs::file_size(debug_file));
  const std::string size = "stat -c %s " + debug_file;
  TempDir keep;
  EXPECT_EQ(Count({"/bin/sh", "-c", size}, keep.path() + "/kept").launch.out,
            std::to_string(fs::file_size(copy)) + "\n");
  // A count without a profile has no debug files at all.
  EXPECT_EQ(Count({"/bin/sh", "-c", size + " 2>/dev/null || echo none"}, "").launch.out,
            "none\n");
}

TEST_F(VgcountDebugInfoTest, TheDecompressedCopiesGiveTheSameProfile) {
  const std::string debug_file = LibcDebugFile();
  if (debug_file.empty()) GTEST_SKIP() << "libc6-dbg (which ci/setup installs) is not installed";
  TempDir cache;
  DebugFileCopies copies(cache.path() + "/debug");
  std::string why;
  const std::string copy = copies.CopyOf(debug_file, &why);
  ASSERT_FALSE(copy.empty()) << why;
  // Valgrind itself, contained as workgate contains it, with and without the
  // copy in the debug file's place.
  auto profile = [&](bool with_copy) {
    TempDir out;
    LaunchSpec spec;
    spec.argv = {FindValgrind().path, "-q", "--tool=vgcount",
                 "--vgcount-out-file=" + out.path() + "/count",
                 "--vgcount-profile-file=" + out.path() + "/profile", testing::KnownLoop(),
                 "20000"};
    spec.env = MinimalEnvironment("/tmp");
    spec.env["VALGRIND_LIB"] = testing::BuildPath("valgrind-lib");
    spec.timeout_seconds = 120;
    spec.new_pid_namespace = true;
    spec.writable_dirs = {out.path()};
    spec.readonly_dirs = {cache.path()};
    if (with_copy) spec.files_in_place = {{debug_file, copy}};
    const LaunchResult result = Launch(spec);
    EXPECT_TRUE(result.ok()) << result.err;
    return WithoutPid(ReadText(out.path() + "/profile"));
  };
  const std::string plain = profile(false);
  EXPECT_NE(plain.find("fn="), std::string::npos);
  // glibc's internal names come from the debug file's symbol table.
  EXPECT_NE(plain.find("_dl_relocate_object"), std::string::npos);
  EXPECT_EQ(profile(true), plain);
}

}  // namespace
}  // namespace workgate
