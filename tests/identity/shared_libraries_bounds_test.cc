// The resolver against hostile builds: ELF files made here (elf_builder.h)
// with cycles, thousands of DT_NEEDED entries, long search lists, files of
// another class or kind in the search path, and malformed dynamic sections.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "identity/elf_builder.h"
#include "identity/elf_file.h"
#include "identity/fingerprint.h"
#include "identity/shared_libraries.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing::BuildElf;
using testing::ElfSpec;
using testing::WriteFile;

class HostileBuilds : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/wg_hostile_XXXXXX";
    // Canonical: the program's $ORIGIN is its real directory, without the
    // doubled '/' TempDir() can leave.
    dir_ = fs::canonical(mkdtemp(tmpl.data())).string();
    FileSource ls;
    ElfFile elf;
    std::string err;
    ASSERT_TRUE(ls.Open("/bin/ls", &err) && ReadElfFile(ls, &elf, &err)) << err;
    interp_ = elf.interpreter;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes an ELF file made from `spec` at DIR/`name`; returns its path.
  std::string Write(const std::string& name, ElfSpec spec) {
    const fs::path path = fs::path(dir_) / name;
    fs::create_directories(path.parent_path());
    WriteFile(path.string(), BuildElf(spec).bytes);
    return path.string();
  }
  // A program with the real interpreter that needs `needed`.
  std::string WriteProgram(std::vector<std::string> needed, std::optional<std::string> runpath) {
    ElfSpec spec;
    spec.interpreter = interp_;
    spec.needed = std::move(needed);
    spec.runpath = std::move(runpath);
    return Write("prog", spec);
  }

  std::set<std::string> Resolved(const std::string& exe) {
    std::vector<LoadedObject> objects;
    std::string err;
    EXPECT_TRUE(ResolveSharedLibraries(exe, {}, &objects, &err)) << err;
    std::set<std::string> out;
    for (const LoadedObject& o : objects) {
      EXPECT_TRUE(out.insert(o.path.empty() ? o.name : o.path).second) << "twice: " << o.name;
    }
    return out;
  }
  std::string ErrorOf(const std::string& exe) {
    std::vector<LoadedObject> objects;
    std::string err;
    EXPECT_FALSE(ResolveSharedLibraries(exe, {}, &objects, &err));
    EXPECT_TRUE(objects.empty());
    return err;
  }

  std::string dir_, interp_;
};

TEST_F(HostileBuilds, CyclesAndSelfReferencesEndWithEachObjectOnce) {
  ElfSpec a, b, self;
  a.soname = "libcyc_a.so";
  a.needed = {"libcyc_b.so"};
  a.runpath = "$ORIGIN";
  b.needed = {"libcyc_a.so", "libcyc_b.so", "libc.so.6"};
  b.runpath = "$ORIGIN";
  self.needed = {"libself.so", "libself.so"};
  self.rpath = "$ORIGIN";
  const std::string pa = Write("libcyc_a.so", a), pb = Write("libcyc_b.so", b),
                    ps = Write("libself.so", self);
  std::set<std::string> resolved =
      Resolved(WriteProgram({"libcyc_a.so", "libself.so", "libcyc_a.so"}, "$ORIGIN"));
  for (const std::string& p : {pa, pb, ps, interp_}) EXPECT_EQ(resolved.count(p), 1u) << p;
  EXPECT_EQ(resolved.size(), 5u);  // and libc
}

TEST_F(HostileBuilds, AnObjectAnswersToItsSonameAndItsFile) {
  ElfSpec q;
  q.soname = "libq.so.2";
  const std::string pq = Write("sub/libq.so", q);
  fs::create_symlink(pq, fs::path(dir_) / "libalias.so");
  // libq.so.2 exists nowhere as a file: the loaded object's soname answers.
  std::set<std::string> resolved =
      Resolved(WriteProgram({pq, "libq.so.2", "libalias.so"}, "$ORIGIN"));
  EXPECT_EQ(resolved, (std::set<std::string>{interp_, pq}));
}

TEST_F(HostileBuilds, ThousandsOfNeededEntriesAreBounded) {
  std::vector<std::string> distinct;
  for (int i = 0; i < 5000; ++i) distinct.push_back("libmissing" + std::to_string(i) + ".so");
  EXPECT_NE(ErrorOf(WriteProgram(distinct, std::nullopt)).find("more than 1024"),
            std::string::npos);
  // The same name 40,000 times is one object.
  std::set<std::string> resolved =
      Resolved(WriteProgram(std::vector<std::string>(40000, "libc.so.6"), std::nullopt));
  EXPECT_EQ(resolved.size(), 2u);
}

TEST_F(HostileBuilds, LongSearchListsAreBounded) {
  std::string runpath;
  while (runpath.size() < kMaxElfString - 8) runpath += "$ORIGIN/n:";
  std::vector<std::string> needed;
  for (int i = 0; i < 200; ++i) needed.push_back("libnone" + std::to_string(i) + ".so");
  EXPECT_NE(ErrorOf(WriteProgram(needed, runpath)).find("gave up"), std::string::npos);
}

TEST_F(HostileBuilds, FilesNotForThisProgramArePassedOver) {
  ElfSpec other_class, other_machine, good;
  other_class.is64 = false;
  other_class.machine = testing::kHostMachine32;
  other_machine.machine = testing::kOtherMachine;
  Write("w32/libpick.so", other_class);
  Write("wmachine/libpick.so", other_machine);
  fs::create_directories(fs::path(dir_) / "text");
  WriteFile(dir_ + "/text/libpick.so", "#!/bin/sh\n");
  fs::create_directories(fs::path(dir_) / "fifo");
  ASSERT_EQ(mkfifo((dir_ + "/fifo/libpick.so").c_str(), 0600), 0);  // opening it would block
  fs::create_directories(fs::path(dir_) / "dir/libpick.so");
  const std::string ok = Write("ok/libpick.so", good);
  std::set<std::string> resolved =
      Resolved(WriteProgram({"libpick.so"},
                            "$ORIGIN/w32:$ORIGIN/wmachine:$ORIGIN/text:$ORIGIN/fifo:$ORIGIN/dir:"
                            "$ORIGIN/ok"));
  EXPECT_EQ(resolved, (std::set<std::string>{interp_, ok}));
}

TEST_F(HostileBuilds, AMalformedLibraryIsAnError) {
  ElfSpec bad;
  bad.needed = {"libc.so.6"};
  const std::string path = Write("libbad.so", bad);
  // Move its one PT_LOAD away from the string table's address.
  std::string bytes = BuildElf(bad).bytes;
  testing::Poke<uint64_t>(&bytes, sizeof(Elf64_Ehdr) + offsetof(Elf64_Phdr, p_vaddr), 1ull << 44);
  WriteFile(path, bytes);
  const std::string exe = WriteProgram({"libbad.so"}, "$ORIGIN");
  std::string err = ErrorOf(exe);
  EXPECT_NE(err.find("libbad.so: ELF string table address"), std::string::npos) << err;
  std::map<std::string, std::string> libs = {{"stale", "x"}};
  EXPECT_FALSE(SharedLibrariesOf(exe, &libs, &err));
  EXPECT_TRUE(libs.empty());
}

TEST_F(HostileBuilds, AMissingInterpreterIsNotFound) {
  ElfSpec spec;
  spec.interpreter = dir_ + "/no-such-ld.so";
  spec.needed = {"libc.so.6"};
  std::map<std::string, std::string> libs;
  std::string err;
  ASSERT_TRUE(SharedLibrariesOf(Write("prog", spec), &libs, &err)) << err;
  EXPECT_EQ(libs[dir_ + "/no-such-ld.so"], "not found");
  bool libc = false;
  for (const auto& [path, digest] : libs) libc |= path.find("/libc.so.6") != std::string::npos;
  EXPECT_TRUE(libc);
}

TEST_F(HostileBuilds, ProgramsTheLoaderDoesNotHandleHaveNoLibraries) {
  ElfSpec foreign;
  foreign.interpreter = interp_;
  foreign.needed = {"libc.so.6"};
  foreign.machine = EM_RISCV;
  EXPECT_TRUE(Resolved(Write("riscv", foreign)).empty());
  foreign.machine = testing::kHostMachine;
  std::string swapped = BuildElf(foreign).bytes;
  swapped[EI_DATA] = swapped[EI_DATA] == ELFDATA2LSB ? ELFDATA2MSB : ELFDATA2LSB;
  WriteFile(dir_ + "/swapped", swapped);
  EXPECT_TRUE(Resolved(dir_ + "/swapped").empty());
  foreign.interpreter.clear();  // statically linked
  EXPECT_TRUE(Resolved(Write("static", foreign)).empty());
}

}  // namespace
}  // namespace workgate
