// Decompressed copies of detached debug files (counter/debug_view.h): a copy
// holds the same sections with the same bytes, uncompressed; it is made once
// per version of its file, in the cache, and replaced when the file changes.
// The real subject is glibc's own debug file (libc6-dbg, which ci/setup
// installs): the library this test program maps.
#include "counter/debug_view.h"

#include <gelf.h>
#include <gtest/gtest.h>
#include <libelf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "test_paths.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// The C library this process mapped, as /proc/self/maps names it.
std::string MappedLibc() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    if (fs::path(path).filename().string().starts_with("libc.so")) return path;
  }
  return "";
}

// Every section of an ELF file: its name, flags and bytes (decompressed).
struct Section {
  std::string name;
  uint64_t flags = 0;
  std::string bytes;
};

std::vector<Section> Sections(const std::string& path) {
  std::vector<Section> out;
  elf_version(EV_CURRENT);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  size_t shstrndx = 0;
  if (elf != nullptr && elf_getshdrstrndx(elf, &shstrndx) == 0) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
      GElf_Shdr shdr;
      gelf_getshdr(scn, &shdr);
      Section s;
      s.name = elf_strptr(elf, shstrndx, shdr.sh_name);
      s.flags = shdr.sh_flags;
      if (shdr.sh_type != SHT_NOBITS) {
        if ((shdr.sh_flags & SHF_COMPRESSED) != 0) elf_compress(scn, 0, 0);
        if (Elf_Data* data = elf_getdata(scn, nullptr); data != nullptr && data->d_buf != nullptr) {
          s.bytes.assign(static_cast<const char*>(data->d_buf), data->d_size);
        }
      }
      out.push_back(std::move(s));
    }
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  return out;
}

class DebugFileCopiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    libc_ = MappedLibc();
    ASSERT_FALSE(libc_.empty()) << "this test maps no libc.so";
    debug_file_ = DetachedDebugFile(libc_);
    if (debug_file_.empty()) {
      GTEST_SKIP() << "no detached debug file for " << libc_
                   << " (libc6-dbg, which ci/setup installs, is not installed)";
    }
  }
  std::string libc_;
  std::string debug_file_;
  TempDir cache_;
};

TEST_F(DebugFileCopiesTest, TheDebugFileIsNamedByTheObjectsBuildId) {
  const std::string id = ElfBuildId(libc_);
  ASSERT_GE(id.size(), 16u);
  EXPECT_EQ(debug_file_,
            std::string(kDetachedDebugInfoDir) + "/.build-id/" + id.substr(0, 2) + "/" +
                id.substr(2) + ".debug");
  EXPECT_EQ(DebugFileBuildId(debug_file_), id);
  EXPECT_EQ(ElfBuildId("/proc/self/status"), "");
  EXPECT_EQ(DebugFileBuildId("/proc/self/status"), "");
  EXPECT_EQ(DetachedDebugFile("/nonexistent/libc.so.6"), "");
}

TEST_F(DebugFileCopiesTest, ACopyHoldsTheSameSectionsUncompressed) {
  DebugFileCopies copies(cache_.path() + "/debug");
  std::string why;
  const std::string copy = copies.CopyOf(debug_file_, &why);
  ASSERT_FALSE(copy.empty()) << why;
  const std::vector<Section> original = Sections(debug_file_);
  const std::vector<Section> copied = Sections(copy);
  ASSERT_EQ(copied.size(), original.size());
  size_t compressed = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    SCOPED_TRACE(original[i].name);
    EXPECT_EQ(copied[i].name, original[i].name);
    EXPECT_EQ(copied[i].flags & SHF_COMPRESSED, 0u);
    EXPECT_EQ(copied[i].flags, original[i].flags & ~static_cast<uint64_t>(SHF_COMPRESSED));
    EXPECT_TRUE(copied[i].bytes == original[i].bytes);
    compressed += (original[i].flags & SHF_COMPRESSED) != 0;
  }
  EXPECT_GT(compressed, 0u) << "Debian compresses the DWARF of its debug files";
  EXPECT_EQ(DebugFileBuildId(copy), ElfBuildId(libc_));
}

TEST_F(DebugFileCopiesTest, ASymbolsCopyKeepsEverythingButTheDwarf) {
  DebugFileCopies copies(cache_.path() + "/debug");
  std::string why;
  const std::string copy = copies.CopyOf(debug_file_, &why, DebugFileCopies::Kind::kSymbols);
  ASSERT_FALSE(copy.empty()) << why;
  EXPECT_LT(fs::file_size(copy), fs::file_size(debug_file_) / 2);
  const std::vector<Section> original = Sections(debug_file_);
  const std::vector<Section> copied = Sections(copy);
  ASSERT_EQ(copied.size(), original.size());
  size_t dwarf = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    SCOPED_TRACE(original[i].name);
    if (original[i].name.starts_with(".debug_")) {
      ++dwarf;
      EXPECT_EQ(copied[i].name, "");
      EXPECT_TRUE(copied[i].bytes.empty());
    } else {
      EXPECT_EQ(copied[i].name, original[i].name);
      EXPECT_TRUE(copied[i].bytes == original[i].bytes);
    }
  }
  EXPECT_GT(dwarf, 0u);
  EXPECT_EQ(DebugFileBuildId(copy), ElfBuildId(libc_));
  // Both kinds live side by side, and neither removes the other.
  const std::string decompressed = copies.CopyOf(debug_file_, &why);
  ASSERT_FALSE(decompressed.empty()) << why;
  EXPECT_NE(decompressed, copy);
  EXPECT_TRUE(fs::exists(copy));
  EXPECT_EQ(copies.CopyOf("/bin/true", &why, DebugFileCopies::Kind::kSymbols), "");
  EXPECT_NE(why.find("has no DWARF"), std::string::npos) << why;
}

TEST_F(DebugFileCopiesTest, ACopyIsMadeOncePerVersionOfItsFile) {
  // A debug root of this test's own, so that its file can change.
  const std::string root = cache_.path() + "/root";
  const std::string id = ElfBuildId(libc_);
  const std::string file = root + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
  fs::create_directories(fs::path(file).parent_path());
  fs::copy_file(debug_file_, file);
  DebugFileCopies copies(cache_.path() + "/debug", root);
  const std::vector<FileInPlace> first = copies.For({libc_});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].path, file);
  const auto made = fs::last_write_time(first[0].source);
  // Another workgate finds the copy as it is.
  DebugFileCopies again(cache_.path() + "/debug", root);
  EXPECT_EQ(again.CopyOf(file), first[0].source);
  EXPECT_EQ(fs::last_write_time(first[0].source), made);
  // An upgraded package's file: a copy of its own, the old one gone.
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::hours(1));
  DebugFileCopies upgraded(cache_.path() + "/debug", root);
  const std::string newer = upgraded.CopyOf(file);
  ASSERT_FALSE(newer.empty());
  EXPECT_NE(newer, first[0].source);
  EXPECT_FALSE(fs::exists(first[0].source));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(cache_.path() + "/debug")) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST_F(DebugFileCopiesTest, WhatARunOpenedIsRememberedForLaterRuns) {
  DebugFileCopies copies(cache_.path() + "/debug");
  EXPECT_TRUE(copies.For({}).empty());
  EXPECT_TRUE(copies.For({"/nonexistent", "/proc/self/status"}).empty());
  // A FIFO among the files a run opened is passed over, not opened.
  const std::string fifo = cache_.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  copies.Remember({fifo, "/nonexistent", libc_});
  const std::vector<FileInPlace> later = copies.For({});
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].path, debug_file_);
  EXPECT_EQ(copies.For({libc_}).size(), 1u);
}

TEST(DebugFileCopiesWithoutCompressionTest, AFileWithNothingCompressedGetsNoCopy) {
  TempDir cache;
  DebugFileCopies copies(cache.path() + "/debug");
  std::string why;
  EXPECT_EQ(copies.CopyOf(testing::KnownLoop(), &why), "");
  EXPECT_NE(why.find("no compressed section"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(cache.path() + "/debug"));
  EXPECT_EQ(copies.CopyOf("/nonexistent.debug", &why), "");
  EXPECT_NE(why.find("is not a file"), std::string::npos) << why;
}

}  // namespace
}  // namespace workgate
