// Which program a threaded workload runs (measure/thread_runtime.h): by the
// name of its program, its Go build ID, or the OpenMP runtime it loads.

#include "measure/thread_runtime.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_paths.h"
#include "test_requirements.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

class ThreadRuntimeTest : public ::testing::Test {
 protected:
  // An executable file named `name`, holding `bytes`.
  std::string File(const std::string& name, const std::string& bytes = "#!/bin/sh\n") {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << bytes;
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }
  TempDir dir_;
};

TEST_F(ThreadRuntimeTest, ZstdAndTheInterpretersByName) {
  const std::pair<const char*, ThreadRuntime> names[] = {
      {"zstd", ThreadRuntime::kZstd},          {"zstdmt", ThreadRuntime::kZstd},
      {"python3", ThreadRuntime::kPython},     {"python3.11", ThreadRuntime::kPython},
      {"python3.11-dbg", ThreadRuntime::kPython}, {"java", ThreadRuntime::kJava},
      {"node", ThreadRuntime::kNode},          {"zstd-wrapper", ThreadRuntime::kUnknown},
      {"pythonista", ThreadRuntime::kUnknown}, {"lua5.4", ThreadRuntime::kUnknown},
  };
  for (const auto& [name, runtime] : names) {
    EXPECT_EQ(ThreadRuntimeOf(File(name), name, {}), runtime) << name;
  }
  // A build given by its path is known by its file: {exe} runs the link
  // "exe", which points at it.
  const std::string zstd = File("zstd");
  fs::create_symlink(zstd, dir_.path() + "/exe");
  EXPECT_EQ(ThreadRuntimeOf(dir_.path() + "/exe", dir_.path() + "/exe", {}), ThreadRuntime::kZstd);
  // And the name the command gives: python3 is a link to python3.11.
  EXPECT_EQ(ThreadRuntimeOf(File("interp"), "/usr/bin/python3", {}), ThreadRuntime::kPython);
}

#ifdef WORKGATE_PIN_GO_BUILT
// `go` with its Go build ID note made another note (its type changed)
// where `note`, and its .go.buildinfo section renamed where `section`.
std::string WithoutGoMarks(const std::string& go, bool note, bool section) {
  std::string bytes = ReadFile(go).value_or("");
  bool changed_note = false, changed_section = false;
  if (note) {
    // namesz 4, descsz, type 4, "Go\0\0" (cmd/link's): the type becomes 0x99.
    for (size_t at = bytes.find(std::string("Go\0\0", 4)); at != std::string::npos;
         at = bytes.find(std::string("Go\0\0", 4), at + 1)) {
      if (at >= 12 && bytes.compare(at - 12, 4, std::string("\4\0\0\0", 4)) == 0 &&
          bytes.compare(at - 4, 4, std::string("\4\0\0\0", 4)) == 0) {
        bytes[at - 4] = '\x99';
        changed_note = true;
      }
    }
  }
  if (section) {
    const size_t at = bytes.find(std::string(".go.buildinfo\0", 14));
    if (at != std::string::npos) {
      bytes[at + 12] = 'X';
      changed_section = true;
    }
  }
  EXPECT_EQ(changed_note, note);
  EXPECT_EQ(changed_section, section);
  return bytes;
}
#endif

// A real Go program, which only the whole test setup builds (golang-go is
// not among the fast tests' packages): a suite of the slow label.
using ThreadRuntimeGoTest = ThreadRuntimeTest;

TEST_F(ThreadRuntimeGoTest, AGoProgramByItsBuildIdNoteOrItsBuildInfo) {
#ifndef WORKGATE_PIN_GO_BUILT
  WORKGATE_REQUIRE_TOOL(false, "go (Debian golang-go) is not installed");
#else
  const std::string go = testing::BuildPath("tests/pin_go");
  WORKGATE_ASSERT_BUILT(go);
  EXPECT_EQ(ThreadRuntimeOf(go, go, {}), ThreadRuntime::kGo);
  // Either mark alone is enough: the section without the note, the note
  // without the section; neither is no Go program.
  EXPECT_EQ(ThreadRuntimeOf(File("section", WithoutGoMarks(go, true, false)), "section", {}),
            ThreadRuntime::kGo);
  EXPECT_EQ(ThreadRuntimeOf(File("note", WithoutGoMarks(go, false, true)), "note", {}),
            ThreadRuntime::kGo);
  EXPECT_EQ(ThreadRuntimeOf(File("neither", WithoutGoMarks(go, true, true)), "neither", {}),
            ThreadRuntime::kUnknown);
#endif
}

TEST_F(ThreadRuntimeTest, AnOpenMpProgramByTheRuntimeItLoads) {
#ifndef WORKGATE_OMP_BUILT
  WORKGATE_REQUIRE_TOOL(false, "no OpenMP for the C compiler (Debian libgomp1)");
#else
  const std::string omp = testing::BuildPath("tests/omp_threads");
  WORKGATE_ASSERT_BUILT(omp);
  EXPECT_EQ(ThreadRuntimeOf(omp, omp, {}), ThreadRuntime::kOpenMp);
#endif
  const std::string plain = testing::BuildPath("tests/lock_threads");
  WORKGATE_ASSERT_BUILT(plain);
  EXPECT_EQ(ThreadRuntimeOf(plain, plain, {}), ThreadRuntime::kUnknown);
  // Not a program at all, or none there.
  EXPECT_EQ(ThreadRuntimeOf(File("data", "not an ELF file"), "data", {}), ThreadRuntime::kUnknown);
  EXPECT_EQ(ThreadRuntimeOf(dir_.path() + "/missing", "missing", {}), ThreadRuntime::kUnknown);
}

TEST(MostThreadsTest, TheMostOneRunMet) {
  std::vector<CountedRun> runs(3);
  EXPECT_EQ(MostThreads(runs), 0u);
  runs[0].unpinned["threads"] = 3;
  runs[1].unpinned["threads"] = 5;
  runs[2].unpinned["signals"] = 9;
  EXPECT_EQ(MostThreads(runs), 5u);
  runs.resize(1);
  runs[0].unpinned["threads"] = 1;  // the main thread alone
  EXPECT_EQ(MostThreads(runs), 0u);
}

}  // namespace
}  // namespace workgate
