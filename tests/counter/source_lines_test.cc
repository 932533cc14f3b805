// The source lines of instruction addresses, read from DWARF line tables:
// they must be exactly the ones Valgrind gives. The oracle is callgrind
// itself: with --dump-instr it writes every instruction that got cost with
// the file and line Valgrind named, and ObjectLines must name the same for
// every one of them, in ld.so and libc (their lines come from libc6-dbg's
// detached debug files) and in programs of this build.
#include "counter/source_lines.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <link.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "counter/debug_view.h"
#include "test_paths.h"
#include "test_requirements.h"
#include "util/paths.h"

extern char** environ;

namespace workgate {
namespace {

using ::workgate::testing::BuildPath;
using ::workgate::testing::HaveTool;
using ::workgate::testing::KnownLoop;
using ::workgate::testing::SourcePath;
using ::workgate::testing::WorkgateBin;

// A function of this file, its address and line known to the test.
__attribute__((noinline)) int SourceLinesProbe(int x) { return 3 * x + 1; }
constexpr uint32_t kSourceLinesProbeLine = __LINE__ - 1;

// The object that holds `address` in this process and the address in the
// object's own ELF address space.
std::pair<std::string, uint64_t> ObjectAddress(const void* address) {
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
      map == nullptr) {
    return {"", 0};
  }
  std::string path = map->l_name[0] != '\0' ? map->l_name : "/proc/self/exe";
  return {path, reinterpret_cast<uint64_t>(address) - map->l_addr};
}

TEST(ObjectLinesTest, NamesTheLineOfAFunctionOfThisFile) {
  const auto [object, svma] = ObjectAddress(reinterpret_cast<const void*>(&SourceLinesProbe));
  ASSERT_FALSE(object.empty());
  ObjectLines lines;
  std::string why;
  ASSERT_TRUE(lines.Open(object, &why)) << why;
  std::string file;
  uint32_t line = 0;
  ASSERT_TRUE(lines.Lookup(svma, &file, &line));
  EXPECT_TRUE(file.ends_with("/tests/counter/source_lines_test.cc")) << file;
  EXPECT_EQ(line, kSourceLinesProbeLine);
  EXPECT_EQ(SourceLinesProbe(1), 4);
}

TEST(ObjectLinesTest, ReadsLibcsLinesFromItsDetachedDebugFile) {
  // libc's own _dl_find_object (elf/libc-dl_find_object.c).
  void* find_object = dlsym(RTLD_DEFAULT, "_dl_find_object");
  if (find_object == nullptr) GTEST_SKIP() << "this glibc has no _dl_find_object (2.35 or later)";
  const auto [object, svma] = ObjectAddress(find_object);
  ASSERT_FALSE(object.empty());
  if (DetachedDebugFile(object).empty()) {
    GTEST_SKIP() << "no detached debug file for " << object
                 << " (libc6-dbg, which ci/setup installs, is not installed)";
  }
  ObjectLines lines;
  std::string why;
  ASSERT_TRUE(lines.Open(object, &why)) << why;
  EXPECT_EQ(lines.dwarf_file(), DetachedDebugFile(object));
  std::string file;
  uint32_t line = 0;
  ASSERT_TRUE(lines.Lookup(svma, &file, &line));
  // Debian builds glibc with comp_dir "./elf" and DWARF 5, whose directory 0
  // is that same relative "./elf": Valgrind puts it under comp_dir again.
  EXPECT_EQ(file, "./elf/./elf/libc-dl_find_object.c");
  EXPECT_GT(line, 0u);
  // Nothing outside .text: the ELF header's address has no line.
  EXPECT_FALSE(lines.Lookup(0, &file, &line));
}

TEST(ObjectLinesTest, ADetachedReadTakesTheCopyAndNeverAnObjectsOwnDwarf) {
  void* find_object = dlsym(RTLD_DEFAULT, "_dl_find_object");
  if (find_object == nullptr) GTEST_SKIP() << "this glibc has no _dl_find_object (2.35 or later)";
  const auto [object, svma] = ObjectAddress(find_object);
  const std::string debug_file = DetachedDebugFile(object);
  if (debug_file.empty()) GTEST_SKIP() << "libc6-dbg (which ci/setup installs) is not installed";
  TempDir cache;
  DebugFileCopies copies(cache.path());
  std::string why;
  const std::string copy = copies.CopyOf(debug_file, &why);
  ASSERT_FALSE(copy.empty()) << why;
  ObjectLines found, detached;
  ASSERT_TRUE(found.Open(object, &why)) << why;
  ASSERT_TRUE(detached.OpenDetached(object, copy, &why)) << why;
  EXPECT_EQ(detached.dwarf_file(), copy);
  EXPECT_EQ(detached.size(), found.size());
  std::string a_file, b_file;
  uint32_t a_line = 0, b_line = 0;
  ASSERT_TRUE(found.Lookup(svma, &a_file, &a_line));
  ASSERT_TRUE(detached.Lookup(svma, &b_file, &b_line));
  EXPECT_EQ(b_file, a_file);
  EXPECT_EQ(b_line, a_line);
  // A program with DWARF of its own (a build's, which may be hostile) is
  // never read by a detached read: its lines are Valgrind's, in the run.
  ObjectLines own;
  ASSERT_TRUE(own.OpenDetached(KnownLoop(), copy, &why)) << why;
  EXPECT_EQ(own.size(), 0u);
  EXPECT_EQ(own.dwarf_file(), "");
  ObjectLines plain;
  ASSERT_TRUE(plain.Open(KnownLoop(), &why)) << why;
  EXPECT_GT(plain.size(), 0u) << "the known loop is built with -g";
}

TEST(ObjectLinesTest, AnObjectWithoutDwarfHasNoLines) {
  ObjectLines lines;
  std::string why;
  ASSERT_TRUE(lines.Open("/bin/true", &why)) << why;
  std::string file;
  uint32_t line = 0;
  for (uint64_t a = 0; a < (1 << 16); a += 16) EXPECT_FALSE(lines.Lookup(a, &file, &line));
}

TEST(ObjectLinesTest, AFileThatIsNoElfObjectIsAnError) {
  ObjectLines lines;
  std::string why;
  EXPECT_FALSE(lines.Open(SourcePath("tests/counter/source_lines_test.cc"), &why));
  EXPECT_NE(why.find("source_lines_test.cc"), std::string::npos) << why;
  EXPECT_FALSE(lines.Open("/nonexistent/object.so", &why));
  EXPECT_NE(why.find("/nonexistent/object.so"), std::string::npos) << why;
}

// A FIFO put where an object was (a daemon of a hostile build could) is no
// ELF file, and opening it never waits for a writer.
TEST(ObjectLinesTest, AFifoInAnObjectsPlaceIsAnErrorAtOnce) {
  TempDir dir;
  const std::string fifo = dir.path() + "/libwork.so";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto opened = std::async(std::launch::async, [&fifo] {
    ObjectLines lines;
    std::string why;
    const bool ok = lines.Open(fifo, &why);
    return std::make_pair(ok, why);
  });
  if (opened.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    // A writer that comes and goes lets the blocked open, and its reads, end.
    const int writer = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (writer >= 0) close(writer);
    opened.wait();
    FAIL() << "opening a FIFO in place of an object waited for a writer";
  }
  const auto [ok, why] = opened.get();
  EXPECT_FALSE(ok);
  EXPECT_NE(why.find(fifo), std::string::npos) << why;
}

// What callgrind named for the instructions of one object: address (in the
// object's ELF address space, as --dump-instr writes it) to file and line;
// file "???" and line 0 where Valgrind had no line.
using NamedLines = std::map<uint64_t, std::pair<std::string, uint32_t>>;

// Reads a callgrind output file written with --dump-instr=yes
// --compress-pos=no --compress-strings=no: every cost line is "0xADDR LINE
// COSTS", in the file fi=/fe= last switched to, else the function's fl=.
void ReadCallgrindLines(const std::string& path, std::map<std::string, NamedLines>* out,
                        std::vector<std::string>* conflicts) {
  std::ifstream in(path);
  std::string text;
  std::string object;
  std::string fn_file;
  std::string file;
  while (std::getline(in, text)) {
    if (text.starts_with("ob=")) {
      object = text.substr(3);
    } else if (text.starts_with("fl=")) {
      fn_file = file = text.substr(3);
    } else if (text.starts_with("fi=") || text.starts_with("fe=")) {
      file = text.substr(3);
    } else if (text.starts_with("fn=")) {
      file = fn_file;
    } else if (text.starts_with("0x")) {
      size_t end = 0;
      const uint64_t address = std::stoull(text, &end, 16);
      const uint32_t line = static_cast<uint32_t>(std::stoul(text.substr(end)));
      auto [it, added] = (*out)[object].try_emplace(address, file, line);
      if (!added && it->second != std::make_pair(file, line)) {
        conflicts->push_back(object + " " + text);
      }
    }
  }
}

pid_t SpawnCallgrind(const std::string& dir, const std::string& name,
                     const std::vector<std::string>& command) {
  std::vector<std::string> args = {"valgrind",
                                   "--tool=callgrind",
                                   "--dump-instr=yes",
                                   "--compress-pos=no",
                                   "--compress-strings=no",
                                   "--callgrind-out-file=" + dir + "/" + name + ".out",
                                   "--log-file=" + dir + "/" + name + ".log"};
  args.insert(args.end(), command.begin(), command.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  if (posix_spawnp(&pid, "valgrind", &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

TEST(ObjectLinesTest, NamesEveryLineCallgrindNames) {
  WORKGATE_REQUIRE_TOOL(HaveTool("valgrind"), "valgrind is not installed");
  const std::string wgi = BuildPath("workloads/wgi-baseline");
  WORKGATE_ASSERT_BUILT(KnownLoop());
  WORKGATE_ASSERT_BUILT(wgi);
  WORKGATE_ASSERT_BUILT(WorkgateBin());
  TempDir dir("source-lines");
  setenv("WORKGATE_FIXED_CLOCK", "1", 1);
  std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"true", {"/bin/true"}},
      // Much of libc: directory reading, locale, qsort, printf, user names.
      {"ls", {"/bin/ls", "-l", "/usr"}},
      {"sort", {"/usr/bin/sort", SourcePath("CMakeLists.txt")}},
      {"known_loop", {KnownLoop(), "20000"}},
      {"wgi", {wgi, SourcePath("workloads/wgi/scripts/fib.wg")}},
  };
  // C++: the copies of inline functions that the linker dropped leave line
  // tables at address 0 and up, and the kept copies' tables repeat in many
  // units (ranges with one start, decided by Valgrind's sort). The sanitized
  // build's workgate cannot run under Valgrind; the plain build checks it.
  if (!WORKGATE_TEST_ASAN) runs.push_back({"workgate", {WorkgateBin(), "--version"}});
  std::vector<pid_t> pids;
  for (const auto& [name, command] : runs)
    pids.push_back(SpawnCallgrind(dir.path(), name, command));
  unsetenv("WORKGATE_FIXED_CLOCK");
  for (size_t i = 0; i < pids.size(); ++i) {
    ASSERT_GT(pids[i], 0) << "cannot run valgrind";
    int status = 0;
    ASSERT_EQ(waitpid(pids[i], &status, 0), pids[i]);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << runs[i].first << ": valgrind failed, see " << dir.path() << "/" << runs[i].first
        << ".log";
  }
  std::map<std::string, NamedLines> named;
  std::vector<std::string> conflicts;
  for (const auto& [name, command] : runs) {
    ReadCallgrindLines(dir.path() + "/" + name + ".out", &named, &conflicts);
  }
  EXPECT_TRUE(conflicts.empty()) << "callgrind named one address two ways: " << conflicts[0];

  size_t checked = 0;
  size_t with_line = 0;
  size_t wrong_count = 0;
  std::vector<std::string> wrong;
  for (const auto& [object, addresses] : named) {
    if (!object.starts_with("/")) continue;  // code outside any object
    ObjectLines lines;
    std::string why;
    ASSERT_TRUE(lines.Open(object, &why)) << why;
    for (const auto& [address, want] : addresses) {
      std::pair<std::string, uint32_t> got("???", 0);
      if (!lines.Lookup(address, &got.first, &got.second)) got = {"???", 0};
      ++checked;
      if (want.second != 0) ++with_line;
      if (got != want && ++wrong_count <= 20) {
        wrong.push_back(fmt::format("{} {:#x}: callgrind {}:{}, ObjectLines {}:{}", object, address,
                                    want.first, want.second, got.first, got.second));
      }
    }
  }
  for (const std::string& w : wrong) ADD_FAILURE() << w;
  EXPECT_EQ(wrong_count, 0u) << "of " << checked << " addresses";
  EXPECT_GT(checked, 10000u);
  EXPECT_GT(with_line, 5000u);
  std::cerr << checked << " addresses checked, " << with_line << " with a line\n";
}

}  // namespace
}  // namespace workgate
